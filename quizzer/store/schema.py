"""Bringing a database to the current schema.

The common case (schema current) costs one small query and never imports
alembic; only a missing or older schema loads alembic and runs the packaged
migrations, after backing up an existing database.
"""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import Connection, inspect, text

from quizzer.store.engine import Store

SCHEMA_HEAD = "0002"  # keep equal to the newest revision in quizzer/migrations/versions
MIGRATIONS_DIR = Path(__file__).resolve().parent.parent / "migrations"


def schema_version(conn: Connection) -> str | None:
    """The alembic revision recorded in the database, None when there is none."""
    if not inspect(conn).has_table("alembic_version"):
        return None
    return conn.execute(text("SELECT version_num FROM alembic_version")).scalar()


def ensure_schema(store: Store) -> None:
    """Upgrade the database to SCHEMA_HEAD unless it is already there."""
    with store.engine.connect() as conn:
        if schema_version(conn) == SCHEMA_HEAD:
            return
    _upgrade(store)


def _upgrade(store: Store) -> None:
    from alembic import command
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    from quizzer import backup, clock

    # The write transaction serialises processes opening a fresh database at
    # once: the second one re-reads the version after the first committed.
    with store.write() as session:
        conn = session.connection()
        version = schema_version(conn)
        if version == SCHEMA_HEAD:
            return
        config = Config()
        config.set_main_option("script_location", str(MIGRATIONS_DIR))
        config.attributes["connection"] = conn
        known = {script.revision for script in ScriptDirectory.from_config(config).walk_revisions()}
        if version is not None and version not in known:
            raise RuntimeError(f"database schema {version} is newer than this quizzer knows ({SCHEMA_HEAD})")
        if store.path is not None and inspect(conn).get_table_names():
            backup.backup_now(store.path, clock.now())
        command.upgrade(config, "head")
