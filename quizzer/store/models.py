"""ORM models: plain, portable columns only (no SQLite-specific SQL here).

Memory state is kept in columns rather than pickled so it can be queried,
indexed and migrated; ``state`` uses fsrs.State values plus ``NEW`` (0) for a
card never reviewed, which fsrs itself has no state for.
"""

from __future__ import annotations

from datetime import date, datetime, timezone

from sqlalchemy import (
    BigInteger,
    Boolean,
    CheckConstraint,
    Date,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    SmallInteger,
    String,
    Text,
    TypeDecorator,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

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


class Base(DeclarativeBase):
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


class Card(Base):
    __tablename__ = "cards"

    id: Mapped[str] = mapped_column(String(200), primary_key=True)
    deck: Mapped[str] = mapped_column(String(200))
    kind: Mapped[str] = mapped_column(String(50))
    position: Mapped[int] = mapped_column(Integer)
    content_hash: Mapped[str] = mapped_column(String(128))
    state: Mapped[int] = mapped_column(SmallInteger, default=NEW)
    step: Mapped[int | None] = mapped_column(Integer)
    stability: Mapped[float | None] = mapped_column(Float)
    difficulty: Mapped[float | None] = mapped_column(Float)
    due: Mapped[datetime | None] = mapped_column(UTCDateTime)
    last_review: Mapped[datetime | None] = mapped_column(UTCDateTime)
    suspended: Mapped[bool] = mapped_column(Boolean, default=False)
    buried_until: Mapped[datetime | None] = mapped_column(UTCDateTime)
    first_seen: Mapped[datetime] = mapped_column(UTCDateTime)
    active: Mapped[bool] = mapped_column(Boolean, default=True)
    lapses: Mapped[int] = mapped_column(Integer, default=0)

    __table_args__ = (
        CheckConstraint("state BETWEEN 0 AND 3", name="state"),
        Index("ix_cards_state_due", "state", "due"),
        Index("ix_cards_state_position", "state", "position"),
    )


class CardTag(Base):
    """Deck tags plus system tags such as ``leech``; a table so queues can filter by tag."""

    __tablename__ = "card_tags"

    card_id: Mapped[str] = mapped_column(
        ForeignKey("cards.id", ondelete="CASCADE"), primary_key=True
    )
    tag: Mapped[str] = mapped_column(String(100), primary_key=True)

    __table_args__ = (Index("ix_card_tags_tag", "tag"),)


class Review(Base):
    """One answer.  ``state_before`` lets daily limits tell new cards from reviews;
    ``scheduled`` is False for ahead (practice) reviews that left memory state alone."""

    __tablename__ = "review_log"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    card_id: Mapped[str] = mapped_column(ForeignKey("cards.id"))
    reviewed_at: Mapped[datetime] = mapped_column(UTCDateTime)
    rating: Mapped[int] = mapped_column(SmallInteger)
    duration_ms: Mapped[int | None] = mapped_column(Integer)
    mode: Mapped[str] = mapped_column(String(10), default="study")
    answer_text: Mapped[str | None] = mapped_column(Text)
    correct: Mapped[bool | None] = mapped_column(Boolean)
    seed: Mapped[int | None] = mapped_column(BigInteger)
    state_before: Mapped[int] = mapped_column(SmallInteger)
    scheduled: Mapped[bool] = mapped_column(Boolean, default=True)

    __table_args__ = (
        CheckConstraint("rating BETWEEN 1 AND 4", name="rating"),
        CheckConstraint("mode IN ('study', 'exam')", name="mode"),
        Index("ix_review_log_card_id_id", "card_id", "id"),
        Index("ix_review_log_reviewed_at", "reviewed_at"),
    )


class Meta(Base):
    """Small key/value facts about the collection (e.g. the last synced deck fingerprint)."""

    __tablename__ = "meta"

    key: Mapped[str] = mapped_column(String(100), primary_key=True)
    value: Mapped[str] = mapped_column(Text)


class Exam(Base):
    """A mock interview: its paper is in ``exam_questions``; unfinished until handed in."""

    __tablename__ = "exams"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    seed: Mapped[int] = mapped_column(BigInteger)
    started_at: Mapped[datetime] = mapped_column(UTCDateTime)
    minutes: Mapped[float] = mapped_column(Float)
    filters: Mapped[str] = mapped_column(Text)  # JSON: count, decks, tags, kinds (to redraw the same paper)
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    score: Mapped[float | None] = mapped_column(Float)  # percent, set when finished

    __table_args__ = (Index("ix_exams_seed", "seed"),)


class ExamQuestion(Base):
    """One question of an exam and what the learner did with it, saved as it happens."""

    __tablename__ = "exam_questions"

    exam_id: Mapped[int] = mapped_column(ForeignKey("exams.id", ondelete="CASCADE"), primary_key=True)
    position: Mapped[int] = mapped_column(Integer, primary_key=True)
    card_id: Mapped[str] = mapped_column(ForeignKey("cards.id"))
    kind: Mapped[str] = mapped_column(String(50))
    seed: Mapped[int | None] = mapped_column(BigInteger)  # the generated question of a numeric card
    status: Mapped[str] = mapped_column(String(12), default="unanswered")
    answer_text: Mapped[str | None] = mapped_column(Text)
    duration_ms: Mapped[int] = mapped_column(Integer, default=0)
    covered: Mapped[str | None] = mapped_column(Text)  # JSON list of key points the learner marked
    score: Mapped[float | None] = mapped_column(Float)  # 0..1, set when the exam is scored
    review_id: Mapped[int | None] = mapped_column(ForeignKey("review_log.id", ondelete="SET NULL"))

    __table_args__ = (
        CheckConstraint("status IN ('unanswered', 'skipped', 'answered')", name="status"),
        Index("ix_exam_questions_card_id", "card_id"),
    )


class Mistake(Base):
    """The mistakes notebook: cards got wrong in an exam, until right on two later days."""

    __tablename__ = "mistakes"

    card_id: Mapped[str] = mapped_column(ForeignKey("cards.id", ondelete="CASCADE"), primary_key=True)
    times_wrong: Mapped[int] = mapped_column(Integer, default=0)
    last_wrong_at: Mapped[datetime] = mapped_column(UTCDateTime)
    last_wrong_answer: Mapped[str | None] = mapped_column(Text)


class Learner(Base):
    """Learner-level state: FSRS parameters fitted by ``quiz optimize`` (JSON list, None for the
    defaults) and the interview ``quiz plan`` aims at. One row today (id 1); a learner column
    for several learners per server replaces the fixed id later."""

    __tablename__ = "learner"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    parameters: Mapped[str | None] = mapped_column(Text)
    fitted_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    interview_day: Mapped[date | None] = mapped_column(Date)
    interview_retention: Mapped[float | None] = mapped_column(Float)
    interview_decks: Mapped[str | None] = mapped_column(Text)  # JSON list, None for every deck


# The tables themselves, for Core statements (select/insert/update on columns, no ORM).
cards = Card.__table__
card_tags = CardTag.__table__
review_log = Review.__table__
meta = Meta.__table__
exams = Exam.__table__
exam_questions = ExamQuestion.__table__
mistakes = Mistake.__table__
learner = Learner.__table__
