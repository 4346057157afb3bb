"""The mistakes notebook: what went wrong in exams, and the cards study itself saw fail twice within
a week, until each has been right on two later days.

"Right" is a review graded correct, or a self-rated one passed (Hard or better, as Anki
counts a pass); "wrong" is any other. Only study days after the day of the last mistake count,
and a wrong answer since (in the drill or in study) is the last mistake: the days start again,
so the drill clears an entry only by later successes. Each entry says where it came from
(``sources``): an exam, study, or both.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import date, datetime, timedelta

from quizzer.base.clock import ROLLOVER_HOUR, study_day
from quizzer.base.defaults import Rating
from quizzer.store import cards, exams
from quizzer.store.engine import Store
from quizzer.store.records import ReviewSince

RIGHT_DAYS_TO_LEAVE = 2
LAPSE_WINDOW = timedelta(days=7)  # two failures in study this close together note the card
EXAM, STUDY = "exam", "study"


@dataclass(frozen=True)
class Entry:
    card_id: str
    times_wrong: int
    last_wrong_at: datetime
    last_wrong_answer: str | None
    last_wrong_seed: int | None  # a numeric card's question got wrong
    right_days: int  # later study days on which it was answered right
    sources: tuple[str, ...] = (EXAM,)  # where the mistakes came from: EXAM, STUDY or both


def _right(review: ReviewSince) -> bool:
    return review.correct if review.correct is not None else review.rating >= Rating.HARD


def entries(store: Store, rollover_hour: int = ROLLOVER_HOUR, card_ids: Sequence[str] | None = None) -> list[Entry]:
    """The notebook, most recent mistake first; cards right on two later days have left it. A
    wrong answer after the exam's (in the drill, in study) is a mistake too: the days start again.
    ``card_ids``: the entries of those cards only (a table's rows; the whole notebook reads every
    review of every card that lapsed twice)."""
    mistakes, later = exams.mistakes(store, card_ids)
    noted = {m.card_id: Entry(m.card_id, m.times_wrong, m.last_wrong_at, m.last_wrong_answer, m.last_wrong_seed, 0)
             for m in mistakes}
    right_days: dict[str, set[date]] = {card_id: set() for card_id in noted}
    for review in sorted(later, key=lambda r: r.reviewed_at):
        entry = noted[review.card_id]
        day = study_day(review.reviewed_at, rollover_hour)
        if not _right(review):
            noted[review.card_id] = Entry(entry.card_id, entry.times_wrong + 1, review.reviewed_at, review.answer_text,
                                          review.seed, 0)
            right_days[review.card_id] = set()
        elif day > study_day(entry.last_wrong_at, rollover_hour):
            right_days[review.card_id].add(day)
    found = {card_id: replace(entry, right_days=len(right_days[card_id])) for card_id, entry in noted.items()}
    for card_id, lapsed in study_lapses(exams.reviews_of_study_lapsers(store, LAPSE_WINDOW, card_ids), rollover_hour).items():
        exam = found.get(card_id)
        found[card_id] = lapsed if exam is None or exam.right_days >= RIGHT_DAYS_TO_LEAVE else replace(
            exam, sources=(EXAM, STUDY))
    kept = sorted((e for e in found.values() if e.right_days < RIGHT_DAYS_TO_LEAVE), key=lambda e: e.card_id)
    return sorted(kept, key=lambda e: e.last_wrong_at, reverse=True)  # stable: ties stay by card id


def study_lapses(reviews: Iterable[ReviewSince], rollover_hour: int = ROLLOVER_HOUR) -> dict[str, Entry]:
    """The cards ``reviews`` (oldest first) note: a failure within ``LAPSE_WINDOW`` of the one
    before it notes the card (two mistakes), each failure after it adds one and starts the right
    days again, and right answers on ``RIGHT_DAYS_TO_LEAVE`` later study days take it out (then two
    more failures within the window note it again)."""
    by_card: dict[str, list[ReviewSince]] = defaultdict(list)
    for review in reviews:
        by_card[review.card_id].append(review)
    noted: dict[str, Entry] = {}
    for card_id, card_reviews in by_card.items():
        entry: Entry | None = None
        last_failure: datetime | None = None
        right: set[date] = set()
        for review in card_reviews:
            if not _right(review):
                if entry is not None or (last_failure is not None and review.reviewed_at - last_failure <= LAPSE_WINDOW):
                    entry = Entry(card_id, entry.times_wrong + 1 if entry else 2, review.reviewed_at, review.answer_text,
                                  review.seed, 0, (STUDY,))
                    right = set()
                last_failure = review.reviewed_at
            elif entry is not None and study_day(review.reviewed_at, rollover_hour) > study_day(entry.last_wrong_at,
                                                                                                  rollover_hour):
                right.add(study_day(review.reviewed_at, rollover_hour))
                if len(right) >= RIGHT_DAYS_TO_LEAVE:
                    entry, last_failure, right = None, None, set()
        if entry is not None:
            noted[card_id] = replace(entry, right_days=len(right))
    return noted


def drill(store: Store, card_ids: list[str], now: datetime) -> list[str]:
    """``quiz mistakes --drill``'s queue: of the notebook's cards (as ``entries`` lists them, most
    recent mistake first) those a session may show now (not suspended, not buried)."""
    return cards.studiable(store, card_ids, now)
