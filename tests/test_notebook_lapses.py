"""The mistakes notebook gathers study's own lapses: a card failed twice within 7 days is noted
(marked as from study), and leaves only after right answers on two later study days."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import fsrs
import pytest

from quizzer.app import notebook
from quizzer.scheduling.answer import answer
from quizzer.store import CardRef, open_store, sync_cards

NO_FUZZ = fsrs.Scheduler(enable_fuzzing=False)
T0 = datetime(2026, 1, 5, 10, 0, tzinfo=timezone.utc)  # study days start at 04:00 (TZ is UTC in tests)
HOUR, DAY = timedelta(hours=1), timedelta(days=1)


@pytest.fixture
def store(tmp_path):
    opened = open_store(tmp_path / "q.db")
    sync_cards(opened, [CardRef(card_id, "d", "qa", i, f"h{i}", ()) for i, card_id in enumerate("abc")], T0)
    yield opened
    opened.close()


def rate(store, card_id: str, rating: int, at: datetime) -> None:
    answer(store, card_id, rating, now=at, duration_ms=1000, scheduler=NO_FUZZ, ahead_rule=False)


def noted(store) -> dict[str, tuple[int, tuple[str, ...], int]]:
    return {e.card_id: (e.times_wrong, e.sources, e.right_days) for e in notebook.entries(store)}


def test_two_failures_within_a_week_note_the_card_as_from_study(store):
    rate(store, "a", 1, T0)
    rate(store, "b", 1, T0)
    rate(store, "c", 1, T0)
    assert noted(store) == {}  # one failure each: nothing yet
    rate(store, "a", 1, T0 + HOUR)  # a second within 7 days
    rate(store, "b", 1, T0 + 8 * DAY)  # 8 days on: too far apart
    assert noted(store) == {"a": (2, ("study",), 0)}
    [entry] = notebook.entries(store)
    assert entry.last_wrong_at == T0 + HOUR


def test_a_study_entry_leaves_after_right_answers_on_two_later_days_only(store):
    rate(store, "a", 1, T0)
    rate(store, "a", 1, T0 + HOUR)
    rate(store, "a", 3, T0 + 2 * HOUR)  # right the same study day (the drill right after): no later day
    assert noted(store) == {"a": (2, ("study",), 0)}
    rate(store, "a", 3, T0 + DAY)
    assert noted(store) == {"a": (2, ("study",), 1)}
    rate(store, "a", 1, T0 + DAY + HOUR)  # wrong again: counted, and the days start again
    assert noted(store) == {"a": (3, ("study",), 0)}
    rate(store, "a", 3, T0 + 2 * DAY)
    rate(store, "a", 3, T0 + 3 * DAY)
    assert noted(store) == {}  # right on two later study days: out
    rate(store, "a", 1, T0 + 4 * DAY)  # one failure after leaving does not bring it back
    assert noted(store) == {}
    rate(store, "a", 1, T0 + 5 * DAY)
    assert noted(store) == {"a": (2, ("study",), 0)}


def test_study_lapses_are_counted_from_the_reviews_alone():
    from quizzer.store.records import ReviewSince

    def review(at: datetime, rating: int, correct: bool | None = None) -> ReviewSince:
        return ReviewSince("x", at, rating, correct, None, None)

    # a typed answer graded wrong is a failure whatever its rating; one graded right a success
    lapses = notebook.study_lapses([review(T0, 3, False), review(T0 + 7 * DAY, 3, False), review(T0 + 8 * DAY, 1, True)])
    assert [(e.times_wrong, e.right_days) for e in lapses.values()] == [(2, 1)]
    assert notebook.study_lapses([review(T0, 1), review(T0 + 7 * DAY + HOUR, 1)]) == {}


def test_reading_from_the_first_close_failures_finds_what_reading_every_review_finds(tmp_path):
    """The notebook read every review of every card failed twice in study (931,250 of a million
    synthetic reviews, 9 s); it now reads each such card from its first failure that another
    follows within the window. Over random histories of 60 cards (study and exam answers, a
    quarter of them failed, hours to weeks apart) the noted cards are the same as those
    ``study_lapses`` finds in every review of those cards."""
    import random

    from typer.testing import CliRunner

    from quizzer.cli import app
    from quizzer.store import exams
    from quizzer.store.history import review_log
    from quizzer.store.records import ReviewSince

    rng = random.Random(11)
    rows = ["card_id,review_rating,review_time,review_duration,review_mode"]
    for card in range(60):
        at = T0 - 200 * DAY
        for _ in range(rng.randint(1, 25)):
            at += timedelta(hours=rng.choice((1, 20, 30, 70, 160, 400)))
            rows.append(f"k{card},{1 if rng.random() < 0.25 else 3},{at.isoformat()},4000,"
                        f"{'exam' if rng.random() < 0.15 else 'study'}")
    log = tmp_path / "log.csv"
    log.write_text("\n".join(rows) + "\n", encoding="utf-8")
    database = tmp_path / "n.db"
    result = CliRunner().invoke(app, ["history", "import", str(log)], env={"QUIZ_DB": str(database)})
    assert result.exit_code == 0, result.output
    opened = open_store(database)
    everything = review_log(opened)
    study_failures: dict[str, int] = {}
    for review in everything:
        study_failures[review.card_id] = study_failures.get(review.card_id, 0) + (
            review.mode == "study" and review.rating == 1)
    every_review = [ReviewSince(r.card_id, r.reviewed_at, r.rating, None, None, None) for r in everything
                    if study_failures[r.card_id] >= 2]
    expected = notebook.study_lapses(every_review)
    found = notebook.study_lapses(exams.reviews_of_study_lapsers(opened, notebook.LAPSE_WINDOW))
    assert len(expected) >= 5 and found == expected
    read = exams.reviews_of_study_lapsers(opened, notebook.LAPSE_WINDOW)
    assert len(read) < len(every_review)  # the reviews before each card's first close failures are left
    opened.close()
