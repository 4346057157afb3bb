"""The memory model: FSRS (the ``fsrs`` package) between the store's MemoryState and fsrs.Card.

Ahead rule: a card in the Review state answered before the study day it is due on is a
practice review. It is logged (``scheduled=False``) but its memory state, due date and lapse
count stay exactly as they were, and it does not count against the daily review limit.
Practising ahead therefore never moves or inflates the schedule.

``scheduler_for`` is the one place an fsrs.Scheduler is built from the learner's settings
(desired retention, learning and relearning steps, maximum interval, fuzz); ``outcomes``
previews the four ratings without saving anything (the rating buttons' intervals).
"""

from __future__ import annotations

import copy
from datetime import datetime, timedelta

import fsrs

from quizzer.clock import to_utc
from quizzer.defaults import LEECH_LAPSES, Rating
from quizzer.settings import Settings
from quizzer.store.records import NEW, REVIEW, Decision, MemoryState, NewReview

DEFAULT_SCHEDULER = fsrs.Scheduler()  # the same as scheduler_for(quizzer.settings.DEFAULTS)


def scheduler_for(settings: Settings) -> fsrs.Scheduler:
    """The scheduler the learner's settings ask for (FSRS's default parameters)."""
    return fsrs.Scheduler(desired_retention=settings.desired_retention, learning_steps=settings.learning_steps,
                          relearning_steps=settings.relearning_steps, maximum_interval=settings.maximum_interval,
                          enable_fuzzing=settings.fuzz)


def unfuzzed(scheduler: fsrs.Scheduler) -> fsrs.Scheduler:
    """The same scheduler without fuzz (a preview shows the interval before fuzz, as Anki does)."""
    if not scheduler.enable_fuzzing:
        return scheduler
    plain = copy.copy(scheduler)
    plain.enable_fuzzing = False
    return plain


def to_fsrs(memory: MemoryState, now: datetime) -> fsrs.Card:
    """fsrs has no New state: a new card is Learning at step 0 with no memory yet."""
    if memory.state == NEW:
        return fsrs.Card(card_id=0, state=fsrs.State.Learning, step=0, due=now)
    return fsrs.Card(card_id=0, state=fsrs.State(memory.state), step=memory.step, stability=memory.stability,
                     difficulty=memory.difficulty, due=memory.due, last_review=memory.last_review)


def retrievability(memory: MemoryState, now: datetime, scheduler: fsrs.Scheduler = DEFAULT_SCHEDULER) -> float:
    """The chance of recalling the card at ``now`` (0 for a card never reviewed)."""
    return 0.0 if memory.state == NEW else scheduler.get_card_retrievability(to_fsrs(memory, now), to_utc(now))


def recall_of_review(stability: float, last_review: datetime, now: datetime,
                     scheduler: fsrs.Scheduler = DEFAULT_SCHEDULER) -> float:
    """Retrievability of a card in review from its stability and last review alone."""
    memory = fsrs.Card(card_id=0, state=fsrs.State.Review, stability=stability, last_review=last_review)
    return scheduler.get_card_retrievability(memory, now)


def decide(before: MemoryState, review: NewReview, *, scheduler: fsrs.Scheduler,
           ahead_after: datetime | None) -> Decision:
    """The memory after one answer. ``ahead_after`` (the start of the next study day) turns on
    the ahead rule; None turns it off (history replay, an exam's wrong answer)."""
    if review.rating not in range(1, 5):
        raise ValueError(f"rating must be 1-4, got {review.rating}")
    ahead = (ahead_after is not None and before.state == REVIEW
             and before.due is not None and before.due >= ahead_after)
    if ahead:
        return Decision(before, scheduled=False, became_leech=False)
    now = review.reviewed_at
    reviewed, _ = scheduler.review_card(to_fsrs(before, now), fsrs.Rating(review.rating), now, review.duration_ms)
    lapses = before.lapses + (before.state == REVIEW and review.rating == Rating.AGAIN)
    became_leech = lapses >= LEECH_LAPSES and not before.leech
    after = MemoryState(int(reviewed.state), reviewed.step, reviewed.stability, reviewed.difficulty,
                        reviewed.due, reviewed.last_review, lapses, before.leech or became_leech)
    return Decision(after, scheduled=True, became_leech=became_leech)


def outcomes(before: MemoryState, now: datetime, *, scheduler: fsrs.Scheduler,
             ahead_after: datetime | None) -> tuple[datetime, ...]:
    """When the card would next be due after each rating (Again, Hard, Good, Easy), as
    ``decide`` would schedule it now but without fuzz; nothing is saved. Under the ahead
    rule every rating leaves the due date alone, so all four are the unchanged due."""
    plain = unfuzzed(scheduler)
    now = to_utc(now)
    due = []
    for rating in Rating:
        after = decide(before, NewReview(rating, now, None), scheduler=plain, ahead_after=ahead_after).after
        due.append(after.due if after.due is not None else now)
    return tuple(due)


def review_interval(stability: float, scheduler: fsrs.Scheduler) -> timedelta:
    """The interval FSRS gives a card in review of this stability (before fuzz): the time its
    recall takes to fall to the scheduler's desired retention, in whole days, 1 to the maximum."""
    decay = -scheduler.parameters[20]
    factor = 0.9 ** (1 / decay) - 1
    days = round(stability / factor * (scheduler.desired_retention ** (1 / decay) - 1))
    return timedelta(days=min(max(days, 1), scheduler.maximum_interval))
