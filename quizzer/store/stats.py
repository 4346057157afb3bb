"""The reads ``quiz stats`` needs, returning frozen dataclasses.

Reviews are counted for every card the filter names, active or not (history imported for
cards no deck has any more still happened); card counts cover active cards only.

A day is a study day (``quizzer.clock``). The store groups by the UTC instants days begin,
with portable range conditions (``day_start(d) <= reviewed_at < day_start(d + 1)`` is
exactly ``study_day(reviewed_at) == d``, also across DST changes) instead of a dialect's
date functions. Times come back as seconds since the epoch (UTC) computed by the database
(``models.epoch``), so thousands of rows never become datetimes one by one; figures over every
card (recall, tags) are aggregated in SQL, so a million reviews or 50,000 cards never cross
into Python row by row.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timedelta, timezone
from typing import Any

import numpy as np
from sqlalchemy import (
    ColumnElement,
    DateTime,
    Float,
    Integer,
    and_,
    case,
    column,
    func,
    literal,
    select,
    values,
)

from quizzer.clock import ROLLOVER_HOUR, day_start, study_day
from quizzer.store.engine import Store
from quizzer.store.filter import CardFilter
from quizzer.store.models import (
    card_tags,
    cards,
    epoch,
    exam_questions,
    exams,
    mistakes,
    review_log,
)
from quizzer.store.records import LEECH_TAG, NEW, REVIEW

DAYS_PER_QUERY = 1000  # VALUES rows per query: two bound parameters each, well under SQLite's limit
SECONDS_PER_DAY = 86400.0
_EPOCH = datetime(1970, 1, 1)  # naive: what the columns hold is naive UTC (models.UTCDateTime)


@dataclass(frozen=True)
class Curve:
    """The forgetting curve the figures use (``scheduling.memory.forgetting_curve``'s
    parameters), at ``now`` in seconds since the epoch."""

    now: float
    decay: float  # FSRS's parameter 20 (positive)

    def recall(self) -> ColumnElement[float]:
        """Each card's retrievability now, in SQL: the same formula as
        ``scheduling.memory.forgetting_curve``, on whole days elapsed, never negative (as
        ``fsrs.Scheduler.get_card_retrievability``). Only meaningful for a card with a stability and a
        last review: the callers guard it with that condition (folding the guard in here would make
        SQLite evaluate the power twice where a query both counts and averages it)."""
        factor = 0.9 ** (-1 / self.decay) - 1
        elapsed = (literal(self.now, Float()) - epoch(cards.c.last_review)) / SECONDS_PER_DAY
        days = case((elapsed > 0, func.floor(elapsed)), else_=0.0)
        return func.pow(1 + factor * days / cards.c.stability, -self.decay)


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
    previous_at: np.ndarray  # seconds since the epoch, UTC; -inf if none within the lookback
    ratings: np.ndarray


@dataclass(frozen=True)
class Recall:
    """The mean retrievability now of the active reviewed cards with a memory state."""

    cards: int
    mean: float | None


@dataclass(frozen=True)
class CardWeakness:
    """An active reviewed card's lapses and recall now (None without a memory state)."""

    id: str
    deck: str
    lapses: int
    recall: float | None


@dataclass(frozen=True)
class TagWeakness:
    """A tag's active reviewed cards: how many, their lapses, and the recall of those with a
    memory state (how many, summed)."""

    tag: str
    cards: int
    lapses: int
    recalled: int
    recall_sum: float


@dataclass(frozen=True)
class ExamScore:
    id: int
    finished_at: datetime
    score: float  # percent


def _of_cards(chosen: CardFilter, by_card_index: bool) -> list[ColumnElement[bool]]:
    """Reviews of the cards the filter names. ``by_card_index`` lets the database find them
    through ``(card_id, id)`` (right for the whole history of a few cards); otherwise
    ``card_id || ''`` keeps that index out of the plan, so a few days' reviews are found by
    time and only checked against the cards: SQLite otherwise goes card by card for every
    day of a range join, thousands of times the work."""
    conditions = chosen.where(only_active=False)
    if not conditions:
        return []
    card_id = review_log.c.card_id if by_card_index else review_log.c.card_id.concat("")
    return [card_id.in_(select(cards.c.id).where(*conditions))]


def state_counts(store: Store, chosen: CardFilter, now: datetime) -> list[StateCount]:
    """Active cards by deck, state, suspended, buried (at ``now``) and leech."""
    buried = case((cards.c.buried_until > now, True), else_=False)
    leech = cards.c.id.in_(select(card_tags.c.card_id).where(card_tags.c.tag == LEECH_TAG))
    with store.read() as conn:
        rows = conn.execute(
            select(cards.c.deck, cards.c.state, cards.c.suspended, buried, leech, func.count())
            .where(*chosen.where()).group_by(cards.c.deck, cards.c.state, cards.c.suspended, buried, leech))
        return [StateCount(deck, state, bool(suspended), bool(is_buried), bool(is_leech), count)
                for deck, state, suspended, is_buried, is_leech, count in rows]


def day_starts(first: date, last: date, rollover_hour: int = ROLLOVER_HOUR) -> list[datetime]:
    """When study days ``first`` .. ``last`` begin, and the day after: a time ``t`` is on day
    ``first + i`` exactly when ``starts[i] <= t < starts[i + 1]`` (``clock.study_day``)."""
    return [day_start(first + timedelta(days=i), rollover_hour) for i in range((last - first).days + 2)]


def epoch_seconds(moments: list[datetime]) -> np.ndarray:
    """Aware datetimes as seconds since the epoch, to compare with the columns returned here."""
    return np.array([(m.astimezone(timezone.utc).replace(tzinfo=None) - _EPOCH).total_seconds() for m in moments])


def _days(starts: list[datetime]) -> Any:
    """The days as a table: ``i`` and its ``[lo, hi)`` instants, bound as the naive UTC the
    column stores (a plain DateTime: no per-value conversion for hundreds of days)."""
    naive = [s.astimezone(timezone.utc).replace(tzinfo=None) for s in starts]
    return values(column("i", Integer), column("lo", DateTime()), column("hi", DateTime()), name="days").data(
        [(i, naive[i], naive[i + 1]) for i in range(len(naive) - 1)]).cte("days")


def reviews_per_day(store: Store, chosen: CardFilter, today: date,
                    rollover_hour: int = ROLLOVER_HOUR) -> tuple[date | None, list[int]]:
    """Reviews on each study day from the first review's (None: no reviews) through ``today``.

    The whole log: one range count per day on the ``reviewed_at`` index (no per-row date
    arithmetic, no sort). Some cards only: their reviews' times, found through the card
    index, counted per day with numpy."""
    end = day_start(today + timedelta(days=1), rollover_hour)
    with store.read() as conn:
        if chosen.where(only_active=False):
            times = np.sort(np.array(conn.execute(
                select(epoch(review_log.c.reviewed_at))
                .where(*_of_cards(chosen, by_card_index=True), review_log.c.reviewed_at < end)).scalars().all(),
                dtype=float))
            if not times.size:
                return None, []
            first = study_day(datetime.fromtimestamp(float(times[0]), timezone.utc), rollover_hour)
            starts = day_starts(first, today, rollover_hour)
            index = np.searchsorted(epoch_seconds(starts), times, side="right") - 1
            return first, np.bincount(index, minlength=len(starts) - 1).tolist()
        earliest = conn.execute(select(func.min(review_log.c.reviewed_at))
                                .where(review_log.c.reviewed_at < end)).scalar()
        if earliest is None:
            return None, []
        first = study_day(earliest, rollover_hour)
        starts = day_starts(first, today, rollover_hour)
        counts: list[int] = []
        for begin in range(0, len(starts) - 1, DAYS_PER_QUERY):
            days = _days(starts[begin:begin + DAYS_PER_QUERY + 1])
            per_day = (select(func.count()).select_from(review_log)
                       .where(review_log.c.reviewed_at >= days.c.lo, review_log.c.reviewed_at < days.c.hi)
                       .scalar_subquery())
            found: dict[int, int] = {i: n for i, n in conn.execute(select(days.c.i, per_day))}
            counts += [found.get(i, 0) for i in range(min(DAYS_PER_QUERY, len(starts) - 1 - begin))]
        return first, counts


def period_by_day(store: Store, chosen: CardFilter, starts: list[datetime]) -> list[DayRatings]:
    """Reviews and time spent per day and rating, for the days ``starts`` delimit (a few dozen)."""
    days = _days(starts)
    with store.read() as conn:
        rows = conn.execute(
            select(days.c.i, review_log.c.rating, func.count(), func.coalesce(func.sum(review_log.c.duration_ms), 0))
            .select_from(days)
            .join(review_log, and_(review_log.c.reviewed_at >= days.c.lo, review_log.c.reviewed_at < days.c.hi))
            .where(*_of_cards(chosen, by_card_index=False)).group_by(days.c.i, review_log.c.rating))
        return [DayRatings(day, rating, count, int(spent)) for day, rating, count, spent in rows]


def first_reviews(store: Store, chosen: CardFilter, starts: list[datetime], lookback: timedelta) -> FirstReviews:
    """For true retention, over the days ``starts`` delimit: each card's first review of each day
    if the card was in the Review state before it, with the card's previous review, looked for
    up to ``lookback`` before the first day (-inf when older or none: a card reaches the Review
    state only through a review). One range read in card and time order, the rest in numpy:
    SQLite's window functions cost three times the sort."""
    bounds = epoch_seconds(starts)
    with store.read() as conn:
        rows = conn.execute(
            select(review_log.c.card_id, epoch(review_log.c.reviewed_at), review_log.c.rating,
                   review_log.c.state_before)
            .where(*_of_cards(chosen, by_card_index=False), review_log.c.reviewed_at >= starts[0] - lookback,
                   review_log.c.reviewed_at < starts[-1])
            .order_by(review_log.c.card_id, review_log.c.reviewed_at, review_log.c.id)).all()
    card = np.array([row[0] for row in rows], dtype=object)
    times = np.array([row[1] for row in rows], dtype=float)
    same_card = np.zeros(len(rows), dtype=bool)
    same_card[1:] = card[1:] == card[:-1]
    previous = np.full(len(rows), -np.inf)
    previous[1:] = np.where(same_card[1:], times[:-1], -np.inf)
    day = np.clip(np.searchsorted(bounds, times, side="right") - 1, 0, len(bounds) - 1)
    wanted = ((times >= bounds[0]) & (previous < bounds[day])  # in the period, first of its day
              & (np.array([row[3] for row in rows], dtype=int) == REVIEW))
    return FirstReviews(times[wanted], previous[wanted], np.array([row[2] for row in rows], dtype=int)[wanted])


def _seen(chosen: CardFilter) -> list[ColumnElement[bool]]:
    return [*chosen.where(), cards.c.state != NEW]


def recall(store: Store, chosen: CardFilter, curve: Curve) -> Recall:
    """Mean recall now of the active reviewed cards the filter matches."""
    with store.read() as conn:
        count, mean = conn.execute(
            select(func.count(), func.avg(curve.recall()))
            .where(*_seen(chosen), cards.c.stability.is_not(None), cards.c.last_review.is_not(None))).one()
    return Recall(count, None if mean is None else float(mean))


def weakest_cards(store: Store, chosen: CardFilter, curve: Curve, limit: int) -> list[CardWeakness]:
    """The candidates for the weakest ``limit`` cards by lapses (most first), then recall
    (lowest first, none last), then id: every card in the mistakes table (the caller ranks
    those by the notebook) and the first ``limit`` of the others."""
    known = cards.c.stability.is_not(None) & cards.c.last_review.is_not(None)
    shown = case((known, curve.recall()), else_=None)
    columns = (cards.c.id, cards.c.deck, cards.c.lapses, shown)
    noted = cards.c.id.in_(select(mistakes.c.card_id))
    with store.read() as conn:
        rows = [*conn.execute(
            select(*columns).where(*_seen(chosen), ~noted)
            .order_by(cards.c.lapses.desc(), case((known, 0), else_=1), shown, cards.c.id).limit(limit)),
                *conn.execute(select(*columns).where(*_seen(chosen), noted))]
    return [CardWeakness(card_id, deck, lapses, None if value is None else float(value))
            for card_id, deck, lapses, value in rows]


def tag_weakness(store: Store, chosen: CardFilter, curve: Curve,
                 exclude: tuple[str, ...] = (LEECH_TAG,)) -> list[TagWeakness]:
    """Per tag (system tags left out), its active reviewed cards the filter matches.

    The cards are scanned once and their tags found through the tag table's ``(card_id, tag)``
    key. Two ``|| ''`` keep SQLite on that plan: on the card id, so it does not look a card up
    for each tag row, and on the grouped tag, so the tag index's order does not tempt it to scan
    the tags first (either is several times slower). System tags are dropped after grouping,
    for the same reason. The cards are materialized first, so each card's recall is computed once,
    not once for each of its tags."""
    known = cards.c.stability.is_not(None) & cards.c.last_review.is_not(None)
    seen = (select(cards.c.id, cards.c.lapses, case((known, curve.recall()), else_=None).label("recall"))
            .where(*_seen(chosen)).cte("seen").prefix_with("MATERIALIZED"))  # recall once per card, not per tag
    tag = card_tags.c.tag.concat("")
    with store.read() as conn:
        rows = conn.execute(
            select(tag, func.count(), func.sum(seen.c.lapses), func.count(seen.c.recall),
                   func.coalesce(func.sum(seen.c.recall), 0.0))
            .select_from(seen).join(card_tags, card_tags.c.card_id == seen.c.id.concat(""))
            .group_by(tag)).all()
    return [TagWeakness(name, count, int(lapses or 0), recalled, float(total))
            for name, count, lapses, recalled, total in rows if name not in exclude]


def tags_of(store: Store, card_ids: list[str], exclude: tuple[str, ...] = (LEECH_TAG,)) -> list[tuple[str, str]]:
    """(card id, tag) pairs of a few cards, system tags left out."""
    if not card_ids:
        return []
    with store.read() as conn:
        return [(card_id, tag) for card_id, tag in conn.execute(
            select(card_tags.c.card_id, card_tags.c.tag)
            .where(card_tags.c.card_id.in_(card_ids), card_tags.c.tag.not_in(exclude))).all()]


def exam_scores(store: Store, chosen: CardFilter) -> list[ExamScore]:
    """Finished exams, oldest first, with their score in percent. With a filter, an exam's
    score is that of its questions on matching cards (exams with none are left out)."""
    conditions = chosen.where(only_active=False)
    with store.read() as conn:
        if not conditions:
            rows = conn.execute(select(exams.c.id, exams.c.finished_at, exams.c.score)
                                .where(exams.c.finished_at.is_not(None), exams.c.score.is_not(None))
                                .order_by(exams.c.finished_at, exams.c.id)).all()
        else:
            rows = conn.execute(
                select(exams.c.id, exams.c.finished_at, 100.0 * func.avg(func.coalesce(exam_questions.c.score, 0.0)))
                .join(exam_questions, exam_questions.c.exam_id == exams.c.id)
                .where(exams.c.finished_at.is_not(None),
                       exam_questions.c.card_id.in_(select(cards.c.id).where(*conditions)))
                .group_by(exams.c.id, exams.c.finished_at).order_by(exams.c.finished_at, exams.c.id)).all()
        return [ExamScore(exam_id, finished, float(score)) for exam_id, finished, score in rows
                if finished is not None and score is not None]


__all__ = [
    "CardWeakness", "Curve", "DayRatings", "ExamScore", "FirstReviews", "Recall", "StateCount", "TagWeakness",
    "day_starts", "epoch", "epoch_seconds", "exam_scores", "first_reviews", "period_by_day",
    "recall", "reviews_per_day", "state_counts", "tag_weakness", "tags_of", "weakest_cards",
]
