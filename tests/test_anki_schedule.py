"""``quiz export anki`` with the schedule, read by the real Anki library (the ``anki`` package,
headless): every card's due day, FSRS memory, reps and lapses as quizzer has them, the review
log on the first variant of a numeric card; ``--new`` sends every card new."""

from __future__ import annotations

import json
import os
import zipfile
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

import fsrs
import genanki
import pytest
from typer.testing import CliRunner

from quizzer.cli import app
from quizzer.base.clock import study_day
from quizzer.scheduling.answer import answer
from quizzer.store import open_store
from quizzer.store.cards import card, reviews

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
                assert logged == ([rating for rating, _ago in PLAN[card_id]] if seed == 1 else [])  # one log per card
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


def quizzer_card(fields: str) -> str:
    """The quizzer card of an exported note: its last field names it ("id" or "id (seed n)")."""
    return fields.split("\x1f")[-1].split(" (seed")[0]


def review_in_anki(col, count: int) -> list[tuple[str, int, datetime]]:
    """Answer ``count`` cards as Anki's v3 scheduler queues them, Good, then Again, in turn; the
    other variants of a numeric card answered are buried (each answer is of another quizzer card).
    (quizzer card, rating, time) of each answer, from Anki's own review log."""
    from anki.scheduler.v3 import CardAnswer

    col.decks.select(col.db.scalar("SELECT did FROM cards LIMIT 1"))  # the package's deck, not Default
    ratings = [CardAnswer.GOOD, CardAnswer.AGAIN]
    notes = "SELECT cards.id, notes.flds FROM cards JOIN notes ON notes.id = cards.nid"
    for i in range(count):
        queued = col.sched.get_queued_cards().cards[0]
        anki_card = col.get_card(queued.card.id)
        anki_card.start_timer()
        col.sched.answer_card(col.sched.build_answer(card=anki_card, states=queued.states, rating=ratings[i % 2]))
        answered = quizzer_card(anki_card.note().joined_fields())
        col.sched.bury_cards([cid for cid, fields in col.db.all(notes) if quizzer_card(fields) == answered])
    rows = col.db.all("SELECT notes.flds, revlog.ease, revlog.id FROM revlog JOIN cards ON cards.id = revlog.cid "
                      "JOIN notes ON notes.id = cards.nid ORDER BY revlog.id DESC LIMIT ?", count)
    return [(quizzer_card(fields), ease, datetime.fromtimestamp(ms / 1000, timezone.utc))
            for fields, ease, ms in reversed(rows)]


def anki_export(col, path: Path, legacy: bool = True) -> Path:
    """An .apkg of the whole collection: ``legacy`` for collection.anki21, else Anki's own
    collection.anki21b (zstd)."""
    options = anki_collection.ExportAnkiPackageOptions(with_scheduling=True, with_deck_configs=True, legacy=legacy)
    col.export_anki_package(out_path=str(path), options=options, limit=None)
    return path


def test_reviews_made_in_anki_come_back_once_with_the_memory_quizzer_gives_them(studied, tmp_path):
    """4 answers in Anki on top of the export: imported, the 8 exported reviews found there; each
    card's memory as the same ratings at the same times given in quizzer make it; a second
    import adds nothing."""
    package = tmp_path / "out.apkg"
    assert quiz("export", "anki", str(package), "--deck", DECK).exit_code == 0
    col = into_anki(package, tmp_path)
    try:
        answered = review_in_anki(col, 4)
        back = anki_export(col, tmp_path / "back.apkg")
    finally:
        col.close()
    result = quiz("history", "import", str(back), "--json")
    assert result.exit_code == 0, result.output
    counts = json.loads(result.stdout)
    assert (counts["imported"], counts["already_there"], counts["edited"]) == (4, 8, [])
    store = open_store(Path(os.environ["QUIZ_DB"]))
    twin = open_store(Path(counts["backup"]))  # the collection before the import
    try:
        for card_id, rating, at in answered:
            answer(twin, card_id, rating, now=at, duration_ms=None, scheduler=NO_FUZZ)
        for card_id, _rating, _at in answered:
            got, want = card(store, card_id).memory, card(twin, card_id).memory
            assert (got.state, got.step, got.lapses, got.last_review) == (want.state, want.step, want.lapses,
                                                                        want.last_review)
            assert got.stability == pytest.approx(want.stability) and got.difficulty == pytest.approx(want.difficulty)
            assert len(reviews(store, card_id)) == len(reviews(twin, card_id))
    finally:
        store.close()
        twin.close()
    again = json.loads(quiz("history", "import", str(back), "--json").stdout)
    assert (again["imported"], again["already_there"], again["backup"]) == (0, 12, None)


def test_an_edit_in_anki_is_named_and_a_damaged_package_changes_nothing(studied, tmp_path):
    package = tmp_path / "out.apkg"
    assert quiz("export", "anki", str(package), "--deck", DECK).exit_code == 0
    col = into_anki(package, tmp_path)
    try:
        note = col.get_note(col.db.scalar("SELECT id FROM notes WHERE guid = ?",
                                          genanki.guid_for("num-kv-cache-per-token", 2)))
        note["Answer"] = note["Answer"] + " (my note)"
        col.update_note(note)
        back = anki_export(col, tmp_path / "back.apkg")
    finally:
        col.close()
    result = quiz("history", "import", str(back))
    assert result.exit_code == 0, result.output
    assert "imported 0 reviews of 0 cards from Anki; 8 already there" in result.stdout
    assert "edited in Anki?" in result.stderr and "num-kv-cache-per-token" in result.stderr
    damaged = tmp_path / "damaged.apkg"
    damaged.write_bytes(back.read_bytes()[: len(back.read_bytes()) // 2])
    before = Path(os.environ["QUIZ_DB"]).read_bytes()
    result = quiz("history", "import", str(damaged))
    assert result.exit_code == 1 and result.stderr.startswith(f"Error: {damaged}: neither an Anki package"), result.stderr
    assert "Traceback" not in result.output
    foreign = tmp_path / "foreign.anki2"
    foreign.write_bytes(b"SQLite format 3\x00" + b"\x00" * 100)
    result = quiz("history", "import", str(foreign))
    assert result.exit_code == 1 and result.stderr.startswith(f"Error: {foreign}: not an Anki collection"), result.stderr
    assert Path(os.environ["QUIZ_DB"]).read_bytes() == before


def test_a_package_in_anki_s_own_compressed_form_is_read(studied, tmp_path):
    package = tmp_path / "out.apkg"
    assert quiz("export", "anki", str(package), "--deck", DECK).exit_code == 0
    col = into_anki(package, tmp_path)
    try:
        review_in_anki(col, 1)
        back = anki_export(col, tmp_path / "back.apkg", legacy=False)
    finally:
        col.close()
    with zipfile.ZipFile(back) as archive:
        assert "collection.anki21b" in archive.namelist()
    counts = json.loads(quiz("history", "import", str(back), "--json").stdout)
    assert (counts["imported"], counts["already_there"]) == (1, 8)
