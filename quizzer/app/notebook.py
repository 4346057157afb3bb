"""The mistakes notebook: what went wrong in exams, until it has been right on two later days.

"Right" is a review graded correct, or a self-rated one passed (Hard or better, as Anki
counts a pass); only study days after the day of the last mistake count, and a wrong answer
since (in the drill or in study) is the last mistake.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import date, datetime

from quizzer.clock import ROLLOVER_HOUR, study_day
from quizzer.defaults import Rating
from quizzer.store import cards, exams
from quizzer.store.engine import Store

RIGHT_DAYS_TO_LEAVE = 2


@dataclass(frozen=True)
class Entry:
    card_id: str
    times_wrong: int
    last_wrong_at: datetime
    last_wrong_answer: str | None
    last_wrong_seed: int | None  # a numeric card's question got wrong
    right_days: int  # later study days on which it was answered right


def entries(store: Store, rollover_hour: int = ROLLOVER_HOUR) -> list[Entry]:
    """The notebook, most recent mistake first; cards right on two later days have left it. A
    wrong answer after the exam's (in the drill, in study) is a mistake too: the days start again."""
    mistakes, later = exams.mistakes(store)
    noted = {m.card_id: Entry(m.card_id, m.times_wrong, m.last_wrong_at, m.last_wrong_answer, m.last_wrong_seed, 0)
             for m in mistakes}
    right_days: dict[str, set[date]] = {card_id: set() for card_id in noted}
    for review in sorted(later, key=lambda r: r.reviewed_at):
        entry = noted[review.card_id]
        day = study_day(review.reviewed_at, rollover_hour)
        if not (review.correct if review.correct is not None else review.rating >= Rating.HARD):
            noted[review.card_id] = Entry(entry.card_id, entry.times_wrong + 1, review.reviewed_at, review.answer_text,
                                          review.seed, 0)
            right_days[review.card_id] = set()
        elif day > study_day(entry.last_wrong_at, rollover_hour):
            right_days[review.card_id].add(day)
    found = [replace(entry, right_days=len(right_days[card_id])) for card_id, entry in noted.items()]
    kept = sorted((e for e in found if e.right_days < RIGHT_DAYS_TO_LEAVE), key=lambda e: e.card_id)
    return sorted(kept, key=lambda e: e.last_wrong_at, reverse=True)  # stable: ties stay by card id


def drill(store: Store, card_ids: list[str], now: datetime) -> list[str]:
    """``quiz mistakes --drill``'s queue: of the notebook's cards (as ``entries`` lists them, most
    recent mistake first) those a session may show now (not suspended, not buried)."""
    return cards.studiable(store, card_ids, now)
