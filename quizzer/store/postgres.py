"""A PostgreSQL server as collections: one schema per learner, the write lock, the engine.

Driven by psycopg 3, loaded only when a server URL is opened.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy import Connection, Engine, Table, create_engine, event, text
from sqlalchemy.engine import URL

from quizzer.base.errors import DatabaseError, UsageError
from quizzer.base.i18n import _
from quizzer.store.errors import first_line
from quizzer.store.urls import shown_url

CONNECT_TIMEOUT_S = 10  # a server that does not answer is an error after this long, not a hang
# The key of the transaction-level advisory lock every write takes on a server: PostgreSQL's
# counterpart of SQLite's BEGIN IMMEDIATE (one writer at a time, readers never blocked).
WRITE_LOCK_KEY = 0x7175697A  # "quiz"
LEARNER_SCHEMA_PREFIX = "learner_"  # a learner's collection on a server is the schema learner_<name>
# Members of this group role (and superusers, the shared login of a class) are teachers: they may
# open and start any learner's collection; every collection started while it exists is theirs to read.
TEACHER_ROLE = "quiz_teacher"


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


# SQL: whether the login is a teacher (a superuser, or a member of TEACHER_ROLE).
IS_TEACHER = ("(current_setting('is_superuser') = 'on' OR EXISTS (SELECT FROM pg_catalog.pg_roles "
              f"WHERE rolname = '{TEACHER_ROLE}' AND pg_has_role(current_user, oid, 'MEMBER')))")
# The learner's schema as this login sees it: there or not, owned by a role whose rights the login
# has, usable; the owner and the login by name; whether the login is a teacher.
_WHOSE = ("SELECT n.oid IS NOT NULL, coalesce(pg_has_role(current_user, n.nspowner, 'USAGE'), false), "
          "coalesce(has_schema_privilege(n.oid, 'USAGE'), false), pg_get_userbyid(n.nspowner), current_user, "
          f"{IS_TEACHER} FROM (SELECT) AS one LEFT JOIN pg_catalog.pg_namespace n ON n.nspname = %(schema)s")


def _create_learner_schema(dbapi_connection, learner: str, where: str) -> bool:
    """Make sure ``learner``'s schema is there and this login's to use, creating it (one learner at
    a time, under a lock of its own) if missing; the first learner made on a database whose
    collection predates learners (in ``public``) gets that collection (``_adopt_public_collection``).
    Whether a new one was started.

    A learner's name is its login's: a login opens only a collection whose schema a role it has the
    rights of owns, and starts only the one named as itself (``learner_<login>``); a teacher
    (``TEACHER_ROLE``) opens and starts any. Another's collection is a UsageError; a schema this
    login may not use, or may not create, a DatabaseError."""
    import psycopg

    schema = learner_schema(learner)
    whose = {"schema": schema}
    try:
        there, owned, usable, owner, role, teacher = dbapi_connection.execute(_WHOSE, whose).fetchone()
        if not there:
            dbapi_connection.execute(f"SELECT pg_advisory_xact_lock({WRITE_LOCK_KEY}, 0)")
            there, owned, usable, owner, role, teacher = dbapi_connection.execute(_WHOSE, whose).fetchone()
        if not there and (learner == role or teacher):
            dbapi_connection.execute(f'CREATE SCHEMA IF NOT EXISTS "{schema}"')
            adopted = _adopt_public_collection(dbapi_connection, schema)
            _let_teachers_read(dbapi_connection, schema)
            dbapi_connection.commit()
            return not adopted
        dbapi_connection.rollback()
    except psycopg.errors.InsufficientPrivilege as exc:
        dbapi_connection.rollback()
        role, database = dbapi_connection.execute("SELECT current_user, current_database()").fetchone()
        raise DatabaseError(
            _("{where}: learner {learner} has no collection there, and this login may not create one: {reason}").format(
                where=where, learner=learner, reason=first_line(exc)),
            _("ask the server's administrator to run: CREATE SCHEMA \"{schema}\" AUTHORIZATION \"{role}\" (or, to "
              "let the role create its own: GRANT CREATE ON DATABASE \"{database}\" TO \"{role}\")").format(
                schema=schema, role=role, database=database)) from exc
    if not there or not (owned or teacher):
        raise UsageError(
            _("{where}: login {role} may not open learner {learner}'s collection: a login opens only its own learner "
              "({role}), a member of role {teacher} any").format(
                where=where, role=role, learner=learner, teacher=TEACHER_ROLE),
            _("log in as {learner}, or leave QUIZ_USER and the user setting empty to study as {role}").format(
                learner=learner, role=role) if not there
            else _("schema \"{schema}\" belongs to role {owner}").format(schema=schema, owner=owner))
    if not usable:  # a teacher without the use of it
        raise DatabaseError(
            _("{where}: learner {learner}'s collection is there, but this login may not read it").format(
                where=where, learner=learner),
            _("ask the server's administrator to grant this role the use of schema \"{schema}\" and its "
              "tables").format(schema=schema))
    return False


def _let_teachers_read(dbapi_connection, schema: str) -> None:
    """Where the teachers' role exists, its members may read the new ``schema``: its tables now and
    those this login makes in it later."""
    if dbapi_connection.execute("SELECT to_regrole(%s)", (TEACHER_ROLE,)).fetchone()[0] is None:
        return
    for grant in (f'GRANT USAGE ON SCHEMA "{schema}" TO {TEACHER_ROLE}',
                  f'GRANT SELECT ON ALL TABLES IN SCHEMA "{schema}" TO {TEACHER_ROLE}',
                  f'ALTER DEFAULT PRIVILEGES IN SCHEMA "{schema}" GRANT SELECT ON TABLES TO {TEACHER_ROLE}'):
        dbapi_connection.execute(grant)


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
