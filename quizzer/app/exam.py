"""Mock interviews as a state machine: the paper (drawn by ``paper``), answers saved as given,
marking, scoring and the report. Its events and views are in ``exam_views``; the report is read
from the store by ``exam_report``.

Scores per question, from 0 to 1: a graded kind scores itself (choice 1 or 0; numeric 1, or 0.5
when right only to fewer digits than asked; cloze the share of blanks right); qa and mistake
score the share of key points the learner marks as covered after the exam; skipped or unanswered 0. An answer the clock cut off
(the text being typed when time ran out) is saved as it stands and scored or marked like any
other; it stays "unanswered" in the store with its text, which is how the report knows.

Scoring writes one exam-mode review per question asked: 1 → Good, from 0.5 → Hard, below 0.5 →
Again, and a question below 0.5 goes into the mistakes notebook. A question never reached (the
clock ran out, or the paper was handed in, before it was shown) scores 0 but is no review and no
mistake: nothing was asked of the learner's memory, so FSRS must not count a lapse. A wrong answer always moves
the schedule (the card comes back soon in ``quiz study``); a right answer to a card not yet
due is logged as practice and leaves its schedule alone, as in ``--ahead``.

During the exam nothing says right or wrong. An empty answer skips (skipped questions come
round again while time is left); ``HandIn`` ends it; ``Leave`` leaves it unfinished, to be
resumed while its time lasts. When the clock runs out the exam ends at once, keeping what was
being typed.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import datetime
from typing import Any, Literal

from quizzer import kinds
from quizzer.base import clock
from quizzer.app.busy import Waiting, patiently
from quizzer.app.collection import Collection
from quizzer.app.exam_report import cut_off, given, report
from quizzer.app.exam_views import (
    WRONG_BELOW,
    AllMarked,
    Answer,
    Event,
    GoingRound,
    HandedIn,
    HandIn,
    Leave,
    LeftUnfinished,
    Mark,
    MarkView,
    QuestionView,
    Report,
    SeeReport,
    TimeIsUp,
    TimeUp,
    UndoMark,
    View,
    never_asked,
)
from quizzer.app.paper import draw_paper, new_seed
from quizzer.app.study_load import DayLoad
from quizzer.app.views import Retry
from quizzer.base.defaults import Rating
from quizzer.base.errors import NothingToExamine, NoUnfinishedExam
from quizzer.base.i18n import _
from quizzer.kinds.base import Asked
from quizzer.scheduling.answer import answer as record_answer
from quizzer.scheduling.answer import placement_for
from quizzer.scheduling.learner import schedule_of
from quizzer.settings import DEFAULTS, Settings
from quizzer.store import cards as card_store
from quizzer.store import exams as exam_store
from quizzer.store.cards import ReviewedSince
from quizzer.store.records import (
    Answered,
    ExamMark,
    ExamRecord,
    PaperSpec,
    QuestionRecord,
)


def rating_for(score: float) -> int:
    return Rating.GOOD if score >= 1.0 else Rating.HARD if score >= WRONG_BELOW else Rating.AGAIN

# ------------------------------------------------------------------ the session


class ExamSession:
    """One exam from its first question to its report.

    ``start`` draws and saves a new paper, ``resume`` picks up the latest unfinished one.
    Then ``begin()`` gives the first view and ``handle(event)`` the views after each event;
    the last view returned is what waits for input. ``pauses`` (a terminal): after the last mark,
    wait (``AllMarked``) so that mark too can be taken back before the report.
    """

    def __init__(self, collection: Collection, exam: ExamRecord, *, tick: Callable[[], float] = time.monotonic,
                 settings: Settings = DEFAULTS, pauses: bool = False) -> None:
        self.collection = collection
        self.store = collection.store
        self.settings = settings
        self.schedule = schedule_of(collection.store, settings)  # the learner's, as study schedules
        self.load = DayLoad(collection.store, settings.day_start_hour)  # where a review lands, kept as study keeps it
        self.exam = exam
        self.tick = tick
        self.phase: Literal["answering", "marking", "done"] = "answering"
        self.asked_at = tick()
        self.waiting: Waiting | None = None  # the screen's, while an answer waits for the write lock
        self.current: QuestionRecord | None = None
        self.drawn: dict[tuple[str, int], Asked] = {}
        self.to_mark: list[QuestionRecord] = []
        self.marks: dict[int, tuple[float, list[int] | None]] = {}  # what scores itself; a marked answer is recorded as marked
        self.marked: list[tuple[QuestionRecord, Answered]] = []  # the marks given in this session, the last last
        self.pauses = pauses
        questions = exam_store.questions(self.store, exam.id)
        self.total = len(questions)
        # a removed card stays unanswered
        self.pending = [q for q in questions if q.status != "answered" and q.card_id in collection.cards]
        self.round: list[QuestionRecord] = list(self.pending)

    @classmethod
    def start(cls, collection: Collection, spec: PaperSpec, seed: int | None, minutes: float,
              **options: Any) -> ExamSession:
        paper_seed = new_seed() if seed is None else seed
        scheduler = schedule_of(collection.store, options.get("settings", DEFAULTS)).scheduler
        paper = draw_paper(collection.store, collection.cards, spec, paper_seed, clock.now(), scheduler)
        if not paper:
            raise NothingToExamine()
        exam = exam_store.start(collection.store, spec, paper_seed, minutes,
                                [(item.card_id, item.kind, item.seed) for item in paper], clock.now())
        return cls(collection, exam, **options)

    @staticmethod
    def unfinished(collection: Collection) -> ExamRecord | None:
        """The exam ``resume`` would take up (the latest not finished), if any."""
        return exam_store.latest_unfinished(collection.store)

    @classmethod
    def resume(cls, collection: Collection, **options: Any) -> ExamSession:
        exam = cls.unfinished(collection)
        if exam is None:
            raise NoUnfinishedExam()
        return cls(collection, exam, **options)

    def seconds_left(self) -> float:
        return (self.exam.deadline - clock.now()).total_seconds()

    def interrupted(self) -> LeftUnfinished:
        """Where the exam stands when the learner breaks off (every answer and mark given is saved)."""
        return LeftUnfinished(self.exam.id, self.exam.deadline, self.seconds_left() <= 0, marking=self.phase == "marking")

    # -- answering -----------------------------------------------------------

    def begin(self) -> list[View]:
        if self.exam.handed_in_at is not None:  # left during its marking: the answers stand as handed in
            return [HandedIn(self.exam.handed_in_at >= self.exam.deadline), *self._hand_in()]
        if self.seconds_left() <= 0:
            return [TimeIsUp(at_start=True), *self._hand_in()]
        return self._ask_next()

    def handle(self, event: Event) -> list[View]:
        if self.phase == "answering":
            return self._answering(event)
        if self.phase == "marking" and isinstance(event, Mark) and self.to_mark:
            return self._mark(event.text)
        if self.phase == "marking" and isinstance(event, UndoMark):
            return self._undo_mark()
        if self.phase == "marking" and isinstance(event, SeeReport) and not self.to_mark:
            return [self._finish()]
        if self.phase == "marking" and isinstance(event, Leave):  # the marks given are kept; the rest wait
            self.phase = "done"
            return [LeftUnfinished(self.exam.id, self.exam.deadline, self.seconds_left() <= 0, marking=True)]
        return [self._waiting()]

    def _asked(self, question: QuestionRecord) -> Asked:
        """The question as asked (drawn once per question: a numeric card's answer is solved once)."""
        key = (question.card_id, question.position)
        if key not in self.drawn:
            card = self.collection.cards[question.card_id]
            self.drawn[key] = kinds.of(card).ask(card, question.seed)
        return self.drawn[key]

    def prepare(self) -> None:
        """The question on screen has been drawn: its kind may start what its answer needs."""
        if self.current is not None:
            asked = self._asked(self.current)
            kinds.of(asked.card).prepare(asked)

    def _ask_next(self) -> list[View]:
        views: list[View] = []
        if not self.round:
            if not self.pending:
                return self._hand_in()
            self.round = list(self.pending)
            views.append(GoingRound(len(self.pending)))
        if self.seconds_left() <= 0:
            return views + self._time_up()
        self.current = self.round.pop(0)
        self.asked_at = self.tick()
        return views + [self._question_view()]

    def _question_view(self) -> QuestionView:
        question = self.current
        assert question is not None
        card = self.collection.cards[question.card_id]
        kind = kinds.of(card)
        asked = self._asked(question)
        return QuestionView(question.position, question.position + 1, self.total, self.seconds_left(), card.id,
                            self.collection.deck_of(card.id).title, card.kind, card.source, kind.front(asked),
                            kind.hint(asked), question.answer_text)

    def _spent(self) -> int:
        """Milliseconds on the current question; at least 1, so a shown question is never taken
        for one not reached (``never_asked``)."""
        return max(1, int((self.tick() - self.asked_at) * 1000))

    def _answering(self, event: Event) -> list[View]:
        question = self.current
        assert question is not None
        if isinstance(event, TimeUp) or self.seconds_left() <= 0:  # cut off, or sent past the deadline
            typed = event.text.strip() if isinstance(event, (TimeUp, Answer)) else ""
            if typed:
                self._save(question.position, status="unanswered", answer_text=typed, spent_ms=self._spent())
            else:
                self._save(question.position, spent_ms=self._spent())
            return self._time_up()
        if isinstance(event, Leave):
            # the question on screen stays unreached, as after a kill: left to come back to, it
            # is asked again on resume, and a deadline passed meanwhile makes it no review (Again)
            self.phase = "done"
            return [LeftUnfinished(self.exam.id, self.exam.deadline, self.seconds_left() <= 0)]
        if isinstance(event, HandIn):
            self._save(question.position, spent_ms=self._spent())
            return self._hand_in()
        if not isinstance(event, Answer):
            return [self._question_view()]
        text = event.text.strip()
        if not text:
            self._save(question.position, status="skipped", answer_text=None, spent_ms=self._spent())
            return self._ask_next()
        card = self.collection.cards[question.card_id]
        kind = kinds.of(card)
        reading = kind.read(self._asked(question), text) if kind.graded else None
        if reading is not None and reading.answer is None:
            return [Retry(reading.problem or "?"), self._question_view()]
        stored = reading.answer if reading is not None else text  # choice "c, a" is stored as "AC"
        self._save(question.position, status="answered", answer_text=stored, spent_ms=self._spent())
        self.pending = [q for q in self.pending if q.position != question.position]
        return self._ask_next()

    def _save(self, position: int, **fields: Any) -> None:
        """One question's answer (``exam_store.save_answer``), waiting for the write lock."""
        patiently(lambda: exam_store.save_answer(self.store, self.exam.id, position, **fields), self.waiting,
                  _("the answer to question {number} was not saved; `quiz exam --resume` asks it again").format(
                      number=position + 1))

    def _time_up(self) -> list[View]:
        return [TimeIsUp(at_start=False), *self._hand_in()]

    def _hand_in(self) -> list[View]:
        """End the answering for good (kept in the store: a paper left during its marking, after its
        model answers were shown, is marked on resume, never answered again); score what scores
        itself; the free-text answers go to marking."""
        self.phase = "marking"
        if self.exam.handed_in_at is None:
            self.exam = patiently(lambda: exam_store.hand_in(self.store, self.exam.id, clock.now()), self.waiting)
        for question in exam_store.questions(self.store, self.exam.id):
            card = self.collection.cards.get(question.card_id)
            if card is None or question.review_id is not None:  # removed from the decks since: no score,
                continue  # nothing for study (``_finish``); or marked and recorded before an interruption
            if kinds.of(card).graded or given(question) is None:
                self.marks[question.position] = (self._auto_score(question), None)
            else:
                self.to_mark.append(question)
        return [self._waiting()]

    def _auto_score(self, question: QuestionRecord) -> float:
        text = given(question)
        if text is None:
            return 0.0
        card = self.collection.cards[question.card_id]
        asked = self._asked(question)
        if cut_off(question):  # stored as typed, never read: an unreadable half-answer scores 0
            text = kinds.of(card).read(asked, text).answer
            if text is None:
                return 0.0
        return kinds.of(card).score(asked, text).score

    # -- marking -------------------------------------------------------------

    def _waiting(self) -> View:
        if self.phase == "marking" and self.to_mark:
            question = self.to_mark[0]
            card = self.collection.cards[question.card_id]
            kind = kinds.of(card)
            return MarkView(question.position, card.id, kind.front(self._asked(question)), question.answer_text,
                            kind.model_answer(card), kind.key_points(card), cut_off(question), bool(self.marked))
        if self.phase == "marking" and self.pauses and self.marked:
            return AllMarked()
        return self._finish()

    def _mark(self, text: str) -> list[View]:
        question = self.to_mark[0]
        points = kinds.of(self.collection.cards[question.card_id]).key_points(self.collection.cards[question.card_id])
        covered = read_covered(text, len(points))
        if covered is None:
            return [Retry(_("Numbers between 1 and {count}, separated by spaces.").format(count=len(points))),
                    self._waiting()]
        answered = self._record(question, len(covered) / len(points), covered, clock.now())  # kept at once
        if answered is not None:
            self.marked.append((question, answered))
        self.to_mark.pop(0)
        return [self._waiting()]

    def _undo_mark(self) -> list[View]:
        if not self.marked:
            return [Retry(_("No mark to take back.")), self._waiting()]
        question, answered = self.marked[-1]
        try:
            patiently(lambda: card_store.undo_mark(self.store, answered, self.exam.id, question.position), self.waiting)
        except ReviewedSince:  # studied on another device since: that answer stands, and this mark with it
            self.marked.pop()
            return [Retry(_("{card} was answered on another device since: its mark stands.").format(
                card=question.card_id)), self._waiting()]
        self.marked.pop()
        self.load.taken_back(answered)
        self.to_mark.insert(0, question)
        return [self._waiting()]

    def _finish(self) -> Report:
        """Record the score of every question not recorded yet (a marked answer is recorded as it
        is marked) as an exam review (and a mistake where wrong).

        Each question is one transaction, and questions already recorded are skipped, so an
        interrupted scoring or marking can simply run again, and a paper handed in on two devices at once is
        reviewed once (the store checks inside the transaction; the first hand-in's score stands). A review is dated no later than the exam's
        deadline, before which every answer was given: a paper left and handed in days later
        keeps its reviews on the exam's day (unless the card was studied since: then now).
        """
        now = clock.now()
        for question in exam_store.questions(self.store, self.exam.id):
            if question.review_id is not None or never_asked(question) or question.position not in self.marks:
                continue  # recorded, never shown, or its card gone from the decks: it scores 0 on the paper only
            self._record(question, *self.marks[question.position], now)
        self.exam = patiently(lambda: exam_store.close(self.store, self.exam.id, now), self.waiting)
        self.phase = "done"
        return report(self.collection, self.exam.id)

    def _record(self, question: QuestionRecord, score: float, covered: list[int] | None,
                now: datetime) -> Answered | None:
        """One question's score as its exam review, in one transaction (``_finish``); None if
        another device recorded it first."""
        wrong = score < WRONG_BELOW
        last = card_store.card(self.store, question.card_id).memory.last_review
        answered_by = min(now, self.exam.deadline)
        when = answered_by if last is None or last <= answered_by else now
        scheduler, rollover_hour = self.schedule.scheduler, self.settings.day_start_hour

        def recorded() -> Answered:
            placement = placement_for(self.store, question.card_id, when, scheduler, rollover_hour,
                                      self.settings.load_balance, self.load)
            return record_answer(
                self.store, question.card_id, rating_for(score), now=when, duration_ms=question.duration_ms,
                mode="exam", answer_text=question.answer_text, correct=not wrong, seed=question.seed,
                mark=ExamMark(self.exam.id, question.position, score, covered, wrong),
                scheduler=scheduler, rollover_hour=rollover_hour, interview=self.schedule.interview, placement=placement)

        try:
            answered = patiently(recorded, self.waiting,
                                 _("the exam's scores are not all saved; `quiz exam --resume` saves the rest"))
        except card_store.AlreadyMarked:  # the paper was handed in on another device meanwhile
            return None
        self.load.answered(answered)
        return answered


def read_covered(text: str, count: int) -> list[int] | None:
    """The key points a marking line names ("1 3", "a" for all, empty for none); None if
    unreadable. Only ASCII digits count (``²`` is a digit to Python but not a point number)."""
    text = text.strip().lower()
    if text in ("a", "all"):
        return list(range(1, count + 1))
    if not text:
        return []
    parts = text.replace(",", " ").replace("，", " ").split()
    if all(p.isascii() and p.isdigit() and 1 <= int(p) <= count for p in parts):
        return sorted({int(p) for p in parts})
    return None
