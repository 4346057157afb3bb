"""The learner's own files, which no file a command writes may replace: the database and its
journals, the backups, the settings file, the deck folders in use."""

from __future__ import annotations

import os
from pathlib import Path

from quizzer.base.errors import UsageError
from quizzer.base.i18n import _


def refuse_own_file(path: Path, db: str | Path | None, decks: Path | None, settings_file: Path, *,
                    deck_file: bool = False) -> None:
    """UsageError unless ``path`` is a file name, not a folder, and none of the learner's own files
    that a write would destroy: the database ``db`` or its journal files, a file in its backups
    folder, ``settings_file``, a file in a deck folder in use (``decks``: --decks, else QUIZ_DECKS,
    else the bundled ones; each .yaml there is read as a deck). ``deck_file``: writing a deck
    there is the command's purpose (``import chapter --out`` adds to one)."""
    from quizzer.store.backup import backup_dir
    from quizzer.decks import DECK_SUFFIXES
    from quizzer.base.locations import deck_dirs
    from quizzer.store.urls import resolve

    if not path.name or path.is_dir():
        raise UsageError(_("{file} is not a file name").format(file=repr(str(path))), _("name the file to write"))
    target, database = _real(path), resolve(db)[1]
    if database is not None and any(_same(target, database.with_name(database.name + suffix))
                                    for suffix in ("", "-wal", "-shm", "-journal")):
        raise UsageError(_("{file} is your database: writing it would destroy the collection").format(file=path),
                         _("name another file"))
    if database is not None and _same(target.parent, _real(backup_dir(database))):
        raise UsageError(_("{file} is in {folder}, the backups of your database: writing there could destroy a "
                           "backup").format(file=path, folder=backup_dir(database)), _("name a file outside that folder"))
    if _same(target, _real(settings_file)) and not _same(target, Path(os.devnull)):
        raise UsageError(_("{file} is your settings file: writing it would lose your settings").format(file=path),
                         _("name another file"))
    for named in [] if deck_file else deck_dirs(decks):  # a folder of decks, or one deck file
        folder = named if named.is_dir() else named.parent
        if _same(target, _real(named)) or (named.is_dir() and target.suffix in DECK_SUFFIXES
                                           and _same(target.parent, _real(named))):
            raise UsageError(_("{file} is in {folder}, the deck folder in use, where every .yaml or .yml file is read as "
                               "a deck").format(file=path, folder=folder), _("name a file outside that folder"))


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
