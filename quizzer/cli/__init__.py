"""The ``quiz`` command line: one module per command (or group) in this package, each a few
lines over the application layer (``quizzer.app``) and the terminal front end
(``quizzer.terminal``). Every module here is imported to register its commands; they import
nothing heavy at module level, so ``quiz --help`` stays instant."""

from __future__ import annotations

import gc
import importlib
import pkgutil

# A command is a short process that builds tens of thousands of objects (modules, a large deck's
# index, store records) and frees them at exit: the collector's default of a pass every 700 new
# objects spends 40-60 ms per command walking them, to find cycles that do not matter here.
gc.set_threshold(50_000)

from quizzer.cli.base import app  # after the threshold: the imports make most of those objects

for _module in pkgutil.iter_modules(__path__):
    importlib.import_module(f"{__name__}.{_module.name}")


def main() -> None:
    app()


__all__ = ["app", "main"]
