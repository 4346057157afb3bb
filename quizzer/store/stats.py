"""The reads ``quiz stats`` needs, returning frozen dataclasses.

Reviews are counted for every card the filter names, active or not (history imported for
cards no deck has any more still happened); card counts cover active cards only.

A day is a study day (``quizzer.clock``). The store groups by the UTC instants days begin,
with portable range conditions (``day_start(d) <= reviewed_at < day_start(d + 1)`` is
exactly ``study_day(reviewed_at) == d``, also across DST changes) instead of a dialect's
date functions. Tens of thousands of rows come back in columns, their times as seconds since
the epoch (UTC), so the layer above can use numpy on them without a datetime per row.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timedelta, timezone
from typing import Any

import numpy as np
from sqlalchemy import (
    ColumnElement,
    DateTime,
    Integer,
    and_,
    case,
    column,
    func,
    or_,
    select,
    type_coerce,
    values,
)
from sqlalchemy.orm import aliased

from quizzer.clock import ROLLOVER_HOUR, day_start, study_day
from quizzer.store.engine import Store
from quizzer.store.filter import CardFilter
from quizzer.store.models import Card, CardTag, Exam, ExamQuestion, Review, UTCDateTime
from quizzer.store.records import LEECH_TAG, NEW, REVIEW

DAYS_PER_QUERY = 1000  # VALUES rows per query: two bound parameters each, well under SQLite's limit
_EPOCH = datetime(1970, 1, 1)  # naive: what the columns hold is naive UTC (models.UTCDateTime)


@dataclass(frozen=True)
class StateCount:
    """How many active cards of a deck share a state and flags."""

    deck: str
    state: int
    suspended: bool
    buried: bool
    leech: bool
    cards: int


@dataclass(frozen=True)
class DayRatings:
    """Reviews with one rating on one day (``day``: the index into the day starts given)."""

    day: int
    rating: int
    reviews: int
    duration_ms: int


@dataclass(frozen=True)
class FirstReviews:
    """The first review of a card on a day, of a card in the Review state before it, in
    columns: when it was, when the card's previous review was (NaN: none), its rating."""

    reviewed_at: np.ndarray  # seconds since the epoch, UTC
    previous_at: np.ndarray  # seconds since the epoch, UTC; NaN if the card has no earlier review
    ratings: np.ndarray


@dataclass(frozen=True)
class SeenCards:
    """The active cards already reviewed, in columns: what recall and weakness need."""

    ids: tuple[str, ...]
    decks: tuple[str, ...]
    stability: np.ndarray  # NaN if unknown
    last_review: np.ndarray  # seconds since the epoch, UTC; NaN if unknown
    lapses: np.ndarray


@dataclass(frozen=True)
class ExamScore:
    id: int
    finished_at: datetime
    score: float  # percent


def _seconds(values: Any) -> np.ndarray:
    """Naive-UTC datetimes (None allowed) as float seconds since the epoch (NaN for None)."""
    return np.array([np.nan if v is None else (v - _EPOCH).total_seconds() for v in values], dtype=float)


def _raw(when: Any) -> Any:
    """A time column read as the naive UTC value it stores: many rows, no per-row tz work."""
    return type_coerce(when, DateTime())


def _of_cards(chosen: CardFilter, by_card_index: bool) -> list[ColumnElement[bool]]:
    """Reviews of the cards the filter names. ``by_card_index`` lets the database find them
    through ``(card_id, id)`` (right for the whole history of a few cards); otherwise
    ``card_id || ''`` keeps that index out of the plan, so a few days' reviews are found by
    time and only checked against the cards: SQLite otherwise goes card by card for every
    day of a range join, thousands of times the work."""
    conditions = chosen.where(only_active=False)
    if not conditions:
        return []
    card_id = Review.card_id if by_card_index else Review.card_id.concat("")
    return [card_id.in_(select(Card.id).where(*conditions))]


def state_counts(store: Store, chosen: CardFilter, now: datetime) -> list[StateCount]:
    """Active cards by deck, state, suspended, buried (at ``now``) and leech."""
    buried = case((Card.buried_until > now, True), else_=False)
    leech = Card.id.in_(select(CardTag.card_id).where(CardTag.tag == LEECH_TAG))
    with store.read() as session:
        rows = session.connection().execute(
            select(Card.deck, Card.state, Card.suspended, buried, leech, func.count())
            .where(*chosen.where()).group_by(Card.deck, Card.state, Card.suspended, buried, leech))
        return [StateCount(deck, state, bool(suspended), bool(is_buried), bool(is_leech), count)
                for deck, state, suspended, is_buried, is_leech, count in rows]


def available_before(store: Store, chosen: CardFilter, end: datetime) -> np.ndarray:
    """When each seen, active, unsuspended card the filter matches can next be studied (its
    due time, or the end of its burial if later), for those available before ``end``: seconds
    since the epoch."""
    available = case((Card.buried_until > Card.due, Card.buried_until), else_=Card.due)
    with store.read() as session:
        times = session.connection().execute(
            select(_raw(available)).where(*chosen.where(), Card.suspended.is_(False), Card.state != NEW,
                                          available < end)).scalars().all()
    seconds = _seconds(times)
    return seconds[~np.isnan(seconds)]


def day_starts(first: date, last: date, rollover_hour: int = ROLLOVER_HOUR) -> list[datetime]:
    """When study days ``first`` .. ``last`` begin, and the day after: a time ``t`` is on day
    ``first + i`` exactly when ``starts[i] <= t < starts[i + 1]`` (``clock.study_day``)."""
    return [day_start(first + timedelta(days=i), rollover_hour) for i in range((last - first).days + 2)]


def epoch_seconds(moments: list[datetime]) -> np.ndarray:
    """Aware datetimes as seconds since the epoch, to compare with the columns returned here."""
    return np.array([(m.astimezone(timezone.utc).replace(tzinfo=None) - _EPOCH).total_seconds() for m in moments])


def _days(starts: list[datetime]) -> Any:
    """The days as a table: ``i`` and its ``[lo, hi)`` instants."""
    return values(column("i", Integer), column("lo", UTCDateTime()), column("hi", UTCDateTime()), name="days").data(
        [(i, starts[i], starts[i + 1]) for i in range(len(starts) - 1)]).cte("days")


def reviews_per_day(store: Store, chosen: CardFilter, today: date,
                    rollover_hour: int = ROLLOVER_HOUR) -> tuple[date | None, list[int]]:
    """Reviews on each study day from the first review's (None: no reviews) through ``today``.

    The whole log: one range count per day on the ``reviewed_at`` index (no per-row date
    arithmetic, no sort). Some cards only: their reviews' times, found through the card
    index, counted per day with numpy."""
    end = day_start(today + timedelta(days=1), rollover_hour)
    with store.read() as session:
        connection = session.connection()
        if chosen.where(only_active=False):
            times = np.sort(_seconds(connection.execute(
                select(_raw(Review.reviewed_at)).where(*_of_cards(chosen, by_card_index=True), Review.reviewed_at < end)
            ).scalars().all()))
            if not times.size:
                return None, []
            first = study_day(datetime.fromtimestamp(float(times[0]), timezone.utc), rollover_hour)
            starts = day_starts(first, today, rollover_hour)
            index = np.searchsorted(epoch_seconds(starts), times, side="right") - 1
            return first, np.bincount(index, minlength=len(starts) - 1).tolist()
        earliest = connection.execute(select(func.min(Review.reviewed_at)).where(Review.reviewed_at < end)).scalar()
        if earliest is None:
            return None, []
        first = study_day(earliest, rollover_hour)
        starts = day_starts(first, today, rollover_hour)
        counts: list[int] = []
        for begin in range(0, len(starts) - 1, DAYS_PER_QUERY):
            days = _days(starts[begin:begin + DAYS_PER_QUERY + 1])
            per_day = (select(func.count()).select_from(Review)
                       .where(Review.reviewed_at >= days.c.lo, Review.reviewed_at < days.c.hi).scalar_subquery())
            found: dict[int, int] = {i: n for i, n in connection.execute(select(days.c.i, per_day))}
            counts += [found.get(i, 0) for i in range(min(DAYS_PER_QUERY, len(starts) - 1 - begin))]
        return first, counts


def period_by_day(store: Store, chosen: CardFilter, starts: list[datetime]) -> list[DayRatings]:
    """Reviews and time spent per day and rating, for the days ``starts`` delimit (a few dozen)."""
    days = _days(starts)
    with store.read() as session:
        rows = session.connection().execute(
            select(days.c.i, Review.rating, func.count(), func.coalesce(func.sum(Review.duration_ms), 0))
            .select_from(days).join(Review, and_(Review.reviewed_at >= days.c.lo, Review.reviewed_at < days.c.hi))
            .where(*_of_cards(chosen, by_card_index=False)).group_by(days.c.i, Review.rating))
        return [DayRatings(day, rating, count, int(spent)) for day, rating, count, spent in rows]


def first_reviews(store: Store, chosen: CardFilter, starts: list[datetime]) -> FirstReviews:
    """For true retention, over the days ``starts`` delimit: each card's first review of each day
    if the card was in the Review state before it, with the card's previous review (the one
    before it in the period, else the one logged before it: an index seek on ``(card_id, id)``)."""
    days = _days(starts)
    by_card, in_time = Review.card_id, (Review.reviewed_at, Review.id)  # one window: one sort for both
    period = (
        select(Review.id, Review.card_id, Review.reviewed_at, Review.rating, Review.state_before,
               days.c.i.label("day"),
               func.lag(days.c.i).over(partition_by=by_card, order_by=in_time).label("previous_day"),
               func.lag(Review.reviewed_at).over(partition_by=by_card, order_by=in_time).label("previous_at"))
        .select_from(days).join(Review, and_(Review.reviewed_at >= days.c.lo, Review.reviewed_at < days.c.hi))
        .where(*_of_cards(chosen, by_card_index=False)).subquery("period"))
    before, logged = aliased(Review), aliased(Review)
    logged_before = (select(func.max(before.id)).where(before.card_id == period.c.card_id, before.id < period.c.id)
                     .correlate(period).scalar_subquery())  # two levels down: correlate explicitly
    logged_at = select(logged.reviewed_at).where(logged.id == logged_before).correlate(period).scalar_subquery()
    with store.read() as session:
        rows = session.connection().execute(
            select(_raw(period.c.reviewed_at), _raw(func.coalesce(period.c.previous_at, logged_at)), period.c.rating)
            .where(or_(period.c.previous_day.is_(None), period.c.previous_day != period.c.day),
                   period.c.state_before == REVIEW)).all()
    reviewed_at, previous_at, ratings = zip(*rows) if rows else ((), (), ())
    return FirstReviews(_seconds(reviewed_at), _seconds(previous_at), np.array(ratings, dtype=int))


def seen_cards(store: Store, chosen: CardFilter) -> SeenCards:
    """Active cards the filter matches that have been reviewed (not new)."""
    with store.read() as session:
        rows = session.connection().execute(
            select(Card.id, Card.deck, Card.stability, _raw(Card.last_review), Card.lapses)
            .where(*chosen.where(), Card.state != NEW)).all()
    ids, decks, stability, last_review, lapses = zip(*rows) if rows else ((), (), (), (), ())
    return SeenCards(ids, decks, np.array([np.nan if s is None else s for s in stability], dtype=float),
                     _seconds(last_review), np.array(lapses, dtype=int))


def card_tags(store: Store, chosen: CardFilter, exclude: tuple[str, ...] = (LEECH_TAG,)) -> list[tuple[str, str]]:
    """(card id, tag) pairs but system tags: with a filter, of the active seen cards it matches;
    without, of every card (a plain scan of the tag table is much cheaper than joining it to
    the cards: the caller keeps the cards it wants)."""
    where = [CardTag.tag.not_in(exclude)]
    if chosen.where(only_active=False):
        where.append(CardTag.card_id.in_(select(Card.id).where(*chosen.where(), Card.state != NEW)))
    with store.read() as session:
        return [(card_id, tag) for card_id, tag in session.connection().execute(
            select(CardTag.card_id, CardTag.tag).where(*where)).all()]


def exam_scores(store: Store, chosen: CardFilter) -> list[ExamScore]:
    """Finished exams, oldest first, with their score in percent. With a filter, an exam's
    score is that of its questions on matching cards (exams with none are left out)."""
    conditions = chosen.where(only_active=False)
    with store.read() as session:
        if not conditions:
            rows = session.execute(select(Exam.id, Exam.finished_at, Exam.score)
                                   .where(Exam.finished_at.is_not(None), Exam.score.is_not(None))
                                   .order_by(Exam.finished_at, Exam.id)).all()
        else:
            rows = session.execute(
                select(Exam.id, Exam.finished_at, 100.0 * func.avg(func.coalesce(ExamQuestion.score, 0.0)))
                .join(ExamQuestion, ExamQuestion.exam_id == Exam.id)
                .where(Exam.finished_at.is_not(None), ExamQuestion.card_id.in_(select(Card.id).where(*conditions)))
                .group_by(Exam.id, Exam.finished_at).order_by(Exam.finished_at, Exam.id)).all()
        return [ExamScore(exam_id, finished, float(score)) for exam_id, finished, score in rows
                if finished is not None and score is not None]


__all__ = [
    "DayRatings", "ExamScore", "FirstReviews", "SeenCards", "StateCount",
    "available_before", "card_tags", "day_starts", "epoch_seconds", "exam_scores", "first_reviews",
    "period_by_day", "reviews_per_day", "seen_cards", "state_counts",
]
