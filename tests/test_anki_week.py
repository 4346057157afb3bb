"""A week studied in the real Anki (the ``anki`` package, headless) on top of a quizzer export
comes back into quizzer whole: every review, and every card's memory and due as the same
ratings at the same times give them in quizzer.

How a week passes in Anki: its scheduler reads the system clock (rslib's ``TimestampSecs::now``)
and offers no hook to set it, so the days are made by moving the past instead. ``shifted``
moves every time the collection holds (a review's id, a learning step's due in seconds, the last
review ``lrt`` in a card's data, and ``crt``, the creation time Anki counts its days from) by
whole days, and opens the collection again (Anki reads its day number when it opens one); a due
counted in days is counted from ``crt`` and so moves with it. Moving the collection one day back
between two study days is to Anki the same as a day passing: its day number goes up by one and
every interval since a review grows by a day.

The quizzer side is studied on a fake clock (``QUIZ_NOW``) in the same timeline: the export is
made six days before today. The fresh Anki collection is moved six days back before the import
(so that it takes the package's days as they are), six days forward after it (Anki's today is
then the export's day), and one day back before each of the next six days. Its last day is
studied at the real time, and the collection exported then holds every review at the time it
stands for.

Anki fuzzes an interval of 2.5 days or more with a seed of its own (card id and reps), quizzer
with one of its own, so fuzz is off on both sides: quizzer's by its ``fuzz`` setting, Anki's by
its test mode (``ANKI_TEST_MODE``, which rslib reads once in a process: the Anki week runs in a
child process started with it; test mode also sets Anki's clock two hours back between 02:00 and
04:00, which moves no review to another study day, both being before the 04:00 rollover); its
load balancer, which only moves fuzzed intervals, is off too.
"""

from __future__ import annotations

import json
import os
import traceback
from concurrent.futures import ProcessPoolExecutor
from datetime import date, datetime, timedelta, timezone
from multiprocessing import get_context
from pathlib import Path
from typing import Any

import genanki
import pytest
from conftest import MINI_DECK
from test_anki_schedule import anki_export
from typer.testing import CliRunner

from quizzer.app import study
from quizzer.app.collection import open_collection
from quizzer.cli import app
from quizzer.base.clock import study_day
from quizzer.settings import load
from quizzer.store import open_store
from quizzer.store.cards import card, reviews
from quizzer.store.records import MemoryState

pytest.importorskip("anki.collection")
pytestmark = pytest.mark.slow

runner = CliRunner()
DAY = 86_400
WEEK = 7
CARDS = [f"w-{i}" for i in range(12)]
DECK = MINI_DECK + "".join(
    f'  - {{id: {card_id}, kind: qa, source: "1.{i}", question: 问题{i}, answer: 答案{i}, points: [要点]}}\n'
    for i, card_id in enumerate(CARDS))
# what quizzer had before the export: card -> (rating, days before the export); the other cards are new
BEFORE = {
    "w-0": [(3, 12), (3, 12 - 0.01), (3, 10)],  # in review, due in the week
    "w-1": [(3, 9), (3, 9 - 0.01)],  # in review, due before the export: overdue on day 0
    "w-2": [(4, 6)],  # Easy at once: due in the week
    "w-3": [(3, 5), (3, 5 - 0.01), (3, 3)],
    "w-4": [(3, 4), (3, 4 - 0.01), (1, 1 / 24)],  # a lapse an hour before: relearning
    "w-5": [(2, 1 / 48)],  # a learning step half an hour before
}
NEW_PER_DAY = 3  # Anki brings the six new cards in over the first days
REVIEWS_IN_ORDER_ADDED = 9  # DeckConfig.Config.ReviewCardOrder.REVIEW_CARD_ORDER_ADDED
# Anki's rating of a card by its type (0 new, 1 learning, 2 review, 3 relearning), in turn
RATINGS = {0: [3, 1, 2, 4], 1: [3, 2, 3, 1, 3], 2: [3, 1, 2, 4, 3], 3: [3, 2, 1, 3]}
STUDIED_UP_TO = 500  # answers in one Anki day: more means the ratings above never let a card go


def shifted(col: Any, days: int) -> Any:
    """``col`` with every time it holds moved by ``days`` (see the module's docstring), opened
    again: Anki reads its day from ``crt`` when it opens a collection."""
    from anki.collection import Collection

    seconds = days * DAY
    col.db.execute("UPDATE revlog SET id = -(id + ?)", seconds * 1000)  # through negative ids: no two ever equal
    col.db.execute("UPDATE revlog SET id = -id")
    col.db.execute("UPDATE cards SET due = due + ? WHERE queue = 1", seconds)  # a learning step due today: a time
    col.db.execute("UPDATE cards SET data = json_set(data, '$.lrt', json_extract(data, '$.lrt') + ?) "
                   "WHERE json_valid(data) AND json_extract(data, '$.lrt') IS NOT NULL", seconds)
    col.db.execute("UPDATE col SET crt = crt + ?", seconds)
    path = col.path
    col.close()
    return Collection(path)


def anki_week(package: str, folder: str) -> dict[str, Any]:
    """``study_a_week`` with a failure sent back as text (Anki's errors do not pickle)."""
    try:
        return study_a_week(package, folder)
    except Exception:
        raise AssertionError(traceback.format_exc()) from None


def study_a_week(package: str, folder: str) -> dict[str, Any]:
    """In a child process with ``ANKI_TEST_MODE``: ``package`` (exported six days ago) imported
    into a new Anki collection in ``folder``, studied for a week through Anki's scheduler (each
    day every card it queues, rated by ``RATINGS``), exported as ``back.apkg``. Returns the
    export's path, the reviews made (GUID, rating, ms, revlog type) and each card's state at the
    end (GUID -> type, the study day due or the due time, stability, difficulty, reps, lapses,
    and the stability and difficulty Anki's FSRS computes from the card's review log)."""
    from anki.collection import Collection, ImportAnkiPackageOptions, ImportAnkiPackageRequest
    from anki.config import Config
    from anki.scheduler.v3 import CardAnswer

    buttons = {1: CardAnswer.AGAIN, 2: CardAnswer.HARD, 3: CardAnswer.GOOD, 4: CardAnswer.EASY}

    col = Collection(str(Path(folder) / "collection.anki2"))
    col.set_config("fsrs", True)
    col.set_config_bool(Config.Bool.LOAD_BALANCER_ENABLED, False)
    col = shifted(col, -(WEEK - 1))
    options = ImportAnkiPackageOptions(with_scheduling=True, with_deck_configs=False)
    col.import_anki_package(ImportAnkiPackageRequest(package_path=package, options=options))
    deck = col.db.scalar("SELECT did FROM cards LIMIT 1")
    config = col.decks.config_dict_for_deck_id(deck)
    config["new"]["perDay"] = NEW_PER_DAY
    config["reviewOrder"] = REVIEWS_IN_ORDER_ADDED  # the default breaks ties at random: a week like no other
    col.decks.update_config(config)
    col = shifted(col, WEEK - 1)
    exported_reviews = col.db.scalar("SELECT count() FROM revlog")
    answered = 0
    for day in range(WEEK):
        if day:
            col = shifted(col, -1)
        col.decks.select(deck)
        for _answer in range(STUDIED_UP_TO):
            queued = col.sched.get_queued_cards().cards
            if not queued:
                break
            anki_card = col.get_card(queued[0].card.id)
            turn = RATINGS[anki_card.type]
            rating = turn[answered % len(turn)]
            anki_card.start_timer()
            col.sched.answer_card(col.sched.build_answer(card=anki_card, states=queued[0].states,
                                                           rating=buttons[rating]))
            answered += 1
        else:
            raise AssertionError(f"Anki still queues cards after {STUDIED_UP_TO} answers on day {day}")
    made = col.db.all("SELECT notes.guid, revlog.ease, revlog.id, revlog.type FROM revlog "
                      "JOIN cards ON cards.id = revlog.cid JOIN notes ON notes.id = cards.nid ORDER BY revlog.id")
    assert len(made) == exported_reviews + answered
    first_day = date.fromtimestamp(col.crt)  # crt is the start of Anki's day 0 (04:00 in UTC)
    cards = {}
    for anki_card in (col.get_card(cid) for cid in col.find_cards("")):
        due: Any = (datetime.fromtimestamp(anki_card.due, timezone.utc).isoformat() if anki_card.queue == 1
                    else (first_day + timedelta(days=anki_card.due)).isoformat())
        memory, recomputed = anki_card.memory_state, col.compute_memory_state(anki_card.id)
        cards[anki_card.note().guid] = (anki_card.type, due, memory.stability, memory.difficulty, anki_card.reps,
                                        anki_card.lapses, recomputed.stability, recomputed.difficulty)
    back = anki_export(col, Path(folder) / "back.apkg")
    col.close()
    return dict(back=str(back), reviews=made[exported_reviews:], cards=cards)


def due_day(due: str) -> date:
    """The study day of a card's due as ``anki_week`` gives it: a day, or a time."""
    return date.fromisoformat(due) if len(due) == len("2026-01-01") else study_day(datetime.fromisoformat(due))


def quiz(*args: str):
    return runner.invoke(app, list(args))


def answer_at(db: Path, folder: Path, card_id: str, rating: int, when: datetime, monkeypatch) -> None:
    """``rating`` given to ``card_id`` at ``when`` as a study session takes it (the learner's
    settings, the clock at ``when``)."""
    monkeypatch.setenv("QUIZ_NOW", when.isoformat())
    collection = open_collection(folder, db)
    try:
        session = study.StudySession(collection, [card_id], settings=load(), tick=lambda: 0.0)
        session.start()
        session.handle(study.Reveal())
        session.handle(study.Rate(rating))
    finally:
        collection.store.close()


def memories(db: Path) -> dict[str, tuple[MemoryState, list[tuple[datetime, int, int, bool]]]]:
    """Each card's memory and its log: each review's time, rating, the state before it and whether
    it moved the schedule."""
    store = open_store(db)
    try:
        return {card_id: (card(store, card_id).memory, [(r.reviewed_at, r.rating, r.state_before, r.scheduled)
                                                        for r in reviews(store, card_id)]) for card_id in CARDS}
    finally:
        store.close()


def test_a_week_in_anki_comes_back_with_every_review_and_the_same_memory(deck_folder, tmp_path, monkeypatch):
    monkeypatch.setenv("QUIZ_FUZZ", "off")
    folder = deck_folder(DECK)
    db = Path(os.environ["QUIZ_DB"])
    exported_at = datetime.now(timezone.utc).replace(microsecond=0) - timedelta(days=WEEK - 1)
    for card_id, given in BEFORE.items():
        for rating, ago in given:
            answer_at(db, folder, card_id, rating, exported_at - timedelta(days=ago), monkeypatch)
    monkeypatch.setenv("QUIZ_NOW", exported_at.isoformat())
    package = tmp_path / "out.apkg"
    result = quiz("export", "anki", str(package), "--decks", str(folder))
    assert result.exit_code == 0, result.output
    monkeypatch.delenv("QUIZ_NOW")

    monkeypatch.setenv("ANKI_TEST_MODE", "1")
    with ProcessPoolExecutor(1, mp_context=get_context("spawn")) as child:
        week = child.submit(anki_week, str(package), str(tmp_path)).result(timeout=300)
    monkeypatch.delenv("ANKI_TEST_MODE")
    card_of = {genanki.guid_for(card_id): card_id for card_id in CARDS}
    made = [(card_of[guid], rating, datetime.fromtimestamp(ms / 1000, timezone.utc), kind)
            for guid, rating, ms, kind in week["reviews"]]
    days = {study_day(at) for _card, _rating, at, _kind in made}
    assert len(days) == WEEK  # the reviews fell on seven study days, the last today
    assert max(days) == study_day(datetime.now(timezone.utc))
    assert {rating for _card, rating, _at, kind in made if kind == 1} == {1, 2, 3, 4}  # every rating in review
    assert {kind for _card, _rating, _at, kind in made} >= {0, 1, 2}  # learning, review and relearning answers

    result = quiz("history", "import", week["back"], "--decks", str(folder), "--json")
    assert result.exit_code == 0, result.output
    counts = json.loads(result.stdout)
    had = sum(len(given) for given in BEFORE.values())
    assert (counts["imported"], counts["already_there"], counts["edited"]) == (len(made), had, [])

    twin = tmp_path / "twin.db"  # the collection before the import, given the same ratings at the same times
    twin.write_bytes(Path(counts["backup"]).read_bytes())
    for card_id, rating, at, _kind in made:
        answer_at(twin, folder, card_id, rating, at, monkeypatch)
    imported, replayed = memories(db), memories(twin)
    for card_id in CARDS:
        (got, logged), (want, given) = imported[card_id], replayed[card_id]
        assert logged == given, card_id
        assert (got.state, got.step, got.lapses, got.last_review) == (want.state, want.step, want.lapses,
                                                                    want.last_review), card_id
        assert got.stability == pytest.approx(want.stability, abs=1e-3), card_id
        assert got.difficulty == pytest.approx(want.difficulty, abs=1e-3), card_id
        assert (got.due and study_day(got.due)) == (want.due and study_day(want.due)), card_id
        # Anki's FSRS reading the card's review log gets the same memory, to its 32-bit floats
        kind, due, stability, difficulty, reps, lapses, *from_log = week["cards"][genanki.guid_for(card_id)]
        assert from_log == pytest.approx([got.stability, got.difficulty], rel=1e-5), card_id
        # and Anki's card is close: it keeps 4 decimals of stability and 3 of difficulty after each
        # review; near difficulty 10, where stability grows with 11 - D, that is up to 1e-3 of the
        # growth (3.4277 where quizzer has 3.4302), so 7.4996 days can be 8 there
        assert (kind, reps, lapses) == (got.state, len(logged), got.lapses), card_id
        assert got.due is not None and abs((due_day(due) - study_day(got.due)).days) <= 1, card_id
        assert stability == pytest.approx(got.stability, rel=1e-2), card_id
        assert difficulty == pytest.approx(got.difficulty, rel=1e-2), card_id

    again = json.loads(quiz("history", "import", week["back"], "--decks", str(folder), "--json").stdout)
    assert (again["imported"], again["already_there"]) == (0, had + len(made))
