"""Today's numbers per deck, the overview plain ``quiz`` prints: new cards offered, learning and due."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime

import fsrs

from quizzer.app.collection import Collection
from quizzer.base.clock import ROLLOVER_HOUR, day_start, next_day_start, to_utc
from quizzer.base.defaults import NEW_PER_DAY, REVIEWS_PER_DAY
from quizzer.scheduling.learner import schedule_of
from quizzer.scheduling.memory import DEFAULT_SCHEDULER
from quizzer.scheduling.plan import Interview, final_days
from quizzer.scheduling.queue import new_offered, new_per_day_today, reviews_left_today, reviews_today
from quizzer.scheduling.summary import DeckToday, today_by_deck
from quizzer.settings import Settings
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
    practice: int = 0  # in the plan's last days: the cards not due yet study adds as practice reviews


@dataclass(frozen=True)
class DeckDay:
    """A deck's line of ``quiz`` (also its --json object), what today's study offers as Anki's
    deck list counts it: ``new``, the new cards waiting capped by what is left of the day's
    new-card limits; ``due``, the reviews due today capped by what is left of the review limits."""

    deck: str
    title: str
    new: int
    new_waiting: int
    learning: int
    due: int
    due_waiting: int


def today(collection: Collection, now: datetime, new_per_day: int = NEW_PER_DAY,
          rollover_hour: int = ROLLOVER_HOUR, deck_new_per_day: Mapping[str, int] | None = None,
          interview: Interview | None = None, reviews_per_day: int = REVIEWS_PER_DAY,
          deck_reviews_per_day: Mapping[str, int] | None = None, scheduler: fsrs.Scheduler = DEFAULT_SCHEDULER) -> Today:
    """Each deck's numbers for today, the total and the day's limit. ``new`` and ``due`` are what
    ``quiz study`` (for the deck, or for all) offers: the limits are global (the new-card one
    raised by an interview's pace) and a deck's own limit holds within them, so the total is not
    the sum of the decks'."""
    counts = today_by_deck(collection.store, now, rollover_hour)
    start = day_start(to_utc(now), rollover_hour)
    reviews_left = reviews_left_today(collection.store, start, reviews_per_day)
    deck_reviews = deck_reviews_per_day or {}
    steering = interview if interview is not None and interview.active(now) else None
    pace = new_per_day_today(collection.store, now, new_per_day, steering)  # once: each offered() takes it

    def offered(chosen: CardFilter = EVERYTHING) -> int:
        return len(new_offered(collection.store, now, new_per_day=pace, chosen=chosen, rollover_hour=rollover_hour,
                               deck_new_per_day=deck_new_per_day))

    def due(deck: str, waiting: int) -> int:
        """The deck's due reviews within its own limit (the global one is the caller's)."""
        if deck not in deck_reviews:
            return waiting
        return min(waiting, reviews_left_today(collection.store, start, deck_reviews[deck], CardFilter(decks=(deck,))))

    everywhere = offered()
    rows, within_own = [], 0  # the reviews each deck's own limit allows, summed: what the total caps
    for loaded in collection.decks:
        c = counts.get(loaded.id, DeckToday(0, 0, 0))
        own = deck_new_per_day is not None and loaded.id in deck_new_per_day
        new = offered(CardFilter(decks=(loaded.id,))) if own else min(c.new, everywhere)
        deck_due = due(loaded.id, c.due)
        within_own += deck_due
        rows.append(DeckDay(loaded.id, loaded.title, new, c.new, c.learning, min(deck_due, reviews_left), c.due))
    total = DeckDay("total", "", everywhere, sum(r.new_waiting for r in rows), sum(r.learning for r in rows),
                    min(reviews_left, within_own), sum(r.due_waiting for r in rows))
    practice = 0
    if steering is not None and final_days(now, steering):  # else none: no need to read the day's reviews
        end = next_day_start(now, rollover_hour)
        practice = sum(row.due >= end for row in reviews_today(
            collection.store, now, reviews_per_day=reviews_per_day, rollover_hour=rollover_hour, scheduler=scheduler,
            deck_reviews_per_day=deck_reviews, interview=steering))
    return Today(rows, total, pace, steering, latest_unfinished(collection.store), practice)


def learner_today(collection: Collection, settings: Settings, now: datetime) -> Today:
    """``today`` under the learner's settings and schedule (their interview, their FSRS parameters)."""
    schedule = schedule_of(collection.store, settings)
    return today(collection, now, settings.new_per_day, settings.day_start_hour, settings.deck_new_per_day,
                 schedule.interview, settings.reviews_per_day, settings.deck_reviews_per_day, schedule.scheduler)
