"""Practice reviews across Anki and back, with the real Anki library (the ``anki`` package,
headless): a quizzer practice review (ahead of its day, the schedule left alone) goes to Anki's
review log as Anki's cramming (revlog ``type`` 3, filtered, ``factor`` 0), which Anki's FSRS
leaves out as quizzer does; Anki's cramming comes back as practice, and an early review in a
filtered deck that reschedules (``type`` 3 with a factor) as the study review it was.
What Anki writes: rslib/src/revlog/mod.rs (``RevlogReviewKind::Filtered``, ``is_cramming``)."""

from __future__ import annotations

import json
import os
from datetime import datetime, timedelta, timezone
from pathlib import Path

import genanki
import pytest
from conftest import MINI_DECK
from test_anki_schedule import anki_export, into_anki
from test_anki_week import answer_at
from typer.testing import CliRunner

from quizzer.cli import app
from quizzer.store import open_store
from quizzer.store.cards import card
from quizzer.transfer.anki_reviews import read_anki_reviews

anki_collection = pytest.importorskip("anki.collection")
pytestmark = pytest.mark.slow

runner = CliRunner()
CARDS = ("p-0", "p-1")
DECK = MINI_DECK + "".join(
    f'  - {{id: {card_id}, kind: qa, source: "1.{i}", question: 问题{i}, answer: 答案{i}, points: [要点]}}\n'
    for i, card_id in enumerate(CARDS))
GUIDS = {genanki.guid_for(card_id): card_id for card_id in CARDS}
CRAMMING, FILTERED = 3, 3  # revlog.type of both; cramming has factor 0


def quiz(*args: str):
    return runner.invoke(app, list(args))


def anki_card(col, card_id: str):
    (anki_id,) = col.db.list("SELECT cards.id FROM cards JOIN notes ON notes.id = cards.nid WHERE notes.guid = ?",
                             genanki.guid_for(card_id))
    return col.get_card(anki_id)


def test_a_practice_review_goes_to_anki_as_cramming_its_fsrs_leaves_out_and_comes_back_as_practice(
        deck_folder, tmp_path, monkeypatch):
    """p-0: Easy at first sight (due 8 days on), then Good and Again the next days, ahead of its
    day. The Good is practice (memory and due kept); the Again lapses into relearning, as in
    Anki's rescheduling filtered decks, so it is a review like any other. In Anki the Good is
    cramming and the Again a review, and Anki's FSRS, recomputing the card's memory from its log,
    gets quizzer's memory (the Easy and the Again); read back the Good is practice again, and an
    import finds all three already there."""
    monkeypatch.setenv("QUIZ_FUZZ", "off")
    folder = deck_folder(DECK)
    db = Path(os.environ["QUIZ_DB"])
    now = datetime.now(timezone.utc).replace(microsecond=0)
    for rating, ago in ((4, 3), (3, 2), (1, 1)):
        answer_at(db, folder, "p-0", rating, now - timedelta(days=ago), monkeypatch)
    exported = quiz("history", "export", "-", "--decks", str(folder))
    assert [row.split(",")[-1] for row in exported.stdout.splitlines()[1:]] == ["study", "practice", "study"]
    monkeypatch.delenv("QUIZ_NOW")
    package = tmp_path / "out.apkg"
    assert quiz("export", "anki", str(package), "--decks", str(folder)).exit_code == 0
    store = open_store(db)
    try:
        memory = card(store, "p-0").memory
    finally:
        store.close()

    col = into_anki(package, tmp_path)
    try:
        logged = anki_card(col, "p-0")
        rows = col.db.all("SELECT ease, type, factor FROM revlog WHERE cid = ? ORDER BY id", logged.id)
        assert [(ease, kind, factor == 0) for ease, kind, factor in rows] == [
            (4, 0, False), (3, CRAMMING, True), (1, 1, False)]
        recomputed = col.compute_memory_state(logged.id)  # from the log, as Anki's FSRS reads it
        assert recomputed.stability == pytest.approx(memory.stability, rel=1e-4)
        assert recomputed.difficulty == pytest.approx(memory.difficulty, abs=1e-3)
        back = anki_export(col, tmp_path / "back.apkg")
    finally:
        col.close()
    read = read_anki_reviews(back, GUIDS, datetime.now(timezone.utc))
    assert [(r.card_id, r.rating, r.mode) for r in read.reviews] == [
        ("p-0", 4, "study"), ("p-0", 3, "practice"), ("p-0", 1, "study")]
    counts = json.loads(quiz("history", "import", str(back), "--decks", str(folder), "--json").stdout)
    assert (counts["imported"], counts["already_there"]) == (0, 3)


def filtered_deck(col, card_id: str, reschedule: bool) -> int:
    """A filtered deck holding ``card_id``'s card; its answers reschedule the card or not."""
    deck = col.sched.get_or_create_filtered_deck(deck_id=0)
    deck.name = f"{card_id} {'rescheduled' if reschedule else 'crammed'}"
    deck.config.reschedule = reschedule
    del deck.config.search_terms[:]
    deck.config.search_terms.add(search=f"cid:{anki_card(col, card_id).id}", limit=10)
    return col.sched.add_or_update_filtered_deck(deck).id


def test_cramming_in_anki_comes_back_as_practice_and_an_early_review_that_rescheduled_as_study(
        deck_folder, tmp_path, monkeypatch):
    """Both cards Easy at first sight yesterday (due a week on), answered Good today in Anki's
    filtered decks: p-0 in one that does not reschedule (cramming), p-1 in one that does."""
    monkeypatch.setenv("QUIZ_FUZZ", "off")
    folder = deck_folder(DECK)
    db = Path(os.environ["QUIZ_DB"])
    for card_id in CARDS:
        answer_at(db, folder, card_id, 4, datetime.now(timezone.utc) - timedelta(days=1), monkeypatch)
    monkeypatch.delenv("QUIZ_NOW")
    package = tmp_path / "out.apkg"
    assert quiz("export", "anki", str(package), "--decks", str(folder)).exit_code == 0

    from anki.scheduler.v3 import CardAnswer

    col = into_anki(package, tmp_path)
    try:
        for card_id, reschedule in (("p-0", False), ("p-1", True)):
            col.decks.select(filtered_deck(col, card_id, reschedule))
            queued = col.sched.get_queued_cards().cards[0]
            answered = col.get_card(queued.card.id)
            answered.start_timer()
            col.sched.answer_card(col.sched.build_answer(card=answered, states=queued.states, rating=CardAnswer.GOOD))
        made = col.db.all("SELECT type, factor = 0 FROM revlog WHERE ease = 3 ORDER BY id")
        assert made == [[CRAMMING, True], [FILTERED, False]]  # what Anki logs for each
        back = anki_export(col, tmp_path / "back.apkg")
    finally:
        col.close()
    read = read_anki_reviews(back, GUIDS, datetime.now(timezone.utc))
    assert [(r.card_id, r.rating, r.mode) for r in read.reviews] == [
        ("p-0", 4, "study"), ("p-1", 4, "study"), ("p-0", 3, "practice"), ("p-1", 3, "study")]
    counts = json.loads(quiz("history", "import", str(back), "--decks", str(folder), "--json").stdout)
    assert (counts["imported"], counts["already_there"]) == (2, 2)
