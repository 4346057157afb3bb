"""``app.queue.plan_session``, in process: the queue a session takes, or why nothing is due."""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone

import pytest

from conftest import MINI_DECK

from quizzer.app.collection import open_collection
from quizzer.app.queue import NothingDue, Planned, plan_session
from quizzer.scheduling.answer import answer
from quizzer.settings import DEFAULTS, Settings
from quizzer.store import learner
from quizzer.store.filter import EVERYTHING

T0 = datetime(2026, 1, 5, 10, 0, tzinfo=timezone.utc)

DECK = MINI_DECK + "".join(
    f'  - {{id: q-{n}, kind: qa, source: "1.{n}", question: 问题{n}, answer: 答案{n}, points: [要点]}}\n' for n in range(1, 4))


@pytest.fixture
def collection(deck_folder, monkeypatch, tmp_path):
    monkeypatch.setenv("QUIZ_NOW", T0.isoformat())
    return open_collection(deck_folder(DECK), tmp_path / "app.db")


def test_new_cards_are_planned_in_deck_order(collection):
    planned = plan_session(collection, EVERYTHING, DEFAULTS, T0)
    assert isinstance(planned, Planned)
    assert planned.queue == ["q-1", "q-2", "q-3"]
    assert not planned.pace.raised


def test_a_limit_cuts_the_queue(collection):
    planned = plan_session(collection, EVERYTHING, DEFAULTS, T0, limit=2)
    assert isinstance(planned, Planned) and planned.queue == ["q-1", "q-2"]


def test_new_zero_takes_none_and_says_how_many_wait(collection):
    planned = plan_session(collection, EVERYTHING, DEFAULTS, T0, new=0)
    assert planned == NothingDue("no_new_taken", None, 3, planned.pace)
    assert not planned.pace.told


def test_the_days_limit_reached_with_new_cards_waiting(collection):
    planned = plan_session(collection, EVERYTHING, DEFAULTS.with_options(new_per_day=0), T0)
    assert isinstance(planned, NothingDue)
    assert (planned.reason, planned.waiting, planned.pace.today) == ("new_limit", 3, 0)


def test_a_decks_own_limit_holding_every_new_card_is_named(collection):
    held = Settings(new_per_day=20, deck_limits={"deck.mini.new_per_day": 0})
    planned = plan_session(collection, EVERYTHING, held, T0)
    assert isinstance(planned, NothingDue)
    assert (planned.reason, planned.held_by_deck, planned.waiting) == ("held_by_deck", {"mini": 0}, 3)


def test_nothing_due_names_the_next_due_card(collection):
    due = [answer(collection.store, card_id, 4, now=T0, duration_ms=1000).current.due
           for card_id in ("q-1", "q-2", "q-3")]
    planned = plan_session(collection, EVERYTHING, DEFAULTS, T0)
    assert isinstance(planned, NothingDue)
    assert (planned.reason, planned.waiting) == ("nothing", 0)
    assert planned.next_due == min(due) and min(due) > T0 + timedelta(days=1)  # Easy: days away


def test_ahead_practises_cards_not_yet_due(collection):
    for card_id in ("q-1", "q-2"):
        answer(collection.store, card_id, 4, now=T0, duration_ms=1000)
    planned = plan_session(collection, EVERYTHING, DEFAULTS, T0, new=0, ahead=True)
    assert isinstance(planned, Planned) and sorted(planned.queue) == ["q-1", "q-2"]


def test_an_interviews_pace_above_the_setting_is_told(collection):
    learner.save_interview(collection.store, learner.InterviewRecord(date(2026, 1, 7), 0.9, None))
    planned = plan_session(collection, EVERYTHING, DEFAULTS.with_options(new_per_day=1), T0)
    # three unseen cards, two days to go: more than one a day to see them all early enough
    assert planned.pace.raised and planned.pace.today > 1 and planned.pace.setting == 1
    assert not plan_session(collection, EVERYTHING, DEFAULTS.with_options(new_per_day=1), T0, new=0).pace.raised
