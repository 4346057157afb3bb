"""A SQLite file as a collection: the file and its folder checked before SQLite touches them,
and each connection's hooks (busy timeout, foreign keys, explicit BEGIN [IMMEDIATE], math
functions)."""

from __future__ import annotations

import math
import os
import sqlite3
from pathlib import Path

from sqlalchemy import Engine, event

from quizzer.base.errors import DatabaseError, os_reason
from quizzer.base.i18n import _
from quizzer.store.errors import NOT_SQLITE_HINT, READ_ONLY_HINT

SQLITE_MAGIC = b"SQLite format 3\x00"  # the first 16 bytes of every SQLite 3 database file


def check_location(path: Path, *, create_folder: bool = False) -> None:
    """Refuse, before SQLite opens it, a database file that cannot work; changes nothing.

    Only ``create_folder`` (the default data directory) creates a missing folder: a
    mistyped --db / QUIZ_DB is an error, not a new tree of folders.  Read-only is
    judged by ``os.access``, which also answers for root: a read-only mount (EROFS)
    or an immutable file (EPERM) is refused even though file modes do not bind root.
    """
    folder = path.parent
    if not folder.exists():
        if not create_folder:
            raise DatabaseError(_("{path}: its folder {folder} does not exist").format(path=path, folder=folder),
                                _("create the folder, or correct --db / QUIZ_DB"))
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise DatabaseError(_("{path}: cannot create its folder {folder}: {reason}").format(
                path=path, folder=folder, reason=os_reason(exc))) from exc
    if not folder.is_dir():
        raise DatabaseError(_("{path}: {folder} is not a folder").format(path=path, folder=folder), _("correct --db / QUIZ_DB"))
    if path.is_dir():
        raise DatabaseError(_("{path} is a directory, not a database file").format(path=path),
                            _("point --db / QUIZ_DB at a file, e.g. {example}").format(example=path / "quizzer.db"))
    if path.exists():
        if not path.is_file():
            raise DatabaseError(_("{path} is not a regular file").format(path=path), _("point --db / QUIZ_DB at a database file"))
        try:
            with path.open("rb") as file:
                head = file.read(len(SQLITE_MAGIC))
        except OSError as exc:
            raise DatabaseError(_("{path} cannot be read: {reason}").format(path=path, reason=os_reason(exc)),
                                _("check the file's permissions")) from exc
        if head and head != SQLITE_MAGIC:
            raise DatabaseError(_("{path} is not a SQLite database").format(path=path), _(NOT_SQLITE_HINT))
        if not os.access(path, os.R_OK | os.W_OK):
            raise DatabaseError(_("{path} is read-only").format(path=path), _(READ_ONLY_HINT))
    if not os.access(folder, os.W_OK | os.X_OK):
        # WAL keeps <name>-wal and <name>-shm beside the database: its folder must be writable.
        raise DatabaseError(
            _("{path}: its folder {folder} is read-only, and SQLite must create {name}-wal and -shm there").format(
                path=path, folder=folder, name=path.name),
            _("make the folder writable, or point --db / QUIZ_DB at a writable place"))


def _ensure_math_functions(dbapi_connection: sqlite3.Connection) -> None:
    """``pow`` and ``floor`` (the statistics' forgetting curve) where this SQLite was built
    without its math functions (``SQLITE_ENABLE_MATH_FUNCTIONS``, on in most builds)."""
    try:
        dbapi_connection.execute("SELECT pow(2, 0.5), floor(1.5)").fetchall()
    except sqlite3.OperationalError:
        add_math_functions(dbapi_connection)


def add_math_functions(dbapi_connection: sqlite3.Connection) -> None:
    """SQLite's ``pow`` and ``floor`` in Python (NULL in, NULL out, as SQLite's own)."""
    dbapi_connection.create_function(
        "pow", 2, lambda x, y: None if x is None or y is None else math.pow(x, y), deterministic=True)
    dbapi_connection.create_function(
        "floor", 1, lambda x: None if x is None else float(math.floor(x)), deterministic=True)


def install_sqlite_hooks(engine: Engine, busy_timeout: int, write_option: str) -> None:
    """Busy timeout and foreign keys per connection; explicit BEGIN [IMMEDIATE].
    (WAL is a property of the file, set once its schema is known: ``Store.use_wal``.)

    pysqlite's own transaction handling is switched off (isolation_level=None) so
    SQLAlchemy's "begin" event decides how each transaction starts, as in the
    SQLAlchemy SQLite docs ("Enabling Non-Legacy SQLite Transactional Modes").
    """

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection, _record) -> None:
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute(f"PRAGMA busy_timeout = {busy_timeout}")
        cursor.execute("PRAGMA foreign_keys = ON")
        cursor.close()
        _ensure_math_functions(dbapi_connection)

    @event.listens_for(engine, "begin")
    def _on_begin(conn) -> None:
        immediate = conn.get_execution_options().get(write_option, False)
        conn.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")
