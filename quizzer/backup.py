"""Anki-style backups of the SQLite database file.

Backups are whole-database copies made with SQLite's online backup API
(consistent even while other processes use the database) into ``backups/``
beside the database, named ``<db stem>-<UTC time>.db``; the copy a restore takes of the
database it replaces ends ``-before-restore.db`` (listed, but never ``latest``).  The time in the
name, not the file's mtime, is the backup's age (the callers give the real
time: a clock pinned by ``QUIZ_NOW`` neither names nor thins backups).

Thinning (``thin``), by study day of the backup relative to the study day of
``now``:
  * the current study day (and anything stamped later): every backup is kept;
  * 1-7 days old: the newest backup of each study day;
  * 8-30 days old: the newest backup of each ISO week;
  * older: the newest backup of each calendar month, kept indefinitely.

Failures raise ``quizzer.errors.BackupError`` naming the files: a backup that
cannot be written (disk full, no permission) leaves no ``.partial`` file behind,
and a damaged backup is never restored.
"""

from __future__ import annotations

import errno
import os
import re
import shutil
import sqlite3
import time
from contextlib import closing
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path

from quizzer import clock
from quizzer.clock import ROLLOVER_HOUR, study_day
from quizzer.errors import BackupError, os_reason
from quizzer.locks import busy_timeout_ms, locked
from quizzer.i18n import N_, _, join_some

BACKUP_EVERY = timedelta(minutes=30)
_STAMP = "%Y%m%dT%H%M%S%fZ"
_BEFORE_RESTORE = "-before-restore"
_NAME = re.compile(r"^(?P<stem>.+)-(?P<stamp>\d{8}T\d{12}Z)(?:-(?P<n>\d+))?(?P<before_restore>-before-restore)?\.db$")


@dataclass(frozen=True)
class Backup:
    path: Path
    taken_at: datetime  # UTC
    before_restore: bool = False  # the database a restore replaced: its undo, not what `latest` means


def backup_dir(db_path: Path) -> Path:
    return Path(db_path).parent / "backups"


def list_backups(db_path: Path) -> list[Backup]:
    """Backups of ``db_path``, newest first."""
    folder = backup_dir(db_path)
    if not folder.is_dir():
        return []
    found = []
    for path in folder.iterdir():
        match = _NAME.match(path.name)
        if match and match["stem"] == Path(db_path).stem and path.is_file():
            try:
                taken = datetime.strptime(match["stamp"], _STAMP).replace(tzinfo=timezone.utc)
            except ValueError:  # named like one, with no real time in it: not ours
                continue
            found.append(Backup(path, taken, bool(match["before_restore"])))
    return sorted(found, key=lambda b: (b.taken_at, b.path.name), reverse=True)


def latest(backups: list[Backup]) -> Backup | None:
    """What `latest` means: the newest backup that is not a restore's copy of the database it
    replaced (that one, right after a restore, would undo it)."""
    return next((item for item in backups if not item.before_restore), None)


def backup_now(db_path: Path, now: datetime, before_restore: bool = False) -> Path:
    """Copy the database now; written under a temporary name and renamed, so an
    interrupted backup never looks like a finished one.  A failed copy removes
    its ``.partial`` file and raises BackupError."""
    db_path = Path(db_path)
    if not db_path.is_file():
        raise BackupError(_("cannot back up {path}: no such database file").format(path=db_path))
    folder = backup_dir(db_path)
    stamp = now.astimezone(timezone.utc).strftime(_STAMP)
    mark = _BEFORE_RESTORE if before_restore else ""
    dest = folder / f"{db_path.stem}-{stamp}{mark}.db"
    partial = dest.with_name(dest.name + ".partial")
    try:
        _writable(folder)
        n = 1
        while dest.exists():
            dest = folder / f"{db_path.stem}-{stamp}-{n}{mark}.db"
            n += 1
        partial = dest.with_name(dest.name + ".partial")
        _copy(db_path, partial)
        partial.replace(dest)
    except (OSError, sqlite3.Error) as exc:
        remove_database(partial)
        reason, hint = _reason(exc)
        raise BackupError(_("backup of {path} into {folder} failed: {reason}").format(path=db_path, folder=folder, reason=reason),
                          _join(hint, _("the database itself is unchanged"))) from exc
    return dest


def _writable(folder: Path) -> None:
    """Make ``folder`` if it is not there; PermissionError if it cannot be written, where SQLite
    would only say "unable to open database file" (of a backup to read, too: it must put -shm there)."""
    folder.mkdir(parents=True, exist_ok=True)
    if not os.access(folder, os.W_OK | os.X_OK):
        raise PermissionError(errno.EACCES, "the folder is read-only", str(folder))


def maybe_backup(db_path: Path, now: datetime, rollover_hour: int = ROLLOVER_HOUR,
                 every: timedelta = BACKUP_EVERY) -> Path | None:
    """Back up if the newest backup is at least ``every`` old, then thin (by the learner's study
    days); None if skipped."""
    if not Path(db_path).exists():
        return None
    backups = list_backups(db_path)
    if backups and now - backups[0].taken_at < every:
        return None
    path = backup_now(db_path, now)
    thin(db_path, now, rollover_hour)
    return path


def thin(db_path: Path, now: datetime, rollover_hour: int = ROLLOVER_HOUR) -> list[Path]:
    """Delete backups the retention rule (module docstring) does not keep; returns them."""
    today = study_day(now, rollover_hour)
    kept: set[object] = set()
    removed = []
    for backup in list_backups(db_path):  # newest first: the first in a bucket wins
        day = study_day(backup.taken_at, rollover_hour)
        age = (today - day).days
        if age <= 0:
            bucket: object = backup.path
        elif age <= 7:
            bucket = ("day", day)
        elif age <= 30:
            bucket = ("week", day.isocalendar()[:2])
        else:
            bucket = ("month", day.year, day.month)
        if bucket in kept:
            backup.path.unlink()
            removed.append(backup.path)
        else:
            kept.add(bucket)
    return removed


def restore(backup: Path, db_path: Path, now: datetime | None = None, ask: Callable[[], None] | None = None) -> Path | None:
    """Replace the database's content with ``backup``; the current database is
    backed up first (returned), so a restore can itself be undone. ``ask`` is called once the
    backup is found fit, before anything changes: it stops the restore by raising."""
    now = clock.wall() if now is None else now
    backup, db_path = Path(backup), Path(db_path)
    if db_path.exists() and backup.exists() and os.path.samefile(backup, db_path):
        raise BackupError(_("not restoring {backup}: it is the database itself").format(backup=backup),
                          _("`quiz backup list` lists the backups; the database is unchanged"))
    # the database is saved first, into backups/: a folder that cannot be written is said as such (a backup in it
    # cannot even be read, as SQLite puts its -shm beside it, and was called damaged)
    if db_path.exists():
        try:
            _writable(backup_dir(db_path))
        except OSError as exc:
            reason, hint = _reason(exc)
            raise BackupError(_("not restoring {backup} over {path}: the database cannot be saved first, as the backups "
                                "folder {folder} cannot be written: {reason}").format(
                backup=backup, path=db_path, folder=backup_dir(db_path), reason=reason),
                _join(hint, _("the database is unchanged"))) from exc
    why = None
    problems = check(backup)
    if problems:
        more = _("; and {count} more problems").format(count=len(problems) - 1) if len(problems) > 1 else ""
        why = _("the backup is damaged ({problem}{more})").format(problem=_one_line(problems[0]), more=more)
    elif not _has_version_table(backup):
        why = _("the backup has no alembic_version table, so it is not a quizzer database")
    elif not _known_schema(backup):
        why = _("its schema is newer than this quizzer knows (upgrade quizzer to use it)")
    else:
        from quizzer.store.schema import stamp_mismatch

        why = stamp_mismatch(backup)
    if why:
        raise BackupError(_("not restoring {backup} over {path}: {why}").format(backup=backup, path=db_path, why=why),
                          _("`quiz backup list` lists the other backups; the database is unchanged"))
    if db_path.exists() and not db_path.is_file():
        raise BackupError(_("not restoring {backup} over {path}: that is not a database file").format(backup=backup, path=db_path),
                          _("correct --db / QUIZ_DB"))
    if ask is not None:
        ask()
    damaged = db_path.exists() and bool(check(db_path))
    if not db_path.exists():
        safety = None
    elif damaged:  # SQLite cannot copy it: keep its bytes aside, out of the backup list
        safety = _set_aside(db_path, now)
    else:
        safety = backup_now(db_path, now, before_restore=True)
    try:
        if damaged:
            _replace(backup, db_path)
        else:
            _copy(backup, db_path)  # through SQLite: safe while other processes have it open
    except (OSError, sqlite3.Error) as exc:
        reason, hint = _reason(exc)
        raise BackupError(_("restoring {backup} over {path} failed: {reason}").format(backup=backup, path=db_path, reason=reason),
                          _join(hint, safety and _("the database as it was is saved as {file}").format(file=safety))) from exc
    return safety


def _set_aside(db_path: Path, now: datetime) -> Path:
    """A byte copy of a damaged database (and its -wal) in ``backups/``, named so that
    ``list_backups`` leaves it out: ``restore latest`` must never pick it."""
    folder = backup_dir(db_path)
    dest = folder / f"{db_path.stem}-{now.astimezone(timezone.utc).strftime(_STAMP)}-damaged.db"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(db_path, dest)
        wal = db_path.with_name(db_path.name + "-wal")
        if wal.is_file():
            shutil.copyfile(wal, dest.with_name(dest.name + "-wal"))
    except OSError as exc:
        remove_database(dest)
        reason, hint = _reason(exc)
        raise BackupError(_("cannot set the damaged {path} aside in {folder}: {reason}").format(path=db_path, folder=folder, reason=reason),
                          _join(hint, _("the database is unchanged"))) from exc
    return dest


def _replace(backup: Path, db_path: Path) -> None:
    """Put a copy of ``backup`` in place of a damaged ``db_path`` (which SQLite cannot write into)."""
    fresh = db_path.with_name(db_path.name + ".restoring")
    try:
        _copy(backup, fresh)
        for suffix in ("-wal", "-shm"):  # the damaged file's, set aside already; stale for the new one
            db_path.with_name(db_path.name + suffix).unlink(missing_ok=True)
        fresh.replace(db_path)
    except BaseException:
        remove_database(fresh)
        raise


def check(db_path: Path) -> list[str]:
    """Problems found by integrity_check and foreign_key_check; empty when healthy."""
    damage, keys = examine(db_path)
    return damage + keys


def examine(db_path: Path) -> tuple[list[str], list[str]]:
    """The file's damage (integrity_check's problems, or why it cannot be read as a database),
    and the rows foreign_key_check finds referring to none. Apart for ``quiz check``: a damaged
    file is not opened, while a dangling key leaves the collection's rules to be checked too."""
    if not Path(db_path).is_file():  # a folder, a device or a FIFO is there, or nothing
        return [_("{path}: no such file").format(path=db_path) if not os.path.lexists(db_path)
                else _("{path}: not a regular file").format(path=db_path)], []
    if Path(db_path).stat().st_size == 0:  # SQLite would take it for a new database, and a store fill it
        return [_("{path} is empty (0 bytes), not a database: a copy or sync of it may have been cut short").format(
            path=db_path)], []
    try:
        with closing(sqlite3.connect(db_path)) as conn:
            damage = [row[0] for row in conn.execute("PRAGMA integrity_check") if row[0] != "ok"]
            dangling: dict[tuple[str, str], list[str]] = {}  # a line per table and parent, not per row
            for table, rowid, parent, _key in conn.execute("PRAGMA foreign_key_check"):
                dangling.setdefault((table, parent), []).append(str(rowid))
            keys = [_("foreign key: {table} rows referring to a missing {parent} row: {rows}").format(
                table=table, parent=parent, rows=join_some(rows)) for (table, parent), rows in dangling.items()]
    except sqlite3.DatabaseError as exc:  # not a database, or damaged: said as the store says it, translated
        from quizzer.store.errors import database_error

        known = database_error(exc, str(db_path))
        return [known.message if known is not None else f"{db_path}: {exc}"], []
    return damage, keys


def reviews_in(db_path: Path) -> int | None:
    """How many reviews the SQLite file holds; None when it cannot say (no such file, damaged,
    not a collection): ``backup restore`` says what it puts in place of what."""
    if not Path(db_path).is_file():  # sqlite3 would create it
        return None
    try:
        with closing(sqlite3.connect(db_path)) as conn:
            return int(conn.execute("SELECT count(*) FROM review_log").fetchone()[0])
    except sqlite3.Error:
        return None


def _copy(source: Path, dest: Path) -> None:
    """``source`` copied into ``dest`` through SQLite. Another process's write lock on ``dest``
    is waited for as the store waits for one (the busy timeout), then the copy gives up with
    DatabaseBusy: sqlite3's ``backup`` alone retries a busy step for ever."""
    wait_ms = busy_timeout_ms()
    deadline = time.monotonic() + wait_ms / 1000

    def given_up(status: int, remaining: int, total: int) -> None:
        if status in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED) and time.monotonic() >= deadline:
            raise locked(dest)

    with closing(sqlite3.connect(source)) as src, closing(sqlite3.connect(dest)) as dst:
        dst.execute(f"PRAGMA busy_timeout = {wait_ms}")
        src.backup(dst, progress=given_up, sleep=0.05)


def _known_schema(db_path: Path) -> bool:
    """Whether this quizzer knows the file's schema version (one it can open or upgrade)."""
    from quizzer.store.schema import known_revision

    with closing(sqlite3.connect(db_path)) as conn:
        version = conn.execute("SELECT version_num FROM alembic_version").fetchone()
    return version is None or known_revision(version[0])


def _has_version_table(db_path: Path) -> bool:
    try:
        with closing(sqlite3.connect(db_path)) as conn:
            row = conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'alembic_version'").fetchone()
    except sqlite3.Error:
        return False
    return row is not None


def remove_database(path: Path) -> None:
    """Delete a failed copy and any journal SQLite left beside it (what cannot be deleted stays)."""
    for leftover in (path, *(path.with_name(path.name + suffix) for suffix in ("-journal", "-wal", "-shm"))):
        try:
            leftover.unlink(missing_ok=True)
        except OSError:
            pass


_SQLITE_FULL, _SQLITE_READONLY = 13, 8  # SQLite's primary result codes
_FULL_HINT = N_("free some disk space and try again")
_PERMISSION_HINT = N_("make the folder writable and try again")


def _reason(exc: BaseException) -> tuple[str, str | None]:
    """Why a copy failed, in a few words (the disk is full, no permission, or the error's
    own text), and what to do about it when that is clear."""
    if isinstance(exc, OSError):
        if exc.errno in (errno.ENOSPC, errno.EDQUOT):
            return _("the disk is full"), _(_FULL_HINT)
        if isinstance(exc, PermissionError) or exc.errno == errno.EROFS:
            return _("no permission to write: {reason}").format(reason=os_reason(exc)), _(_PERMISSION_HINT)
        return _one_line(_("{reason}: {file}").format(reason=os_reason(exc), file=exc.filename) if exc.filename
                         else os_reason(exc)), None
    code = getattr(exc, "sqlite_errorcode", None)  # Python 3.11+; else SQLite's message
    primary = code & 0xFF if code is not None else None
    if primary == _SQLITE_FULL or "database or disk is full" in str(exc):
        return _("the disk is full"), _(_FULL_HINT)
    if primary == _SQLITE_READONLY or "readonly database" in str(exc):  # SQLite's own English said nothing more
        return _("no permission to write"), _(_PERMISSION_HINT)
    return _one_line(str(exc)), None


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _join(*hints: object) -> str | None:
    """Hints joined into one, None when there are none (with the interface language's
    semicolon: "重试; 数据库" had an ASCII one)."""
    from functools import reduce

    given = [str(h) for h in hints if h]
    return reduce(lambda first, second: _("{first}; {second}").format(first=first, second=second), given) if given else None
