"""The memory model: FSRS (the ``fsrs`` package) between the store's MemoryState and fsrs.Card,
and Anki's rules for the day a review falls due.

FSRS (py-fsrs) decides the memory: state, step, stability and difficulty after an answer are
py-fsrs's with the days elapsed counted in study days, as Anki counts them (``elapsed``), and a
learning step's due time (minutes) is py-fsrs's. The day of a review is
chosen as Anki does on top of FSRS's interval (rslib/src/scheduler/states: review.rs,
learning.rs, relearning.rs, fuzz.rs, load_balancer.rs):

- ordering: in review Hard ≥ 1 day, Good ≥ Hard + 1, Easy ≥ Good + 1; when a card graduates
  with Easy, Easy ≥ the Good interval + 1;
- study days: an interval of n days makes the card due at the start of the study day n days
  after the one it was answered on (``clock.day_start``), so clock changes never move it;
- fuzz: from Anki's ``fuzz_range`` (none under 2.5 days, then ±1 day plus 15% of the days
  from 2.5 to 7, 10% from 7 to 20 and 5% above), within the minimum and the maximum interval,
  drawn from a number seeded by the card id and its review count, so a replay gives the
  same day; off with the ``fuzz`` setting;
- load balancing: for intervals up to 90 days, among the days the fuzz allows, a day is
  drawn with weight 1 when no card is due on it, else (1 / cards due)² / interval (Anki's
  weighting); it needs fuzz, as in Anki.

Practice rule: a card in the Review state answered before the study day it is due on is a
practice review. Recalled (Hard, Good, Easy), it is logged (``scheduled=False``) but its memory
state, due date and lapse count stay exactly as they were, and it does not count against the
daily review limit: practising ahead never moves or inflates the schedule. Forgotten (Again), it
is a lapse like any other: FSRS updates the memory and the card goes to relearning, as Anki's
rescheduling filtered decks do. The rule is the same live (the card's due decides) and on a
replay of the log (the review's ``PRACTICE`` mode decides: the log keeps which reviews were
practice, so a replay never depends on where the load balancer put a card).

``scheduler_for`` is the one place an fsrs.Scheduler is built from the learner's settings
(desired retention, learning and relearning steps, maximum interval, fuzz); ``outcomes``
previews the four ratings without saving anything (the rating buttons' intervals: the same
days ``decide`` gives, fuzz and load balancing included, as Anki's buttons show).
"""

from __future__ import annotations

import copy
import math
import random
from collections.abc import Callable, Container, Mapping
from dataclasses import dataclass, replace
from datetime import date, datetime, timedelta
import fsrs

from quizzer.base.clock import DAY_SECONDS, ROLLOVER_HOUR, day_start, study_day, to_utc
from quizzer.base.defaults import LEECH_LAPSES, Rating
from quizzer.scheduling.curve import curve_factor, decay, forgetting_curve
from quizzer.scheduling.elapsed import fsrs_review
from quizzer.scheduling.plan import Interview, capped_due
from quizzer.settings import Settings
from quizzer.store.records import NEW, PRACTICE, REVIEW, Decision, MemoryState, NewReview

DEFAULT_SCHEDULER = fsrs.Scheduler()  # the same as scheduler_for(quizzer.settings.DEFAULTS)
LOAD_BALANCE_LIMIT = 90  # Anki balances intervals up to 90 days
LOAD_BALANCE_DAYS = 99  # the days ahead whose load it reads (Anki: 10% over the limit)
FUZZ_RANGES = ((2.5, 7.0, 0.15), (7.0, 20.0, 0.1), (20.0, math.inf, 0.05))  # Anki's fuzz.rs


@dataclass(frozen=True)
class Placement:
    """What places a review on a day besides FSRS: the card and how many reviews it had before
    this one (the fuzz seed, as Anki seeds from card id + reps), the hour a study day starts,
    and the cards already due on each coming study day (None: no load balancing)."""

    card_id: str = ""
    reps: int = 0
    rollover_hour: int = ROLLOVER_HOUR
    load: Mapping[date, int] | None = None

    def fuzz_factor(self) -> float:
        """A number in [0, 1) that only the card and its review count decide."""
        return random.Random(f"{self.card_id}:{self.reps}").random()


ANYWHERE = Placement()  # no card known (history replay): fixed seed, no load balancing


def scheduler_for(settings: Settings, parameters: tuple[float, ...] | None = None) -> fsrs.Scheduler:
    """The scheduler the learner's settings ask for, with the FSRS parameters ``quiz optimize``
    stored (``quizzer.store.learner``), FSRS's defaults when None."""
    return fsrs.Scheduler(parameters=parameters or fsrs.scheduler.DEFAULT_PARAMETERS,
                          desired_retention=settings.desired_retention, learning_steps=settings.learning_steps,
                          relearning_steps=settings.relearning_steps, maximum_interval=settings.maximum_interval,
                          enable_fuzzing=settings.fuzz)


def unfuzzed(scheduler: fsrs.Scheduler) -> fsrs.Scheduler:
    """The same scheduler without py-fsrs's own fuzz (ours replaces it: seeded, in range)."""
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
    if memory.state == NEW or memory.stability is None or memory.last_review is None:
        return 0.0
    return recall_of_review(memory.stability, memory.last_review, now, scheduler)


def recall_of_review(stability: float, last_review: datetime, now: datetime,
                     scheduler: fsrs.Scheduler = DEFAULT_SCHEDULER) -> float:
    """Retrievability from a card's stability and last review alone, on the time elapsed in
    fractional days (never negative), as Anki shows it: py-fsrs's ``get_card_retrievability``
    counts whole days, so a card failed an hour ago was recalled "100%" until the next day, last
    among the weakest. No fsrs.Card is built for it (the browser asks it of thousands of cards)."""
    elapsed = max(0.0, (to_utc(now) - last_review).total_seconds() / DAY_SECONDS)
    return float(forgetting_curve(elapsed, stability, decay(scheduler)))


def replay_decider(scheduler: fsrs.Scheduler, rollover_hour: int = ROLLOVER_HOUR, interview: Interview | None = None,
                   covered: Container[str] | None = None) -> Callable[[MemoryState, NewReview, str, int], Decision]:
    """``decide`` for replaying a card's logged history (an import, a copy's check): a review is
    practice when its mode says so (``PRACTICE``), not by the due the replay finds; days placed
    as live answers place them, and those made while ``interview`` was ahead short of its day, as
    study placed them, for the cards it steers (``covered``; None: all)."""

    def replayed(memory: MemoryState, review: NewReview, card_id: str, reps: int) -> Decision:
        return decide(memory, review, scheduler=scheduler, ahead_after=None,
                      placement=Placement(card_id, reps, rollover_hour),
                      interview=interview if covered is None or card_id in covered else None)

    return replayed


def decide(before: MemoryState, review: NewReview, *, scheduler: fsrs.Scheduler,
           ahead_after: datetime | None, placement: Placement = ANYWHERE,
           interview: Interview | None = None) -> Decision:
    """The memory after one answer, under the practice rule (module docstring): ``ahead_after``
    (the start of the next study day) makes a review card due on it or later practised; None
    leaves it to the review's mode (a replay). ``placement`` seeds the fuzz and balances the load
    when the card goes (or stays) in review. An ``interview`` caps the interval so recall on its
    day stays at its target (``plan``)."""
    if review.rating not in range(1, 5):
        raise ValueError(f"rating must be 1-4, got {review.rating}")
    if is_practice(before, review, ahead_after) and review.rating != Rating.AGAIN:
        return Decision(before, scheduled=False, became_leech=False)
    now = review.reviewed_at
    reviewed = _fsrs_review(before, review.rating, now, scheduler, placement.rollover_hour, review.duration_ms)
    due = reviewed.due
    if reviewed.state == fsrs.State.Review:
        days = review_days(before, review.rating, now, scheduler, placement, {review.rating: reviewed.stability})
        due = day_start(study_day(now, placement.rollover_hour) + timedelta(days=days), placement.rollover_hour)
    lapses = before.lapses + (before.state == REVIEW and review.rating == Rating.AGAIN)
    became_leech = lapses >= LEECH_LAPSES and not before.leech
    after = MemoryState(int(reviewed.state), reviewed.step, reviewed.stability, reviewed.difficulty,
                        due, reviewed.last_review, lapses, before.leech or became_leech)
    if interview is not None:
        after = replace(after, due=capped_due(after, interview, scheduler))
    return Decision(after, scheduled=True, became_leech=became_leech)


def is_practice(before: MemoryState, review: NewReview, ahead_after: datetime | None) -> bool:
    """Whether ``review`` of a card whose memory was ``before`` is a practice review: the card is
    in review, and the review's mode says practice or the card is due on ``ahead_after`` or later."""
    if before.state != REVIEW:
        return False
    return review.mode == PRACTICE or (ahead_after is not None and before.due is not None
                                       and before.due >= ahead_after)


def outcomes(before: MemoryState, now: datetime, *, scheduler: fsrs.Scheduler,
             ahead_after: datetime | None, placement: Placement = ANYWHERE,
             interview: Interview | None = None) -> tuple[datetime, ...]:
    """When the card would next be due after each rating (Again, Hard, Good, Easy), as
    ``decide`` would schedule it now; nothing is saved. On a practice review Hard, Good and
    Easy leave the due date alone, and Again sends the card to relearning."""
    now = to_utc(now)
    due = []
    for rating in Rating:
        after = decide(before, NewReview(rating, now, None), scheduler=scheduler, ahead_after=ahead_after,
                       placement=placement, interview=interview).after
        due.append(after.due if after.due is not None else now)
    return tuple(due)


def _fsrs_review(before: MemoryState, rating: int, now: datetime, scheduler: fsrs.Scheduler, rollover_hour: int,
                 duration_ms: int | None = None) -> fsrs.Card:
    """py-fsrs's card after ``rating``, the days elapsed counted in study days (``elapsed``): its
    memory is ours; its due only for learning steps."""
    return fsrs_review(to_fsrs(before, now), rating, now, unfuzzed(scheduler), rollover_hour, duration_ms)


def review_days(before: MemoryState, rating: int, now: datetime, scheduler: fsrs.Scheduler,
                placement: Placement = ANYWHERE, known: Mapping[int, float | None] | None = None) -> int:
    """Study days until a card answered ``rating`` that goes (or stays) in review is due:
    FSRS's interval for its new stability, under Anki's ordering rule, fuzz and load balancer.
    ``known``: the stability after a rating already reviewed (the answer's own), not reviewed
    again: FSRS takes most of a history import's time."""
    def fsrs_days(r: int) -> float:
        stability = (known or {}).get(r) or _fsrs_review(before, r, now, scheduler, placement.rollover_hour).stability
        assert stability is not None, "a reviewed card has a stability"
        return raw_interval(stability, scheduler)

    place = _Days(scheduler.maximum_interval, placement.fuzz_factor() if scheduler.enable_fuzzing else None,
                  placement.load, study_day(now, placement.rollover_hour))
    if before.state == REVIEW and rating != Rating.AGAIN:  # review.rs passing_fsrs_review_intervals
        hard = place(fsrs_days(Rating.HARD), 1)
        if rating == Rating.HARD:
            return hard
        good = place(fsrs_days(Rating.GOOD), hard + 1)
        return good if rating == Rating.GOOD else place(fsrs_days(Rating.EASY), good + 1)
    if rating == Rating.EASY:  # learning.rs / relearning.rs answer_easy: beyond what Good would give
        good = place(fsrs_days(Rating.GOOD), 1)
        return place(max(1, _round(fsrs_days(Rating.EASY))), good + 1)
    return place(max(1, _round(fsrs_days(rating))), 1)


@dataclass(frozen=True)
class _Days:
    """Anki's constrain_passing_interval with fuzz (``factor``; None: off) and load balancing."""

    maximum: int
    factor: float | None
    load: Mapping[date, int] | None
    today: date

    def __call__(self, interval: float, minimum: int) -> int:
        minimum = min(max(minimum, 1), self.maximum)
        if self.factor is None:
            return min(max(_round(interval), minimum), self.maximum)
        lower, upper = fuzz_bounds(interval, minimum, self.maximum)
        days = range(lower, upper + 1)
        if self.load is not None and int(interval) <= LOAD_BALANCE_LIMIT and minimum <= LOAD_BALANCE_LIMIT:
            weights = [_weight(self.load.get(self.today + timedelta(days=d), 0), d) for d in days]
        else:
            weights = [1.0] * len(days)
        return _draw(days, weights, self.factor)


def _weight(cards_due: int, days: int) -> float:
    """Anki's load balancer weight of a day (select_weighted_interval)."""
    return 1.0 if cards_due == 0 else (1 / cards_due) ** 2 / days


def _draw(days: range, weights: list[float], factor: float) -> int:
    """The day ``factor`` (in [0, 1)) falls on when the days share [0, 1) by weight; with equal
    weights this is Anki's ``lower + factor * (upper - lower + 1)``, rounded down."""
    target, total = factor * sum(weights), 0.0
    for day, weight in zip(days, weights):
        total += weight
        if target < total:
            return day
    return days[-1]


def fuzz_bounds(interval: float, minimum: int, maximum: int) -> tuple[int, int]:
    """Anki's constrained_fuzz_bounds: the days fuzz may choose for ``interval``, kept within
    ``minimum`` and ``maximum``, at least two of them when there is room and it is over 2."""
    minimum = min(minimum, maximum)
    interval = min(max(interval, minimum), maximum)
    delta = 0.0 if interval < 2.5 else 1.0 + sum(
        factor * max(min(interval, end) - start, 0.0) for start, end, factor in FUZZ_RANGES)
    lower = min(max(_round(interval - delta), minimum), maximum)
    upper = min(max(_round(interval + delta), minimum), maximum)
    if upper == lower and 2 < upper < maximum:
        upper = lower + 1
    return lower, upper


def _round(days: float) -> int:
    """Half away from zero, as Rust's f32::round (Python's round goes to the even number)."""
    return math.floor(days + 0.5)


def raw_interval(stability: float, scheduler: fsrs.Scheduler) -> float:
    """Days until recall falls to the desired retention (FSRS's interval before rounding): the
    forgetting curve solved for t."""
    w20 = decay(scheduler)
    return stability / curve_factor(w20) * (scheduler.desired_retention ** (-1 / w20) - 1)


def review_interval(stability: float, scheduler: fsrs.Scheduler) -> timedelta:
    """The interval FSRS gives a card in review of this stability (before fuzz): the time its
    recall takes to fall to the scheduler's desired retention, in whole days, 1 to the maximum.
    Rounded as py-fsrs's ``_next_interval`` rounds it (Python's ``round``), since its scheduler
    gives the interval; ``_round`` is Anki's, for the fuzz bounds Anki computes."""
    days = round(raw_interval(stability, scheduler))
    return timedelta(days=min(max(days, 1), scheduler.maximum_interval))
