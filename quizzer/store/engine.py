"""Opening the database: the engine for a URL, and the store's transactions.

Two backends: a SQLite file (``sqlite``), or a PostgreSQL server (``postgres``,
``postgresql://user@host:port/db``, driven by psycopg 3). All dialect-specific behaviour lives
in their connection hooks; the rest of the library only sees ``Store.read()`` and
``Store.write()``, which give the same guarantees on both: a read is one consistent
snapshot, and writes are serialised (one writer at a time, readers never blocked), so a
read-then-write transaction never acts on a stale read. Failures a user can cause surface as
``quizzer.base.errors`` exceptions naming the file or server (``errors.database_error``).
"""

from __future__ import annotations

import sqlite3
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from sqlalchemy import Connection, Engine, create_engine
from sqlalchemy.engine import URL
from sqlalchemy.exc import DBAPIError

from quizzer.base.errors import UsageError
from quizzer.base.i18n import _
from quizzer.store.locks import busy_timeout_ms
from quizzer.store.errors import database_error
from quizzer.store.sqlite import install_sqlite_hooks
from quizzer.store.urls import shown_url

WRITE_OPTION = "quizzer_write"  # the execution option that makes a transaction a write (``Store.write``)


@dataclass
class Store:
    """A database handle.  ``path`` is the SQLite file (None for other backends),
    used for backups. ``learner`` is whose collection it is: on a server, the schema
    ``learner_<name>`` (``postgres.learner_schema``) every statement works in; a SQLite file holds one
    learner's collection whatever the name."""

    engine: Engine
    path: Path | None
    learner: str
    created: bool = False  # the learner's collection was started on the server by this opening
    # the server's database, once a connection said which, where the URL leaves it to libpq (PGDATABASE, else the user's)
    database: str | None = None

    def __post_init__(self) -> None:
        # Closed when the store goes, or at exit: closing SQLite's last connection folds the -wal
        # file back into the database, so a copy of the .db file alone holds every answer
        # (``quiz`` ends without tearing the interpreter down, so nothing else closes it).
        weakref.finalize(self, self.engine.dispose)

    @property
    def display_name(self) -> str:
        """The database as error messages name it: the file, else the URL without password (with
        the database libpq chose, once known, where the URL names none)."""
        if self.path is not None:
            return str(self.path)
        url = self.engine.url
        return shown_url(url if url.database or not self.database else url.set(database=self.database))

    @contextmanager
    def read(self) -> Iterator[Connection]:
        """A read-only unit of work: a connection in a consistent snapshot (SQLite: deferred
        BEGIN under WAL; PostgreSQL: REPEATABLE READ)."""
        with self.translating_errors():
            with self.engine.connect() as conn, conn.begin():
                yield conn

    @contextmanager
    def write(self) -> Iterator[Connection]:
        """A connection in one read-then-write transaction, committed on exit (rolled back on an
        exception).

        On SQLite it starts with BEGIN IMMEDIATE, taking the write lock up front
        so concurrent writers queue on the busy timeout instead of failing or
        overwriting each other's reads. On PostgreSQL it takes a transaction-level
        advisory lock for the same effect (READ COMMITTED, so every statement after
        the wait sees what the writer before committed); rows it changes are also
        locked by the statements themselves (an answer reads its card FOR UPDATE).
        """
        with self.translating_errors():
            with self._writer.connect() as conn, conn.begin():
                yield conn

    @contextmanager
    def translating_errors(self) -> Iterator[None]:
        """Turn a database error a user can cause into a DatabaseError naming the file or
        server (``database_error``); any other exception passes through unchanged."""
        try:
            yield
        except (DBAPIError, sqlite3.Error) as exc:
            error = database_error(exc, self.display_name)
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
        return self.engine.execution_options(**{WRITE_OPTION: True})

    def close(self) -> None:
        self.engine.dispose()


def make_engine(url: URL, learner: str, *, create: bool = True, created: Callable[[str], None] | None = None) -> Engine:
    """The engine; opening the file (or connecting) is left to the first transaction (a file is
    checked before: ``sqlite.check_location``). On a server every connection works in ``learner``'s schema, created
    if missing unless ``create`` is off (a reader of other learners' collections); ``created`` is
    called when it is, with the database it is in."""
    if url.get_backend_name() == "postgresql" and url.drivername == "postgresql+psycopg":
        from quizzer.store.postgres import postgres_engine

        return postgres_engine(url, busy_timeout_ms(), learner, create, created, WRITE_OPTION)
    if url.drivername != "sqlite":  # mysql://, http://, postgresql+psycopg2://: a usage error, not SQLAlchemy's
        raise UsageError(_("{where}: quizzer keeps a collection in a SQLite file or on a PostgreSQL server").format(
            where=shown_url(url)), _("give --db / QUIZ_DB a file path or a postgresql:// URL"))
    engine = create_engine(url)
    if engine.dialect.name == "sqlite":
        install_sqlite_hooks(engine, busy_timeout_ms(), WRITE_OPTION)
    return engine
