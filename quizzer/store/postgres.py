"""A PostgreSQL server as collections: one schema per learner, the write lock, the engine.

Driven by psycopg 3, loaded only when a server URL is opened.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy import Connection, Engine, Table, create_engine, event, text
from sqlalchemy.engine import URL

from quizzer.errors import DatabaseError, UsageError
from quizzer.i18n import _
from quizzer.store.errors import first_line
from quizzer.store.urls import shown_url

CONNECT_TIMEOUT_S = 10  # a server that does not answer is an error after this long, not a hang
# The key of the transaction-level advisory lock every write takes on a server: PostgreSQL's
# counterpart of SQLite's BEGIN IMMEDIATE (one writer at a time, readers never blocked).
WRITE_LOCK_KEY = 0x7175697A  # "quiz"
LEARNER_SCHEMA_PREFIX = "learner_"  # a learner's collection on a server is the schema learner_<name>


def learner_schema(learner: str) -> str:
    """The server schema that holds ``learner``'s collection."""
    return LEARNER_SCHEMA_PREFIX + learner


def learner_lock_key(learner: str) -> int:
    """The second half of a learner's advisory write lock (its schema's CRC-32 as a signed 32-bit
    integer): learners sharing a server never wait for each other's writes."""
    import zlib

    key = zlib.crc32(learner_schema(learner).encode())
    return key - (1 << 32) if key >= 1 << 31 else key


def postgres_engine(url: URL, busy_timeout: int, learner: str, create: bool,
                    created: Callable[[str], None] | None, write_option: str) -> Engine:
    """A server engine: reads are REPEATABLE READ snapshots; a write waits for the write
    lock at most ``busy_timeout`` ms (``lock_timeout``, as SQLite's busy timeout), then
    fails with DatabaseBusy. A connection the server dropped while idle in the pool is
    noticed at checkout and replaced (pre-ping), so a restarted server is no error.

    Every connection's ``search_path`` is the learner's schema alone, so each statement (and
    Alembic's version table) is the learner's without naming it, and no statement can reach
    another learner's rows; the schema is created on the first connection that lacks it."""
    try:
        import psycopg  # noqa: F401  (the driver SQLAlchemy loads; checked here to say how to get it)
    except ImportError as exc:
        raise UsageError(_("{where} is a PostgreSQL server, and talking to one needs psycopg").format(
            where=shown_url(url)), _("install it: pip install 'quizzer[postgres]'")) from exc
    engine = create_engine(
        url, isolation_level="REPEATABLE READ", pool_pre_ping=True,
        connect_args={"connect_timeout": CONNECT_TIMEOUT_S, "application_name": "quizzer",
                      "options": f'-c lock_timeout={busy_timeout} -c search_path="{learner_schema(learner)}"'})
    _install_postgres_hooks(engine, learner, shown_url(url) if create else None, created, write_option)
    return engine


def continue_ids(conn: Connection, tables: list[Table]) -> None:
    """After rows were inserted with their own ids (a copy): new rows get ids after the highest.
    SQLite does so by itself; a server's id sequences must be moved on."""
    if conn.dialect.name != "postgresql":
        return
    for table in tables:
        column = table.autoincrement_column
        if column is None:
            continue
        conn.execute(text("SELECT setval(pg_get_serial_sequence(:table, :column), "
                          f"coalesce((SELECT max({column.name}) FROM {table.name}), 0) + 1, false)"),
                     {"table": table.name, "column": column.name})


def _install_postgres_hooks(engine: Engine, learner: str, where: str | None, created: Callable[[str], None] | None,
                            write_option: str) -> None:
    """A write transaction starts READ COMMITTED and takes the learner's advisory write lock,
    released at commit or rollback (also when the process dies: the server ends its session).
    A new connection first makes sure the learner's schema exists (before SQLAlchemy asks the
    connection for its default schema), unless ``where`` is None (no schema is created).
    """
    lock = f"SELECT pg_advisory_xact_lock({WRITE_LOCK_KEY}, {learner_lock_key(learner)})"

    if where is not None:
        @event.listens_for(engine, "connect", insert=True)
        def _on_connect(dbapi_connection, _record) -> None:
            if _create_learner_schema(dbapi_connection, learner, where) and created is not None:
                created(dbapi_connection.info.dbname)

    @event.listens_for(engine, "begin")
    def _on_begin(conn) -> None:
        if conn.get_execution_options().get(write_option, False):
            conn.exec_driver_sql("SET TRANSACTION ISOLATION LEVEL READ COMMITTED")
            conn.exec_driver_sql(lock)


def _create_learner_schema(dbapi_connection, learner: str, where: str) -> bool:
    """Create ``learner``'s schema unless it is there, one learner at a time (a lock of its own);
    the first learner made on a database whose collection predates learners (in ``public``) gets
    that collection (``_adopt_public_collection``). Whether a new one was started; a login that may not
    use the schema, or may not create it, is a DatabaseError."""
    import psycopg

    schema = learner_schema(learner)
    try:
        if dbapi_connection.execute("SELECT current_schema()").fetchone()[0] is None:  # missing, or not ours to use
            dbapi_connection.execute(f"SELECT pg_advisory_xact_lock({WRITE_LOCK_KEY}, 0)")
            usable = dbapi_connection.execute(
                "SELECT has_schema_privilege(oid, 'USAGE') FROM pg_namespace WHERE nspname = %s", (schema,)).fetchone()
            if usable is None:
                dbapi_connection.execute(f'CREATE SCHEMA IF NOT EXISTS "{schema}"')
                adopted = _adopt_public_collection(dbapi_connection, schema)
                dbapi_connection.commit()
                return not adopted
            elif not usable[0]:  # there, but this login has no USAGE: not a collection to create
                dbapi_connection.rollback()
                raise DatabaseError(
                    _("{where}: learner {learner}'s collection is there, but this login may not read it").format(
                        where=where, learner=learner),
                    _("log in as its owner, or ask the server's administrator to grant this role the use of schema "
                      "\"{schema}\" and its tables").format(schema=schema))
        dbapi_connection.commit()
        return False
    except psycopg.errors.InsufficientPrivilege as exc:
        dbapi_connection.rollback()
        role, database = dbapi_connection.execute("SELECT current_user, current_database()").fetchone()
        raise DatabaseError(
            _("{where}: learner {learner} has no collection there, and this login may not create one: {reason}").format(
                where=where, learner=learner, reason=first_line(exc)),
            _("ask the server's administrator to run: CREATE SCHEMA \"{schema}\" AUTHORIZATION \"{role}\" (or, to "
              "let the role create its own: GRANT CREATE ON DATABASE \"{database}\" TO \"{role}\")").format(
                schema=schema, role=role, database=database)) from exc


def _adopt_public_collection(dbapi_connection, schema: str) -> bool:
    """Move a collection that quizzer kept in ``public`` before a server held several learners
    (its version table is there) into ``schema``, tables with their sequences and indexes, so
    upgrading loses nothing: its learner is whoever opens the database first. Whether there was one."""
    from quizzer.store.models import metadata

    if dbapi_connection.execute("SELECT to_regclass('public.alembic_version')").fetchone()[0] is None:
        return False
    present = {name for (name,) in dbapi_connection.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")}
    for name in ["alembic_version", *(table.name for table in metadata.sorted_tables)]:
        if name in present:
            dbapi_connection.execute(f'ALTER TABLE public."{name}" SET SCHEMA "{schema}"')
    return True
