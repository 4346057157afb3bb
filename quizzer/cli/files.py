"""The output-file guard: a file the learner names for a command to write is never one of the
learner's own files that the write would destroy."""

from __future__ import annotations

from pathlib import Path

import typer

from quizzer.cli.context import current


def output_file(ctx: typer.Context, path: Path, db: Path | None = None, decks: Path | None = None, *,
                deck_file: bool = False) -> Path:
    """``path`` if a command may write it (``quizzer.app.own_files``: none of the learner's own
    files, with this run's database, deck folders and settings file). Every command that writes
    a file the learner names asks here first."""
    from quizzer.app.own_files import refuse_own_file

    run = current(ctx)
    chosen = run.locations(decks, db)
    refuse_own_file(path, chosen.db, chosen.decks, run.config.path, deck_file=deck_file)
    return path
