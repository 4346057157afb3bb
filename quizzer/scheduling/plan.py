"""Interview-date mode: the scheduling rules that aim at one day instead of at 90% forever.

Until the interview's study day begins, every studied card should have a predicted recall of at
least ``retention`` on that day:

- ``capped_due``: an interval that would jump past the date, leaving recall on the day below the
  target, is shortened to a day from which a review answered Good keeps recall on the day at the
  target. Stronger cards land later, weaker ones earlier, so the last reviews spread over the
  final days instead of piling onto the day before.
- ``new_per_day``: new cards come fast enough that all are seen within the first fifteenth of
  the time left (at the latest ``LEAD_DAYS`` days before), so each has the most time to become
  stable: a simulated learner whose cards vary in strength kept more of them that way than
  with a third (bench/bench_plan.py).
- ``by_gain``: when the day's budget cannot hold every due card in the last ``GAIN_DAYS`` before
  the interview, the cards whose review today raises their expected recall on the day the most
  come first (ranking by lowest recall wastes a tight budget on cards a review barely helps).
  Further out the gain on the day is short-sighted, and lowest recall first, as plain FSRS takes
  them, keeps more cards from lapsing (``ranks_by_gain``).
- ``top_up``: in the last days, budget the due cards leave is spent on the cards not due yet that
  gain most (practice reviews, so the schedule stays as it is; ``practised`` counts the ones
  already done, so each day picks other cards).
(``forecast``, above the scheduler, replays the plan: the share of cards predicted recalled on
the day if it is followed, and the reviews a day it takes.)

Pure: memory states and an fsrs.Scheduler in, numbers and dates out (no store, no terminal).
On and after the interview's day every rule steps aside and normal scheduling resumes.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import date, datetime, timedelta

import fsrs

from quizzer.base.clock import ROLLOVER_HOUR, day_start, study_day
from quizzer.base.defaults import Rating
from quizzer.scheduling.curve import decay, forgetting_curve
from quizzer.scheduling.elapsed import fsrs_review
from quizzer.store.records import REVIEW, MemoryState

DEFAULT_RETENTION = 0.95
LEAD_DAYS = 3  # every new card seen by this many days before the interview
GAIN_DAYS = 7  # a tight day ranks by gain on the day in this many study days before the interview
NEW_SPREAD = 15  # new cards all come within 1/15 of the days left: all today for an interview 15 days off or less
DAY = timedelta(days=1)
MARGIN = 0.5  # how far a capped review moves from the earliest sufficient day toward the day before


@dataclass(frozen=True)
class Interview:
    """The interview as the scheduler aims at it: its study day, the instant that day starts
    (recall is predicted there), the recall to reach, the decks it covers (None: all) and the
    hour study days start (due dates fall on study-day starts, as ``memory.decide`` gives them)."""

    day: date
    at: datetime
    retention: float = DEFAULT_RETENTION
    decks: tuple[str, ...] | None = None
    rollover_hour: int = ROLLOVER_HOUR

    def active(self, now: datetime) -> bool:
        """Whether the plan still steers the schedule (before the interview's day begins)."""
        return now < self.at

    def covers(self, deck: str) -> bool:
        """Whether the plan steers the cards of ``deck`` (its decks; all when it names none)."""
        return self.decks is None or deck in self.decks


def interview_on(day: date, retention: float = DEFAULT_RETENTION, decks: tuple[str, ...] | None = None,
                 rollover_hour: int = ROLLOVER_HOUR) -> Interview:
    return Interview(day, day_start(day, rollover_hour), retention, decks, rollover_hour)


def recall(stability: float, elapsed: timedelta, scheduler: fsrs.Scheduler) -> float:
    """Predicted recall ``elapsed`` after the last review, with the scheduler's decay; in
    fractional days, since the interview begins at an hour and reviews happen at others."""
    return float(forgetting_curve(max(elapsed / DAY, 0.0), stability, decay(scheduler)))


def _reviewed(stability: float, difficulty: float, last_review: datetime, at: datetime, rating: int,
              scheduler: fsrs.Scheduler, rollover_hour: int) -> tuple[float, float]:
    """A review card's stability and difficulty after ``rating`` at ``at``, the days elapsed counted
    in study days as answers count them (fuzz moves due dates, not memory)."""
    card = fsrs.Card(card_id=0, state=fsrs.State.Review, stability=stability, difficulty=difficulty,
                     due=at, last_review=last_review)
    reviewed = fsrs_review(card, rating, at, scheduler, rollover_hour)
    assert reviewed.stability is not None and reviewed.difficulty is not None, "a reviewed card has a memory"
    return reviewed.stability, reviewed.difficulty


def _stability_after(stability: float, difficulty: float, last_review: datetime, at: datetime, rating: Rating,
                     scheduler: fsrs.Scheduler, rollover_hour: int) -> float:
    return _reviewed(stability, difficulty, last_review, at, rating, scheduler, rollover_hour)[0]


def capped_due(after: MemoryState, interview: Interview, scheduler: fsrs.Scheduler) -> datetime | None:
    """``after``'s due date, shortened when it jumps past an active interview and recall on the day
    would be below the target. The earliest study day from which a Good answer keeps recall on the
    day at the target is found (the day before the interview when none is), and the review goes a
    ``MARGIN`` of the way from there toward the day before: some room for a learner weaker than the
    model, and the days still spread by stability. A card not in review, or one reviewed the day
    before the interview, keeps its due date."""
    due, reviewed_at = after.due, after.last_review
    if (after.state != REVIEW or due is None or reviewed_at is None or after.stability is None
            or after.difficulty is None or not interview.active(reviewed_at) or due < interview.at):
        return due
    stability, difficulty = after.stability, after.difficulty
    if recall(stability, interview.at - reviewed_at, scheduler) >= interview.retention:
        return due
    today = study_day(reviewed_at, interview.rollover_hour)
    last = (interview.day - today).days - 1  # study days after the review's that come before the interview's
    if last < 1:
        return due

    def start(days: int) -> datetime:
        return day_start(today + days * DAY, interview.rollover_hour)

    def enough(days: int) -> bool:
        at = start(days)
        later = _stability_after(stability, difficulty, reviewed_at, at, Rating.GOOD, scheduler, interview.rollover_hour)
        return recall(later, interview.at - at, scheduler) >= interview.retention

    low, high = 1, last  # Good later keeps more on the day: both the gain and the remaining gap improve
    while low < high:
        middle = (low + high) // 2
        if enough(middle):
            high = middle
        else:
            low = middle + 1
    return start(low + math.floor(MARGIN * (last - low) + 0.5))  # halves up, as intervals round


@dataclass(frozen=True)
class Seen:
    """A card already seen, as ranking, topping up and the forecast need it."""

    id: str
    memory: MemoryState


def gain(memory: MemoryState, now: datetime, interview: Interview, scheduler: fsrs.Scheduler) -> float:
    """Expected rise of recall on the day from reviewing now rather than not again: recalled
    (chance R now) the card gets Good's stability, forgotten Again's, both counted from now."""
    if memory.stability is None or memory.difficulty is None or memory.last_review is None:
        return 0.0
    stability, difficulty, last = memory.stability, memory.difficulty, memory.last_review
    left = interview.at - now
    chance = recall(stability, now - last, scheduler)
    good = _stability_after(stability, difficulty, last, now, Rating.GOOD, scheduler, interview.rollover_hour)
    again = _stability_after(stability, difficulty, last, now, Rating.AGAIN, scheduler, interview.rollover_hour)
    expected = chance * recall(good, left, scheduler) + (1 - chance) * recall(again, left, scheduler)
    return expected - recall(stability, interview.at - last, scheduler)


def practised(memory: MemoryState, practice: Iterable[tuple[datetime, int]], scheduler: fsrs.Scheduler,
              rollover_hour: int) -> MemoryState:
    """``memory`` with its practice reviews (time and rating, oldest first; those before its last
    review are skipped) counted as FSRS counts a review. The ahead rule keeps them out of the
    schedule, but they did refresh the memory: the last days' top-ups must see that, or every day
    they pick the same cards again and the rest of the spare budget is wasted."""
    for at, rating in practice:
        if (memory.state != REVIEW or memory.stability is None or memory.difficulty is None
                or memory.last_review is None or at <= memory.last_review):
            continue
        stability, difficulty = _reviewed(memory.stability, memory.difficulty, memory.last_review, at, rating,
                                          scheduler, rollover_hour)
        memory = replace(memory, stability=stability, difficulty=difficulty, last_review=at)
    return memory


Gains = dict[tuple[MemoryState, datetime], float]  # gain by memory and time: equal memories gain alike


def by_gain(cards: Iterable[Seen], now: datetime, interview: Interview, scheduler: fsrs.Scheduler,
            known: Gains | None = None) -> list[str]:
    """Card ids, the largest expected gain in recall on the day first (ties: id). ``known`` keeps
    the gains computed for this interview and scheduler, for a caller that ranks the same memories
    again (a replay's cohorts, its days and its reruns)."""
    cards = list(cards)
    known = {} if known is None else known
    for card in cards:
        if (card.memory, now) not in known:
            known[card.memory, now] = gain(card.memory, now, interview, scheduler)
    return [card_id for _, card_id in sorted((-known[card.memory, now], card.id) for card in cards)]


def final_days(now: datetime, interview: Interview) -> bool:
    """Whether ``now`` is in the last ``LEAD_DAYS`` study days before the interview."""
    return _within(now, interview, LEAD_DAYS)


def ranks_by_gain(now: datetime, interview: Interview) -> bool:
    """Whether a tight day at ``now`` takes its due cards by gain on the day (``by_gain``): in the
    last ``GAIN_DAYS`` study days before the interview. Earlier, by lowest recall: in
    bench/bench_plan.py a tight budget ranked by gain from the first day lost 0.8 to 1.0 points of
    recall at 30 days against plain FSRS, and gained none at 60 a day."""
    return _within(now, interview, GAIN_DAYS)


def _within(now: datetime, interview: Interview, days: int) -> bool:
    return 0 < (interview.day - study_day(now, interview.rollover_hour)).days <= days


def top_up(cards: Iterable[Seen], now: datetime, interview: Interview, scheduler: fsrs.Scheduler,
           room: int, known: Gains | None = None) -> list[str]:
    """In the last ``LEAD_DAYS`` study days, up to ``room`` cards not due yet to review as well
    (practice reviews: the schedule stays, the memory gains), the largest gain first, among those
    whose predicted recall on the day is below halfway from the target to certainty. Earlier,
    or with no room left in the day's budget, none. Each card's memory should count the practice
    reviews it already had (``practised``)."""
    if room <= 0 or not final_days(now, interview):
        return []
    ceiling = (1 + interview.retention) / 2
    short = [card for card in cards if card.memory.stability is not None and card.memory.last_review is not None
             and recall(card.memory.stability, interview.at - card.memory.last_review, scheduler) < ceiling]
    return by_gain(short, now, interview, scheduler, known)[:room]


def new_per_day(unseen: int, today: date, interview: Interview, per_day: int) -> int:
    """New cards to introduce today so the ``unseen`` ones are all seen within the first
    ``1 / NEW_SPREAD`` of the days left, and at the latest ``LEAD_DAYS`` days before the interview:
    each card then has the most days to become stable, and the weakest the most reviews (a card
    seen late gets too few, whatever the budget). The learner's own ``per_day`` when that is
    enough, else more; all of them when the last of those days has come."""
    days_left = (interview.day - today).days
    latest = days_left - LEAD_DAYS + 1  # introduction days left, today included
    if latest <= 0:
        return max(per_day, unseen)
    return max(per_day, math.ceil(unseen / max(1, min(latest, math.ceil(days_left / NEW_SPREAD)))))
