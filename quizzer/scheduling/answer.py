"""Answering, undo, burying and suspending: each one write transaction in the store."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import date, datetime, timedelta
from functools import partial

import fsrs

from quizzer.base.clock import ROLLOVER_HOUR, day_start, next_day_start, study_day, to_utc
from quizzer.scheduling.memory import (
    DEFAULT_SCHEDULER,
    LOAD_BALANCE_DAYS,
    Placement,
    decide,
    outcomes,
    replay_decider,
)
from quizzer.scheduling.plan import Interview
from quizzer.scheduling.summary import due_per_day
from quizzer.store import cards
from quizzer.store.engine import Store
from quizzer.store.filter import CardFilter
from quizzer.store.history import ReplayDecide
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
    load_balance: bool = True,
    interview: Interview | None = None,
    placement: Placement | None = None,
    replacing: Answered | None = None,
) -> Answered:
    """Record one answer and its new memory state in a single write transaction.

    ``now`` is the review time (aware; naive means local). A Review-state card answered
    before its due study day is a practice review (``memory``'s practice rule): recalled, it is
    logged with its state untouched (``Answered.scheduled`` False); forgotten, it relearns. With
    ``ahead_rule`` off every answer schedules. ``mark`` is an exam question's score,
    written in the same transaction. A review's day is placed as ``memory`` says (seeded
    fuzz; the load of the coming days unless ``load_balance`` is off), and short of the
    ``interview``'s day when one is set (``plan``). ``placement``: ``placement_for``'s, found
    before; ``replacing``: the card's latest answer, taken back in the same transaction (another
    rating for it: give the placement found before that answer, so it lands where the buttons said).
    """
    review = NewReview(rating, to_utc(now), duration_ms, mode, answer_text, correct, seed)
    ahead_after = next_day_start(now, rollover_hour) if ahead_rule else None
    if placement is None:
        placement = placement_for(store, card_id, now, scheduler, rollover_hour, load_balance)
    if interview is not None and interview.decks is not None and not interview.covers(cards.card(store, card_id).deck):
        interview = None  # another deck's card: the plan does not steer it
    decide_one = partial(decide, scheduler=scheduler, ahead_after=ahead_after, placement=placement, interview=interview)
    return cards.record_answer(store, card_id, review, decide_one, mark, replacing)


def preview(
    store: Store,
    card_id: str,
    *,
    now: datetime,
    scheduler: fsrs.Scheduler = DEFAULT_SCHEDULER,
    rollover_hour: int = ROLLOVER_HOUR,
    load_balance: bool = True,
    interview: Interview | None = None,
    load_of: LoadOf | None = None,
) -> tuple[datetime, ...]:
    """When ``card_id`` would next be due after Again, Hard, Good and Easy now (what the rating
    buttons show: the very days ``answer`` would give, fuzz included, as Anki's buttons show).
    Nothing is written. The practice rule applies as in ``answer``: a practice review shows the
    unchanged due date for Hard, Good and Easy, and Again's relearning step. ``load_of``: as for
    ``placement_for``."""
    ahead_after = next_day_start(now, rollover_hour)
    placement = placement_for(store, card_id, now, scheduler, rollover_hour, load_balance, load_of)
    card = cards.card(store, card_id)
    return outcomes(card.memory, now, scheduler=scheduler, ahead_after=ahead_after, placement=placement,
                    interview=interview if interview is not None and interview.covers(card.deck) else None)


def replaying(store: Store, scheduler: fsrs.Scheduler, rollover_hour: int = ROLLOVER_HOUR,
              interview: Interview | None = None) -> ReplayDecide:
    """``memory.replay_decider`` for the cards of ``store``: the interview steers those of its decks."""
    covered = None if interview is None or interview.decks is None else cards.ids(store, CardFilter(decks=interview.decks))
    return replay_decider(scheduler, rollover_hour, interview, covered)


LoadOf = Callable[[date], Sequence[int]]  # from a study day: the cards due on it and each day after it


def day_load(store: Store, rollover_hour: int = ROLLOVER_HOUR) -> LoadOf:
    """The load balancer's days as the store has them now: the cards due on each of the
    ``LOAD_BALANCE_DAYS + 1`` study days from the one given (overdue ones count on it)."""
    return lambda today: due_per_day(store, today, LOAD_BALANCE_DAYS + 1, rollover_hour)


def placement_for(store: Store, card_id: str, now: datetime, scheduler: fsrs.Scheduler,
                  rollover_hour: int = ROLLOVER_HOUR, load_balance: bool = True,
                  load_of: LoadOf | None = None) -> Placement:
    """The card's fuzz seed (its id and how many reviews it has had) and, when the load balancer
    will run (fuzz and ``load_balance`` on), the cards due on each of the coming study days:
    ``load_of``'s (a study session keeps them), else ``day_load``'s."""
    reps = len(cards.reviews(store, card_id))
    load = None
    if load_balance and scheduler.enable_fuzzing:
        today = study_day(now, rollover_hour)
        per_day = (load_of or day_load(store, rollover_hour))(today)
        load = {today + timedelta(days=i): n for i, n in enumerate(per_day) if n}
    return Placement(card_id, reps, rollover_hour, load)


def wait(due: datetime, now: datetime, rollover_hour: int = ROLLOVER_HOUR) -> timedelta:
    """How long until ``due``, as Anki's buttons count it: whole study days for a review due at
    the start of a later study day (a 1-day interval is "1d" whatever the hour), else the time."""
    days = (study_day(due, rollover_hour) - study_day(now, rollover_hour)).days
    if days > 0 and due == day_start(due, rollover_hour):
        return timedelta(days=days)
    return due - now


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


def unbury(store: Store, card_id: str) -> None:
    cards.unbury(store, card_id)


def restore(store: Store, card_id: str, suspended: bool, buried_until: datetime | None) -> None:
    cards.restore_flags(store, card_id, suspended=suspended, buried_until=buried_until)
