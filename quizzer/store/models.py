"""The tables, as SQLAlchemy Core ``Table``s on one ``MetaData``: plain, portable columns only
(no SQLite-specific SQL here), and no ORM, which would only add import time to every command.

Memory state is kept in columns rather than pickled so it can be queried,
indexed and migrated; ``state`` uses fsrs.State values plus ``NEW`` (0) for a
card never reviewed, which fsrs itself has no state for.
"""

from __future__ import annotations

from datetime import datetime, timezone
from collections.abc import Sequence
from typing import Any

from sqlalchemy import (
    BigInteger,
    Boolean,
    CheckConstraint,
    Column,
    Connection,
    Date,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Insert,
    Integer,
    MetaData,
    SmallInteger,
    String,
    Table,
    Text,
    TypeDecorator,
    bindparam,
    update,
)
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.functions import FunctionElement

from quizzer.kinds.fields import ID_MAX, TAG_MAX
from quizzer.store.records import LEECH_TAG, NEW

SYSTEM_TAGS = frozenset({LEECH_TAG})  # set by the scheduler, never by deck sync


class UTCDateTime(TypeDecorator[datetime]):
    """Stores aware datetimes as naive UTC and hands them back UTC-aware.

    Naive values are refused so a local time can never be stored by mistake.
    """

    impl = DateTime
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: object) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError(f"naive datetime {value!r}: pass an aware (UTC) datetime")
        return value.astimezone(timezone.utc).replace(tzinfo=None)

    def process_result_value(self, value: datetime | None, dialect: object) -> datetime | None:
        return None if value is None else value.replace(tzinfo=timezone.utc)


class epoch(FunctionElement[float]):
    """A ``UTCDateTime`` column as float seconds since the epoch, computed by the database, so
    thousands of rows never become datetimes one by one. Exact to the microsecond: a due time at
    a day's start compares equal to that start (SQLite's ``julianday`` would be 10 µs early)."""

    type = Float()
    inherit_cache = True


@compiles(epoch, "sqlite")
def _epoch_sqlite(element: epoch, compiler: Any, **kw: Any) -> str:
    stored = compiler.process(element.clauses, **kw)  # 'YYYY-MM-DD HH:MM:SS[.ffffff]'
    # julianday keeps milliseconds at best: the whole seconds through it, rounded; the digits after
    # them as written (twice as fast as strftime('%s'), which formats text to parse it again)
    return (f"(round((julianday(substr({stored}, 1, 19)) - 2440587.5) * 86400.0)"
            f" + CAST(substr({stored}, 20) AS REAL))")


@compiles(epoch, "postgresql")
def _epoch_postgresql(element: epoch, compiler: Any, **kw: Any) -> str:
    return f"CAST(EXTRACT(EPOCH FROM {compiler.process(element.clauses, **kw)}) AS DOUBLE PRECISION)"


# Named constraints keep future (batch) migrations deterministic on every backend.
metadata = MetaData(
    naming_convention={
        "ix": "ix_%(table_name)s_%(column_0_N_name)s",
        "uq": "uq_%(table_name)s_%(column_0_N_name)s",
        "ck": "ck_%(table_name)s_%(constraint_name)s",
        "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
        "pk": "pk_%(table_name)s",
    }
)

CARD_ID = String(ID_MAX)  # cards.id, and every column that refers to it

cards = Table(
    "cards", metadata,
    Column("id", CARD_ID, primary_key=True),
    Column("deck", String(ID_MAX), nullable=False),
    Column("kind", String(50), nullable=False),
    Column("position", Integer, nullable=False),
    Column("content_hash", String(128), nullable=False),
    Column("state", SmallInteger, nullable=False, default=NEW),
    Column("step", Integer),
    Column("stability", Float),
    Column("difficulty", Float),
    Column("due", UTCDateTime),
    Column("last_review", UTCDateTime),
    Column("suspended", Boolean, nullable=False, default=False),
    Column("buried_until", UTCDateTime),
    Column("first_seen", UTCDateTime, nullable=False),
    Column("active", Boolean, nullable=False, default=True),
    Column("lapses", Integer, nullable=False, default=0),
    CheckConstraint("state BETWEEN 0 AND 3", name="state"),
    Index("ix_cards_state_due", "state", "due"),
    Index("ix_cards_state_position", "state", "position"),
)

# Deck tags plus system tags such as ``leech``; a table so queues can filter by tag.
card_tags = Table(
    "card_tags", metadata,
    Column("card_id", CARD_ID, ForeignKey("cards.id", ondelete="CASCADE"), primary_key=True),
    Column("tag", String(TAG_MAX), primary_key=True),
    Index("ix_card_tags_tag", "tag"),
)

# One answer.  ``state_before`` lets daily limits tell new cards from reviews;
# ``scheduled`` is False for ahead (practice) reviews that left memory state alone.
review_log = Table(
    "review_log", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("card_id", CARD_ID, ForeignKey("cards.id"), nullable=False),
    Column("reviewed_at", UTCDateTime, nullable=False),
    Column("rating", SmallInteger, nullable=False),
    Column("duration_ms", Integer),
    Column("mode", String(10), nullable=False, default="study"),
    Column("answer_text", Text),
    Column("correct", Boolean),
    Column("seed", BigInteger),
    Column("state_before", SmallInteger, nullable=False),
    Column("scheduled", Boolean, nullable=False, default=True),
    CheckConstraint("rating BETWEEN 1 AND 4", name="rating"),
    CheckConstraint("mode IN ('study', 'exam')", name="mode"),
    Index("ix_review_log_card_id_id", "card_id", "id"),
    Index("ix_review_log_reviewed_at", "reviewed_at"),
)

# Small key/value facts about the collection (e.g. the last synced deck fingerprint).
meta = Table(
    "meta", metadata,
    Column("key", String(100), primary_key=True),
    Column("value", Text, nullable=False),
)

# A mock interview: its paper is in ``exam_questions``; unfinished until handed in.
exams = Table(
    "exams", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("seed", BigInteger, nullable=False),
    Column("started_at", UTCDateTime, nullable=False),
    Column("minutes", Float, nullable=False),
    Column("filters", Text, nullable=False),  # JSON: count, decks, tags, kinds (to redraw the same paper)
    Column("finished_at", UTCDateTime),
    Column("score", Float),  # percent, set when finished
    Column("handed_in_at", UTCDateTime),  # the answering ended (handed in, or time up): marking follows
    Index("ix_exams_seed", "seed"),
)

# One question of an exam and what the learner did with it, saved as it happens.
exam_questions = Table(
    "exam_questions", metadata,
    Column("exam_id", Integer, ForeignKey("exams.id", ondelete="CASCADE"), primary_key=True),
    Column("position", Integer, primary_key=True),
    Column("card_id", CARD_ID, ForeignKey("cards.id"), nullable=False),
    Column("kind", String(50), nullable=False),
    Column("seed", BigInteger),  # the generated question of a numeric card
    Column("status", String(12), nullable=False, default="unanswered"),
    Column("answer_text", Text),
    Column("duration_ms", Integer, nullable=False, default=0),
    Column("covered", Text),  # JSON list of key points the learner marked
    Column("score", Float),  # 0..1, set when the exam is scored
    Column("review_id", Integer, ForeignKey("review_log.id", ondelete="SET NULL")),
    CheckConstraint("status IN ('unanswered', 'skipped', 'answered')", name="status"),
    Index("ix_exam_questions_card_id", "card_id"),
)

# The mistakes notebook: cards got wrong in an exam, until right on two later days.
mistakes = Table(
    "mistakes", metadata,
    Column("card_id", CARD_ID, ForeignKey("cards.id", ondelete="CASCADE"), primary_key=True),
    Column("times_wrong", Integer, nullable=False, default=0),
    Column("last_wrong_at", UTCDateTime, nullable=False),
    Column("last_wrong_answer", Text),
)

# Learner-level state: FSRS parameters fitted by ``quiz optimize`` (JSON list, None for the
# defaults) and the interview ``quiz plan`` aims at. One row (id 1): on a server each learner
# has a schema of their own (``postgres.learner_schema``), and so a table of their own.
learner = Table(
    "learner", metadata,
    Column("id", Integer, primary_key=True, autoincrement=False),
    Column("parameters", Text),
    Column("fitted_at", UTCDateTime),
    Column("interview_day", Date),
    Column("interview_retention", Float),
    Column("interview_decks", Text),  # JSON list, None for every deck
)


IDS_A_STATEMENT = 500  # ids one IN list names at most, under every database's bound-parameter limit


def in_chunks(ids: Sequence[str]) -> list[Sequence[str]]:
    """``ids`` a statement's worth (``IDS_A_STATEMENT``) at a time: IN lists under the limits of
    bound parameters (SQLite 32,766, PostgreSQL 65,535)."""
    return [ids[start:start + IDS_A_STATEMENT] for start in range(0, len(ids), IDS_A_STATEMENT)]


def update_by_id(conn: Connection, table: Table, rows: list[dict[str, Any]]) -> None:
    """Update many rows in one statement, each picked by its ``id`` (the key of every dict)
    and set to the dict's other values; every dict has the same keys."""
    if rows:
        conn.execute(update(table).where(table.c.id == bindparam("row_id")),
                     [{("row_id" if key == "id" else key): value for key, value in row.items()} for row in rows])


def insert_id(conn: Connection, statement: Insert) -> int:
    """Run a one-row INSERT and return the id the database gave the row."""
    key = conn.execute(statement).inserted_primary_key
    assert key is not None  # every one-row INSERT has one
    return int(key[0])


# Derived from the review log for ``quiz stats`` (``quizzer.store.review_days``), which rebuilds
# or extends it; nothing else writes it. Reviews of each study day by each deck's cards, with the
# ratings, time spent and true retention's first reviews of the day (young/mature, passed/failed).
review_days = Table(
    "review_days", metadata,
    Column("day", Date, primary_key=True),
    Column("deck", String(ID_MAX), primary_key=True),
    *(Column(name, Integer, nullable=False) for name in ("reviews", "again", "hard", "good", "easy")),
    Column("duration_ms", BigInteger, nullable=False),
    *(Column(name, Integer, nullable=False)
      for name in ("young_passed", "young_failed", "mature_passed", "mature_failed")),
)

# What ``review_days`` holds of each card: its deck then, how many reviews and a checksum of their
# ids and states before, and its last review's time (seconds since the epoch), to notice a card that
# moved deck or whose history was rewritten (an import replays a card's states).
review_days_cards = Table(
    "review_days_cards", metadata,
    Column("card_id", CARD_ID, primary_key=True),
    Column("deck", String(ID_MAX), nullable=False),
    Column("reviews", Integer, nullable=False),
    Column("checksum", BigInteger, nullable=False),
    Column("last_at", Float, nullable=False),
)

# The statistics' weakest cards are those with the most lapses: found from the top of this index
# instead of by sorting every card (``quizzer.store.stats.weakest_cards``).
Index("ix_cards_lapses", cards.c.lapses)
