"""Anki-style backups of the SQLite database file.

Backups are whole-database copies made with SQLite's online backup API
(consistent even while other processes use the database) into ``backups/``
beside the database, named ``<db stem>-<UTC time>.db``.  The time in the
name, not the file's mtime, is the backup's age, so simulated clocks
(``QUIZ_NOW``) behave.

Thinning (``thin``), by study day of the backup relative to the study day of
``now``:
  * the current study day (and anything stamped later): every backup is kept;
  * 1-7 days old: the newest backup of each study day;
  * 8-30 days old: the newest backup of each ISO week;
  * older: the newest backup of each calendar month, kept indefinitely.
"""

from __future__ import annotations

import re
import sqlite3
from contextlib import closing
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path

from quizzer import clock
from quizzer.clock import ROLLOVER_HOUR, study_day

BACKUP_EVERY = timedelta(minutes=30)
_STAMP = "%Y%m%dT%H%M%S%fZ"
_NAME = re.compile(r"^(?P<stem>.+)-(?P<stamp>\d{8}T\d{12}Z)(?:-(?P<n>\d+))?\.db$")


@dataclass(frozen=True)
class Backup:
    path: Path
    taken_at: datetime  # UTC


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
        if match and match["stem"] == Path(db_path).stem:
            taken = datetime.strptime(match["stamp"], _STAMP).replace(tzinfo=timezone.utc)
            found.append(Backup(path, taken))
    return sorted(found, key=lambda b: (b.taken_at, b.path.name), reverse=True)


def backup_now(db_path: Path, now: datetime) -> Path:
    """Copy the database now; written under a temporary name and renamed, so an
    interrupted backup never looks like a finished one."""
    db_path = Path(db_path)
    if not db_path.is_file():
        raise FileNotFoundError(db_path)
    folder = backup_dir(db_path)
    folder.mkdir(parents=True, exist_ok=True)
    stamp = now.astimezone(timezone.utc).strftime(_STAMP)
    dest = folder / f"{db_path.stem}-{stamp}.db"
    n = 1
    while dest.exists():
        dest = folder / f"{db_path.stem}-{stamp}-{n}.db"
        n += 1
    partial = dest.with_name(dest.name + ".partial")
    _copy(db_path, partial)
    partial.replace(dest)
    return dest


def maybe_backup(db_path: Path, now: datetime, every: timedelta = BACKUP_EVERY) -> Path | None:
    """Back up if the newest backup is at least ``every`` old, then thin; None if skipped."""
    if not Path(db_path).exists():
        return None
    backups = list_backups(db_path)
    if backups and now - backups[0].taken_at < every:
        return None
    path = backup_now(db_path, now)
    thin(db_path, now)
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


def restore(backup: Path, db_path: Path, now: datetime | None = None) -> Path | None:
    """Replace the database's content with ``backup``; the current database is
    backed up first (returned), so a restore can itself be undone."""
    now = clock.now() if now is None else now
    problems = check(backup)
    if problems:
        raise ValueError(f"refusing to restore a damaged backup: {problems}")
    safety = backup_now(db_path, now) if Path(db_path).exists() else None
    _copy(Path(backup), Path(db_path))
    return safety


def check(db_path: Path) -> list[str]:
    """Problems found by integrity_check and foreign_key_check; empty when healthy."""
    if not Path(db_path).is_file():
        return [f"{db_path}: no such file"]
    try:
        with closing(sqlite3.connect(db_path)) as conn:
            problems = [row[0] for row in conn.execute("PRAGMA integrity_check") if row[0] != "ok"]
            problems += [
                f"foreign key: {table} row {rowid} refers to a missing {parent} row"
                for table, rowid, parent, _ in conn.execute("PRAGMA foreign_key_check")
            ]
    except sqlite3.DatabaseError as exc:
        return [f"{db_path}: {exc}"]
    return problems


def _copy(source: Path, dest: Path) -> None:
    with closing(sqlite3.connect(source)) as src, closing(sqlite3.connect(dest)) as dst:
        dst.execute("PRAGMA busy_timeout = 10000")
        src.backup(dst)
