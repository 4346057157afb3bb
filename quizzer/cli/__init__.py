"""The ``quiz`` command line: one module per command (or group) in this package, each a few
lines over the application layer (``quizzer.app``) and the terminal front end
(``quizzer.terminal``). Every module here is imported to register its commands; they import
nothing heavy at module level, so ``quiz --help`` stays instant."""

from __future__ import annotations

import importlib
import pkgutil

from quizzer.cli.base import app

for _module in pkgutil.iter_modules(__path__):
    importlib.import_module(f"{__name__}.{_module.name}")


def main() -> None:
    app()


__all__ = ["app", "main"]
