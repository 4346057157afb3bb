"""The interview plan's status (``quiz plan``, ``quiz stats``): the interview set, and what
following its plan gives from today's memory states (``scheduling.forecast``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from quizzer.app.collection import Collection
from quizzer.scheduling.forecast import Forecast, forecast
from quizzer.scheduling.learner import schedule_of
from quizzer.scheduling.plan import Interview, Seen
from quizzer.scheduling.queue import held_by_own_limits, new_per_day_today
from quizzer.settings import Settings
from quizzer.store import cards
from quizzer.store.engine import Store
from quizzer.store.filter import CardFilter
from quizzer.store.records import NEW


FEW_AT_TARGET = 0.5  # of the cards at the target on the day, following the plan: below it, the target is out of reach


@dataclass(frozen=True)
class PlanStatus:
    """The interview and what following the plan gives."""

    interview: Interview
    forecast: Forecast | None  # None once the interview's day has begun: normal scheduling again
    new_per_day_setting: int
    reviews_per_day_setting: int
    # the plan's decks whose own new_per_day, below the plan's pace, holds new cards back: the forecast paces
    # every unseen card as if none did
    below_pace: dict[str, int] = field(default_factory=dict)


def status(store: Store, settings: Settings, now: datetime) -> PlanStatus | None:
    """The plan's forecast for ``quiz plan`` and ``quiz stats`` (None: no interview set)."""
    schedule = schedule_of(store, settings)
    interview, scheduler = schedule.interview, schedule.scheduler
    if interview is None:
        return None
    if not interview.active(now):
        return PlanStatus(interview, None, settings.new_per_day, settings.reviews_per_day)
    memories = cards.memories(store, CardFilter(decks=interview.decks), now, buried_too=True)
    seen = [Seen(card_id, memory) for card_id, (_kind, memory) in memories.items() if memory.state != NEW]
    unseen = len(memories) - len(seen)
    day_pace = new_per_day_today(store, now, settings.new_per_day, interview)  # the day's, as study takes it
    replayed = forecast(seen, unseen, now, interview, scheduler, day_pace, settings.day_start_hour)
    below = held_by_own_limits(store, now, CardFilter(decks=interview.decks), settings.deck_new_per_day,
                               replayed.new_per_day)
    return PlanStatus(interview, replayed, settings.new_per_day, settings.reviews_per_day, below)


def status_of(collection: Collection, settings: Settings, now: datetime) -> PlanStatus | None:
    """``status`` of the collection's learner."""
    return status(collection.store, settings, now)
