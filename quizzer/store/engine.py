"""Opening the database: URL resolution, SQLite connection hooks, sessions.

All dialect-specific behaviour lives in ``_install_sqlite_hooks``; the rest of
the library only sees ``Store.read()`` and ``Store.write()``.

Failures a user can cause surface as ``quizzer.errors`` exceptions naming the file:
``check_location`` looks at the file and its folder before SQLite touches them (so a
text file, a directory, a missing folder or a read-only file is refused and left as
it is), and ``Store.read()`` / ``Store.write()`` translate SQLite's own errors (disk
full, locked past the busy timeout, damaged, read-only) in one place,
``database_error``.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from sqlalchemy import Connection, Engine, create_engine, event
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session

from quizzer.errors import DatabaseBusy, DatabaseError, UsageError
from quizzer.i18n import N_, _

BUSY_TIMEOUT_MS = 10_000
# QUIZ_BUSY_TIMEOUT_MS overrides BUSY_TIMEOUT_MS: how long a write waits for another
# process's write lock before failing with DatabaseBusy (the tests use a short one).
BUSY_TIMEOUT_ENV = "QUIZ_BUSY_TIMEOUT_MS"
SQLITE_MAGIC = b"SQLite format 3\x00"  # the first 16 bytes of every SQLite 3 database file
_WRITE_OPTION = "quizzer_write"


@dataclass
class Store:
    """A database handle.  ``path`` is the SQLite file (None for other backends),
    used for backups."""

    engine: Engine
    path: Path | None

    @property
    def where(self) -> str:
        """The database as error messages name it: the file, else the URL without password."""
        return str(self.path) if self.path is not None else self.engine.url.render_as_string(hide_password=True)

    @contextmanager
    def read(self) -> Iterator[Session]:
        """A read-only unit of work (deferred BEGIN: a consistent snapshot under WAL)."""
        with self.translating_errors():
            with Session(self.engine, expire_on_commit=False) as session, session.begin():
                yield session

    @contextmanager
    def write(self) -> Iterator[Session]:
        """One read-then-write transaction, committed on exit.

        On SQLite it starts with BEGIN IMMEDIATE, taking the write lock up front
        so concurrent writers queue on the busy timeout instead of failing or
        overwriting each other's reads.
        """
        with self.translating_errors():
            with Session(self._writer, expire_on_commit=False) as session, session.begin():
                yield session

    @contextmanager
    def translating_errors(self) -> Iterator[None]:
        """Turn a SQLite error a user can cause into a DatabaseError naming the file
        (``database_error``); any other exception passes through unchanged."""
        try:
            yield
        except (DBAPIError, sqlite3.Error) as exc:
            error = database_error(exc, self.where)
            if error is None:
                raise
            raise error from exc

    def use_wal(self, conn: Connection) -> None:
        """Put a SQLite file in WAL mode (persistent in the file; a no-op once it is).

        Not done on connect: the schema check reads a database without changing it,
        so a file that turns out not to be ours is left byte for byte as it was.
        ``conn`` must not be in a transaction (the mode cannot change inside one).
        """
        if self.engine.dialect.name != "sqlite":
            return
        with self.translating_errors():
            # On the driver's connection: through SQLAlchemy the "begin" hook would open a transaction first.
            driver = conn.connection.driver_connection
            assert driver is not None  # a checked-out connection always has one
            driver.execute("PRAGMA journal_mode = WAL").fetchall()

    @cached_property
    def _writer(self) -> Engine:
        return self.engine.execution_options(**{_WRITE_OPTION: True})

    def close(self) -> None:
        self.engine.dispose()


# SQLite's primary result codes (sqlite3.h) that a user can cause, and the messages
# SQLite gives for them (matched when the driver does not expose the code: Python < 3.11).
SQLITE_BUSY, SQLITE_READONLY, SQLITE_IOERR, SQLITE_CORRUPT, SQLITE_FULL, SQLITE_CANTOPEN, SQLITE_NOTADB = 5, 8, 10, 11, 13, 14, 26
_SQLITE_MESSAGES = {
    "database is locked": SQLITE_BUSY,
    "attempt to write a readonly database": SQLITE_READONLY,
    "disk i/o error": SQLITE_IOERR,
    "database disk image is malformed": SQLITE_CORRUPT,
    "database or disk is full": SQLITE_FULL,
    "unable to open database file": SQLITE_CANTOPEN,
    "file is not a database": SQLITE_NOTADB,
}
RESTORE_HINT = N_("`quiz check` shows the damage; `quiz backup list` shows the backups, `quiz backup restore FILE` brings one back")
NOT_SQLITE_HINT = N_("point --db / QUIZ_DB at a quizzer database, or move this file away to start a new one")
READ_ONLY_HINT = N_("make the file and its folder writable, or point --db / QUIZ_DB at a writable copy")


def sqlite_code(exc: BaseException) -> int | None:
    """SQLite's primary result code of a driver error (also when SQLAlchemy wraps it), else None."""
    orig = exc.orig if isinstance(exc, DBAPIError) else exc
    if not isinstance(orig, sqlite3.Error):
        return None
    code = getattr(orig, "sqlite_errorcode", None)  # Python 3.11+: the extended result code
    if code is not None:
        return code & 0xFF
    text = str(orig).lower()
    return next((value for message, value in _SQLITE_MESSAGES.items() if message in text), None)


def database_error(exc: BaseException, where: str) -> DatabaseError | None:
    """The DatabaseError for a SQLite error a user can cause; None for anything else."""
    code = sqlite_code(exc)
    if code == SQLITE_FULL:
        return DatabaseError(_("{where}: the disk is full, so the change was not saved").format(where=where),
                             _("free some disk space and run the command again"))
    if code == SQLITE_BUSY:
        return DatabaseBusy(_("{where} is locked: another process held its write lock for more than {seconds} s").format(
            where=where, seconds=f"{busy_timeout_ms() / 1000:g}"))
    if code == SQLITE_READONLY:
        return DatabaseError(_("{where} is read-only").format(where=where), _(READ_ONLY_HINT))
    if code == SQLITE_CORRUPT:
        return DatabaseError(_("{where} is damaged: SQLite says the database disk image is malformed").format(where=where),
                             _(RESTORE_HINT))
    if code == SQLITE_NOTADB:
        return DatabaseError(_("{where} is not a SQLite database").format(where=where), _(NOT_SQLITE_HINT))
    if code == SQLITE_CANTOPEN:
        return DatabaseError(_("{where} cannot be opened: SQLite is unable to open the database file").format(where=where),
                             _("check that the file and its folder exist and are writable"))
    if code == SQLITE_IOERR:
        return DatabaseError(_("{where}: disk I/O error: {reason}").format(where=where, reason=exc.orig if isinstance(exc, DBAPIError) else exc),
                             _("check the disk and its free space, then run the command again"))
    return None


def default_db_path() -> Path:
    from platformdirs import user_data_dir

    return Path(user_data_dir("quizzer", appauthor=False)) / "quizzer.db"


def _explicit(url_or_path: str | Path | None) -> str | Path | None:
    """The database the user named (argument or ``QUIZ_DB``), None for the default."""
    target = url_or_path if url_or_path is not None else os.environ.get("QUIZ_DB")
    return None if target is None or str(target) == "" else target


def uses_default(url_or_path: str | Path | None) -> bool:
    """True when neither the argument (--db) nor ``QUIZ_DB`` names a database."""
    return _explicit(url_or_path) is None


def resolve(url_or_path: str | Path | None) -> tuple[URL, Path | None]:
    """URL and (for SQLite files) path: explicit argument, else ``QUIZ_DB``, else the
    platform user data directory.  Strings containing ``://`` are URLs."""
    target = _explicit(url_or_path)
    if target is None:
        target = default_db_path()
    if isinstance(target, str) and "://" in target:
        url = make_url(target)
        database = url.database if url.get_backend_name() == "sqlite" else None
        return url, Path(database).resolve() if database and database != ":memory:" else None
    path = Path(target).expanduser().resolve()
    return URL.create("sqlite", database=str(path)), path


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
                path=path, folder=folder, reason=exc.strerror or exc)) from exc
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
            raise DatabaseError(_("{path} cannot be read: {reason}").format(path=path, reason=exc.strerror or exc),
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


def busy_timeout_ms() -> int:
    """BUSY_TIMEOUT_MS, or ``$QUIZ_BUSY_TIMEOUT_MS`` when set."""
    value = os.environ.get(BUSY_TIMEOUT_ENV, "").strip()
    if not value:
        return BUSY_TIMEOUT_MS
    try:
        timeout = int(value)
    except ValueError:
        timeout = -1
    if timeout < 0:
        raise UsageError(f"{BUSY_TIMEOUT_ENV}={value!r} is not a number of milliseconds")
    return timeout


def make_engine(url: URL, path: Path | None) -> Engine:
    """The engine; opening the file is left to the first session (see ``check_location``)."""
    engine = create_engine(url)
    if engine.dialect.name == "sqlite":
        _install_sqlite_hooks(engine, busy_timeout_ms())
    return engine


def _install_sqlite_hooks(engine: Engine, busy_timeout: int = BUSY_TIMEOUT_MS) -> None:
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

    @event.listens_for(engine, "begin")
    def _on_begin(conn) -> None:
        immediate = conn.get_execution_options().get(_WRITE_OPTION, False)
        conn.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")
