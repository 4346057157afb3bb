"""Storage: open the database, keep its schema current, sync deck cards."""

from __future__ import annotations

import os
from pathlib import Path

from sqlalchemy.engine import URL

from quizzer.base.i18n import _
from quizzer.store.engine import Store, make_engine
from quizzer.store.records import LEARNING, LEECH_TAG, NEW, RELEARNING, REVIEW
from quizzer.store.schema import SCHEMA_HEAD, ensure_schema
from quizzer.store.sync import CardRef, SyncResult, sync_cards, sync_if_changed
from quizzer.store.urls import default_db_path, resolve


def open_store(url_or_path: str | Path | None = None, learner: str | None = None) -> Store:
    """Open (creating or upgrading as needed) ``learner``'s collection (None: ``default_learner``).

    None means ``$QUIZ_DB`` or else ``quizzer.db`` in the platform user data dir;
    a string containing ``://`` is a SQLAlchemy URL, anything else a file path.
    """
    from quizzer.store.sqlite import check_location
    from quizzer.store.urls import uses_default

    url, path = resolve(url_or_path)
    if path is not None:  # refused before SQLite touches it; only the default folder is created
        check_location(path, create_folder=uses_default(url_or_path))
    name = learner_name(learner, url)
    def started(database: str) -> None:  # said by the command, naming the database libpq chose
        store.created, store.database = True, database

    store = Store(make_engine(url, name, created=started), path, name)
    try:
        ensure_schema(store)  # a damaged, foreign, newer or locked database fails here
    except BaseException:
        store.close()
        raise
    return store


FROM_URL, FROM_PGUSER, FROM_LOGIN = "url", "PGUSER", "login"  # where ``default_learner`` found the name


def default_learner(url: URL) -> tuple[str, str]:
    """The learner when neither ``QUIZ_USER`` nor the ``user`` setting names one, and where the name
    came from. On a server it is whom libpq logs in as, as psql would: the URL's user name (``ann@``
    or ``?user=ann``: one learner on several devices whatever each one's login), else ``PGUSER``,
    else the login name; a SQLite file's is the login name."""
    from quizzer.base.learners import login_name

    if url.get_backend_name() != "sqlite":
        given = url.username or url.query.get("user")
        if isinstance(given, str) and given:
            return given, FROM_URL
        if os.environ.get("PGUSER"):
            return os.environ["PGUSER"], FROM_PGUSER
    return login_name(), FROM_LOGIN


def learner_name(learner: str | None, url: URL) -> str:
    """``learner`` (None: ``default_learner``), checked when it names a schema on a server."""
    from quizzer.base.errors import UsageError
    from quizzer.base.learners import BadName, check

    name = learner or default_learner(url)[0]
    if url.get_backend_name() == "sqlite":
        return name
    try:
        return check(name)
    except BadName as problem:
        raise UsageError(str(problem), _("choose one with QUIZ_USER=NAME or `quiz config set user NAME`")) from None


__all__ = [
    "sync_if_changed",
    "NEW", "LEARNING", "REVIEW", "RELEARNING", "LEECH_TAG", "SCHEMA_HEAD",
    "CardRef", "Store", "SyncResult",
    "default_db_path", "default_learner", "open_store", "sync_cards",
]
