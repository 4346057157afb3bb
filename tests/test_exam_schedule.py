"""What an exam's answers do to the schedule (``quizzer.app.exam``): reviews land where answering
each card on its own would place them, the coming days' load read once for the paper, and the
practice rule holds as in study (a right answer to a card not yet due leaves its schedule alone, a
wrong one sends it to relearning)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from conftest import MINI_DECK
from test_app import Clock

from quizzer.app import exam as exams
from quizzer.app import exam_views
from quizzer.app.collection import open_collection
from quizzer.scheduling import answer as answering
from quizzer.scheduling.learner import schedule_of
from quizzer.settings import DEFAULTS
from quizzer.store import cards as card_store
from quizzer.store import exams as exam_store
from quizzer.store.records import LEARNING, RELEARNING, REVIEW, PaperSpec

T0 = datetime(2026, 1, 5, 10, 0, tzinfo=timezone.utc)
LATER = T0 + timedelta(days=20)  # every card learned at T0 is due (overdue) by then
CARDS = [f"c-{n:02}" for n in range(12)]
DECK = MINI_DECK + "".join(
    f'  - {{id: {card}, kind: choice, source: "1.1", question: 选乙{card}, options: [甲, 乙], answer: B, explanation: 乙}}\n'
    for card in CARDS)


def learned(folder, path, monkeypatch):
    """A collection over the deck with every card in review: answered Good at T0, out of learning
    with a Good one to three days later, so that a Good at LATER is due within the load balancer's
    90 days."""
    monkeypatch.setenv("QUIZ_NOW", LATER.isoformat())
    collection = open_collection(folder, path)
    scheduler = schedule_of(collection.store, DEFAULTS).scheduler
    for n, card in enumerate(CARDS):
        for at in (T0, T0 + timedelta(days=1 + n % 3)):
            answering.answer(collection.store, card, 3, now=at, duration_ms=1000, scheduler=scheduler)
    return collection


def sat(collection, answers: dict[str, str], count: int = len(CARDS)) -> list[str]:
    """An exam of ``count`` choice questions, each answered as ``answers`` says, handed in; the
    cards in the order of the paper."""
    machine = exams.ExamSession.start(collection, PaperSpec(count, kinds=["choice"]), seed=5, minutes=60, tick=Clock())
    views = machine.begin()
    while isinstance(views[-1], exam_views.QuestionView):
        views = machine.handle(exam_views.Answer(answers[views[-1].card_id]))
    assert isinstance(views[-1], exam_views.Report), views[-1]
    return [q.card_id for q in exam_store.questions(collection.store, views[-1].exam.id)]


def test_an_exams_reviews_land_where_answering_each_card_alone_places_them(deck_folder, tmp_path, monkeypatch):
    """The paper's Good reviews are load balanced as if the whole collection's load were counted
    afresh for each one: a twin collection answered card by card through ``scheduling.answer`` (which
    counts it every time) gets the same due dates, and the exam counted it only once."""
    folder = deck_folder(DECK)
    collection, twin = (learned(folder, tmp_path / name, monkeypatch) for name in ("exam.db", "twin.db"))
    assert DEFAULTS.load_balance and schedule_of(twin.store, DEFAULTS).scheduler.enable_fuzzing
    counted = []
    real_count = answering.due_per_day
    monkeypatch.setattr(answering, "due_per_day", lambda *args: counted.append(args) or real_count(*args))
    order = sat(collection, dict.fromkeys(CARDS, "b"))
    assert sorted(order) == CARDS and len(counted) == 1
    scheduler = schedule_of(twin.store, DEFAULTS).scheduler
    for card in order:
        answering.answer(twin.store, card, 3, now=LATER, duration_ms=0, mode="exam", scheduler=scheduler)
    dues = {card: card_store.card(collection.store, card).memory.due for card in CARDS}
    assert dues == {card: card_store.card(twin.store, card).memory.due for card in CARDS}
    assert len(counted) == 1 + len(CARDS)  # the twin's: one count per answer
    assert len(set(dues.values())) > 3  # the reviews spread over the coming days


def test_an_exam_on_cards_not_yet_due_practises_a_right_answer_and_relearns_a_wrong_one(deck_folder, tmp_path,
                                                                                       monkeypatch):
    """Answered right before its due day a card keeps its schedule (a practice review, logged as
    the exam's); answered wrong it lapses and relearns, as Again does in study."""
    monkeypatch.setenv("QUIZ_NOW", LATER.isoformat())
    folder = deck_folder(DECK)
    collection = learned(folder, tmp_path / "exam.db", monkeypatch)
    scheduler = schedule_of(collection.store, DEFAULTS).scheduler
    for card in CARDS:  # answered again at LATER: due weeks after it
        answering.answer(collection.store, card, 4, now=LATER, duration_ms=1000, scheduler=scheduler)
    soon = LATER + timedelta(hours=1)
    monkeypatch.setenv("QUIZ_NOW", soon.isoformat())
    before = {card: card_store.card(collection.store, card).memory for card in CARDS}
    assert all(memory.state == REVIEW and memory.due > soon + timedelta(days=2) for memory in before.values())
    order = sat(collection, {card: "b" if n % 2 else "a" for n, card in enumerate(CARDS)}, count=4)
    for card in order:
        memory = card_store.card(collection.store, card).memory
        last = card_store.reviews(collection.store, card)[-1]
        assert last.mode == "exam" and last.reviewed_at == soon
        if CARDS.index(card) % 2:  # right: practice
            assert memory == before[card] and not last.scheduled
        else:  # wrong: a lapse, due again within the day
            assert memory.state in (RELEARNING, LEARNING) and memory.lapses == before[card].lapses + 1, memory
            assert soon < memory.due < soon + timedelta(days=1) and last.scheduled
    assert {CARDS.index(card) % 2 for card in order} == {0, 1}  # the paper had both

