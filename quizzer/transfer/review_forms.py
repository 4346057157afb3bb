"""The review log as a table in one of the forms the FSRS tools read (``quiz history export
--format``); ``quizzer.transfer.fsrs_csv`` writes the table as CSV.

- ``quizzer``: the common FSRS CSV form quizzer imports back (``card_id, review_rating,
  review_time, review_duration``) and the card's state before the review and the review's mode.
- ``fsrs-rs``: what fsrs-rs-python's CSV reader takes (its ``train_csv`` example): times in
  milliseconds since 1970, the state before the review as a number.
- ``srs-benchmark``: the FSRS benchmark's revlog columns (``card_id, review_th, delta_t, rating,
  state, duration``): cards numbered from 0 in the order of their first review, reviews numbered
  from 1 in time order, ``delta_t`` the study days since the card's last review (-1 for its first).

States are fsrs's: 0 new, 1 learning, 2 review, 3 relearning. Durations are in ms, 0 when unknown.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date, timezone

from quizzer.base.clock import ROLLOVER_HOUR, study_day
from quizzer.store.history import LoggedReview
from quizzer.store.records import NEW

REQUIRED = ("card_id", "review_rating", "review_time", "review_duration")  # what an import needs
OPTIONAL = ("review_state", "review_mode")  # what an import reads when there
MODES = ("study", "exam", "practice")


@dataclass(frozen=True)
class Table:
    header: tuple[str, ...]
    rows: list[tuple[object, ...]]


def _epoch_ms(review: LoggedReview) -> int:
    return round(review.reviewed_at.timestamp() * 1000)


def _state(review: LoggedReview) -> int:
    return NEW if review.state_before is None else review.state_before


def quizzer_table(reviews: Sequence[LoggedReview], rollover_hour: int = ROLLOVER_HOUR) -> Table:
    return Table(REQUIRED + OPTIONAL, [
        (r.card_id, r.rating, r.reviewed_at.astimezone(timezone.utc).isoformat(), r.duration_ms or 0, _state(r), r.mode)
        for r in reviews])


def fsrs_rs_table(reviews: Sequence[LoggedReview], rollover_hour: int = ROLLOVER_HOUR) -> Table:
    return Table(("card_id", "review_time", "review_rating", "review_state", "review_duration"), [
        (r.card_id, _epoch_ms(r), r.rating, _state(r), r.duration_ms or 0) for r in reviews])


def srs_benchmark_table(reviews: Sequence[LoggedReview], rollover_hour: int = ROLLOVER_HOUR) -> Table:
    numbers: dict[str, int] = {}
    last_day: dict[str, date] = {}
    rows: list[tuple[object, ...]] = []
    for th, r in enumerate(sorted(reviews, key=lambda r: r.reviewed_at), start=1):
        number = numbers.setdefault(r.card_id, len(numbers))
        day = study_day(r.reviewed_at, rollover_hour)
        before = last_day.get(r.card_id)
        last_day[r.card_id] = day
        rows.append((number, th, -1 if before is None else (day - before).days, r.rating, _state(r), r.duration_ms or 0))
    return Table(("card_id", "review_th", "delta_t", "rating", "state", "duration"), rows)


FORMS: dict[str, Callable[[Sequence[LoggedReview], int], Table]] = {
    "quizzer": quizzer_table, "fsrs-rs": fsrs_rs_table, "srs-benchmark": srs_benchmark_table}
