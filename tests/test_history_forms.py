"""``quiz history export --format``: the forms the FSRS tools read (fsrs-rs-python's CSV reader,
the FSRS benchmark's revlog), and the default form's state and mode columns round-tripping."""

from __future__ import annotations

import csv
import io
import os
from collections import defaultdict
from datetime import datetime, timedelta, timezone
from pathlib import Path

import fsrs
import pytest
from fsrs_rs_python import DEFAULT_PARAMETERS, FSRS, FSRSItem, FSRSReview
from conftest import MINI_DECK
from typer.testing import CliRunner

from quizzer.cli import app
from quizzer.scheduling.answer import answer
from quizzer.store import open_store

runner = CliRunner()
NO_FUZZ = fsrs.Scheduler(enable_fuzzing=False)
T0 = datetime(2025, 3, 3, 12, 0, tzinfo=timezone.utc)
DECK = MINI_DECK + """\
  - {id: t-one, kind: qa, source: "1.1", question: 问题一, answer: 答案一, points: [要点]}
  - {id: t-two, kind: qa, source: "1.1", question: 问题二, answer: 答案二, points: [要点]}
"""
# (card, rating, time, mode), in time order: t-one on days 0, 1 and 30 (due by then); t-two on day 1 (twice: a learning
# step) and day 3 in an exam. Learning steps 1 min and 10 min: a card leaves learning at its second Good.
REVIEWS = [("t-one", 3, T0, "study"), ("t-two", 1, T0 + timedelta(days=1), "study"),
           ("t-two", 3, T0 + timedelta(days=1, minutes=10), "study"),
           ("t-one", 3, T0 + timedelta(days=1, hours=1), "study"),
           ("t-two", 4, T0 + timedelta(days=3), "exam"), ("t-one", 2, T0 + timedelta(days=30), "study")]


def quiz(*args: str):
    return runner.invoke(app, list(args))


@pytest.fixture
def studied(deck_folder) -> Path:
    """The two-card deck with REVIEWS given in quizzer; its folder."""
    folder = deck_folder(DECK)
    assert quiz("history", "export", "-", "--decks", str(folder)).exit_code == 0  # opens the collection: the cards synced
    store = open_store(Path(os.environ["QUIZ_DB"]))
    try:
        for card_id, rating, at, mode in REVIEWS:
            answer(store, card_id, rating, now=at, duration_ms=1500, mode=mode, scheduler=NO_FUZZ)
    finally:
        store.close()
    return folder


def exported(folder: Path, form: str) -> list[dict[str, str]]:
    result = quiz("history", "export", "-", "--format", form, "--decks", str(folder))
    assert result.exit_code == 0, result.output
    return list(csv.DictReader(io.StringIO(result.stdout)))


def test_fsrs_rs_python_reads_the_fsrs_rs_form(studied):
    """Read as fsrs-rs-python's train_csv example reads its revlog.csv: card_id, review_time in ms,
    review_rating, review_state; grouped by card, it gives items fsrs-rs computes memory for."""
    records = exported(studied, "fsrs-rs")
    assert [(r["card_id"], int(r["review_time"]), int(r["review_rating"])) for r in records] == [
        (card_id, int(at.timestamp()) * 1000, rating) for card_id, rating, at, _mode in REVIEWS]
    by_card: dict[str, list[tuple[datetime, int, int]]] = defaultdict(list)
    for record in records:
        at = datetime.fromtimestamp(int(record["review_time"]) // 1000, tz=timezone.utc)
        by_card[record["card_id"]].append((at, int(record["review_rating"]), int(record["review_state"])))
    assert [state for _at, _rating, state in by_card["t-one"]][0] == 0  # new before its first review
    assert [state for _at, _rating, state in by_card["t-two"]][:2] == [0, 1]  # Again on a new card: learning
    model = FSRS(DEFAULT_PARAMETERS)
    for history in by_card.values():
        days = [(at.date() - history[0][0].date()).days for at, _r, _s in history]
        item = FSRSItem([FSRSReview(rating, day - previous) for (_at, rating, _s), day, previous
                         in zip(history, days, [0, *days])])
        memory = model.memory_state(item)
        assert memory.stability > 0 and 1 <= memory.difficulty <= 10


def test_srs_benchmark_form_numbers_cards_and_reviews_and_counts_days(studied):
    rows = [tuple(int(v) for v in r.values()) for r in exported(studied, "srs-benchmark")]
    # card_id, review_th, delta_t, rating, state, duration: t-one is card 0, t-two card 1
    assert rows == [(0, 1, -1, 3, 0, 1500), (1, 2, -1, 1, 0, 1500), (1, 3, 0, 3, 1, 1500), (0, 4, 1, 3, 1, 1500),
                    (1, 5, 2, 4, 1, 1500), (0, 6, 29, 2, 2, 1500)]


def test_the_default_form_round_trips_with_state_and_mode(studied, tmp_path):
    written = tmp_path / "log.csv"
    assert quiz("history", "export", str(written), "--decks", str(studied)).exit_code == 0
    rows = list(csv.DictReader(written.open(encoding="utf-8")))
    assert [(r["card_id"], r["review_state"], r["review_mode"]) for r in rows] == [
        ("t-one", "0", "study"), ("t-two", "0", "study"), ("t-two", "1", "study"), ("t-one", "1", "study"),
        ("t-two", "1", "exam"), ("t-one", "2", "study")]
    fresh = tmp_path / "fresh.db"
    imported = quiz("history", "import", str(written), "--db", str(fresh), "--decks", str(studied))
    assert imported.exit_code == 0 and imported.stdout.startswith("imported 6 reviews of 2 cards"), imported.output
    again = tmp_path / "again.csv"
    assert quiz("history", "export", str(again), "--db", str(fresh), "--decks", str(studied)).exit_code == 0
    assert again.read_text("utf-8") == written.read_text("utf-8")


def test_a_bad_review_mode_names_its_line(tmp_path):
    log = tmp_path / "log.csv"
    log.write_text("card_id,review_rating,review_time,review_duration,review_mode\n"
                   "a,3,2025-01-01T08:00:00Z,10,study\nb,3,2025-01-01T08:00:00Z,10,cram\n", "utf-8")
    result = quiz("history", "import", str(log))
    assert result.exit_code == 1
    assert result.stderr.startswith(f"Error: {log}:3: review_mode must be study, exam or practice, got 'cram'")
