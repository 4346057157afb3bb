"""Review history in the common FSRS CSV form: ``card_id, review_rating, review_time,
review_duration`` (the form of py-fsrs's test data and of Anki's FSRS exports)."""

from __future__ import annotations

import csv
from dataclasses import dataclass
from datetime import datetime
from functools import partial
from pathlib import Path

import fsrs

from quizzer.clock import to_utc
from quizzer.scheduling.memory import DEFAULT_SCHEDULER, decide
from quizzer.store import cards
from quizzer.store.engine import Store
from quizzer.store.records import NewReview


@dataclass(frozen=True)
class LoggedReview:
    card_id: str
    rating: int
    reviewed_at: datetime
    duration_ms: int


def read_review_log(csv_path: Path) -> list[LoggedReview]:
    """The rows of a review log CSV."""
    with open(csv_path, newline="") as handle:
        return [LoggedReview(row["card_id"], int(row["review_rating"]),
                             to_utc(datetime.fromisoformat(row["review_time"])), int(row["review_duration"]))
                for row in csv.DictReader(handle)]


def import_review_history(store: Store, reviews: list[LoggedReview], *, deck: str = "imported",
                          now: datetime | None = None, scheduler: fsrs.Scheduler = DEFAULT_SCHEDULER) -> int:
    """Replay past reviews (in time order) through the same rule as a live answer.

    Unknown cards are created first (kind "imported", positions in order of first review).
    One transaction for the lot; the ahead rule is off because these reviews really
    happened. Returns the number of reviews applied.
    """
    ordered = sorted(reviews, key=lambda r: r.reviewed_at)
    first_seen = now or (ordered[0].reviewed_at if ordered else None)
    known = cards.card_ids(store)
    fresh = list(dict.fromkeys(r.card_id for r in ordered if r.card_id not in known))
    new_cards = [dict(id=cid, deck=deck, kind="imported", position=i, content_hash="", first_seen=first_seen)
                 for i, cid in enumerate(fresh)]
    replayed = [(r.card_id, NewReview(r.rating, r.reviewed_at, r.duration_ms)) for r in ordered]
    return cards.replay(store, new_cards, replayed, partial(decide, scheduler=scheduler, ahead_after=None))
