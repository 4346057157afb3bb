"""Database errors a user can cause, as ``quizzer.base.errors`` exceptions naming the file or server.

SQLite's own errors (disk full, locked past the busy timeout, damaged, read-only) and a
server's (down, login refused, connection lost, lock wait too long) are translated in one
place, ``database_error``, naming the server but never the password.
"""

from __future__ import annotations

import re
import sqlite3
import sys

from sqlalchemy.exc import DBAPIError

from quizzer.base.errors import ConnectionLost, DatabaseError, ServerUnavailable, system_words
from quizzer.base.i18n import N_, _
from quizzer.store.locks import locked

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
# libpq's "connection to server on socket "/tmp/.s.PGSQL.5432" failed" / "... at "host" (addr), port N failed";
# What the server says when every connection slot is taken (no SQLSTATE reaches a failed connect).
_NO_SLOT = ("too many clients", "remaining connection slots are reserved")
# psycopg's own "failed to resolve host 'HOST'": a host that does not resolve is a server that cannot be reached
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
