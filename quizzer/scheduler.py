"""Scheduling on top of the store: answering, undo, burying, the daily queue.

Memory state comes from the ``fsrs`` package; this module only converts
between table columns and ``fsrs.Card`` and decides *which* card comes next.

Ahead rule: a card in the Review state answered before the study day it is
due on (typically picked by ``build_queue(ahead=True)``) is a practice
review.  It is logged (``scheduled=False``) but its memory state, due date and
lapse count are left exactly as they were, and it does not count against the
daily review limit.  Practising ahead therefore never moves or inflates the
schedule; the card still comes up on its due day.
"""

from __future__ import annotations

import csv
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from pathlib import Path

import fsrs
from sqlalchemy import ColumnElement, case, delete, func, insert, or_, select
from sqlalchemy.orm import Session

from quizzer import clock
from quizzer.clock import ROLLOVER_HOUR, day_start, next_day_start, study_day, to_utc
from quizzer.store import LEECH_TAG, NEW, REVIEW, Card, CardTag, Review, Store

LEECH_LAPSES = 8
MODES = ("study", "exam")
DEFAULT_SCHEDULER = fsrs.Scheduler()


@dataclass(frozen=True)
class MemoryState:
    """Every card column an answer changes: enough for undo to restore exactly."""

    state: int
    step: int | None
    stability: float | None
    difficulty: float | None
    due: datetime | None
    last_review: datetime | None
    lapses: int
    leech: bool


@dataclass(frozen=True)
class Answered:
    review_id: int
    card_id: str
    previous: MemoryState
    current: MemoryState
    became_leech: bool
    scheduled: bool  # False for an ahead (practice) review that left the state alone

    @property
    def due(self) -> datetime | None:
        return self.current.due


@dataclass(frozen=True)
class ReviewEntry:
    id: int
    reviewed_at: datetime
    rating: int
    duration_ms: int | None
    mode: str
    answer_text: str | None
    correct: bool | None
    seed: int | None
    state_before: int
    scheduled: bool


@dataclass(frozen=True)
class CardInfo:
    id: str
    deck: str
    kind: str
    position: int
    content_hash: str
    tags: tuple[str, ...]
    active: bool
    suspended: bool
    buried_until: datetime | None
    first_seen: datetime
    memory: MemoryState
    retrievability: float | None  # None for a card never reviewed
    reviews: list[ReviewEntry]


# -- answering ---------------------------------------------------------------


def answer(
    store: Store,
    card_id: str,
    rating: int,
    *,
    now: datetime,
    duration_ms: int | None,
    mode: str = "study",
    answer_text: str | None = None,
    correct: bool | None = None,
    seed: int | None = None,
    scheduler: fsrs.Scheduler = DEFAULT_SCHEDULER,
    rollover_hour: int = ROLLOVER_HOUR,
    ahead_rule: bool = True,
    also: Callable[[Session, Answered], None] | None = None,
) -> Answered:
    """Record one answer and its new memory state in a single write transaction.

    ``now`` is the review time (aware; naive means local).  A Review-state card
    answered before its due study day is an ahead review (module docstring):
    logged, state untouched, ``Answered.scheduled`` False — unless ``ahead_rule`` is
    off (an exam's wrong answer is news about memory whenever it comes).  ``also``
    writes what else belongs to this answer (an exam's score, the mistakes notebook)
    in the same transaction.
    """
    with store.write() as session:
        answered = _answer(session, card_id, rating, to_utc(now), duration_ms=duration_ms, mode=mode,
                           answer_text=answer_text, correct=correct, seed=seed, scheduler=scheduler,
                           ahead_after=next_day_start(now, rollover_hour) if ahead_rule else None)
        if also is not None:
            also(session, answered)
        return answered


def _answer(
    session: Session,
    card_id: str,
    rating: int,
    now: datetime,
    *,
    duration_ms: int | None,
    mode: str,
    answer_text: str | None,
    correct: bool | None,
    seed: int | None,
    scheduler: fsrs.Scheduler,
    ahead_after: datetime | None,
) -> Answered:
    """The body of ``answer``; ``ahead_after=None`` disables the ahead rule (history replay)."""
    if rating not in range(1, 5):
        raise ValueError(f"rating must be 1-4, got {rating}")
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
    card = session.get(Card, card_id, with_for_update=True)
    if card is None:
        raise KeyError(card_id)
    previous = _memory(session, card)
    scheduled = not (ahead_after is not None and card.state == REVIEW
                     and card.due is not None and card.due >= ahead_after)
    became_leech = False
    if scheduled:
        reviewed, _ = scheduler.review_card(_to_fsrs(card, now), fsrs.Rating(rating), now, duration_ms)
        card.state, card.step = int(reviewed.state), reviewed.step
        card.stability, card.difficulty = reviewed.stability, reviewed.difficulty
        card.due, card.last_review = reviewed.due, reviewed.last_review
        if previous.state == REVIEW and rating == fsrs.Rating.Again:
            card.lapses += 1
        became_leech = card.lapses >= LEECH_LAPSES and not previous.leech
        if became_leech:
            session.add(CardTag(card_id=card_id, tag=LEECH_TAG))
    review = Review(card_id=card_id, reviewed_at=now, rating=rating, duration_ms=duration_ms, mode=mode,
                    answer_text=answer_text, correct=correct, seed=seed, state_before=previous.state,
                    scheduled=scheduled)
    session.add(review)
    session.flush()
    current = _memory(session, card, leech=previous.leech or became_leech)
    return Answered(review.id, card_id, previous, current, became_leech, scheduled)


def undo(store: Store, answered: Answered) -> None:
    """Put the card back exactly as it was before ``answered`` and delete its review.

    Only a card's latest review can be undone; anything else would clobber later answers.
    """
    with store.write() as session:
        latest = session.scalar(select(func.max(Review.id)).where(Review.card_id == answered.card_id))
        if latest != answered.review_id:
            raise ValueError(f"review {answered.review_id} is not the latest of card {answered.card_id}")
        card = session.get(Card, answered.card_id, with_for_update=True)
        assert card is not None
        before = answered.previous
        card.state, card.step = before.state, before.step
        card.stability, card.difficulty = before.stability, before.difficulty
        card.due, card.last_review, card.lapses = before.due, before.last_review, before.lapses
        if not before.leech:
            session.execute(delete(CardTag).where(CardTag.card_id == card.id, CardTag.tag == LEECH_TAG))
        session.execute(delete(Review).where(Review.id == answered.review_id))


def _memory(session: Session, card: Card, leech: bool | None = None) -> MemoryState:
    if leech is None:
        leech = session.get(CardTag, (card.id, LEECH_TAG)) is not None
    return MemoryState(card.state, card.step, card.stability, card.difficulty, card.due,
                       card.last_review, card.lapses, leech)


def retrievability(card: Card, now: datetime, scheduler: fsrs.Scheduler = DEFAULT_SCHEDULER) -> float:
    """The chance of recalling ``card`` at ``now`` (0 for a card never reviewed)."""
    return 0.0 if card.state == NEW else scheduler.get_card_retrievability(_to_fsrs(card, now), to_utc(now))


def _to_fsrs(card: Card, now: datetime) -> fsrs.Card:
    """fsrs has no New state: a new card is Learning at step 0 with no memory yet."""
    if card.state == NEW:
        return fsrs.Card(card_id=0, state=fsrs.State.Learning, step=0, due=now)
    return fsrs.Card(card_id=0, state=fsrs.State(card.state), step=card.step, stability=card.stability,
                     difficulty=card.difficulty, due=card.due, last_review=card.last_review)


# -- burying and suspending --------------------------------------------------


def bury(store: Store, card_id: str, until_day_start: datetime) -> None:
    """Hide a card until ``until_day_start`` (e.g. clock.next_day_start(now))."""
    _set(store, card_id, buried_until=until_day_start)


def suspend(store: Store, card_id: str) -> None:
    _set(store, card_id, suspended=True)


def unsuspend(store: Store, card_id: str) -> None:
    _set(store, card_id, suspended=False)


def _set(store: Store, card_id: str, **values: object) -> None:
    with store.write() as session:
        card = session.get(Card, card_id)
        if card is None:
            raise KeyError(card_id)
        for name, value in values.items():
            setattr(card, name, value)


# -- the queue ---------------------------------------------------------------


def build_queue(
    store: Store,
    now: datetime,
    *,
    new_per_day: int = 20,
    reviews_per_day: int = 200,
    decks: Iterable[str] | None = None,
    tags: Iterable[str] | None = None,
    kinds: Iterable[str] | None = None,
    new_limit: int | None = None,
    limit: int | None = None,
    ahead: bool = False,
    rollover_hour: int = ROLLOVER_HOUR,
    scheduler: fsrs.Scheduler = DEFAULT_SCHEDULER,
) -> list[str]:
    """Card ids to study now, in order.

    Learning/relearning cards whose due time has passed come first (soonest due
    first).  Then reviews due today (by study day), lowest retrievability first,
    with new cards (by ``position``, then deck, then id) spread evenly among them.
    Daily limits are global and subtract what was already studied since the
    study day began (scheduled reviews in mode "study"); ``new_limit`` can only
    lower the remaining new-card allowance.  With ``ahead`` and nothing to
    study, returns already-seen cards soonest due first (see the ahead rule).
    """
    now = to_utc(now)
    start, end = day_start(now, rollover_hour), next_day_start(now, rollover_hour)
    eligible = _eligible(now, decks, tags, kinds)
    with store.read() as session:
        new_done, reviews_done = _done_today(session, start)
        learning = _learning(session, eligible, now)
        reviews = _due_reviews(session, eligible, end, now, scheduler)[:max(0, reviews_per_day - reviews_done)]
        new_left = max(0, new_per_day - new_done)
        if new_limit is not None:
            new_left = min(new_left, new_limit)
        new = session.scalars(
            select(Card.id).where(*eligible, Card.state == NEW)
            .order_by(Card.position, Card.deck, Card.id).limit(new_left)).all() if new_left else []
        queue = list(learning) + _interleave(reviews, list(new))
        if not queue and ahead:
            queue = list(session.scalars(
                select(Card.id).where(*eligible, Card.state != NEW).order_by(Card.due, Card.id)
                .limit(limit if limit is not None else reviews_per_day)))
    return queue if limit is None else queue[:limit]


def studiable(store: Store, card_ids: list[str], now: datetime) -> list[str]:
    """Those of ``card_ids`` a session may show now (active, not suspended, not buried), in order."""
    with store.read() as session:
        ok = set(session.scalars(select(Card.id).where(*_eligible(to_utc(now), None, None, None), Card.id.in_(card_ids))))
    return [card_id for card_id in card_ids if card_id in ok]


def learning_due(store: Store, until: datetime, *, decks: Iterable[str] | None = None,
                 tags: Iterable[str] | None = None, kinds: Iterable[str] | None = None) -> list[str]:
    """Learning/relearning cards due by ``until``: what a session shows again before it ends,
    as Anki does with its learn-ahead limit, so a card just failed is not left for tomorrow."""
    until = to_utc(until)
    with store.read() as session:
        return _learning(session, _eligible(until, decks, tags, kinds), until)


def _learning(session: Session, eligible: list[ColumnElement[bool]], until: datetime) -> list[str]:
    return list(session.scalars(
        select(Card.id).where(*eligible, Card.state.not_in((NEW, REVIEW)), Card.due <= until)
        .order_by(Card.due, Card.id)))


def _eligible(now: datetime, decks: Iterable[str] | None, tags: Iterable[str] | None,
              kinds: Iterable[str] | None) -> list[ColumnElement[bool]]:
    where = [Card.active.is_(True), Card.suspended.is_(False),
             or_(Card.buried_until.is_(None), Card.buried_until <= now)]
    if decks is not None:
        where.append(Card.deck.in_(list(decks)))
    if kinds is not None:
        where.append(Card.kind.in_(list(kinds)))
    if tags is not None:
        where.append(Card.id.in_(select(CardTag.card_id).where(CardTag.tag.in_(list(tags)))))
    return where


def _done_today(session: Session, start: datetime) -> tuple[int, int]:
    """(new cards introduced, reviews done) in study mode since the study day began."""
    counts = dict(session.execute(
        select(Review.state_before, func.count(Review.id))
        .where(Review.reviewed_at >= start, Review.mode == "study", Review.scheduled.is_(True))
        .group_by(Review.state_before)).all())
    return counts.get(NEW, 0), counts.get(REVIEW, 0)


def _due_reviews(session: Session, eligible: list[ColumnElement[bool]], end: datetime, now: datetime,
                 scheduler: fsrs.Scheduler) -> list[str]:
    """Review cards due before the study day ends, the most forgotten first."""
    rows = session.execute(
        select(Card.id, Card.stability, Card.last_review, Card.due)
        .where(*eligible, Card.state == REVIEW, Card.due < end)).all()

    def key(row: tuple[str, float, datetime, datetime]) -> tuple[float, datetime, str]:
        memory = fsrs.Card(card_id=0, state=fsrs.State.Review, stability=row[1], last_review=row[2])
        return scheduler.get_card_retrievability(memory, now), row[3], row[0]

    return [row[0] for row in sorted(rows, key=key)]


def _interleave(reviews: list[str], new: list[str]) -> list[str]:
    """Spread new cards evenly through the reviews (both keep their own order)."""
    keyed = [((i + 1) / (len(reviews) + 1), 0, cid) for i, cid in enumerate(reviews)]
    keyed += [((i + 1) / (len(new) + 1), 1, cid) for i, cid in enumerate(new)]
    return [cid for *_, cid in sorted(keyed)]


# -- summaries ---------------------------------------------------------------


def _available_due() -> ColumnElement[datetime]:
    """When a seen card can next be studied: its due time, or later if buried past it."""
    return case((Card.buried_until > Card.due, Card.buried_until), else_=Card.due)


@dataclass(frozen=True)
class DeckToday:
    """Anki's deck list numbers: new cards waiting, cards in learning, reviews due today."""

    new: int
    learning: int
    due: int


def today_by_deck(store: Store, now: datetime, rollover_hour: int = ROLLOVER_HOUR) -> dict[str, DeckToday]:
    end = next_day_start(to_utc(now), rollover_hour)
    with store.read() as session:
        rows = session.execute(
            select(Card.deck, Card.state, func.count(Card.id))
            .where(*_eligible(to_utc(now), None, None, None), or_(Card.state == NEW, Card.due < end))
            .group_by(Card.deck, Card.state)).all()
    counts: dict[str, Counter] = {}
    for deck, state, count in rows:
        counts.setdefault(deck, Counter())["new" if state == NEW else "due" if state == REVIEW else "learning"] += count
    return {deck: DeckToday(c["new"], c["learning"], c["due"]) for deck, c in counts.items()}


def next_due(store: Store, now: datetime) -> datetime | None:
    """The soonest moment after ``now`` a seen, active, unsuspended card falls due."""
    available = _available_due()
    with store.read() as session:
        return session.scalar(select(func.min(available)).where(
            Card.active.is_(True), Card.suspended.is_(False), Card.state != NEW, available > to_utc(now)))


def due_forecast(store: Store, now: datetime, days: int = 7,
                 rollover_hour: int = ROLLOVER_HOUR) -> list[tuple[date, int]]:
    """Cards falling due on each of the next ``days`` study days (overdue ones count today)."""
    today = study_day(now, rollover_hour)
    end = day_start(today + timedelta(days=days), rollover_hour)
    available = _available_due()
    with store.read() as session:
        dues = session.scalars(select(available).where(
            Card.active.is_(True), Card.suspended.is_(False), Card.state != NEW, available < end)).all()
    per_day = Counter(max(study_day(due, rollover_hour), today) for due in dues)
    return [(today + timedelta(days=i), per_day[today + timedelta(days=i)]) for i in range(days)]


def card_info(store: Store, card_id: str, now: datetime | None = None,
              scheduler: fsrs.Scheduler = DEFAULT_SCHEDULER) -> CardInfo:
    """A card's columns, tags, review history and retrievability at ``now`` (default: clock.now())."""
    now = clock.now() if now is None else to_utc(now)
    with store.read() as session:
        card = session.get(Card, card_id)
        if card is None:
            raise KeyError(card_id)
        tags = tuple(session.scalars(select(CardTag.tag).where(CardTag.card_id == card_id).order_by(CardTag.tag)))
        reviews = [
            ReviewEntry(r.id, r.reviewed_at, r.rating, r.duration_ms, r.mode, r.answer_text, r.correct,
                        r.seed, r.state_before, r.scheduled)
            for r in session.scalars(select(Review).where(Review.card_id == card_id).order_by(Review.id))
        ]
        memory = _memory(session, card, leech=LEECH_TAG in tags)
    recall = None if card.state == NEW else retrievability(card, now, scheduler)
    return CardInfo(card.id, card.deck, card.kind, card.position, card.content_hash, tags, card.active,
                    card.suspended, card.buried_until, card.first_seen, memory, recall, reviews)


# -- importing real history --------------------------------------------------


@dataclass(frozen=True)
class LoggedReview:
    card_id: str
    rating: int
    reviewed_at: datetime
    duration_ms: int


def read_review_log(csv_path: Path) -> list[LoggedReview]:
    """Rows of an FSRS-style review log CSV (card_id, review_rating, review_time, review_duration)."""
    with open(csv_path, newline="") as handle:
        return [LoggedReview(row["card_id"], int(row["review_rating"]),
                             to_utc(datetime.fromisoformat(row["review_time"])), int(row["review_duration"]))
                for row in csv.DictReader(handle)]


def import_review_history(store: Store, reviews: list[LoggedReview], *, deck: str = "imported",
                          now: datetime | None = None,
                          scheduler: fsrs.Scheduler = DEFAULT_SCHEDULER) -> int:
    """Replay past reviews (in time order) through the same code as ``answer``.

    Unknown cards are created first (kind "imported", positions in order of first
    review).  One transaction for the lot; the ahead rule is off because these
    reviews really happened.  Returns the number of reviews applied.
    """
    ordered = sorted(reviews, key=lambda r: r.reviewed_at)
    first_seen = now or (ordered[0].reviewed_at if ordered else None)
    with store.write() as session:
        known = set(session.scalars(select(Card.id)))
        fresh = list(dict.fromkeys(r.card_id for r in ordered if r.card_id not in known))
        if fresh:
            session.execute(insert(Card), [
                dict(id=cid, deck=deck, kind="imported", position=i, content_hash="", first_seen=first_seen)
                for i, cid in enumerate(fresh)])
        for r in ordered:
            _answer(session, r.card_id, r.rating, r.reviewed_at, duration_ms=r.duration_ms, mode="study",
                    answer_text=None, correct=None, seed=None, scheduler=scheduler, ahead_after=None)
    return len(ordered)
