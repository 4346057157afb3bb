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

Failures raise ``quizzer.base.errors.BackupError`` naming the files: a backup that
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

from quizzer.base import clock
from quizzer.base.clock import ROLLOVER_HOUR, study_day
from quizzer.base.errors import BackupError, UntrustedBackup
from quizzer.base.files import JOURNALS, one_line, remove_database, replaced, write_failure
from quizzer.store.locks import busy_timeout_ms, locked
from quizzer.base.i18n import _, join_some

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
    """Copy the database now: written under a temporary name, read back and checked against the
    database (``settle``), then renamed, so an interrupted or failed backup never looks like a
    finished one. A failed copy leaves no file behind and raises BackupError naming the cause."""
    db_path = Path(db_path)
    if not db_path.is_file():
        raise BackupError(_("cannot back up {path}: no such database file").format(path=db_path))
    folder = backup_dir(db_path)
    stamp = now.astimezone(timezone.utc).strftime(_STAMP)
    mark = _BEFORE_RESTORE if before_restore else ""
    dest = folder / f"{db_path.stem}-{stamp}{mark}.db"
    try:
        _writable(folder)
        n = 1
        while dest.exists():
            dest = folder / f"{db_path.stem}-{stamp}-{n}{mark}.db"
            n += 1
        with replaced(dest) as partial:
            settle(partial, _copy(db_path, partial))
    except (OSError, sqlite3.Error) as exc:
        reason, hint = write_failure(exc)
        raise BackupError(_("backup of {path} into {folder} failed: {reason}").format(path=db_path, folder=folder, reason=reason),
                          _join(hint, _("the database itself is unchanged"))) from exc
    return dest


@dataclass(frozen=True)
class Snapshot:
    """What a SQLite database holds, to compare a copy with: its schema objects and each table's rows."""

    objects: frozenset[tuple[str, str]]  # (type, name), SQLite's own left out
    rows: dict[str, int]  # by table


def _snapshot(conn: sqlite3.Connection) -> Snapshot:
    objects = frozenset(conn.execute("SELECT type, name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'").fetchall())
    quoted = {name: '"' + name.replace('"', '""') + '"' for kind, name in objects if kind == "table"}
    return Snapshot(objects, {name: int(conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0])
                              for name, table in quoted.items()})


def settle(copy: Path, expected: Snapshot) -> None:
    """Fold the SQLite file ``copy``'s write-ahead log into it (it is left in rollback-journal
    mode: one file holds all), then read the closed file back: SQLite's integrity check, the
    schema objects of ``expected`` and its tables' rows. OSError or sqlite3.Error names what failed."""
    with closing(sqlite3.connect(copy)) as conn:
        mode = conn.execute("PRAGMA journal_mode = DELETE").fetchone()[0]  # a full disk fails here, not at close
    if mode != "delete" or any(copy.with_name(copy.name + suffix).exists() for suffix in JOURNALS):
        raise OSError(errno.EIO, _("its write-ahead log could not be folded into it"))
    with closing(sqlite3.connect(f"file:{copy}?mode=ro", uri=True)) as conn:
        damage = [row[0] for row in conn.execute("PRAGMA integrity_check") if row[0] != "ok"]
        if damage:
            raise OSError(errno.EIO, _("the copy read back is damaged: {problem}").format(problem=one_line(damage[0])))
        found = _snapshot(conn)
    if found.objects != expected.objects:
        raise OSError(errno.EIO, _("the copy read back does not hold the source's schema"))
    for table, rows in expected.rows.items():
        if found.rows.get(table) != rows:
            raise OSError(errno.EIO, _("the copy read back holds {found} rows of {table}, the source {rows}").format(
                found=found.rows.get(table, 0), table=table, rows=rows))


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
            reason, hint = write_failure(exc)
            raise BackupError(_("not restoring {backup} over {path}: the database cannot be saved first, as the backups "
                                "folder {folder} cannot be written: {reason}").format(
                backup=backup, path=db_path, folder=backup_dir(db_path), reason=reason),
                _join(hint, _("the database is unchanged"))) from exc
    why = _damage(backup)
    if why:
        raise BackupError(_("not restoring {backup} over {path}: {why}").format(backup=backup, path=db_path, why=why),
                          _("`quiz backup list` lists the other backups; the database is unchanged"))
    why = _foreign(backup)
    if why:
        raise UntrustedBackup(_("not restoring {backup} over {path}: {why}").format(backup=backup, path=db_path, why=why),
                              _("it holds what quizzer does not put there: `quiz backup list` lists the other backups; "
                                "the database is unchanged"))
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
        reason, hint = write_failure(exc)
        raise BackupError(_("restoring {backup} over {path} failed: {reason}").format(backup=backup, path=db_path, reason=reason),
                          _join(hint, safety and _("the database as it was is saved as {file}").format(file=safety))) from exc
    return safety


def _damage(backup: Path) -> str | None:
    """Why ``backup`` cannot be restored as it is: damaged, no quizzer database, or newer than this quizzer."""
    problems = check(backup)
    if problems:
        return _("the backup is damaged ({problem}{more})").format(problem=one_line(problems[0]), more=_more(problems))
    if not _has_version_table(backup):
        return _("the backup has no alembic_version table, so it is not a quizzer database")
    if not _known_schema(backup):
        return _("its schema is newer than this quizzer knows (upgrade quizzer to use it)")
    return None


def _foreign(backup: Path) -> str | None:
    """What ``backup`` holds that quizzer did not put there: a schema object its revision does not
    have (a trigger runs on every write), or rows ``quiz check`` flags."""
    from quizzer.store.check import file_problems
    from quizzer.store.revisions import stamp_mismatch

    why = stamp_mismatch(backup)
    if why:
        return why
    flagged = file_problems(backup)
    if flagged:
        return _("`quiz check` would flag its rows ({problem}{more})").format(problem=flagged[0], more=_more(flagged))
    return None


def _more(problems: list[str]) -> str:
    """How many problems follow the first one shown ("; and 2 more problems"), or nothing."""
    return _("; and {count} more problems").format(count=len(problems) - 1) if len(problems) > 1 else ""


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
        reason, hint = write_failure(exc)
        raise BackupError(_("cannot set the damaged {path} aside in {folder}: {reason}").format(path=db_path, folder=folder, reason=reason),
                          _join(hint, _("the database is unchanged"))) from exc
    return dest


def _replace(backup: Path, db_path: Path) -> None:
    """Put a copy of ``backup`` in place of a damaged ``db_path`` (which SQLite cannot write into)."""
    with replaced(db_path) as fresh:
        _copy(backup, fresh)
        for suffix in ("-wal", "-shm"):  # the damaged file's, set aside already; stale for the new one
            db_path.with_name(db_path.name + suffix).unlink(missing_ok=True)


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


def _copy(source: Path, dest: Path) -> Snapshot:
    """``source`` copied into ``dest`` through SQLite; what the copy must hold (read in the same
    snapshot of ``source`` as the copy). Another process's write lock on ``dest`` is waited for as
    the store waits for one (the busy timeout), then the copy gives up with DatabaseBusy:
    sqlite3's ``backup`` alone retries a busy step for ever."""
    wait_ms = busy_timeout_ms()
    deadline = time.monotonic() + wait_ms / 1000

    def given_up(status: int, remaining: int, total: int) -> None:
        if status in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED) and time.monotonic() >= deadline:
            raise locked(dest)

    with closing(sqlite3.connect(source)) as src, closing(sqlite3.connect(dest)) as dst:
        dst.execute(f"PRAGMA busy_timeout = {wait_ms}")
        src.execute("BEGIN")  # one snapshot for the counts and the copy, whoever writes meanwhile
        taken = _snapshot(src)
        src.backup(dst, progress=given_up, sleep=0.05)
        src.rollback()
    return taken


def _known_schema(db_path: Path) -> bool:
    """Whether this quizzer knows the file's schema version (one it can open or upgrade)."""
    from quizzer.store.revisions import known_revision

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


def _join(*hints: object) -> str | None:
    """Hints joined into one, None when there are none (with the interface language's
    semicolon: "重试; 数据库" had an ASCII one)."""
    from functools import reduce

    given = [str(h) for h in hints if h]
    return reduce(lambda first, second: _("{first}; {second}").format(first=first, second=second), given) if given else None
