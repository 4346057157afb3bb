"""What to study now, in Anki's order: learning cards due, then due reviews (lowest recall
first) with new cards spread among them, within the daily limits."""

from __future__ import annotations

from datetime import datetime

import fsrs

from quizzer.clock import ROLLOVER_HOUR, day_start, next_day_start, to_utc
from quizzer.defaults import NEW_PER_DAY, REVIEWS_PER_DAY
from quizzer.scheduling.memory import DEFAULT_SCHEDULER, recall_of_review
from quizzer.store import cards
from quizzer.store.engine import Store
from quizzer.store.filter import EVERYTHING, CardFilter


def build_queue(
    store: Store,
    now: datetime,
    *,
    new_per_day: int = NEW_PER_DAY,
    reviews_per_day: int = REVIEWS_PER_DAY,
    chosen: CardFilter = EVERYTHING,
    new_limit: int | None = None,
    limit: int | None = None,
    ahead: bool = False,
    rollover_hour: int = ROLLOVER_HOUR,
    scheduler: fsrs.Scheduler = DEFAULT_SCHEDULER,
) -> list[str]:
    """Card ids to study now, in order.

    Learning/relearning cards whose due time has passed come first (soonest due first).
    Then reviews due today (by study day), lowest retrievability first, with new cards (by
    ``position``, then deck, then id) spread evenly among them. Daily limits are global and
    subtract what was already studied since the study day began (scheduled reviews in mode
    "study"); ``new_limit`` can only lower the remaining new-card allowance. With ``ahead``
    and nothing to study, returns already-seen cards soonest due first (the ahead rule).
    """
    now = to_utc(now)
    start, end = day_start(now, rollover_hour), next_day_start(now, rollover_hour)
    new_done, reviews_done = cards.done_since(store, start)
    learning = cards.learning_due(store, chosen, now, now)
    due = sorted(cards.due_reviews(store, chosen, now, end),
                 key=lambda row: (recall_of_review(row.stability, row.last_review, now, scheduler), row.due, row.id))
    reviews = [row.id for row in due][:max(0, reviews_per_day - reviews_done)]
    new_left = max(0, new_per_day - new_done)
    if new_limit is not None:
        new_left = min(new_left, new_limit)
    queue = learning + interleave(reviews, cards.new_cards(store, chosen, now, new_left))
    if not queue and ahead:
        queue = cards.seen_by_due(store, chosen, now, limit if limit is not None else reviews_per_day)
    return queue if limit is None else queue[:limit]


def learning_due(store: Store, until: datetime, chosen: CardFilter = EVERYTHING) -> list[str]:
    """Learning/relearning cards due by ``until``: what a session shows again before it ends,
    as Anki does with its learn-ahead limit, so a card just failed is not left for tomorrow."""
    until = to_utc(until)
    return cards.learning_due(store, chosen, until, until)


def interleave(reviews: list[str], new: list[str]) -> list[str]:
    """Spread new cards evenly through the reviews (both keep their own order)."""
    keyed = [((i + 1) / (len(reviews) + 1), 0, cid) for i, cid in enumerate(reviews)]
    keyed += [((i + 1) / (len(new) + 1), 1, cid) for i, cid in enumerate(new)]
    return [cid for *_, cid in sorted(keyed)]
