"""Counting reviews into study days, for the ``review_days`` table (``quizzer.store.review_days``
keeps it current): a day's reviews, their ratings and time spent, and true retention's reviews
as Anki counts them, per study day and deck; and what the counts hold of each card."""

from __future__ import annotations

import hashlib
from bisect import bisect_right
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta, timezone
from typing import Any

from quizzer.base.clock import DAY_SECONDS, day_start, study_day
from quizzer.base.defaults import Rating
from quizzer.store.models import review_days
from quizzer.store.records import REVIEW

MATURE_DAYS = 21  # Anki's threshold for a mature card
COUNTS = tuple(column.name for column in review_days.columns if column.name not in ("day", "deck"))
REVIEWS, DURATION, YOUNG_PASSED = (COUNTS.index(name) for name in ("reviews", "duration_ms", "young_passed"))
_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)

Tally = dict[tuple[date, str], list[int]]
"""Counts (in ``COUNTS`` order) per (study day, deck)."""

Review = Sequence[Any]
"""A review as read here: id, card id, time (seconds since the epoch), rating, duration, state before."""


def seconds(moment: datetime) -> float:
    """An aware datetime as seconds since the epoch, as ``models.epoch`` computes them."""
    return (moment - _EPOCH).total_seconds()


class StudyDays:
    """The study days from ``first`` through ``last`` and the instants they start."""

    def __init__(self, first: date, last: date, rollover_hour: int) -> None:
        self.dates = [first + timedelta(days=i) for i in range((last - first).days + 1)]
        self.starts = [seconds(day_start(d, rollover_hour)) for d in [*self.dates, last + timedelta(days=1)]]

    @classmethod
    def around(cls, first: float, last: float, rollover_hour: int) -> StudyDays:
        """The days from the one of ``first`` through the one of ``last`` (seconds since the epoch)."""
        low, high = (datetime.fromtimestamp(t, timezone.utc) for t in (first, last))
        return cls(study_day(low, rollover_hour), study_day(high, rollover_hour), rollover_hour)

    def rule(self) -> str:
        """The days' start times, hashed: equal exactly when this day start and time zone cut these
        days where the ones the table was built with did."""
        return hashlib.sha256(repr(self.starts).encode()).hexdigest()[:32]


@dataclass
class CardTally:
    """What the tally holds of one card (a ``review_days_cards`` row)."""

    deck: str
    reviews: int = 0
    checksum: int = 0  # sum of id * (state_before + 1) over its reviews
    last_at: float = float("-inf")


def classify(rows: Iterable[Review], deck_of: Mapping[str, str], known: Mapping[str, CardTally],
              days: StudyDays, tally: Tally, seen: dict[str, CardTally]) -> None:
    """Add ``rows`` (id, card id, time, rating, duration, state before), in (time, id) order, to
    ``tally`` and ``seen``; ``known`` has what came before them of each card. (A million rows
    on a rebuild: the lookups are kept in local names.)"""
    starts, dates, mature_after = days.starts, days.dates, float(MATURE_DAYS * DAY_SECONDS)
    find, counted = seen.get, tally.get
    for review_id, card_id, at, rating, duration, state_before in rows:
        entry = find(card_id)
        if entry is None:
            before = known.get(card_id)
            entry = seen[card_id] = (CardTally(deck_of[card_id]) if before is None else
                                     CardTally(before.deck, before.reviews, before.checksum, before.last_at))
        previous = entry.last_at  # -inf for a card's first review: mature, first of its day
        day = bisect_right(starts, at) - 1
        key = (dates[day], entry.deck)
        counts = counted(key)
        if counts is None:
            counts = tally[key] = [0] * len(COUNTS)
        counts[REVIEWS] += 1
        counts[rating] += 1  # again, hard, good, easy follow reviews
        counts[DURATION] += duration or 0
        if state_before == REVIEW and previous < starts[day]:
            counts[YOUNG_PASSED + 2 * (at - previous >= mature_after) + (rating == Rating.AGAIN)] += 1
        entry.reviews += 1
        entry.checksum += review_id * (state_before + 1)
        entry.last_at = at


def per_day(summed: dict[date, list[int]], tally: Tally, decks: tuple[str, ...] | None) -> dict[date, list[int]]:
    """``summed`` plus the counts of ``tally`` of ``decks`` (None: all), per day."""
    for (day, deck), counts in tally.items():
        if decks is None or deck in decks:
            total = summed.setdefault(day, [0] * len(COUNTS))
            for i, n in enumerate(counts):
                total[i] += n
    return summed


class AnyDeck(dict[str, str]):
    """Every card in one group (the filter has chosen the cards)."""

    def __missing__(self, key: str) -> str:
        return ""
