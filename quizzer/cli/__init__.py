"""The ``quiz`` command line: one module per command (or group) in this package, each a few
lines over the application layer (``quizzer.app``) and the terminal front end
(``quizzer.terminal``). ``quizzer.cli.base.COMMANDS`` names the module of each command, which
is imported when that command runs or the help lists it, so ``quiz --help`` and a single
command start quickly."""

from __future__ import annotations

from typing import NoReturn

from quizzer.cli.process import buffer_output, collect_rarely, exit_quickly, hide_typed_ahead

hide_typed_ahead()  # first: keys typed from here on are not echoed (the imports below take a tenth of a second)
collect_rarely()

from quizzer.cli.base import app  # noqa: E402  # after the threshold: the imports make most of the objects
from quizzer.cli.boundary import report  # noqa: E402
from quizzer.base.errors import UsageError  # noqa: E402
from quizzer.base.i18n import _  # noqa: E402


def main() -> None:
    """Run ``quiz``."""
    import sys

    if sys.stdout is None:  # `>&-`: every command writes there, and would fail half-way through
        closed = UsageError(_("standard output is closed: there is nowhere to write"))
        report(closed)
        raise SystemExit(int(closed.exit_code))
    buffer_output()
    app()


def run() -> NoReturn:
    """The ``quiz`` program: ``main``, then a quick exit (``quizzer.cli.process``)."""
    exit_quickly(main)


__all__ = ["app", "main", "run"]
