"""A stateful property test of the study session: rate (a graded answer again too), answer, undo
(of answers, burials and suspensions), bury, suspend, edit a card away and quit, in any order;
the session's summary, its screen and the database agree."""

from __future__ import annotations

import shutil
import tempfile
from datetime import datetime, timezone
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from quizzer.app import study, study_views
from quizzer.app.collection import open_collection
from quizzer.scheduling import queue as queues
from quizzer.scheduling.memory import LOAD_BALANCE_DAYS
from quizzer.scheduling.queue import build_queue
from quizzer.scheduling.summary import due_per_day
from quizzer.store import cards as card_store

T0 = datetime(2026, 1, 5, 10, 0, tzinfo=timezone.utc)
CARDS = {
    "q-one": '{id: q-one, kind: qa, source: "1.1", question: 问一, answer: 答一, points: [点]}',
    "q-two": '{id: q-two, kind: qa, source: "1.2", question: 问二, answer: 答二, points: [点]}',
    "m-one": '{id: m-one, kind: mistake, source: "1.3", claim: 说法, correction: 更正, why: 原因}',
    "c-one": '{id: c-one, kind: choice, source: "1.4", question: 选, options: [甲, 乙], answer: B, explanation: 乙}',
    "z-one": '{id: z-one, kind: cloze, source: "1.5", text: "遮 {{c1::15%}} 的词"}',
}
HEADER = 'id: st\ntitle: States\nlanguage: zh\nsource: {file: c.txt, sections: "1"}\ncards:\n'


def write_deck(folder: Path, ids: list[str]) -> None:
    (folder / "st.yaml").write_text(HEADER + "".join(f"  - {CARDS[i]}\n" for i in ids), "utf-8")


@pytest.fixture(scope="module")
def template(tmp_path_factory) -> Path:
    """A database with the schema already in place, copied for every example (fast)."""
    folder = tmp_path_factory.mktemp("template")
    write_deck(folder, list(CARDS))
    collection = open_collection(folder, folder / "template.db")
    collection.store.close()
    return folder / "template.db"


class StudyStates(RuleBasedStateMachine):
    template: Path
    root: Path

    def __init__(self) -> None:
        super().__init__()
        self.folder = Path(tempfile.mkdtemp(dir=self.root))  # not named by id(self): ids are reused
        self.deck_ids = list(CARDS)
        write_deck(self.folder, self.deck_ids)
        shutil.copy(self.template, self.folder / "q.db")
        self.collection = open_collection(self.folder, self.folder / "q.db")
        queue = build_queue(self.collection.store, T0)
        self.session = study.StudySession(self.collection, queue, tick=lambda: 0.0)
        self.views = self.session.start()

    def teardown(self) -> None:
        self.collection.store.close()

    @property
    def waiting(self) -> object:
        return self.views[-1]

    def running(self) -> bool:
        return not isinstance(self.waiting, study_views.Summary)

    @precondition(running)
    @rule(rating=st.integers(1, 4), typed=st.sampled_from(["b", "a", "B", "Z", "AB", "15%", "0.15", "x", ""]))
    def go_on(self, rating: int, typed: str) -> None:
        """Whatever the screen waits for: reveal, rate, answer or next."""
        view = self.waiting
        if isinstance(view, study_views.CardView):
            event: study.Event = study.Answer(typed) if view.graded else study.Reveal()
        elif isinstance(view, study_views.BackView):
            event = study.Rate(rating)
        else:
            event = study.Next()
        self.views = self.session.handle(event)

    @precondition(running)
    @rule(rating=st.integers(1, 4))
    def rate(self, rating: int) -> None:
        """A rating key whatever the screen shows: it rates an answer shown, gives a graded answer
        another rating in its verdict's pause, and is passed over on a card's front."""
        self.views = self.session.handle(study.Rate(rating))

    @precondition(running)
    @rule(command=st.sampled_from([study.Undo(), study.Bury(), study.Suspend()]))
    def command(self, command: study.Event) -> None:
        self.views = self.session.handle(command)

    @precondition(running)
    @rule(data=st.data())
    def edit_a_card_away(self, data: st.DataObject) -> None:
        if len(self.deck_ids) == 1:
            return
        gone = data.draw(st.sampled_from(self.deck_ids))
        self.deck_ids.remove(gone)
        write_deck(self.folder, self.deck_ids)
        self.views = self.session.handle(study.Edited())

    @rule()
    def quit(self) -> None:  # also after the end: the summary again
        self.views = self.session.handle(study.Quit())
        assert isinstance(self.waiting, study_views.Summary)

    @invariant()
    def summary_matches_the_database(self) -> None:
        summary = self.session.summary
        stored = sorted((cid, review.rating) for cid in CARDS for review in card_store.reviews(self.collection.store, cid))
        answers = [done for done in self.session.history if isinstance(done, study.Done)]
        assert summary.reviewed == len(stored) == len(answers)
        assert stored == sorted((done.answered.card_id, done.rating) for done in answers)  # another rating replaced its review
        for aside in self.session.history:  # undo takes back the latest; one not taken back holds
            if isinstance(aside, study.SetAside):
                record = card_store.card(self.collection.store, aside.card_id)
                assert record.suspended or (record.buried_until is not None and record.buried_until > T0)
        assert sum(summary.ratings.values()) == summary.reviewed and min(summary.ratings.values(), default=0) >= 0
        assert 0 <= summary.correct <= summary.reviewed

    @invariant()
    def the_days_load_kept_is_the_stores(self) -> None:
        """The cards due on each coming day, as the session keeps them between answers, are what
        counting the store afresh gives (where the next review lands depends on them)."""
        load = self.session.load
        if load.day is not None:
            assert load.counts == due_per_day(self.collection.store, load.day, LOAD_BALANCE_DAYS + 1,
                                              self.session.settings.day_start_hour)

    @invariant()
    def the_card_on_screen_may_be_studied(self) -> None:
        view = self.waiting
        if isinstance(view, study_views.CardView):
            assert view.card_id in self.deck_ids
            record = card_store.card(self.collection.store, view.card_id)
            assert not record.suspended and (record.buried_until is None or record.buried_until <= T0)
            ahead = self.session.queue[self.session.position:]
            coming_back = set(queues.learning_due(self.collection.store, T0 + queues.LEARN_AHEAD)) & set(self.collection.cards)
            assert view.left == len(ahead) + len(coming_back - set(ahead)) >= 1
            stored = card_store.states(self.collection.store, ahead)  # the counts by state, read afresh
            new = sum(stored.get(card_id, 0) == 0 for card_id in ahead)
            review = sum(stored.get(card_id) == 2 for card_id in ahead)
            assert (view.remaining.new, view.remaining.review) == (new, review)


def test_study_session_commands_in_any_order(template, tmp_path, monkeypatch):
    monkeypatch.setenv("QUIZ_NOW", T0.isoformat())
    StudyStates.template, StudyStates.root = template, tmp_path
    runner = settings(max_examples=25, stateful_step_count=15, deadline=None,
                      suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])(StudyStates)
    runner.TestCase().runTest()
