"""Days elapsed between two reviews as Anki counts them for FSRS: study days, not 24-hour periods.

A review on the next study day counts one day after the one before, however few hours apart they
are (23:00, then 08:00 the next morning: one day), and a review on the same study day counts none
(02:00 and 05:00 with days starting at 04:00: one day, since 02:00 belongs to the day before).
Anki passes these study days to fsrs-rs both when a card is answered and when its history is
replayed; ``quiz optimize``'s items count them too (``fit.items_of``). py-fsrs counts whole
24-hour periods instead (``(now - last_review).days``), so every answer FSRS computes here goes
through ``fsrs_review``, which hands py-fsrs a last review the study days back.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta

import fsrs

from quizzer.base.clock import study_day


def study_days_between(earlier: datetime, later: datetime, rollover_hour: int) -> int:
    """Study days from the one ``earlier`` falls in to the one ``later`` falls in (0 when the
    same, never negative)."""
    return max(0, (study_day(later, rollover_hour) - study_day(earlier, rollover_hour)).days)


def fsrs_review(card: fsrs.Card, rating: int, now: datetime, scheduler: fsrs.Scheduler, rollover_hour: int,
                duration_ms: int | None = None) -> fsrs.Card:
    """py-fsrs's card after ``rating`` at ``now``, the days since its last review counted in study
    days; the card it returns was last reviewed at ``now``."""
    if card.last_review is not None:
        days = study_days_between(card.last_review, now, rollover_hour)
        card = replace(card, last_review=now - timedelta(days=days))
    reviewed, _ = scheduler.review_card(card, fsrs.Rating(rating), now, duration_ms)
    return reviewed
