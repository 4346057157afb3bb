"""Ratings a typed answer earns by itself: never Easy at a card's first sight, rated by the
learner when answered again after an undo, by the speeds the settings hold."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from typer.testing import CliRunner

from quizzer.app import study, study_views
from quizzer.app.collection import open_collection
from quizzer.cli import app
from quizzer.base.errors import UsageError
from quizzer.scheduling.queue import build_queue
from quizzer.settings import DEFAULTS
from quizzer.settings.keys import parse
from quizzer.store import cards as card_store

T0 = datetime(2026, 1, 5, 10, 0, tzinfo=timezone.utc)
DECK = ('id: ar\ntitle: Rates\nlanguage: zh\nsource: {file: c.txt, sections: "1"}\ncards:\n'
        '  - {id: c-one, kind: choice, source: "1.1", question: 选, options: [甲, 乙], answer: B, explanation: 乙}\n')


class Stopwatch:
    """The session's tick: the seconds a test says have passed."""

    def __init__(self) -> None:
        self.seconds = 0.0

    def __call__(self) -> float:
        return self.seconds


@pytest.fixture
def collection(tmp_path: Path, monkeypatch):
    (tmp_path / "ar.yaml").write_text(DECK, "utf-8")
    opened = open_collection(tmp_path, tmp_path / "q.db")
    yield opened
    opened.store.close()


def answer_choice(collection, monkeypatch, when: datetime, typed: str, seconds: float,
                  settings=DEFAULTS) -> tuple[study.StudySession, list]:
    """A session on the choice card at ``when``, answered ``typed`` after ``seconds``."""
    monkeypatch.setenv("QUIZ_NOW", when.isoformat())
    watch = Stopwatch()
    session = study.StudySession(collection, build_queue(collection.store, when), tick=watch, settings=settings)
    assert isinstance(session.start()[-1], study_views.CardView)
    watch.seconds = seconds
    return session, session.handle(study_views.Answer(typed))


def ratings(collection) -> list[int]:
    return [review.rating for review in card_store.reviews(collection.store, "c-one")]


def test_a_new_card_answered_fast_is_good_not_easy(collection, monkeypatch):
    answer_choice(collection, monkeypatch, T0, "B", 2)
    assert ratings(collection) == [3]
    # seen before (in learning now), the same speed earns Easy: within choice's 8 s
    answer_choice(collection, monkeypatch, T0 + timedelta(days=1), "B", 2)
    assert ratings(collection) == [3, 4]


def test_the_speeds_are_the_settings(collection, monkeypatch):
    answer_choice(collection, monkeypatch, T0, "B", 50)  # slower than 45 s: Hard, first sight or not
    assert ratings(collection) == [2]
    quick = DEFAULTS.with_options(choice_speed="1 60")
    answer_choice(collection, monkeypatch, T0 + timedelta(days=1), "B", 2, quick)  # over 1 s: Good
    answer_choice(collection, monkeypatch, T0 + timedelta(days=2), "B", 50, quick)  # under 60 s: Good
    assert ratings(collection) == [2, 3, 3]


def test_an_answer_given_again_after_an_undo_is_rated_by_the_learner(collection, monkeypatch):
    session, views = answer_choice(collection, monkeypatch, T0 + timedelta(days=1), "A", 3)
    assert ratings(collection) == [1]  # wrong; the right letter is shown
    session.handle(study_views.Undo())
    assert ratings(collection) == []
    views = session.handle(study_views.Answer("B"))  # typed from the answer just seen: no Easy, no Good by itself
    assert isinstance(views[-1], study_views.BackView) and ratings(collection) == []
    assert "right" in views[-1].back and "乙" in views[-1].back and len(views[-1].intervals) == 4  # verdict, waits
    session.handle(study_views.Rate(1))
    [review] = card_store.reviews(collection.store, "c-one")
    assert (review.rating, review.answer_text, review.correct) == (1, "B", True)


@pytest.mark.parametrize("raw, value", [("8 45", (8.0, 45.0)), ("0 1.5", (0.0, 1.5)), ([10, 60], (10.0, 60.0)),
                                        ("5s, 30s", (5.0, 30.0))])
def test_a_speed_is_two_seconds_the_first_under_the_second(raw, value):
    assert parse("cloze_speed", raw) == value


@pytest.mark.parametrize("raw", ["45 8", "8", "8 45 90", "x 45", "-1 5", "5 5", "1 4000", True, [8]])
def test_a_bad_speed_names_the_key(raw):
    with pytest.raises(UsageError, match="numeric_speed: must be two numbers of seconds"):
        parse("numeric_speed", raw)


def test_quiz_config_shows_the_speeds(monkeypatch):
    monkeypatch.setenv("QUIZ_NUMERIC_SPEED", "20 100")
    result = CliRunner().invoke(app, ["config", "--json"])
    assert result.exit_code == 0, result.output
    import json

    shown = json.loads(result.stdout)["settings"]
    assert shown["numeric_speed"] == {"value": "20 100", "source": "environment", "allowed": 'seconds, e.g. "8 45"'}
    assert shown["choice_speed"]["value"] == "8 45" and shown["cloze_speed"]["value"] == "15 90"
