"""The load of the coming days a study session keeps between answers (``app.study_load``): after
every answer, undo and other rating it is what counting the store afresh gives, so that a
review lands where it would if the session counted the whole collection for each card."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from conftest import MINI_DECK
from quizzer.app import study
from quizzer.app.collection import open_collection
from quizzer.app.queue import Planned, plan_session
from quizzer.app.study_views import BackView, CardView, Continue
from quizzer.scheduling.memory import LOAD_BALANCE_DAYS
from quizzer.scheduling.summary import due_per_day
from quizzer.settings import DEFAULTS
from quizzer.store import cards as card_store
from quizzer.store.filter import EVERYTHING

T0 = datetime(2026, 1, 5, 10, 0, tzinfo=timezone.utc)
DECK = MINI_DECK + "".join(
    f'  - {{id: q-{n}, kind: qa, source: "1.{n}", question: 问{n}, answer: 答{n}, points: [点]}}\n' for n in range(6)
) + '  - {id: c-one, kind: choice, source: "1.9", question: 选, options: [甲, 乙], answer: B, explanation: 乙}\n'


def session_at(collection, when: datetime, monkeypatch) -> study.StudySession:
    monkeypatch.setenv("QUIZ_NOW", when.isoformat())
    planned = plan_session(collection, EVERYTHING, DEFAULTS, when)
    assert isinstance(planned, Planned)
    return study.StudySession(collection, planned.queue, tick=lambda: 0.0)


def answer(session: study.StudySession, view, rating: int) -> list:
    """The card on screen answered ``rating`` (a choice card: right, then given ``rating``)."""
    if isinstance(view, CardView) and view.graded:
        views = session.handle(study.Answer("B"))
        if isinstance(views[-1], Continue):  # the verdict's pause: another rating, then on
            session.handle(study.Rate(rating))
            views = session.handle(study.Next())
        return views
    back = session.handle(study.Reveal())[-1]
    assert isinstance(back, BackView)
    return session.handle(study.Rate(rating))


def kept_is_counted(session: study.StudySession) -> None:
    load = session.load
    assert load.day is not None
    assert load.counts == due_per_day(session.collection.store, load.day, LOAD_BALANCE_DAYS + 1, DEFAULTS.day_start_hour)


@pytest.fixture
def collection(deck_folder):
    folder = deck_folder(DECK)
    opened = open_collection(folder, folder / "load.db")
    yield opened
    opened.store.close()


def test_the_kept_load_follows_answers_undo_and_another_rating(collection, monkeypatch):
    first = session_at(collection, T0, monkeypatch)
    view = first.start()[-1]
    for rating in (4, 4, 3, 4, 3, 4, 3):  # into review (Easy), or learning due in minutes (Good)
        view = answer(first, view, rating)[-1]
        kept_is_counted(first)
    later = session_at(collection, T0 + timedelta(days=9), monkeypatch)  # every card is due or overdue now
    view = later.start()[-1]
    answered = []
    for rating in (3, 1, 4, 2):
        assert isinstance(view, CardView)
        answered.append(view.card_id)
        view = answer(later, view, rating)[-1]
        kept_is_counted(later)
    assert sum(later.load.counts[1:]) > 0  # reviews placed on coming days
    view = later.handle(study.Undo())[-1]  # the Hard review taken back: its card due today again
    kept_is_counted(later)
    assert card_store.card(collection.store, answered[-1]).memory.due <= T0 + timedelta(days=9)
    answer(later, view, 4)
    kept_is_counted(later)
