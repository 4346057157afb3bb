"""Cards' memory state: the one transaction per answer, undo, flags, and the reads the queue
and the summaries need. Everything returned is a frozen dataclass (``records``)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from sqlalchemy import case, delete, func, insert, or_, select
from sqlalchemy.orm import Session

from quizzer.errors import CardNotFound
from quizzer.store.engine import Store
from quizzer.store.filter import EVERYTHING, CardFilter
from quizzer.store.models import Card, CardTag, ExamQuestion, Mistake, Review
from quizzer.store.records import (
    LEECH_TAG,
    MODES,
    NEW,
    REVIEW,
    Answered,
    CardRecord,
    Decision,
    DueRow,
    ExamMark,
    MemoryState,
    NewReview,
    ReviewRecord,
)


def _memory(card: Card, leech: bool) -> MemoryState:
    return MemoryState(card.state, card.step, card.stability, card.difficulty, card.due,
                       card.last_review, card.lapses, leech)


def _is_leech(session: Session, card_id: str) -> bool:
    return session.get(CardTag, (card_id, LEECH_TAG)) is not None


def _row(session: Session, card_id: str, lock: bool = False) -> Card:
    card = session.get(Card, card_id, with_for_update=lock)
    if card is None:
        raise CardNotFound(card_id)
    return card


# -- writing -----------------------------------------------------------------


Decide = Callable[[MemoryState, NewReview], Decision]


def record_answer(store: Store, card_id: str, review: NewReview, decide: Decide,
                  mark: ExamMark | None = None) -> Answered:
    """One answer in one write transaction: ``decide`` turns the card's memory before the
    answer into the memory after it; the review is logged; an exam's ``mark`` (score, the
    mistakes notebook) is written with it."""
    with store.write() as session:
        return _record(session, card_id, review, decide, mark)


def replay(store: Store, new_cards: list[dict[str, Any]], reviews: list[tuple[str, NewReview]], decide: Decide) -> int:
    """Create ``new_cards`` (column values) and apply ``reviews`` in order, all in one
    transaction: a history import is either wholly there or not at all."""
    with store.write() as session:
        if new_cards:
            session.execute(insert(Card), new_cards)
        for card_id, review in reviews:
            _record(session, card_id, review, decide, None)
    return len(reviews)


def _record(session: Session, card_id: str, review: NewReview, decide: Decide, mark: ExamMark | None) -> Answered:
    if review.mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, got {review.mode!r}")
    card = _row(session, card_id, lock=True)
    previous = _memory(card, _is_leech(session, card_id))
    decision = decide(previous, review)
    after = decision.after
    if decision.scheduled:
        card.state, card.step = after.state, after.step
        card.stability, card.difficulty = after.stability, after.difficulty
        card.due, card.last_review, card.lapses = after.due, after.last_review, after.lapses
        if decision.became_leech:
            session.add(CardTag(card_id=card_id, tag=LEECH_TAG))
    row = Review(card_id=card_id, reviewed_at=review.reviewed_at, rating=review.rating,
                 duration_ms=review.duration_ms, mode=review.mode, answer_text=review.answer_text,
                 correct=review.correct, seed=review.seed, state_before=previous.state,
                 scheduled=decision.scheduled)
    session.add(row)
    session.flush()
    if mark is not None:
        _write_mark(session, mark, row)
    current = _memory(card, previous.leech or decision.became_leech)
    return Answered(row.id, card_id, previous, current, decision.became_leech, decision.scheduled)


def card_ids(store: Store) -> set[str]:
    with store.read() as session:
        return set(session.scalars(select(Card.id)))


def _write_mark(session: Session, mark: ExamMark, review: Review) -> None:
    import json

    question = session.get(ExamQuestion, (mark.exam_id, mark.position))
    if question is None:
        raise ValueError(f"exam {mark.exam_id} has no question {mark.position}")
    question.score = mark.score
    question.covered = json.dumps(mark.covered) if mark.covered is not None else None
    question.review_id = review.id
    if mark.wrong:
        mistake = session.get(Mistake, review.card_id) or Mistake(card_id=review.card_id, times_wrong=0)
        mistake.times_wrong += 1
        mistake.last_wrong_at = review.reviewed_at
        mistake.last_wrong_answer = question.answer_text
        session.add(mistake)


def undo(store: Store, answered: Answered) -> None:
    """Put the card back exactly as it was before ``answered`` and delete its review.

    Only a card's latest review can be undone; anything else would clobber later answers.
    """
    with store.write() as session:
        latest = session.scalar(select(func.max(Review.id)).where(Review.card_id == answered.card_id))
        if latest != answered.review_id:
            raise ValueError(f"review {answered.review_id} is not the latest of card {answered.card_id}")
        card = _row(session, answered.card_id, lock=True)
        before = answered.previous
        card.state, card.step = before.state, before.step
        card.stability, card.difficulty = before.stability, before.difficulty
        card.due, card.last_review, card.lapses = before.due, before.last_review, before.lapses
        if not before.leech:
            session.execute(delete(CardTag).where(CardTag.card_id == card.id, CardTag.tag == LEECH_TAG))
        session.execute(delete(Review).where(Review.id == answered.review_id))


def set_flags(store: Store, card_id: str, *, suspended: bool | None = None,
              buried_until: datetime | None = None) -> None:
    """Suspend / unsuspend, or bury until a time."""
    with store.write() as session:
        card = _row(session, card_id)
        if suspended is not None:
            card.suspended = suspended
        if buried_until is not None:
            card.buried_until = buried_until


# -- reading -----------------------------------------------------------------


def card(store: Store, card_id: str) -> CardRecord:
    """One card with its tags and memory; CardNotFound if the store has never seen it."""
    with store.read() as session:
        row = _row(session, card_id)
        tags = tuple(session.scalars(select(CardTag.tag).where(CardTag.card_id == card_id).order_by(CardTag.tag)))
        return CardRecord(row.id, row.deck, row.kind, row.position, row.content_hash, tags, row.active,
                          row.suspended, row.buried_until, row.first_seen, _memory(row, LEECH_TAG in tags))


def reviews(store: Store, card_id: str) -> list[ReviewRecord]:
    """A card's reviews, oldest first (by time: imported history may interleave with later log rows)."""
    with store.read() as session:
        return [
            ReviewRecord(r.id, r.card_id, r.reviewed_at, r.rating, r.duration_ms, r.mode, r.answer_text,
                         r.correct, r.seed, r.state_before, r.scheduled)
            for r in session.scalars(select(Review).where(Review.card_id == card_id).order_by(Review.reviewed_at, Review.id))
        ]


def memories(store: Store, chosen: CardFilter, now: datetime) -> dict[str, tuple[str, MemoryState]]:
    """(kind, memory) of the studiable cards ``chosen`` matches, by id (exam papers weigh these)."""
    with store.read() as session:
        leeches = set(session.scalars(select(CardTag.card_id).where(CardTag.tag == LEECH_TAG)))
        return {c.id: (c.kind, _memory(c, c.id in leeches))
                for c in session.scalars(select(Card).where(*chosen.where(now)).order_by(Card.id))}


def studiable(store: Store, card_ids: list[str], now: datetime) -> list[str]:
    """Those of ``card_ids`` a session may show now (active, not suspended, not buried), in order."""
    with store.read() as session:
        ok = set(session.scalars(select(Card.id).where(*EVERYTHING.where(now), Card.id.in_(card_ids))))
    return [card_id for card_id in card_ids if card_id in ok]


def learning_due(store: Store, chosen: CardFilter, now: datetime, until: datetime) -> list[str]:
    """Learning/relearning cards due by ``until``, soonest first."""
    with store.read() as session:
        return list(session.scalars(
            select(Card.id).where(*chosen.where(now), Card.state.not_in((NEW, REVIEW)), Card.due <= until)
            .order_by(Card.due, Card.id)))


def due_reviews(store: Store, chosen: CardFilter, now: datetime, before: datetime) -> list[DueRow]:
    """Review cards due before ``before``."""
    with store.read() as session:
        rows = session.execute(select(Card.id, Card.stability, Card.last_review, Card.due)
                               .where(*chosen.where(now), Card.state == REVIEW, Card.due < before))
        # a card in review always has all three; the check only tells the type checker so
        return [DueRow(cid, stability, last, due) for cid, stability, last, due in rows
                if stability is not None and last is not None and due is not None]


def new_cards(store: Store, chosen: CardFilter, now: datetime, limit: int) -> list[str]:
    """The next ``limit`` new cards in deck order."""
    if limit <= 0:
        return []
    with store.read() as session:
        return list(session.scalars(
            select(Card.id).where(*chosen.where(now), Card.state == NEW)
            .order_by(Card.position, Card.deck, Card.id).limit(limit)))


def seen_by_due(store: Store, chosen: CardFilter, now: datetime, limit: int) -> list[str]:
    """Already-seen cards, soonest due first (practising ahead)."""
    with store.read() as session:
        return list(session.scalars(
            select(Card.id).where(*chosen.where(now), Card.state != NEW).order_by(Card.due, Card.id).limit(limit)))


def done_since(store: Store, start: datetime) -> tuple[int, int]:
    """(new cards introduced, reviews done) in study mode since ``start`` (scheduled answers only)."""
    with store.read() as session:
        counts = dict(session.execute(
            select(Review.state_before, func.count(Review.id))
            .where(Review.reviewed_at >= start, Review.mode == "study", Review.scheduled.is_(True))
            .group_by(Review.state_before)).all())
    return counts.get(NEW, 0), counts.get(REVIEW, 0)


def counts_by_deck(store: Store, now: datetime, end: datetime) -> list[tuple[str, int, int]]:
    """(deck, state, cards) of studiable cards that are new or due before ``end``."""
    with store.read() as session:
        return [(deck, state, count) for deck, state, count in session.execute(
            select(Card.deck, Card.state, func.count(Card.id))
            .where(*EVERYTHING.where(now), or_(Card.state == NEW, Card.due < end))
            .group_by(Card.deck, Card.state))]


def _available() -> Any:
    """When a seen card can next be studied: its due time, or later if buried past it."""
    return case((Card.buried_until > Card.due, Card.buried_until), else_=Card.due)


def next_available(store: Store, after: datetime) -> datetime | None:
    """The soonest moment after ``after`` a seen, active, unsuspended card falls due."""
    available = _available()
    with store.read() as session:
        return session.scalar(select(func.min(available)).where(
            Card.active.is_(True), Card.suspended.is_(False), Card.state != NEW, available > after))


def available_before(store: Store, end: datetime) -> list[datetime]:
    """When each seen, active, unsuspended card available before ``end`` falls due."""
    available = _available()
    with store.read() as session:
        return list(session.scalars(select(available).where(
            Card.active.is_(True), Card.suspended.is_(False), Card.state != NEW, available < end)))
