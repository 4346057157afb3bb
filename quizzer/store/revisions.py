"""The schema revisions this quizzer knows, and what each one holds: the tables, columns,
indexes, triggers and views the packaged migrations create for it on an empty database.

A file is compared with the revision its stamp names: ``backup restore`` refuses one that holds
anything more or less, and ``quiz check`` names any trigger or view the live database holds
(quizzer creates none: one there runs code on every write, planted by another tool).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from sqlalchemy import Connection, inspect, text

from quizzer.base.errors import printable
from quizzer.base.i18n import _

SCHEMA_HEAD = "0005"  # keep equal to the newest revision in quizzer/migrations/versions
MIGRATIONS_DIR = Path(__file__).resolve().parent.parent / "migrations"
VERSION_TABLE = "alembic_version"
CODE_OBJECTS = ("trigger", "view")  # schema objects that run or hide SQL: the migrations create none


@dataclass(frozen=True)
class Layout:
    """A database's schema: each table's columns, and its other objects (index, trigger, view) by name."""

    columns: dict[str, frozenset[str]]
    objects: frozenset[tuple[str, str]]  # (type, name)


def alembic_config(conn: Connection | None = None):
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    config.attributes["connection"] = conn
    return config


@cache
def known_revisions() -> frozenset[str]:
    from alembic.script import ScriptDirectory

    return frozenset(script.revision for script in ScriptDirectory.from_config(alembic_config()).walk_revisions())


def known_revision(version: str) -> bool:
    """Whether ``version`` is one of this quizzer's schema revisions (not a newer one's)."""
    return version in known_revisions()


def schema_version(conn: Connection, tables: Collection[str] | None = None) -> str | None:
    """The alembic revision recorded in the database, None when there is none. ``tables``: the
    database's table names where the caller has them already (saves asking for the version table)."""
    present = VERSION_TABLE in tables if tables is not None else inspect(conn).has_table(VERSION_TABLE)
    if not present:
        return None
    return conn.execute(text(f"SELECT version_num FROM {VERSION_TABLE}")).scalar()


def layout(conn: Connection) -> Layout:
    """The schema of the SQLite database ``conn`` is on (SQLite's own objects left out)."""
    found = inspect(conn)
    columns = {table: frozenset(column["name"] for column in found.get_columns(table))
               for table in found.get_table_names() if not table.startswith("sqlite_")}
    objects = conn.execute(text("SELECT type, name FROM sqlite_master WHERE type != 'table' AND name NOT LIKE 'sqlite_%'"))
    return Layout(columns, frozenset((kind, name) for kind, name in objects))


@cache
def layout_at(revision: str) -> Layout:
    """The schema of a SQLite database at ``revision``, as the migrations build it."""
    from alembic import command
    from sqlalchemy import create_engine

    engine = create_engine("sqlite://")
    try:
        with engine.begin() as conn:
            command.upgrade(alembic_config(conn), revision)
            return layout(conn)
    finally:
        engine.dispose()


def missing_tables(expected: Iterable[str], found: Iterable[str]) -> list[str]:
    """``missing table NAME`` for each table of ``expected`` not ``found``, by name."""
    return [_("missing table {table}").format(table=table) for table in sorted(set(expected) - set(found))]


def differences(found: Layout, expected: Layout) -> list[str]:
    """How ``found`` differs from ``expected``, one line per object: tables, columns, then the
    indexes, triggers and views it has more or fewer of."""
    shared = sorted(expected.columns.keys() & found.columns.keys())
    return [*missing_tables(expected.columns, found.columns),
            *(_("extra table {table}").format(table=t) for t in sorted(found.columns.keys() - expected.columns.keys())),
            *(_("missing column {table}.{column}").format(table=t, column=c)
              for t in shared for c in sorted(expected.columns[t] - found.columns[t])),
            *(_("extra column {table}.{column}").format(table=t, column=c)
              for t in shared for c in sorted(found.columns[t] - expected.columns[t])),
            *(_("extra {kind} {name}").format(kind=kind, name=printable(name))
              for kind, name in sorted(found.objects - expected.objects)),
            *(_("missing {kind} {name}").format(kind=kind, name=name) for kind, name in sorted(expected.objects - found.objects))]


def mismatch(version: str, found: list[str]) -> str:
    """The first difference between a database's schema and the schema it names, and how many more."""
    more = _("; and {count} more").format(count=len(found) - 1) if len(found) > 1 else ""
    return _("its tables do not match the schema it names ({version}): {difference}{more}").format(
        version=version, difference=printable(found[0]), more=more)


def stamp_mismatch(db_path: Path) -> str | None:
    """How the SQLite file ``db_path`` differs from the schema its stamp names (the migrations run
    up to that stamp on an empty database): tables, columns, indexes, triggers, views; None when
    it matches, or when there is no stamp of this quizzer's to compare with. ``backup restore``
    asks it, so a file another tool changed is refused before it replaces the database."""
    import sqlite3

    from sqlalchemy import create_engine

    engine = create_engine("sqlite://", creator=lambda: sqlite3.connect(db_path))
    try:
        with engine.connect() as conn:
            version = schema_version(conn)
            if version is None or not known_revision(version):
                return None
            found = differences(layout(conn), layout_at(version))
    finally:
        engine.dispose()
    return mismatch(version, found) if found else None


def foreign_code(conn: Connection) -> list[str]:
    """The triggers and views of the live collection (none of them quizzer's), one line each,
    on SQLite or in the learner's schema on a server."""
    if conn.dialect.name == "sqlite":
        rows = conn.execute(text("SELECT type, name FROM sqlite_master WHERE type IN ('trigger', 'view') ORDER BY name"))
    else:
        rows = conn.execute(text(
            "SELECT DISTINCT 'trigger', trigger_name FROM information_schema.triggers WHERE trigger_schema = current_schema() "
            "UNION SELECT 'view', table_name FROM information_schema.views WHERE table_schema = current_schema() ORDER BY 2"))
    return [_("{kind} {name}: not quizzer's (it runs SQL another tool put there); drop it, or restore a backup from "
              "before").format(kind=kind, name=printable(name)) for kind, name in rows]
