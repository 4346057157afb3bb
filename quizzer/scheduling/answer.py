"""Answering, undo, burying and suspending: each one write transaction in the store."""

from __future__ import annotations

from datetime import datetime
from functools import partial

import fsrs

from quizzer.clock import ROLLOVER_HOUR, next_day_start, to_utc
from quizzer.scheduling.memory import DEFAULT_SCHEDULER, decide, outcomes
from quizzer.store import cards
from quizzer.store.engine import Store
from quizzer.store.records import Answered, ExamMark, NewReview


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
    mark: ExamMark | None = None,
) -> Answered:
    """Record one answer and its new memory state in a single write transaction.

    ``now`` is the review time (aware; naive means local). A Review-state card answered
    before its due study day is an ahead review (``memory``'s docstring): logged, state
    untouched, ``Answered.scheduled`` False, unless ``ahead_rule`` is off (an exam's wrong
    answer is news about memory whenever it comes). ``mark`` is an exam question's score,
    written in the same transaction.
    """
    review = NewReview(rating, to_utc(now), duration_ms, mode, answer_text, correct, seed)
    ahead_after = next_day_start(now, rollover_hour) if ahead_rule else None
    return cards.record_answer(store, card_id, review, partial(decide, scheduler=scheduler, ahead_after=ahead_after), mark)


def preview(
    store: Store,
    card_id: str,
    *,
    now: datetime,
    scheduler: fsrs.Scheduler = DEFAULT_SCHEDULER,
    rollover_hour: int = ROLLOVER_HOUR,
    ahead_rule: bool = True,
) -> tuple[datetime, ...]:
    """When ``card_id`` would next be due after Again, Hard, Good and Easy now (what the rating
    buttons show; before fuzz). Nothing is written. The ahead rule applies as in ``answer``: a
    practice review shows the unchanged due date for every rating."""
    ahead_after = next_day_start(now, rollover_hour) if ahead_rule else None
    return outcomes(cards.card(store, card_id).memory, now, scheduler=scheduler, ahead_after=ahead_after)


def undo(store: Store, answered: Answered) -> None:
    """Put the card back exactly as it was before ``answered`` (its latest review)."""
    cards.undo(store, answered)


def bury(store: Store, card_id: str, until_day_start: datetime) -> None:
    """Hide a card until ``until_day_start`` (e.g. clock.next_day_start(now))."""
    cards.set_flags(store, card_id, buried_until=until_day_start)


def suspend(store: Store, card_id: str) -> None:
    cards.set_flags(store, card_id, suspended=True)


def unsuspend(store: Store, card_id: str) -> None:
    cards.set_flags(store, card_id, suspended=False)
