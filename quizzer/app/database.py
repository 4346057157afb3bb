"""The database as a whole: which file it is, its backups (taken, listed, restored), its check and
its copy into another database. The automatic backups are ``open_collection``'s; these are the
ones asked for."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from quizzer.base import clock
from quizzer.store import backup
from quizzer.store.backup import Backup, reviews_in
from quizzer.base.errors import BackupError, QuizError, SchemaMismatch, UsageError
from quizzer.base.i18n import _
from quizzer.settings import Settings

if TYPE_CHECKING:
    from quizzer.store import Store

__all__ = ["Backup", "Checked", "Copied", "Found", "Restored", "check", "copy_into", "database_file", "file_of",
           "find_backup", "list_backups", "restore", "reviews_in", "take_backup"]
NAME_SHOWN_UP_TO = 80  # characters of a backup name said back in an error


def database_file(location: str | Path | None, learner: str | None) -> Path:
    """The SQLite file of the database at ``location`` (None: the default one); a UsageError for a
    database server, whose own backups apply."""
    from quizzer.store import learner_name
    from quizzer.store.postgres import learner_schema
    from quizzer.store.urls import resolve, shown_url

    url, path = resolve(location)
    if path is None:
        schema = learner_schema(learner_name(learner, url))
        raise UsageError(_("{where} is a database server: its own backups apply (pg_dump); "
                           "`quiz backup` is for SQLite database files").format(where=shown_url(url)),
                         _("one learner's collection is the schema {schema}: `pg_dump --schema='\"{schema}\"'` saves it and "
                           "pg_restore brings it back; `quiz db copy --to FILE` keeps it in a file").format(schema=schema))
    return path


def take_backup(path: Path) -> Path:
    """Back the database file up now; the backup's file."""
    return backup.backup_now(path, clock.wall())


def list_backups(path: Path) -> list[Backup]:
    """The backups of the database file, newest first."""
    return backup.list_backups(path)


@dataclass(frozen=True)
class Found:
    """The backup a restore puts in place; ``taken_at``: None for a file that is not one of the listed backups."""

    path: Path
    taken_at: datetime | None


def find_backup(path: Path, which: str) -> Found:
    """The backup ``which`` names: a listed backup's name, a file, or ``latest`` (the newest but the
    copies restores took of the database they replaced); BackupError when there is none."""
    backups = backup.list_backups(path)
    listed = {item.path.name: item.path for item in backups}
    newest = backup.latest(backups)
    chosen = newest.path if which == "latest" and newest else listed.get(which, Path(which))
    try:
        found = chosen.is_file()
    except OSError:  # a name too long for a file name, a folder it cannot enter: no such backup either
        found = False
    if not found:
        shown = which if len(which) <= NAME_SHOWN_UP_TO else which[:NAME_SHOWN_UP_TO - 1] + "…"
        raise BackupError(_("no backup '{name}'").format(name=shown), _("`quiz backup list` shows them"))
    return Found(chosen, next((item.taken_at for item in backups if item.path == chosen), None))


@dataclass(frozen=True)
class Restored:
    """``saved``: the database the restore replaced, kept as a backup (None: there was none);
    ``reviews``: the reviews the database holds now (None: unknown)."""

    saved: Path | None
    reviews: int | None


def restore(found: Found, path: Path, ask: Callable[[], None] | None = None) -> Restored:
    """Put the backup in place of the database file, the database backed up first; ``ask`` is
    called before anything changes (it raises to stop)."""
    saved = backup.restore(found.path, path, clock.wall(), ask)
    return Restored(saved, reviews_in(path))


@dataclass(frozen=True)
class Checked:
    """What ``check`` found broken; ``summary_rebuilt``: the statistics' summary of the review log
    no longer matched it (derived data, put right, not a problem to fix)."""

    problems: list[str] = field(default_factory=list)
    summary_rebuilt: bool = False


def check(location: str | Path | None, learner: str | None, opened: Callable[[str | Path | None, str | None], Store]
          ) -> Checked:
    """SQLite's integrity and foreign keys (a file), then the collection's rules, on the database
    ``opened(location, learner)`` opens. A damaged file is not opened, nor a missing one created."""
    from quizzer.store import review_days
    from quizzer.store.check import problems as broken_rules
    path = file_of(location)
    problems: list[str] = []
    keys: list[str] = []  # rows of a missing card: reported with the rules, which they do not stop
    if path is not None:
        problems, keys = backup.examine(path)
    if problems:
        return Checked(problems)
    try:
        store = opened(location, learner)
    except SchemaMismatch as err:  # a table gone: the problem to report, where any other command stops
        return Checked(keys + err.problems)
    try:
        return Checked(keys + broken_rules(store), not review_days.agrees(store))
    finally:
        store.close()


def file_of(location: str | Path | None) -> Path | None:
    """The SQLite file a ``--db``/``--to`` value names (None: a database server); no value: the default database."""
    from quizzer.store.urls import resolve

    return resolve(location)[1]


@dataclass(frozen=True)
class Copied:
    """Where the collection went, the rows copied per table, and the reviewed cards whose memory
    replays the same from the copy."""

    destination: str
    rows: dict[str, int]
    replayed: int


def copy_into(source: Store, to: str, settings: Settings) -> Copied:
    """The whole collection of ``source`` into the empty database ``to`` (a file or a server URL),
    all or nothing, checked row by row. A file is written whole under a temporary name, checked
    once closed (integrity, schema, row counts) and only then renamed to ``to``
    (``store.copy.copy_to_file``): a copy that failed or was killed leaves nothing under ``to``."""
    from quizzer.scheduling.answer import replaying
    from quizzer.scheduling.learner import schedule_of
    from quizzer.store import open_store
    from quizzer.store.copy import copy_collection, copy_to_file

    def opened(target: str) -> Store:
        try:
            return open_store(target, settings.learner)
        except QuizError as err:  # the store's words name the source's option
            if err.hint:
                err.hint = err.shown_hint.replace("--db / QUIZ_DB", "--to")
            raise

    schedule = schedule_of(source, settings)
    decide = replaying(source, schedule.scheduler, settings.day_start_hour, schedule.interview)
    path = file_of(to)
    if path is not None:
        result = copy_to_file(source, path, opened, decide)
        return Copied(str(path), result.rows, result.replayed)
    target = opened(to)
    try:
        result = copy_collection(source, target, decide)
        destination = target.display_name
    finally:
        target.close()
    return Copied(destination, result.rows, result.replayed)
