"""Today's numbers per deck, the overview plain ``quiz`` prints: new cards offered, learning and due."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime

from quizzer.app.collection import Collection
from quizzer.clock import ROLLOVER_HOUR
from quizzer.defaults import NEW_PER_DAY
from quizzer.scheduling.plan import Interview
from quizzer.scheduling.queue import new_offered, new_per_day_today
from quizzer.scheduling.summary import DeckToday, today_by_deck
from quizzer.store.exams import latest_unfinished
from quizzer.store.filter import EVERYTHING, CardFilter
from quizzer.store.records import ExamRecord


@dataclass(frozen=True)
class Today:
    """The overview: each deck's line, the total, and the day's new-card limit (the setting, or
    the interview's pace) with the interview, if one steers the day, and the exam left
    unfinished (``quiz exam --resume`` takes it up; nothing else would remind the learner of it)."""

    decks: list[DeckDay]
    total: DeckDay
    new_per_day: int
    interview: Interview | None
    unfinished_exam: ExamRecord | None


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
          rollover_hour: int = ROLLOVER_HOUR, deck_new_per_day: Mapping[str, int] | None = None,
          interview: Interview | None = None) -> Today:
    """Each deck's numbers for today, the total and the day's limit. ``new`` is what ``quiz study`` (for the deck,
    or for all) offers: the new-card limit is global, raised by an interview's pace, and a deck's
    own limit holds within it, so the total's ``new`` is not the sum of the decks'."""
    counts = today_by_deck(collection.store, now, rollover_hour)
    steering = interview if interview is not None and interview.active(now) else None
    pace = new_per_day_today(collection.store, now, new_per_day, steering)  # once: each offered() takes it

    def offered(chosen: CardFilter = EVERYTHING) -> int:
        return len(new_offered(collection.store, now, new_per_day=pace, chosen=chosen, rollover_hour=rollover_hour,
                               deck_new_per_day=deck_new_per_day))

    everywhere = offered()
    rows = []
    for loaded in collection.decks:
        c = counts.get(loaded.id, DeckToday(0, 0, 0))
        own = deck_new_per_day is not None and loaded.id in deck_new_per_day
        new = offered(CardFilter(decks=(loaded.id,))) if own else min(c.new, everywhere)
        rows.append(DeckDay(loaded.id, loaded.title, new, c.new, c.learning, c.due))
    waiting = sum(r.new_waiting for r in rows)
    total = DeckDay("total", "", everywhere, waiting, sum(r.learning for r in rows), sum(r.due for r in rows))
    return Today(rows, total, pace, steering, latest_unfinished(collection.store))
