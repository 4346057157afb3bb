"""The ``quiz`` command line: one module per command, each a few lines over the application
layer (``quizzer.app``) and the terminal front end (``quizzer.terminal``)."""

from __future__ import annotations

from quizzer.cli import (  # noqa: F401  (registers)
    backup,
    card,
    checkers,
    decks,
    exam,
    lint,
    mistakes,
    overview,
    study,
)
from quizzer.cli.base import app


def main() -> None:
    app()


__all__ = ["app", "main"]
