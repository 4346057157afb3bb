"""Cards' memory state: the one transaction per answer, undo, flags, and the reads the queue
and the summaries need. Everything returned is a frozen dataclass (``records``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, Row, case, delete, func, insert, or_, select, update

from quizzer.base.errors import CardNotFound, ConnectionLost, DatabaseError, ServerUnavailable
from quizzer.base.i18n import _
from quizzer.store import review_days
from quizzer.store.engine import Store
from quizzer.store.filter import EVERYTHING, CardFilter
from quizzer.store.models import card_tags, cards, epoch, exam_questions, insert_id, mistakes, review_log
from quizzer.store.records import (LEARNING, LEECH_TAG, MODES, NEW, RELEARNING, REVIEW, Answered, CardRecord, Decision,
                                   DueRow, ExamMark, MemoryState, NewReview, ReviewRecord)


def _memory(card: Row[Any], leech: bool) -> MemoryState:
    return MemoryState(card.state, card.step, card.stability, card.difficulty, card.due,
                       card.last_review, card.lapses, leech)


def memory_columns(memory: MemoryState) -> dict[str, Any]:
    """The card columns that hold ``memory`` (leech is a tag, not a column)."""
    return dict(state=memory.state, step=memory.step, stability=memory.stability, difficulty=memory.difficulty,
                due=memory.due, last_review=memory.last_review, lapses=memory.lapses)


def card_record(row: Row[Any], tags: tuple[str, ...]) -> CardRecord:
    """A ``cards`` row (every column) and its tags as the record the store hands out."""
    return CardRecord(row.id, row.deck, row.kind, row.position, row.content_hash, tags, row.active,
                      row.suspended, row.buried_until, row.first_seen, _memory(row, LEECH_TAG in tags))


def _is_leech(conn: Connection, card_id: str) -> bool:
    return conn.execute(select(card_tags.c.tag).where(card_tags.c.card_id == card_id,
                                                      card_tags.c.tag == LEECH_TAG)).first() is not None


def _row(conn: Connection, card_id: str, lock: bool = False) -> Row[Any]:
    """The card's row; ``lock`` holds it until the transaction ends (FOR UPDATE on a server)."""
    query = select(cards).where(cards.c.id == card_id)
    card = conn.execute(query.with_for_update() if lock else query).first()
    if card is None:
        raise CardNotFound(card_id)
    return card


def _set(conn: Connection, card_id: str, **values: Any) -> None:
    conn.execute(update(cards).where(cards.c.id == card_id).values(**values))


# -- writing -----------------------------------------------------------------


Decide = Callable[[MemoryState, NewReview], Decision]


def record_answer(store: Store, card_id: str, review: NewReview, decide: Decide,
                  mark: ExamMark | None = None, replacing: Answered | None = None) -> Answered:
    """One answer in one write transaction: ``decide`` turns the card's memory before the answer into the memory
    after it; the review is logged, with an exam's ``mark``; ``replacing`` (the card's latest answer) is taken back
    (``undo``) in it, so another rating is never half done. A server that drops the connection rolled the answer
    back: it is tried once more on a new connection, unless it is there already (the connection went during the
    commit): then the command ends saying it is saved once. A server out of reach for that try is ConnectionLost
    too (saved or not is unknown), never ServerUnavailable, which a caller tries again as it was."""
    def apply(conn: Connection) -> Answered:
        if replacing is not None:
            _undo(conn, replacing)
        return _record(conn, card_id, review, decide, mark)

    try:
        with store.write() as conn:
            return apply(conn)
    except ConnectionLost:
        pass
    try:
        with store.write() as conn:
            if conn.execute(select(review_log.c.id).where(review_log.c.card_id == card_id, review_log.c.rating == review.rating,
                                                          review_log.c.reviewed_at == review.reviewed_at)).first() is not None:
                raise DatabaseError(_("{where}: the connection was lost just as the answer to {card} was saved; it is "
                                      "saved once").format(where=store.display_name, card=card_id),
                                    _("run the command again to go on"))
            return apply(conn)
    except ServerUnavailable as err:
        raise ConnectionLost(err.message, err.hint) from err


def replay(store: Store, new_cards: list[dict[str, Any]], reviews: list[tuple[str, NewReview]], decide: Decide) -> int:
    """Create ``new_cards`` (column values) and apply ``reviews`` in order, each as an answer is
    recorded, all in one transaction: the per-review path history import took before its bulk
    one, kept as the baseline ``bench/bench_history.py`` measures that against."""
    with store.write() as conn:
        if new_cards:
            conn.execute(insert(cards), new_cards)
        for card_id, review in reviews:
            _record(conn, card_id, review, decide, None)
    return len(reviews)


class ReviewedSince(Exception):
    """A review that is no longer its card's latest: another device answered the card since, so
    taking it back would clobber that answer."""


class AlreadyMarked(Exception):
    """The exam question has its review already: the same paper was handed in on another device.
    Checked inside the write transaction, so a question is never reviewed twice."""


def _record(conn: Connection, card_id: str, review: NewReview, decide: Decide, mark: ExamMark | None) -> Answered:
    if review.mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, got {review.mode!r}")
    if mark is not None and conn.scalar(select(exam_questions.c.review_id).where(
            exam_questions.c.exam_id == mark.exam_id, exam_questions.c.position == mark.position)) is not None:
        raise AlreadyMarked(f"exam {mark.exam_id} question {mark.position}")
    previous = _memory(_row(conn, card_id, lock=True), _is_leech(conn, card_id))
    decision = decide(previous, review)
    if decision.scheduled:
        _set(conn, card_id, **memory_columns(decision.after))
        if decision.became_leech:
            conn.execute(insert(card_tags).values(card_id=card_id, tag=LEECH_TAG))
    review_id = insert_id(conn, insert(review_log).values(
        card_id=card_id, reviewed_at=review.reviewed_at, rating=review.rating, duration_ms=review.duration_ms,
        mode=review.mode, answer_text=review.answer_text, correct=review.correct, seed=review.seed,
        state_before=previous.state, scheduled=decision.scheduled))
    if mark is not None:
        _write_mark(conn, mark, card_id, review_id, review.reviewed_at, review.answer_text)
    current = replace(decision.after if decision.scheduled else previous,
                      leech=previous.leech or decision.became_leech)
    return Answered(review_id, card_id, previous, current, decision.became_leech, decision.scheduled)


def _write_mark(conn: Connection, mark: ExamMark, card_id: str, review_id: int, reviewed_at: datetime,
                scored: str | None) -> None:
    import json

    question = exam_questions.c.exam_id == mark.exam_id, exam_questions.c.position == mark.position
    if conn.execute(select(exam_questions.c.position).where(*question)).first() is None:
        raise ValueError(f"exam {mark.exam_id} has no question {mark.position}")
    # the answer scored stays beside its score (another device may have saved another one since)
    conn.execute(update(exam_questions).where(*question).values(
        score=mark.score, covered=json.dumps(mark.covered) if mark.covered is not None else None, review_id=review_id,
        answer_text=scored))
    if mark.wrong:
        wrong = dict(last_wrong_at=reviewed_at, last_wrong_answer=scored)
        counted = conn.execute(update(mistakes).where(mistakes.c.card_id == card_id)
                               .values(times_wrong=mistakes.c.times_wrong + 1, **wrong)).rowcount
        if not counted:
            conn.execute(insert(mistakes).values(card_id=card_id, times_wrong=1, **wrong))


def undo(store: Store, answered: Answered) -> None:
    """Put the card back exactly as it was before ``answered`` and delete its review.

    Only a card's latest review can be undone; anything else would clobber later answers.
    """
    with store.write() as conn:
        _undo(conn, answered)


def _undo(conn: Connection, answered: Answered) -> None:
    latest = conn.scalar(select(func.max(review_log.c.id)).where(review_log.c.card_id == answered.card_id))
    if latest != answered.review_id:  # another device answered the card since (or it is gone)
        raise ReviewedSince(answered.card_id)
    _row(conn, answered.card_id, lock=True)
    _set(conn, answered.card_id, **memory_columns(answered.previous))
    if not answered.previous.leech:
        conn.execute(delete(card_tags).where(card_tags.c.card_id == answered.card_id, card_tags.c.tag == LEECH_TAG))
    conn.execute(delete(review_log).where(review_log.c.id == answered.review_id))
    review_days.undone(conn, answered.review_id)


def undo_mark(store: Store, answered: Answered, exam_id: int, position: int) -> None:
    """Take back an exam question's mark: its review as ``undo`` does, its score, and the mistake
    it noted (the notebook's row goes back to the card's previous exam mistake, or goes)."""
    with store.write() as conn:
        noted = conn.scalar(select(review_log.c.correct).where(review_log.c.id == answered.review_id)) is False
        _undo(conn, answered)
        conn.execute(update(exam_questions)
                     .where(exam_questions.c.exam_id == exam_id, exam_questions.c.position == position)
                     .values(score=None, covered=None, review_id=None))
        if noted:
            _unnote(conn, answered.card_id, answered.review_id)


def _unnote(conn: Connection, card_id: str, review_id: int) -> None:
    """The notebook's row as it was before the exam mistake ``review_id`` (every exam mistake is
    an exam review answered wrong: the one before it gives the row its last mistake back)."""
    earlier = conn.execute(
        select(review_log.c.reviewed_at, review_log.c.answer_text)
        .where(review_log.c.card_id == card_id, review_log.c.mode == "exam", review_log.c.correct.is_(False),
               review_log.c.id < review_id)
        .order_by(review_log.c.id.desc()).limit(1)).first()
    row = mistakes.c.card_id == card_id
    if earlier is None or (conn.scalar(select(mistakes.c.times_wrong).where(row)) or 0) <= 1:
        conn.execute(delete(mistakes).where(row))
    else:
        conn.execute(update(mistakes).where(row).values(times_wrong=mistakes.c.times_wrong - 1,
                                                        last_wrong_at=earlier.reviewed_at,
                                                        last_wrong_answer=earlier.answer_text))


def set_flags(store: Store, card_id: str, *, suspended: bool | None = None,
              buried_until: datetime | None = None) -> None:
    """Suspend / unsuspend, or bury until a time."""
    flags = {name: value for name, value in (("suspended", suspended), ("buried_until", buried_until)) if value is not None}
    with store.write() as conn:
        _row(conn, card_id)
        if flags:
            _set(conn, card_id, **flags)


def unbury(store: Store, card_id: str) -> None:
    """Back in the drill today (``set_flags`` cannot clear a burial: None there is "unchanged")."""
    with store.write() as conn:
        _row(conn, card_id)
        _set(conn, card_id, buried_until=None)


def restore_flags(store: Store, card_id: str, *, suspended: bool, buried_until: datetime | None) -> None:
    """Both flags exactly as given, a cleared burial included: the undo of a bury or suspend."""
    with store.write() as conn:
        _row(conn, card_id)
        _set(conn, card_id, suspended=suspended, buried_until=buried_until)


# -- reading -----------------------------------------------------------------


def card(store: Store, card_id: str) -> CardRecord:
    """One card with its tags and memory; CardNotFound if the store has never seen it."""
    with store.read() as conn:
        row = _row(conn, card_id)
        tags = tuple(conn.scalars(select(card_tags.c.tag).where(card_tags.c.card_id == card_id)
                                  .order_by(card_tags.c.tag)))
        return card_record(row, tags)


def reviews(store: Store, card_id: str) -> list[ReviewRecord]:
    """A card's reviews, oldest first (by time: imported history may interleave with later log rows)."""
    with store.read() as conn:
        return [ReviewRecord(**row._mapping) for row in conn.execute(
            select(review_log).where(review_log.c.card_id == card_id)
            .order_by(review_log.c.reviewed_at, review_log.c.id))]


def memories(store: Store, chosen: CardFilter, now: datetime, *,
             buried_too: bool = False) -> dict[str, tuple[str, MemoryState]]:
    """(kind, memory) of the studiable cards ``chosen`` matches, by id (exam papers weigh these);
    ``buried_too``: with the cards buried for now (the interview plan counts them: they come back)."""
    conditions = [*chosen.clauses(), cards.c.suspended.is_(False)] if buried_too else chosen.clauses(now)
    with store.read() as conn:
        leeches = set(conn.scalars(select(card_tags.c.card_id).where(card_tags.c.tag == LEECH_TAG)))
        return {c.id: (c.kind, _memory(c, c.id in leeches))
                for c in conn.execute(select(cards).where(*conditions).order_by(cards.c.id))}


def practice_since_last_review(store: Store, chosen: CardFilter, now: datetime) -> dict[str, list[tuple[datetime, int]]]:
    """(time, rating) of the practice (ahead) reviews since each studiable card's last scheduled
    review, oldest first, by card id: what refreshed a memory the schedule did not move for."""
    found: dict[str, list[tuple[datetime, int]]] = {}
    with store.read() as conn:
        for card_id, at, rating in conn.execute(
                select(review_log.c.card_id, review_log.c.reviewed_at, review_log.c.rating)
                .join(cards, cards.c.id == review_log.c.card_id)
                .where(*chosen.clauses(now), review_log.c.scheduled.is_(False), review_log.c.reviewed_at > cards.c.last_review)
                .order_by(review_log.c.reviewed_at, review_log.c.id)):
            found.setdefault(card_id, []).append((at, rating))
    return found


def studiable(store: Store, card_ids: list[str], now: datetime) -> list[str]:
    """Those of ``card_ids`` a session may show now (active, not suspended, not buried), in order."""
    with store.read() as conn:
        ok = set(conn.scalars(select(cards.c.id).where(*EVERYTHING.clauses(now), cards.c.id.in_(card_ids))))
    return [card_id for card_id in card_ids if card_id in ok]


def standing(store: Store, card_id: str) -> tuple[datetime | None, bool, datetime | None]:
    """A card's last review, whether it is suspended and until when it is buried (whether another
    session took it since it was shown); CardNotFound if never seen."""
    with store.read() as conn:
        row = _row(conn, card_id)
    return row.last_review, row.suspended, row.buried_until


def reviewed_after(store: Store, review_id: int | None) -> tuple[int, set[str]]:
    """The latest review's id (0: none), and the cards reviewed after ``review_id`` (None: none asked)."""
    with store.read() as conn:
        latest = conn.scalar(select(func.max(review_log.c.id))) or 0
        after = review_log.c.id > (latest if review_id is None else review_id)
        return latest, set(conn.scalars(select(review_log.c.card_id).where(after)))


def states(store: Store, card_ids: list[str]) -> dict[str, int]:
    """The state (``NEW``, or an fsrs.State value) of each of ``card_ids`` that is stored."""
    with store.read() as conn:
        return {card_id: state for card_id, state in conn.execute(
            select(cards.c.id, cards.c.state).where(cards.c.id.in_(card_ids)))}


def learning_due(store: Store, chosen: CardFilter, now: datetime, until: datetime) -> list[str]:
    """Learning/relearning cards due by ``until``, soonest first (the states named, so that the
    (state, due) index finds them: a study session asks after every answer)."""
    with store.read() as conn:
        return list(conn.scalars(
            select(cards.c.id).where(*chosen.clauses(now), cards.c.state.in_((LEARNING, RELEARNING)), cards.c.due <= until)
            .order_by(cards.c.due, cards.c.id)))


def due_reviews(store: Store, chosen: CardFilter, now: datetime, before: datetime) -> list[DueRow]:
    """Review cards due before ``before``."""
    with store.read() as conn:
        rows = conn.execute(select(cards.c.id, cards.c.stability, cards.c.last_review, cards.c.due)
                               .where(*chosen.clauses(now), cards.c.state == REVIEW, cards.c.due < before))
        # a card in review always has all three; the check only tells the type checker so
        return [DueRow(cid, stability, last, due) for cid, stability, last, due in rows
                if stability is not None and last is not None and due is not None]


def new_cards(store: Store, chosen: CardFilter, now: datetime, limit: int) -> list[str]:
    """The next ``limit`` new cards in deck order."""
    if limit <= 0:
        return []
    with store.read() as conn:
        return list(conn.scalars(
            select(cards.c.id).where(*chosen.clauses(now), cards.c.state == NEW)
            .order_by(cards.c.position, cards.c.deck, cards.c.id).limit(limit)))


def ids(store: Store, chosen: CardFilter) -> set[str]:
    """The ids of the cards ``chosen`` matches, those no longer in the decks too."""
    with store.read() as conn:
        return set(conn.scalars(select(cards.c.id).where(*chosen.clauses(only_active=False))))


def unseen(store: Store, chosen: CardFilter) -> int:
    """How many new cards ``chosen`` matches are still to be introduced: not suspended, buried or
    not (a buried one is back tomorrow, and still to learn)."""
    with store.read() as conn:
        return conn.scalar(select(func.count(cards.c.id)).where(
            *chosen.clauses(), cards.c.suspended.is_(False), cards.c.state == NEW)) or 0


def seen_by_due(store: Store, chosen: CardFilter, now: datetime, limit: int) -> list[str]:
    """Already-seen cards, soonest due first (practising ahead)."""
    with store.read() as conn:
        return list(conn.scalars(
            select(cards.c.id).where(*chosen.clauses(now), cards.c.state != NEW).order_by(cards.c.due, cards.c.id).limit(limit)))


def done_since(store: Store, start: datetime, chosen: CardFilter = EVERYTHING, scheduled: bool = True) -> tuple[int, int]:
    """(new cards introduced, reviews done) in study mode since ``start`` (scheduled answers
    only; with ``scheduled`` False, the practice reviews the ahead rule left unscheduled), on the
    cards ``chosen`` matches (archived ones too)."""
    conditions = chosen.clauses(only_active=False)
    query = (select(review_log.c.state_before, func.count(review_log.c.id))
             .where(review_log.c.reviewed_at >= start, review_log.c.mode == "study", review_log.c.scheduled.is_(scheduled)))
    if conditions:
        query = query.join(cards, cards.c.id == review_log.c.card_id).where(*conditions)
    with store.read() as conn:
        counts: dict[int, int] = dict(conn.execute(query.group_by(review_log.c.state_before)).all())
    return counts.get(NEW, 0), counts.get(REVIEW, 0)


def counts_by_deck(store: Store, now: datetime, end: datetime) -> list[tuple[str, int, int]]:
    """(deck, state, cards) of studiable cards that are new or due before ``end``."""
    with store.read() as conn:
        return [(deck, state, count) for deck, state, count in conn.execute(
            select(cards.c.deck, cards.c.state, func.count(cards.c.id))
            .where(*EVERYTHING.clauses(now), or_(cards.c.state == NEW, cards.c.due < end))
            .group_by(cards.c.deck, cards.c.state))]


def _available() -> Any:
    """When a seen card can next be studied: its due time, or later if buried past it."""
    return case((cards.c.buried_until > cards.c.due, cards.c.buried_until), else_=cards.c.due)


def next_available(store: Store, after: datetime, chosen: CardFilter = EVERYTHING) -> datetime | None:
    """The soonest moment after ``after`` a seen, active, unsuspended card ``chosen`` matches falls due."""
    available = _available()
    with store.read() as conn:
        return conn.scalar(select(func.min(available)).where(
            *chosen.clauses(), cards.c.suspended.is_(False), cards.c.state != NEW, available > after))


def available_times(store: Store, end: datetime, chosen: CardFilter = EVERYTHING) -> list[float]:
    """When each seen, active, unsuspended card ``chosen`` matches that is available before
    ``end`` can next be studied, as seconds since the epoch (thousands of cards: no datetimes)."""
    available = _available()
    with store.read() as conn:
        return list(conn.scalars(select(epoch(available)).where(
            *chosen.clauses(), cards.c.suspended.is_(False), cards.c.state != NEW, available < end)))
