"""Counts and forecasts over the collection, and one card's whole state."""

from __future__ import annotations

from bisect import bisect_right
from collections import Counter
from dataclasses import dataclass, fields
from datetime import date, datetime, timedelta, timezone

import fsrs

from quizzer.base import clock
from quizzer.base.clock import ROLLOVER_HOUR, day_start, next_day_start, study_day, to_utc
from quizzer.scheduling.memory import DEFAULT_SCHEDULER, retrievability
from quizzer.store import cards
from quizzer.store.engine import Store
from quizzer.store.filter import EVERYTHING, CardFilter
from quizzer.store.records import NEW, REVIEW, CardRecord, ReviewRecord


@dataclass(frozen=True)
class DeckToday:
    """Anki's deck list numbers: new cards waiting, cards in learning, reviews due today."""

    new: int
    learning: int
    due: int


@dataclass(frozen=True)
class CardInfo(CardRecord):
    """A card as the store knows it, its recall now (None if never reviewed) and its reviews."""

    retrievability: float | None
    reviews: list[ReviewRecord]


def today_by_deck(store: Store, now: datetime, rollover_hour: int = ROLLOVER_HOUR) -> dict[str, DeckToday]:
    end = next_day_start(to_utc(now), rollover_hour)
    counts: dict[str, Counter[str]] = {}
    for deck, state, count in cards.counts_by_deck(store, to_utc(now), end):
        counts.setdefault(deck, Counter())["new" if state == NEW else "due" if state == REVIEW else "learning"] += count
    return {deck: DeckToday(c["new"], c["learning"], c["due"]) for deck, c in counts.items()}


def next_due(store: Store, now: datetime, chosen: CardFilter = EVERYTHING) -> datetime | None:
    """The soonest moment after ``now`` a seen, active, unsuspended card ``chosen`` matches falls due."""
    return cards.next_available(store, to_utc(now), chosen)


def due_per_day(store: Store, today: date, days: int, rollover_hour: int = ROLLOVER_HOUR,
                chosen: CardFilter = EVERYTHING) -> list[int]:
    """Cards ``chosen`` matches available on each of ``days`` study days from ``today``
    (overdue ones count today): the forecast, and the load the load balancer reads. Times
    are placed between the days' starts by bisection, thousands of cards without a datetime."""
    starts = [day_start(today + timedelta(days=i), rollover_hour).timestamp() for i in range(days + 1)]
    counts = [0] * days
    for moment in cards.available_times(store, datetime.fromtimestamp(starts[-1], timezone.utc), chosen):
        counts[max(0, bisect_right(starts, moment) - 1)] += 1
    return counts


def due_forecast(store: Store, now: datetime, days: int = 7,
                 rollover_hour: int = ROLLOVER_HOUR) -> list[tuple[date, int]]:
    """Cards falling due on each of the next ``days`` study days (overdue ones count today)."""
    today = study_day(now, rollover_hour)
    return [(today + timedelta(days=i), n) for i, n in enumerate(due_per_day(store, today, days, rollover_hour))]


def card_info(store: Store, card_id: str, now: datetime | None = None,
              scheduler: fsrs.Scheduler = DEFAULT_SCHEDULER) -> CardInfo:
    """A card's columns, tags, review history and retrievability at ``now`` (default: clock.now())."""
    now = clock.now() if now is None else to_utc(now)
    record = cards.card(store, card_id)
    recall = None if record.memory.state == NEW else retrievability(record.memory, now, scheduler)
    own = {f.name: getattr(record, f.name) for f in fields(record)}
    return CardInfo(**own, retrievability=recall, reviews=cards.reviews(store, card_id))
