"""Bringing a database to the current schema.

The common case (schema current) costs one small query and never imports
alembic; only a missing or older schema loads alembic and runs the packaged
migrations, after backing up an existing database.

A database this code cannot use is refused before anything is written to it
(its file stays byte for byte as it was): one from a newer quizzer
(``DatabaseTooNew``), or one with tables but no ``alembic_version`` (another
program's database, or a quizzer database whose version table was lost).
"""

from __future__ import annotations

import re

from sqlalchemy import inspect
from sqlalchemy.exc import DBAPIError

from quizzer.base.errors import DatabaseError, DatabaseTooNew, SchemaMismatch, printable
from quizzer.base.i18n import N_, _, join
from quizzer.store.engine import Store
from quizzer.store.errors import database_error
from quizzer.store.revisions import (  # noqa: F401  # SCHEMA_HEAD, VERSION_TABLE, MIGRATIONS_DIR: read here by other modules
    MIGRATIONS_DIR,
    SCHEMA_HEAD,
    VERSION_TABLE,
    alembic_config,
    known_revisions,
    mismatch,
    missing_tables,
    schema_version,
)

RESTORE_HINT = N_("another tool changed it: restore a backup from before, as `quiz backup list` shows them")
SERVER_RESTORE_HINT = N_("another tool changed it: pg_restore the learner's schema from a pg_dump taken before")
REVISION = re.compile(r"\d{4}")  # how every quizzer, this one and later ones, names a schema revision


def _restore_hint(store: Store) -> str:
    """How to get the collection back as it was: `quiz backup` keeps files, a server keeps none of its own."""
    return _(RESTORE_HINT) if store.path is not None else _(SERVER_RESTORE_HINT)


def ensure_schema(store: Store) -> None:
    """Upgrade the database to SCHEMA_HEAD unless it is already there.

    Reads first (a damaged file, a foreign schema or a table gone fails here, unchanged),
    then puts the file in WAL mode, then upgrades if needed. The table names are one query,
    as asking for the version table alone was: a current schema costs no more than before.
    """
    with store.translating_errors(), store.engine.connect() as conn:
        tables = set(inspect(conn).get_table_names())
        version = schema_version(conn, tables)
        if version != SCHEMA_HEAD:
            _check_usable(store, version, tables)
        else:
            _check_tables(store, tables)
        conn.rollback()  # end the read: the journal mode cannot change inside a transaction
        store.use_wal(conn)
    if version != SCHEMA_HEAD:
        _upgrade(store)


def _check_usable(store: Store, version: str | None, tables: set[str]) -> None:
    """Raise when the database is not one this code can upgrade."""
    if version is None and tables and VERSION_TABLE not in tables:
        listed = join(sorted(tables)[:5]) + (" ..." if len(tables) > 5 else "")
        raise DatabaseError(
            _("{where} has tables ({tables}) but no {version_table} table, so its schema version is unknown").format(
                where=store.display_name, tables=listed, version_table=VERSION_TABLE),
            _("it is not a quizzer database, or its version table was lost: point --db / QUIZ_DB at another "
              "file, or restore a backup with `quiz backup restore`"),
        )
    if version is not None and version not in known_revisions():
        if not REVISION.fullmatch(version):  # '' or markup: no quizzer wrote it, newer or older
            raise DatabaseError(_("{where}: its schema stamp {version} is no quizzer revision").format(
                where=store.display_name, version=printable(repr(version))),
                _restore_hint(store))
        raise _too_new(store, version)


def _check_tables(store: Store, tables: set[str]) -> None:
    """Raise SchemaMismatch when a table of the current schema is gone (dropped by another tool):
    every command failed on it with the SQL SELECT that met it."""
    from quizzer.store.models import metadata

    missing = missing_tables(metadata.tables, tables)
    if missing:
        raise SchemaMismatch(_("{where}: {mismatch}").format(where=store.display_name, mismatch=mismatch(SCHEMA_HEAD, missing)),
                             _restore_hint(store), missing)


def _too_new(store: Store, version: str) -> DatabaseTooNew:
    return DatabaseTooNew(_("{where} has schema {version}, newer than this quizzer knows (up to {head})").format(
        where=store.display_name, version=version, head=SCHEMA_HEAD))


def _upgrade(store: Store) -> None:
    from alembic import command

    from quizzer.base import clock
    from quizzer.store import backup

    # The write transaction serialises processes opening a fresh database at
    # once: the second one re-reads the version after the first committed.
    with store.write() as conn:
        version = schema_version(conn)
        if version == SCHEMA_HEAD:
            return
        if version is not None and version not in known_revisions():
            raise _too_new(store, version)
        kept = None
        if store.path is not None and inspect(conn).get_table_names():
            kept = backup.backup_now(store.path, clock.wall())
        try:
            command.upgrade(alembic_config(conn), "head")
        except DBAPIError as exc:  # the transaction rolls the migration back: the file is as it was
            if kept is not None:  # so its copy goes: each failed command added one, and `latest` named it
                kept.unlink(missing_ok=True)
            if database_error(exc, store.display_name) is not None:  # locked, full, read-only: said as such
                raise
            reason = str(exc.orig).splitlines()[0] if exc.orig is not None else type(exc).__name__
            raise DatabaseError(
                _("{where}: its tables do not match the schema it names ({version}): upgrading failed "
                  "with \"{reason}\"").format(where=store.display_name, version=version, reason=reason),
                _restore_hint(store)) from None
