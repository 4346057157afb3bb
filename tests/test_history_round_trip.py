"""One rule for practice reviews, live and on replay: 60 simulated days of study through the app
layer (study, practice ahead with its Agains, undo, reviews on the next study day under 24 hours
later, exams, the mistakes drill), then ``quiz history export`` and ``import`` into a fresh
database: every card's memory and due are what they were."""

from __future__ import annotations

import io
import random
from datetime import datetime, timedelta, timezone

import pytest
from conftest import MINI_DECK

from quizzer.app import browse, exam_open, review_history
from quizzer.app import exchange
from quizzer.app.collection import Collection, open_collection
from quizzer.app.exam_views import Answer as ExamAnswer
from quizzer.app.exam_views import HandIn, Mark, MarkView, QuestionView, Report
from quizzer.app.queue import Planned, plan_session
from quizzer.app.study import StudySession
from quizzer.app.study_views import BackView, CardView, Next, Rate, Reveal, Summary, Undo
from quizzer.settings import DEFAULTS
from quizzer.store import cards as card_store
from quizzer.store.filter import EVERYTHING
from quizzer.store.history import LoggedReview

T0 = datetime(2026, 1, 5, 8, 0, tzinfo=timezone.utc)  # study days start at 04:00 (TZ is UTC in tests)
CARDS = [f"c{i:02}" for i in range(14)]
DECK = MINI_DECK + "".join(
    f'  - {{id: {card_id}, kind: qa, source: "1", question: 问题{card_id}, answer: 答案, points: [要点]}}\n'
    for card_id in CARDS)
# the load balancer reads the whole collection at the moment of an answer, which a replay of one
# card's history cannot know: it is off, fuzz (seeded by card and review count) stays on
SETTINGS = DEFAULTS.with_options(load_balance="off", new_per_day="4")


class Learner:
    """Answers on a fake clock (QUIZ_NOW), with ratings drawn from a seeded generator."""

    def __init__(self, collection: Collection, monkeypatch: pytest.MonkeyPatch, seed: int) -> None:
        self.collection, self.monkeypatch, self.rng = collection, monkeypatch, random.Random(seed)
        self.now = T0
        self.practice_reviews = self.practice_agains = self.undone = self.drilled = 0

    def at(self, when: datetime) -> None:
        self.now = when
        self.monkeypatch.setenv("QUIZ_NOW", when.isoformat())

    def later(self, seconds: int) -> None:
        self.at(self.now + timedelta(seconds=seconds))

    def study(self, queue: list[str], again_share: float) -> None:
        session = StudySession(self.collection, queue, tick=lambda: 0.0, settings=SETTINGS, pauses=False)
        views = session.start()
        for _ in range(1_000):
            view = views[-1]
            if isinstance(view, Summary):
                return
            if isinstance(view, CardView):
                views = session.handle(Reveal())
            elif isinstance(view, BackView):
                practice = len(set(view.intervals[1:])) == 1  # Hard, Good and Easy keep the due
                rating = 1 if self.rng.random() < again_share else self.rng.choice((2, 3, 3, 3, 4))
                if self.rng.random() < 0.1:  # a slip, taken back and rated again
                    session.handle(Rate(self.rng.choice((1, 4))))
                    self.later(5)
                    views = session.handle(Undo())
                    self.undone += 1
                    continue
                self.practice_reviews += practice
                self.practice_agains += practice and rating == 1
                views = session.handle(Rate(rating))
            else:
                views = session.handle(Next())
            self.later(40)
        raise AssertionError("the session never ended")

    def session(self, ahead: bool = False, again_share: float = 0.15) -> None:
        planned = plan_session(self.collection, EVERYTHING, SETTINGS, self.now, ahead=ahead)
        if isinstance(planned, Planned):
            self.study(planned.queue[:6] if ahead else planned.queue, again_share)

    def exam(self, seed: int) -> None:
        sitting = exam_open.open_paper(self.collection, exam_open.NewPaper(4, 30, seed=seed), resume=False,
                                       settings=SETTINGS)
        views = sitting.begin()
        for _ in range(50):
            view = views[-1]
            if isinstance(view, Report):
                return
            self.later(20)
            if isinstance(view, QuestionView):
                views = sitting.handle(ExamAnswer("答案"))
            elif isinstance(view, MarkView):
                views = sitting.handle(Mark("a" if self.rng.random() < 0.6 else ""))
            else:
                views = sitting.handle(HandIn())
        raise AssertionError("the exam never ended")

    def drill(self) -> None:
        rows = browse.mistakes(self.collection)
        queue = browse.mistakes_drill(self.collection, rows, self.now)
        if queue:
            self.drilled += 1
            self.study(queue, again_share=0.3)


def next_day_under_24_hours(reviews: list[LoggedReview]) -> int:
    """How many reviews came on the study day after the card's review before, under 24 hours later."""
    times: dict[str, list[datetime]] = {}
    for review in reviews:
        times.setdefault(review.card_id, []).append(review.reviewed_at)
    return sum(1 for seen in times.values() for earlier, later in zip(sorted(seen), sorted(seen)[1:])
               if (later - earlier) < timedelta(hours=24)
               and (later - timedelta(hours=4)).date() == (earlier - timedelta(hours=4)).date() + timedelta(days=1))


def memories(collection: Collection) -> dict[str, tuple[object, ...]]:
    return {card_id: (m.state, m.step, m.stability, m.difficulty, m.due, m.last_review, m.lapses)
            for card_id in CARDS for m in [card_store.card(collection.store, card_id).memory]}


@pytest.mark.slow  # about 7 s of one core: 60 days of sessions, each answer previewed and written
def test_sixty_days_exported_and_imported_into_a_fresh_database_give_every_card_as_it_was(
        deck_folder, tmp_path, monkeypatch):
    folder = deck_folder(DECK)
    live = open_collection(folder, tmp_path / "live.db")
    learner = Learner(live, monkeypatch, seed=38)
    for day in range(60):
        morning = T0 + timedelta(days=day, minutes=learner.rng.randrange(0, 90))
        learner.at(morning)
        learner.session()
        if day % 3 == 1:  # practice ahead, some of it forgotten
            learner.later(600)
            learner.session(ahead=True, again_share=0.3)
        if day % 7 == 6:
            learner.later(900)
            learner.exam(seed=day)
            learner.drill()
        if day % 5 == 2:  # late in the evening, then early the next morning: under 24 hours apart
            learner.at(morning.replace(hour=22, minute=50))
            learner.session(ahead=True, again_share=0.2)
    # the history has what it is about
    assert (learner.practice_reviews > 10, learner.practice_agains > 2, learner.undone > 5, learner.drilled > 2) == (
        True, True, True, True), vars(learner)

    exported = io.StringIO()
    review_history.export_reviews(live, exported, None, None, rollover_hour=SETTINGS.day_start_hour)
    log = tmp_path / "history.csv"
    log.write_text(exported.getvalue(), encoding="utf-8")
    fresh = open_collection(folder, tmp_path / "fresh.db")
    reviews = exchange.read_review_log(log, learner.now)
    assert {"study", "exam", "practice"} <= {review.mode for review in reviews}
    assert next_day_under_24_hours(reviews) > 5
    review_history.import_reviews(fresh, reviews, SETTINGS)

    before, after = memories(live), memories(fresh)
    assert [card_id for card_id in CARDS if before[card_id] != after[card_id]] == []
    assert len(reviews) == sum(len(card_store.reviews(live.store, card_id)) for card_id in CARDS)
