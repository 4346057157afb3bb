"""Which database a command opens: ``--db``, else ``QUIZ_DB``, else the platform's data folder; a
SQLite file path or a ``postgresql://`` URL, shown to the user without its password."""

from __future__ import annotations

import os
import re
from pathlib import Path

from sqlalchemy.engine import URL, make_url

from quizzer.base.errors import UsageError
from quizzer.base.i18n import N_, _

SERVER_SCHEMES = ("postgresql", "postgres")  # what a user types; the driver is added (``resolve``)
# drivers a server URL may name: psycopg 3 serves both, libpq's URL and options being theirs alike
SERVER_DRIVERS = ("", "psycopg", "psycopg2")
URL_EXAMPLE = N_("e.g. postgresql://user@host:5432/quiz")  # the hint of every URL that cannot be used


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
    """``target`` as a URL; a usage error where it is none, or where a port (in the authority or
    as ``?port=``) is not a number from 1 to 65535: checked here, before any connection."""
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
    if any(not (port.isdigit() and 1 <= int(port) <= 65535) for port in ports):
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
