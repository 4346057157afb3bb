"""What following the interview plan gives (``quiz plan``, ``quiz stats``): every card's reviews
replayed with the scheduler's own ``decide`` until the interview's day. Above both the scheduler
(``memory``) and the plan, which the scheduler's decisions read."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

import fsrs

from quizzer.clock import ROLLOVER_HOUR, day_start, study_day
from quizzer.defaults import Rating
from quizzer.scheduling.memory import Placement, decide, unfuzzed
from quizzer.scheduling.plan import DAY, Interview, Seen, new_per_day, recall
from quizzer.store.records import NEW, MemoryState, NewReview


@dataclass(frozen=True)
class Forecast:
    """What following the plan gives, if every review is answered Good: the share of the
    interview's cards at or above the target on the day, their mean predicted recall, and the
    answers a day it takes (learning steps included) over the study days left; ``new_per_day`` is
    today's, as study and the overview take it (the replay paces the cards unseen now itself, so
    from tomorrow on it may differ by one)."""

    cards: int
    seen: int
    days_left: int
    recalled: float  # mean predicted recall on the day, never-seen cards counting 0
    at_target: float  # share of cards whose predicted recall on the day reaches the target
    reviews_per_day: float
    new_per_day: int


def forecast(seen: Sequence[Seen], unseen: int, now: datetime, interview: Interview, scheduler: fsrs.Scheduler,
             per_day: int, rollover_hour: int = ROLLOVER_HOUR) -> Forecast:
    """Replay the plan with the scheduler's own ``decide`` (Good answers, no fuzz) until the day."""
    plain = unfuzzed(scheduler)
    today = study_day(now, rollover_hour)
    days_left = max(0, (interview.day - today).days)
    pace = new_per_day(unseen, today, interview, per_day) if days_left else 0
    # what is due today is answered at the day's start, whatever the hour: the figures then stay
    # the same all day until the learner answers (at ``now`` they rose as the evening went on)
    opening = day_start(today, rollover_hour)
    starts = [(card.memory, max(card.memory.due or opening, opening)) for card in seen]
    blank = MemoryState(NEW, None, None, None, None, None, 0, False)
    for k in range(min(unseen, pace * max(1, days_left))):
        starts.append((blank, day_start(today + (k // max(pace, 1)) * DAY, rollover_hour)))
    answers, recalls = 0, []
    placement = Placement(rollover_hour=rollover_hour)  # reviews fall on the learner's study days, as in study
    for memory, at in starts:
        while interview.active(at) and (memory.state == NEW or memory.due is None or memory.due < interview.at):
            at = max(at, memory.due or at)
            if not interview.active(at):
                break
            memory = decide(memory, NewReview(Rating.GOOD, at, None), scheduler=plain, ahead_after=None,
                            placement=placement, interview=interview).after
            answers += 1
        if memory.stability is not None and memory.last_review is not None:
            recalls.append(recall(memory.stability, interview.at - memory.last_review, scheduler))
    total = len(seen) + unseen
    recalls += [0.0] * (total - len(recalls))
    return Forecast(total, len(seen), days_left, sum(recalls) / total if total else 0.0,
                    sum(r >= interview.retention for r in recalls) / total if total else 0.0,
                    answers / days_left if days_left else 0.0, per_day if days_left else 0)
