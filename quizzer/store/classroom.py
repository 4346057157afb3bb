"""What the class report reads: the learners who have a collection here, each one's store,
and each one's failed reviews.

On a server a learner's collection is the schema ``learner_<name>`` (``postgres.learner_schema``);
reading another learner's needs the rights to that schema, which is how a server decides who may
see the whole class. A SQLite file is one learner's collection.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path

from sqlalchemy import func, select, text
from sqlalchemy.exc import DBAPIError

from quizzer.base.defaults import Rating
from quizzer.base.errors import OtherSchemaVersion, UnreadCollection
from quizzer.base.i18n import _
from quizzer.store.engine import Store, make_engine
from quizzer.store.errors import first_line
from quizzer.store.postgres import IS_TEACHER, LEARNER_SCHEMA_PREFIX, learner_schema
from quizzer.store.urls import resolve
from quizzer.store.models import review_log
from quizzer.store.schema import SCHEMA_HEAD, VERSION_TABLE, schema_version



def open_class(url_or_path: str | Path | None, learner: str | None) -> Store:
    """The database, to read every learner's collection: a SQLite file is opened as ``learner``'s
    (``open_store``); on a server nobody's collection is created or upgraded by reading."""
    from quizzer.store import learner_name, open_store

    url, path = resolve(url_or_path)
    if path is not None:
        return open_store(url_or_path, learner)
    name = learner_name(learner, url)
    return Store(make_engine(url, name, create=False), None, name)


def names(store: Store) -> list[str]:
    """The learners with a collection here, sorted: on a server every ``learner_<name>`` schema
    that holds quizzer's version table and that this login may use (a teacher: every one, so that
    one not granted to it is said); in a SQLite file, its one learner."""
    if store.engine.dialect.name == "sqlite":
        return [store.learner]
    with store.read() as conn:
        schemas = conn.execute(text(
            "SELECT n.nspname FROM pg_catalog.pg_namespace n JOIN pg_catalog.pg_class c ON c.relnamespace = n.oid "
            "WHERE c.relname = :version AND starts_with(n.nspname, :prefix) "
            f"AND (has_schema_privilege(n.oid, 'USAGE') OR {IS_TEACHER}) ORDER BY n.nspname"),
            {"version": VERSION_TABLE, "prefix": LEARNER_SCHEMA_PREFIX}).scalars().all()
    return [schema[len(LEARNER_SCHEMA_PREFIX):] for schema in schemas]


def public_collection(store: Store) -> bool:
    """Whether a collection quizzer kept before learners is still in a server's ``public`` schema
    (its version table is there): the first learner whose quiz opens the database takes it."""
    if store.engine.dialect.name == "sqlite":
        return False
    with store.read() as conn:
        return bool(conn.execute(text("SELECT to_regclass(:table) IS NOT NULL"),
                                 {"table": f"public.{VERSION_TABLE}"}).scalar_one())


@contextmanager
def opened(store: Store, learner: str) -> Iterator[Store]:
    """``learner``'s collection on the same database, to read (closed on exit). A collection
    at another schema version is OtherSchemaVersion: only its learner's quiz upgrades it; one
    this login may not read, or that a read of it fails in (damaged), is UnreadCollection."""
    if store.engine.dialect.name == "sqlite":  # one learner: the file's
        yield store
        return
    other = Store(make_engine(store.engine.url, learner, create=False), store.path, learner)
    try:
        with other.read() as conn:
            version = schema_version(conn)
        if version is None:  # listed by names(), so it is there: without rights to it, its tables are not seen
            raise UnreadCollection(
                _("{where}: this login may not read {learner}'s collection (schema {schema})").format(
                    where=store.display_name, learner=learner, schema=learner_schema(learner)),
                _("the class report needs USAGE and SELECT on every learner's schema"))
        if version != SCHEMA_HEAD:
            raise OtherSchemaVersion(
                _("{learner}'s collection is at schema {version}, this quizzer reads {head}").format(
                    learner=learner, version=version, head=SCHEMA_HEAD),
                _("{learner}'s own quiz upgrades it (a reader never does: an older quiz of theirs could no longer "
                  "open it)").format(learner=learner), version=str(version))
        try:
            yield other
        except DBAPIError as exc:  # what the store does not translate: a table or column gone, a table not granted
            raise UnreadCollection(
                _("{learner}'s collection cannot be read: {reason}").format(learner=learner, reason=first_line(exc)),
                _("`QUIZ_USER={learner} quiz check` shows what is wrong with it").format(learner=learner)) from exc
    finally:
        other.close()


def failures(store: Store, since: datetime, until: datetime) -> dict[str, int]:
    """Failed reviews (Again) per card in [since, until)."""
    with store.read() as conn:
        rows = conn.execute(
            select(review_log.c.card_id, func.count())
            .where(review_log.c.rating == Rating.AGAIN, review_log.c.reviewed_at >= since, review_log.c.reviewed_at < until)
            .group_by(review_log.c.card_id)).all()
    return {card_id: count for card_id, count in rows}

