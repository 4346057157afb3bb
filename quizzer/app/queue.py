"""What a study session takes (``quiz study``, the web drill): the queue of today's cards for
the chosen decks, tags and kinds, or, when none is due, why not (``NothingDue``), so that each
front end words it without knowing the limits.

Why nothing is due, in the order it is told: ``--new 0`` took none of the new cards waiting
(``no_new_taken``); every new card waiting is in decks whose own new_per_day, below the day's
global limit, holds it (``held_by_deck``); today's new-card limit is reached with new cards
waiting (``new_limit``); nothing is due at all (``nothing``).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Literal, Union

from quizzer.app.collection import Collection
from quizzer.scheduling.learner import schedule_of
from quizzer.scheduling.queue import build_queue, held_by_own_limits, new_per_day_today, new_waiting
from quizzer.scheduling.summary import next_due
from quizzer.settings import Settings
from quizzer.store.filter import CardFilter

NothingDueReason = Literal["no_new_taken", "held_by_deck", "new_limit", "nothing"]


@dataclass(frozen=True)
class Pace:
    """The day's new-card limit: the setting, and today's (an interview's pace raises it)."""

    setting: int
    today: int
    told: bool  # the raise is worth telling: this session may take new cards

    @property
    def raised(self) -> bool:
        return self.told and self.today > self.setting


@dataclass(frozen=True)
class Planned:
    """The cards to study, in order."""

    queue: list[str]
    pace: Pace


@dataclass(frozen=True)
class NothingDue:
    """No card to study now: why (``reason``), when the next one is due, the new cards waiting
    whatever today's limit, and the decks holding them by their own limit (deck → that limit)."""

    reason: NothingDueReason
    next_due: datetime | None
    waiting: int
    pace: Pace
    held_by_deck: dict[str, int] = field(default_factory=dict)


SessionPlan = Union[Planned, NothingDue]


def plan_session(collection: Collection, chosen: CardFilter, settings: Settings, now: datetime, *,
                 new: int | None = None, limit: int | None = None, ahead: bool = False) -> SessionPlan:
    """Today's queue for the cards ``chosen`` matches within the limits of ``settings``:
    ``new`` caps its new cards, ``limit`` all of them; ``ahead`` practises cards not yet due
    when nothing is."""
    store = collection.store
    schedule = schedule_of(store, settings)
    today = new_per_day_today(store, now, settings.new_per_day, schedule.interview)
    pace = Pace(settings.new_per_day, today, told=new != 0)  # --new 0: a raised pace is news for another run
    queue = build_queue(store, now, new_per_day=settings.new_per_day, reviews_per_day=settings.reviews_per_day,
                        chosen=chosen, new_limit=new, limit=limit, ahead=ahead,
                        rollover_hour=settings.day_start_hour, scheduler=schedule.scheduler,
                        interview=schedule.interview, deck_new_per_day=settings.deck_new_per_day,
                        deck_reviews_per_day=settings.deck_reviews_per_day)
    if queue:
        return Planned(queue, pace)
    upcoming = next_due(store, now, chosen)
    waiting = new_waiting(store, now, chosen)
    if waiting and new == 0:
        return NothingDue("no_new_taken", upcoming, waiting, pace)
    held = held_by_own_limits(store, now, chosen, settings.deck_new_per_day, today)
    if held and new_waiting(store, now, replace(chosen, decks=tuple(held))) >= waiting:
        return NothingDue("held_by_deck", upcoming, waiting, pace, held)
    return NothingDue("new_limit" if waiting else "nothing", upcoming, waiting, pace)
