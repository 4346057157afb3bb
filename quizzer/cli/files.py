"""The output-file guard: a file the learner names for a command to write is never one of the
learner's own files that the write would destroy."""

from __future__ import annotations

import os
from pathlib import Path

import typer

from quizzer.cli.context import current
from quizzer.errors import UsageError
from quizzer.i18n import _


def output_file(ctx: typer.Context, path: Path, db: Path | None = None, decks: Path | None = None, *,
                deck_file: bool = False) -> Path:
    """``path`` if a command may write it: a file name, not a folder, and none of the learner's own
    files that a write would destroy: the database or its journal files, a file in the deck folder
    in use (each .yaml there is read as a deck), the settings file in use, a file in the backups
    folder. ``deck_file``: writing a deck there is the command's purpose (``import chapter --out``
    adds to one). Every command that writes a file the learner names asks here first."""
    from quizzer.backup import backup_dir
    from quizzer.decks import DECK_SUFFIXES
    from quizzer.locations import deck_dirs
    from quizzer.store.urls import resolve

    if not path.name or path.is_dir():
        raise UsageError(_("{file} is not a file name").format(file=repr(str(path))), _("name the file to write"))
    run = current(ctx)
    chosen = run.locations(decks, db)
    target, database = _real(path), resolve(chosen.db)[1]
    if database is not None and any(_same(target, database.with_name(database.name + suffix))
                                    for suffix in ("", "-wal", "-shm", "-journal")):
        raise UsageError(_("{file} is your database: writing it would destroy the collection").format(file=path),
                         _("name another file"))
    if database is not None and _same(target.parent, _real(backup_dir(database))):
        raise UsageError(_("{file} is in {folder}, the backups of your database: writing there could destroy a "
                           "backup").format(file=path, folder=backup_dir(database)), _("name a file outside that folder"))
    settings_file = run.config.path
    if _same(target, _real(settings_file)) and not _same(target, Path(os.devnull)):
        raise UsageError(_("{file} is your settings file: writing it would lose your settings").format(file=path),
                         _("name another file"))
    for named in [] if deck_file else deck_dirs(chosen.decks):  # a folder of decks, or one deck file
        folder = named if named.is_dir() else named.parent
        if _same(target, _real(named)) or (named.is_dir() and target.suffix in DECK_SUFFIXES
                                           and _same(target.parent, _real(named))):
            raise UsageError(_("{file} is in {folder}, the deck folder in use, where every .yaml or .yml file is read as "
                               "a deck").format(file=path, folder=folder), _("name a file outside that folder"))
    return path


def _real(path: Path) -> Path:
    return Path(os.path.realpath(path))


def _same(one: Path, other: Path) -> bool:
    """The same file or folder: by its real name, or by the file itself where both exist (a hard
    link, a name in another case on a disk that ignores case)."""
    if one == other:
        return True
    try:
        return os.path.samefile(one, other)
    except OSError:
        return False
