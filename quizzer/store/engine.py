"""Opening the database: URL resolution, connection hooks, transactions.

Two backends: a SQLite file, or a PostgreSQL server (``postgresql://user@host:port/db``,
driven by psycopg 3). All dialect-specific behaviour lives in ``_install_sqlite_hooks``
and ``_install_postgres_hooks``; the rest of the library only sees ``Store.read()`` and
``Store.write()``, which give the same guarantees on both: a read is one consistent
snapshot, and writes are serialised (one writer at a time, readers never blocked), so a
read-then-write transaction never acts on a stale read.

Failures a user can cause surface as ``quizzer.errors`` exceptions naming the file:
``check_location`` looks at the file and its folder before SQLite touches them (so a
text file, a directory, a missing folder or a read-only file is refused and left as
it is), and ``Store.read()`` / ``Store.write()`` translate SQLite's own errors (disk
full, locked past the busy timeout, damaged, read-only) in one place,
``database_error``; so are a server's (down, login refused, connection lost, lock wait
too long), naming the server but never the password.
"""

from __future__ import annotations

import math
import re
import os
import sqlite3
import sys
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from sqlalchemy import Connection, Engine, Table, create_engine, event, text
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import DBAPIError

from quizzer.errors import ConnectionLost, DatabaseError, ServerUnavailable, UsageError, os_reason, system_words
from quizzer.i18n import N_, _
from quizzer.locks import BUSY_TIMEOUT_MS, busy_timeout_ms, locked

SQLITE_MAGIC = b"SQLite format 3\x00"  # the first 16 bytes of every SQLite 3 database file
_WRITE_OPTION = "quizzer_write"
CONNECT_TIMEOUT_S = 10  # a server that does not answer is an error after this long, not a hang
# The key of the transaction-level advisory lock every write takes on a server: PostgreSQL's
# counterpart of SQLite's BEGIN IMMEDIATE (one writer at a time, readers never blocked).
WRITE_LOCK_KEY = 0x7175697A  # "quiz"
SERVER_SCHEMES = ("postgresql", "postgres")  # what a user types; the driver is added (``resolve``)
# drivers a server URL may name: psycopg 3 serves both, libpq's URL and options being theirs alike
SERVER_DRIVERS = ("", "psycopg", "psycopg2")
URL_EXAMPLE = N_("e.g. postgresql://user@host:5432/quiz")  # the hint of every URL that cannot be used
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


@dataclass
class Store:
    """A database handle.  ``path`` is the SQLite file (None for other backends),
    used for backups. ``learner`` is whose collection it is: on a server, the schema
    ``learner_<name>`` (``learner_schema``) every statement works in; a SQLite file holds one
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
        # (``quiz`` ends without tearing the interpreter down, which closed it before).
        weakref.finalize(self, self.engine.dispose)

    @property
    def where(self) -> str:
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
    """The DatabaseError for a SQLite or server error a user can cause; None for anything else."""
    code: int | str | None = sqlite_code(exc)
    if code is None:
        code = _server_code(exc)
    if code == SERVER_FULL:
        return ServerUnavailable(_("{where}: the database server has no free connection (too many clients): {reason}").format(
            where=where, reason=first_line(exc)),
            _("wait for other sessions to end, or raise the server's max_connections"))
    if code == SERVER_DOWN:
        return ServerUnavailable(_("{where}: cannot connect to the database server: {reason}").format(
            where=where, reason=first_line(exc)),
            _("check that the server is running and that host, port and database in --db / QUIZ_DB are right"))
    if code == SERVER_GONE:
        return ConnectionLost(_("{where}: the database server closed the connection: {reason}").format(
            where=where, reason=first_line(exc)),
            _("a change in progress was rolled back, not half-written; run the command again once the server is back"))
    if code == SERVER_LOGIN:
        return DatabaseError(_("{where}: the database server refused the login: {reason}").format(
            where=where, reason=first_line(exc)),
            _("check the user name (and password, e.g. in ~/.pgpass) and the server's pg_hba.conf"))
    if code == SERVER_OPTION:
        option = _BAD_OPTION.search(str(exc.orig if isinstance(exc, DBAPIError) else exc))
        return DatabaseError(_("{where}: not a connection option: {option}").format(
            where=where, option=option.group(1) if option else "?"),
            _("libpq's options are listed at https://www.postgresql.org/docs/current/libpq-connect.html"))
    if code == SERVER_NO_DATABASE:  # named: a URL without one means libpq's default, PGDATABASE else the user's name
        named = _NO_DATABASE.search(str(exc.orig if isinstance(exc, DBAPIError) else exc))
        database = named.group(1) if named else "?"
        return DatabaseError(_("{where}: the database {database} does not exist on the server").format(
            where=where, database=database),
            _("create it (createdb {database}), or name another in --db / QUIZ_DB; a URL that names none means "
              "PGDATABASE, else the user's name").format(database=database))
    if code == SQLITE_FULL:
        return DatabaseError(_("{where}: the disk is full, so the change was not saved").format(where=where),
                             _("free some disk space and run the command again"))
    if code == SQLITE_BUSY:
        return locked(where)
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


# What a server error means to a user (``_server_code``), beside SQLite's codes above.
SERVER_DOWN, SERVER_GONE, SERVER_LOGIN, SERVER_NO_DATABASE, SERVER_OPTION = "down", "gone", "login", "no database", "option"
SERVER_FULL = "full"  # every connection slot is taken: "too many clients"
_BAD_OPTION = re.compile(r'invalid connection option "(.*?)"')  # libpq's words for an unknown ?name= in the URL
_NO_DATABASE = re.compile(r'database "(.*?)" does not exist')  # the server's words, naming the database libpq asked for
_SQLSTATES: dict[str, int | str] = {
    "55P03": SQLITE_BUSY,  # lock_not_available: the write lock was held past lock_timeout
    "53100": SQLITE_FULL,  # disk_full
    "28P01": SERVER_LOGIN,  # invalid_password
    "28000": SERVER_LOGIN,  # invalid_authorization_specification (no pg_hba.conf entry, no such role)
    "3D000": SERVER_NO_DATABASE,  # invalid_catalog_name
    "53300": SERVER_FULL,  # too_many_connections
}


def _server_code(exc: BaseException) -> int | str | None:
    """What a psycopg error (also wrapped by SQLAlchemy) means, as a SQLite code or SERVER_*;
    None for anything else. Errors without a SQLSTATE are the connection's own: refused or
    timed out while connecting (SERVER_DOWN), or lost afterwards (SERVER_GONE)."""
    psycopg = sys.modules.get("psycopg")  # loaded by any server connection; absent, no error is its
    orig = exc.orig if isinstance(exc, DBAPIError) else exc
    if psycopg is None or not isinstance(orig, psycopg.Error):
        return None
    state = orig.sqlstate or ""
    if not state and _BAD_OPTION.search(str(orig)):
        return SERVER_OPTION
    if state in _SQLSTATES:
        return _SQLSTATES[state]
    text = str(orig)
    if not state and ("connection failed" in text or _CONNECTING.search(text)):  # refused while connecting: libpq's words
        if any(words in text for words in _LOGIN_REFUSED):
            return SERVER_LOGIN
        if any(words in text for words in _NO_SLOT):
            return SERVER_FULL
        return SERVER_NO_DATABASE if _NO_DATABASE.search(text) else SERVER_DOWN
    if state.startswith(("08", "57P")) or (not state and isinstance(orig, psycopg.OperationalError)):
        # 08: connection exception; 57P: the server shut down or restarted (admin_shutdown, crash_shutdown, ...)
        return SERVER_DOWN if state in ("08001", "08004", "57P03") else SERVER_GONE
    return None


# What libpq says when the server refuses the login (an unknown role, a wrong password, pg_hba.conf).
_LOGIN_REFUSED = ("authentication failed", "no pg_hba.conf entry", "password is required", "role \"",
                  "no password supplied")
# What the server says when every connection slot is taken (no SQLSTATE reaches a failed connect).
_NO_SLOT = ("too many clients", "remaining connection slots are reserved")
# libpq's "connection to server on socket "/tmp/.s.PGSQL.5432" failed" / "... at "host" (addr), port N failed";
# psycopg's own "failed to resolve host 'HOST'" (a misspelt host was "closed the connection ... rolled back")
_CONNECTING = re.compile(r"connection to server (on socket|at) .* failed|^failed to resolve host ")


def first_line(exc: BaseException) -> str:
    """The driver's own words, on one line (psycopg adds hints on further lines); the system's
    words for a common error (``Connection refused``) in the interface language."""
    orig = exc.orig if isinstance(exc, DBAPIError) else exc
    lines = [" ".join(line.split()) for line in str(orig).splitlines() if line.strip()]
    if not lines:
        return type(orig).__name__
    unknown = _UNRESOLVED.match(lines[0])
    if unknown:
        return _("no such host: {host}").format(host=unknown.group(1))
    # "connection failed: connection to server at "HOST", port N failed: WHY": the URL already names the server
    return system_words(lines[0].rpartition(" failed: ")[2] if lines[0].startswith("connection failed") else lines[0])


_UNRESOLVED = re.compile(r"failed to resolve host '(.*?)'")  # psycopg's, with the resolver's English after it


def shown_url(url: URL) -> str:
    """A server URL as the user would write it: no driver name, no password."""
    return masked(url.set(drivername=url.get_backend_name()).render_as_string(hide_password=True))


# A password in a URL: after the user name up to the last @ (one more @ in it is read as part of
# the host, so this hides too much rather than too little), or as ``?password=``; also where the
# URL lost its colon or a slash (``postgresql//ann:pw@host``).
_PASSWORD = re.compile(r"(/[^:/@]*:).*@|([?&]password=)[^&]*", re.IGNORECASE)
# a scheme, then slashes, then user:password@ (what no file path of a database looks like)
_CREDENTIALS = re.compile(r"[^/:@]+:?/+[^/:@]*:[^/@]*@")


def masked(text: str) -> str:
    """``text`` (a URL, also one that does not parse) with each password in it as ``***``."""
    return _PASSWORD.sub(lambda found: f"{found[1]}***@" if found[1] else f"{found[2]}***", text)


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
    platform user data directory.  Strings containing ``://`` are URLs; a plain
    ``postgresql://`` (or ``postgres://``) URL gets psycopg 3 as its driver."""
    target = _explicit(url_or_path)
    if target is None:
        target = default_db_path()
    target = _unflattened(str(target))
    if "://" in target:
        url = _parsed(target)
        scheme, _plus, driver = url.drivername.lower().partition("+")
        url = url.set(drivername=url.drivername.lower())  # POSTGRESQL:// and SQLite:// are the same URLs
        if scheme in SERVER_SCHEMES and driver in SERVER_DRIVERS:
            url = url.set(drivername="postgresql+psycopg")
        elif scheme in SERVER_SCHEMES:
            raise UsageError(_("{url}: quizzer talks to PostgreSQL through psycopg, not {driver}").format(
                url=shown_url(url), driver=driver), _("write the URL as postgresql://..."))
        database = url.database if url.get_backend_name() == "sqlite" else None
        return url, Path(os.path.realpath(database)) if database and database != ":memory:" else None
    if _CREDENTIALS.match(target):  # a URL typed wrong (mysql:/, postgresql//): as a path, messages would show it whole
        raise UsageError(_("{url}: not a database URL").format(url=masked(target)), _(URL_EXAMPLE))
    path = Path(os.path.realpath(Path(target).expanduser()))  # a symlink loop is ELOOP when opened, not a RuntimeError here
    return URL.create("sqlite", database=str(path)), path


def _parsed(target: str) -> URL:
    """``target`` as a URL; a usage error where it is none (a port that is no number, in the
    authority or as ``?port=``, was a traceback when the connection was made)."""
    from sqlalchemy.exc import ArgumentError

    example = _(URL_EXAMPLE)
    try:
        url = make_url(target)
    except ValueError:  # int() of the port in the authority (SQLAlchemy's words name Python's int())
        raise UsageError(_("{url}: the port is not a number from 1 to 65535").format(url=masked(target)), example) from None
    except ArgumentError:  # SQLAlchemy's words repeat the URL, password and all
        raise UsageError(_("{url}: not a database URL").format(url=masked(target)), example) from None
    given = url.query.get("port", ())
    ports = [given] if isinstance(given, str) else [*given]
    if url.port is not None:
        ports.append(str(url.port))
    if any(not (port.isdigit() and 1 <= int(port) <= 65535) for port in ports):  # 99999 was "the connection was lost"
        raise UsageError(_("{url}: the port is not a number from 1 to 65535").format(url=shown_url(url)), example)
    if "@" in (url.host or ""):  # the rest of a password that holds an @: libpq would name it as the host
        raise UsageError(_("{url}: the host cannot hold an @").format(url=shown_url(url)),
                         _("write an @ in the password as %40"))
    return url


def _unflattened(target: str) -> str:
    """A server URL whose ``//`` a path option (``--db``) folded into ``/``, or the user left out
    (in ``--db`` or ``QUIZ_DB`` alike): ``postgresql:/user@host/db`` was ``postgresql://user@host/db``,
    and ``postgresql:/db`` (no host, no user) was ``postgresql:///db`` (the local socket). Never a
    file path: one would be shown in messages, password and all."""
    scheme, colon, rest = target.partition(":")
    if not colon or scheme.split("+")[0].lower() not in SERVER_SCHEMES or rest.startswith("//"):
        return target
    rest = rest.removeprefix("/")
    return f"{scheme}://{rest}" if any(mark in rest for mark in "/@:") else f"{scheme}:///{rest}"


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


def make_engine(url: URL, learner: str, *, create: bool = True, created: Callable[[str], None] | None = None) -> Engine:
    """The engine; opening the file (or connecting) is left to the first transaction (see
    ``check_location``). On a server every connection works in ``learner``'s schema, created
    if missing unless ``create`` is off (a reader of other learners' collections); ``created`` is
    called when it is, with the database it is in."""
    if url.get_backend_name() == "postgresql" and url.drivername == "postgresql+psycopg":
        return _postgres_engine(url, busy_timeout_ms(), learner, create, created)
    if url.drivername != "sqlite":  # mysql://, http://, postgresql+psycopg2://: a traceback from SQLAlchemy
        raise UsageError(_("{where}: quizzer keeps a collection in a SQLite file or on a PostgreSQL server").format(
            where=shown_url(url)), _("give --db / QUIZ_DB a file path or a postgresql:// URL"))
    engine = create_engine(url)
    if engine.dialect.name == "sqlite":
        _install_sqlite_hooks(engine, busy_timeout_ms())
    return engine


def _postgres_engine(url: URL, busy_timeout: int, learner: str, create: bool,
                     created: Callable[[str], None] | None) -> Engine:
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
    _install_postgres_hooks(engine, learner, shown_url(url) if create else None, created)
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


def _install_postgres_hooks(engine: Engine, learner: str, where: str | None, created: Callable[[str], None] | None) -> None:
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
        if conn.get_execution_options().get(_WRITE_OPTION, False):
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
        _ensure_math_functions(dbapi_connection)

    @event.listens_for(engine, "begin")
    def _on_begin(conn) -> None:
        immediate = conn.get_execution_options().get(_WRITE_OPTION, False)
        conn.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")
