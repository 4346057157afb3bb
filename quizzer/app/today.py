"""Today's numbers per deck, the overview plain ``quiz`` prints: new cards offered, learning and due."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from quizzer.app.collection import Collection
from quizzer.clock import ROLLOVER_HOUR, day_start, to_utc
from quizzer.defaults import NEW_PER_DAY
from quizzer.scheduling.summary import DeckToday, today_by_deck
from quizzer.store import cards as card_store


@dataclass(frozen=True)
class DeckDay:
    """A deck's line of ``quiz`` (also its --json object): ``new`` is what today's study offers,
    the new cards waiting capped by what is left of the day's new-card limit."""

    deck: str
    title: str
    new: int
    new_waiting: int
    learning: int
    due: int


def today(collection: Collection, now: datetime, new_per_day: int = NEW_PER_DAY,
          rollover_hour: int = ROLLOVER_HOUR) -> tuple[list[DeckDay], DeckDay]:
    """Each deck's numbers for today and the total. The new-card limit is global (as in
    ``quiz study``), so the total's ``new`` is the cap of all the waiting cards, not a sum."""
    counts = today_by_deck(collection.store, now, rollover_hour)
    new_done, _ = card_store.done_since(collection.store, day_start(to_utc(now), rollover_hour))
    left = max(0, new_per_day - new_done)
    rows = []
    for loaded in collection.decks:
        c = counts.get(loaded.id, DeckToday(0, 0, 0))
        rows.append(DeckDay(loaded.id, loaded.title, min(c.new, left), c.new, c.learning, c.due))
    waiting = sum(r.new_waiting for r in rows)
    total = DeckDay("total", "", min(waiting, left), waiting, sum(r.learning for r in rows), sum(r.due for r in rows))
    return rows, total
