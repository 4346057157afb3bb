"""``quiz export anki`` with the schedule, read by the real Anki library (the ``anki`` package,
headless): every card's due day, FSRS memory, reps and lapses as quizzer has them, the review
log on every variant of a numeric card; ``--new`` sends every card new."""

from __future__ import annotations

import os
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

import fsrs
import genanki
import pytest
from typer.testing import CliRunner

from quizzer.cli import app
from quizzer.clock import study_day
from quizzer.scheduling.answer import answer
from quizzer.store import open_store
from quizzer.store.cards import card

anki_collection = pytest.importorskip("anki.collection")
pytestmark = pytest.mark.slow

runner = CliRunner()
NO_FUZZ = fsrs.Scheduler(enable_fuzzing=False)
DECK = "interview-numbers"  # numeric cards: three notes each
# card -> (rating, days ago): one card in review, one in learning, one relearning after a lapse
PLAN = {"num-kv-cache-per-token": [(3, 20), (3, 19), (3, 12)],
        "num-cross-attention-shapes": [(1, 0.2), (3, 0.19)],
        "num-attention-shapes-split-merge": [(3, 30), (3, 29), (1, 0.1)]}


def quiz(*args: str):
    return runner.invoke(app, list(args))


@pytest.fixture
def studied() -> datetime:
    """The PLAN's reviews given in quizzer (the bundled decks); the time they count from."""
    assert quiz("history", "export", "-").exit_code == 0  # opens the collection: the bundled cards synced
    now = datetime.now(timezone.utc).replace(microsecond=0)
    store = open_store(Path(os.environ["QUIZ_DB"]))
    try:
        for card_id, reviews in PLAN.items():
            for rating, ago in reviews:
                answer(store, card_id, rating, now=now - timedelta(days=ago), duration_ms=2500, scheduler=NO_FUZZ)
    finally:
        store.close()
    return now


def into_anki(package: Path, folder: Path):
    """A fresh Anki collection (FSRS on) with ``package`` imported, scheduling included."""
    col = anki_collection.Collection(str(folder / "collection.anki2"))
    col.set_config("fsrs", True)
    options = anki_collection.ImportAnkiPackageOptions(with_scheduling=True, with_deck_configs=False)
    col.import_anki_package(anki_collection.ImportAnkiPackageRequest(package_path=str(package), options=options))
    return col


def anki_due_day(col, anki_card) -> date:
    """The study day an Anki card is due (a day number from today, or a time for a learning step)."""
    if anki_card.queue == 1:
        return study_day(datetime.fromtimestamp(anki_card.due, timezone.utc))
    return study_day(datetime.now(timezone.utc)) + timedelta(days=anki_card.due - col.sched.today)


def test_anki_continues_where_quizzer_stopped(studied, tmp_path):
    package = tmp_path / "out.apkg"
    result = quiz("export", "anki", str(package), "--deck", DECK)
    assert result.exit_code == 0, result.output
    assert "with the schedule of 3 cards and 8 reviews" in result.stdout
    store = open_store(Path(os.environ["QUIZ_DB"]))
    try:
        expected = {card_id: card(store, card_id).memory for card_id in PLAN}
    finally:
        store.close()
    col = into_anki(package, tmp_path)
    try:
        for card_id, memory in expected.items():
            for seed in (1, 2, 3):
                note_id = col.db.scalar("SELECT id FROM notes WHERE guid = ?", genanki.guid_for(card_id, seed))
                (anki_card,) = col.get_note(note_id).cards()
                assert (anki_card.type, anki_card.reps, anki_card.lapses) == (memory.state, len(PLAN[card_id]),
                                                                           memory.lapses)
                assert anki_due_day(col, anki_card) == study_day(memory.due)
                assert anki_card.memory_state.stability == pytest.approx(memory.stability, abs=1e-3)
                assert anki_card.memory_state.difficulty == pytest.approx(memory.difficulty, abs=1e-3)
                logged = col.db.list("SELECT ease FROM revlog WHERE cid = ? ORDER BY id", anki_card.id)
                assert logged == [rating for rating, _ago in PLAN[card_id]]
        untouched = col.db.scalar("SELECT count() FROM cards WHERE type != 0")
        assert untouched == 3 * len(PLAN)  # the deck's other cards arrive new
    finally:
        col.close()


def test_new_sends_every_card_new(studied, tmp_path):
    package = tmp_path / "new.apkg"
    result = quiz("export", "anki", str(package), "--deck", DECK, "--new")
    assert result.exit_code == 0 and "schedule" not in result.stdout, result.output
    col = into_anki(package, tmp_path)
    try:
        assert col.db.scalar("SELECT count() FROM cards WHERE type != 0") == 0
        assert col.db.scalar("SELECT count() FROM revlog") == 0
    finally:
        col.close()
