"""Opening the database: URL resolution, SQLite connection hooks, sessions.

All dialect-specific behaviour lives in ``_install_sqlite_hooks``; the rest of
the library only sees ``Store.read()`` and ``Store.write()``.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import URL, make_url
from sqlalchemy.orm import Session

BUSY_TIMEOUT_MS = 10_000
_WRITE_OPTION = "quizzer_write"


@dataclass
class Store:
    """A database handle.  ``path`` is the SQLite file (None for other backends),
    used for backups."""

    engine: Engine
    path: Path | None

    @contextmanager
    def read(self) -> Iterator[Session]:
        """A read-only unit of work (deferred BEGIN: a consistent snapshot under WAL)."""
        with Session(self.engine, expire_on_commit=False) as session, session.begin():
            yield session

    @contextmanager
    def write(self) -> Iterator[Session]:
        """One read-then-write transaction, committed on exit.

        On SQLite it starts with BEGIN IMMEDIATE, taking the write lock up front
        so concurrent writers queue on the busy timeout instead of failing or
        overwriting each other's reads.
        """
        with Session(self._writer, expire_on_commit=False) as session, session.begin():
            yield session

    @cached_property
    def _writer(self) -> Engine:
        return self.engine.execution_options(**{_WRITE_OPTION: True})

    def close(self) -> None:
        self.engine.dispose()


def default_db_path() -> Path:
    from platformdirs import user_data_dir

    return Path(user_data_dir("quizzer", appauthor=False)) / "quizzer.db"


def resolve(url_or_path: str | Path | None) -> tuple[URL, Path | None]:
    """URL and (for SQLite files) path: explicit argument, else ``QUIZ_DB``, else the
    platform user data directory.  Strings containing ``://`` are URLs."""
    target = url_or_path if url_or_path is not None else os.environ.get("QUIZ_DB")
    if target is None or str(target) == "":
        target = default_db_path()
    if isinstance(target, str) and "://" in target:
        url = make_url(target)
        is_file = url.get_backend_name() == "sqlite" and url.database not in (None, "", ":memory:")
        return url, Path(url.database).resolve() if is_file else None
    path = Path(target).expanduser().resolve()
    return URL.create("sqlite", database=str(path)), path


def make_engine(url: URL, path: Path | None) -> Engine:
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
    engine = create_engine(url)
    if engine.dialect.name == "sqlite":
        _install_sqlite_hooks(engine)
    return engine


def _install_sqlite_hooks(engine: Engine) -> None:
    """WAL, busy timeout and foreign keys per connection; explicit BEGIN [IMMEDIATE].

    pysqlite's own transaction handling is switched off (isolation_level=None) so
    SQLAlchemy's "begin" event decides how each transaction starts, as in the
    SQLAlchemy SQLite docs ("Enabling Non-Legacy SQLite Transactional Modes").
    """

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection, _record) -> None:  # type: ignore[no-untyped-def]
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA journal_mode = WAL")
        cursor.execute("PRAGMA foreign_keys = ON")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn) -> None:  # type: ignore[no-untyped-def]
        immediate = conn.get_execution_options().get(_WRITE_OPTION, False)
        conn.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")
