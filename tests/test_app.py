"""The study session and the exam as state machines, driven directly: no terminal, no subprocess."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import fsrs
import pytest

from conftest import MINI_DECK

from quizzer import kinds
from quizzer.app import exam as exams
from quizzer.app import exam_views
from quizzer.app import study, study_views
from quizzer.app.busy import Waiting
from quizzer.app.collection import open_collection
from quizzer.scheduling.memory import DEFAULT_SCHEDULER
from quizzer.scheduling.queue import build_queue
from quizzer.scheduling.summary import card_info
from quizzer.store import exams as exam_store
from quizzer.store.records import PaperSpec

T0 = datetime(2026, 1, 5, 10, 0, tzinfo=timezone.utc)

DECK = MINI_DECK + """\
  - {id: q-one, kind: qa, source: "1.1", question: 问题一, answer: 答案一, points: [要点一, 要点二]}
  - {id: m-one, kind: mistake, source: "1.2", claim: 错误说法, correction: 正确说法, why: 原因}
  - id: c-one
    kind: choice
    source: "1.3"
    question: 选哪个？
    options: [甲, 乙, 丙]
    answer: B
    explanation: 乙对。
  - id: z-one
    kind: cloze
    source: "1.4"
    text: BERT 随机选 {{c1::15%}} 的 token，其中 {{c2::80%::比例}} 换成 {{c3::[MASK]}}。
    accept: {c3: ["MASK"]}
"""


class Clock:
    """A monotonic clock the test moves by hand."""

    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


@pytest.fixture
def collection(deck_folder, monkeypatch, tmp_path):
    monkeypatch.setenv("QUIZ_NOW", T0.isoformat())
    return open_collection(deck_folder(DECK), tmp_path / "app.db")


def session(collection, kinds: tuple[str, ...], clock: Clock | None = None, **options) -> study.StudySession:
    chosen = collection.card_filter(kinds=list(kinds))
    queue = build_queue(collection.store, T0, chosen=chosen)
    return study.StudySession(collection, queue, chosen=chosen, tick=clock or Clock(), **options)


def test_self_rated_card_reveal_rate_and_summary(collection):
    machine = session(collection, ("qa",))
    [front] = machine.start()
    assert isinstance(front, study_views.CardView) and front.front == "问题一" and not front.graded
    assert (front.done, front.left) == (0, 1)
    assert machine.handle(study.Rate(3)) == [front]  # rating before revealing is not taken
    [back] = machine.handle(study.Reveal())
    assert isinstance(back, study_views.BackView) and "答案一" in back.back and "要点二" in back.back
    saved, after = machine.handle(study.Rate(3))
    assert saved == study.Notice("saved", "q-one", 3)
    # a Good on a new card is still learning: due within the learn-ahead window, so it comes back
    assert isinstance(after, study_views.CardView) and after.card_id == "q-one"
    summary = machine.handle(study.Quit())[-1]
    assert isinstance(summary, study_views.Summary) and (summary.reviewed, summary.correct) == (1, 1)
    assert [r.rating for r in card_info(collection.store, "q-one", T0).reviews] == [3]


def test_graded_choice_format_problem_then_verdict_and_rating_by_time(collection):
    clock = Clock()
    machine = session(collection, ("choice",), clock)
    [front] = machine.start()
    assert front.graded and front.hint == "a letter"
    retry, again = machine.handle(study.Answer("Z"))
    assert isinstance(retry, study.Retry) and "one of A, B, C" in retry.message and again == front
    retry, _ = machine.handle(study.Answer("AB"))  # one answer is right here: asked again, not graded
    assert isinstance(retry, study.Retry) and "Only one" in retry.message
    clock.t += 3  # fast, but a new card: Good (never Easy at first sight)
    feedback, saved, waiting = machine.handle(study.Answer("b"))
    assert feedback.correct and feedback.rating == 3 and feedback.explanation == "乙对。"
    assert saved == study.Notice("saved", "c-one", 3) and isinstance(waiting, study.Continue)
    [review] = card_info(collection.store, "c-one", T0).reviews
    assert (review.rating, review.answer_text, review.correct) == (3, "B", True)


def test_undo_restores_the_card_and_shows_it_again(collection):
    machine = session(collection, ("qa", "mistake"))
    machine.start()
    machine.handle(study.Reveal())
    machine.handle(study.Rate(1))
    undone, shown = machine.handle(study.Undo())
    assert undone == study.Notice("undone", "q-one") and shown.card_id == "q-one" and shown.done == 0
    info = card_info(collection.store, "q-one", T0)
    assert info.reviews == [] and info.memory.state == 0
    assert machine.summary.reviewed == 0 and machine.summary.ratings[1] == 0
    nothing = machine.handle(study.Undo())
    assert nothing[0] == study.Notice("nothing_to_undo") and nothing[-1] == shown


def test_undoing_an_again_that_brought_the_card_back_shows_it_once(collection):
    """In a drill of two cards, Again on the last one brought it back at the end; undo then showed
    it with "1 done · 2 left": the card was queued twice."""
    machine = session(collection, ("qa", "mistake"), only_queued=True)
    machine.start()
    machine.handle(study.Reveal())
    machine.handle(study.Rate(4))  # Easy: out of learning, not brought back
    machine.handle(study.Reveal())
    *_, back = machine.handle(study.Rate(1))  # a new card failed: learning, due within the session
    assert isinstance(back, study_views.CardView) and (back.card_id, back.done, back.left) == ("m-one", 2, 1)
    undone, shown = machine.handle(study.Undo())
    assert undone == study.Notice("undone", "m-one") and (shown.card_id, shown.done, shown.left) == ("m-one", 1, 1)
    machine.handle(study.Reveal())
    *_, last = machine.handle(study.Rate(4))
    assert isinstance(last, study_views.QueueEnd)  # shown once: nothing left after it


def test_a_failed_card_coming_back_counts_as_left_at_once(collection):
    """Again on the first of two cards: the second said "1 done · 1 left", then the failed card
    came back after it; Anki counts a learning card as left as soon as it is failed."""
    machine = session(collection, ("qa", "mistake"))
    machine.start()
    machine.handle(study.Reveal())
    *_, second = machine.handle(study.Rate(1))
    assert isinstance(second, study_views.CardView) and (second.card_id, second.done, second.left) == ("m-one", 1, 2)
    machine.handle(study.Reveal())
    *_, back = machine.handle(study.Rate(4))  # Easy: out of learning, not coming back
    assert isinstance(back, study_views.CardView) and (back.card_id, back.left) == ("q-one", 1)
    machine.handle(study.Reveal())
    *_, last = machine.handle(study.Rate(4))
    assert isinstance(last, study_views.QueueEnd)


def test_the_cards_left_are_counted_as_new_learning_and_due(collection, monkeypatch):
    """The header's three counts, as Anki's: a card failed earlier is learning, a card in review
    due today is due, an unseen one new; a card answered Easy leaves the counts, and one failed
    now moves from its count to learning at once."""
    first = session(collection, ("qa", "mistake"))
    [opening] = first.start()  # q-one, then m-one: both new
    assert isinstance(opening, study_views.CardView) and opening.remaining == study_views.Remaining(new=2)
    first.handle(study.Reveal())
    first.handle(study.Rate(4))  # q-one: Easy, in review, due in days
    first.handle(study.Reveal())
    first.handle(study.Rate(1))  # m-one: Again, learning
    first.handle(study.Quit())
    later = T0 + timedelta(days=60)
    monkeypatch.setenv("QUIZ_NOW", later.isoformat())
    chosen = collection.card_filter(kinds=["qa", "mistake", "choice"])
    machine = study.StudySession(collection, build_queue(collection.store, later, chosen=chosen), chosen=chosen,
                                 tick=Clock())
    [front] = machine.start()
    assert isinstance(front, study_views.CardView) and front.card_id == "m-one"  # learning first
    assert front.remaining == study_views.Remaining(new=1, learning=1, review=1) and front.left == 3
    machine.handle(study.Reveal())
    *_, after = machine.handle(study.Rate(4))  # m-one: Easy, out of learning, not coming back
    assert isinstance(after, study_views.CardView) and after.card_id == "q-one"
    assert after.remaining == study_views.Remaining(new=1, review=1)
    machine.handle(study.Reveal())
    *_, last = machine.handle(study.Rate(1))  # q-one failed: relearning, coming back
    assert isinstance(last, study_views.CardView) and last.card_id == "c-one"
    assert last.remaining == study_views.Remaining(new=1, learning=1)


def test_a_card_failed_in_an_earlier_session_counts_as_left_too(collection):
    """Failed, then q: the next session's header counted down to "1 left", then showed that card."""
    first = session(collection, ("qa", "mistake"))
    first.start()
    first.handle(study.Reveal())
    first.handle(study.Rate(1))  # q-one failed: learning, due in a minute
    first.handle(study.Quit())
    again = session(collection, ("qa", "mistake"))
    [front] = again.start()
    assert isinstance(front, study_views.CardView) and (front.card_id, front.left) == ("m-one", 2)


def test_undo_of_an_answer_another_device_answered_over_says_so_and_the_session_goes_on(collection):
    """Device A rates a card, device B rates it too, A presses u: the session ended with
    "unexpected ValueError: review 1 is not the latest of card …"."""
    from quizzer.scheduling.answer import answer

    machine = session(collection, ("qa", "mistake"))
    machine.start()
    machine.handle(study.Reveal())
    machine.handle(study.Rate(4))
    answer(collection.store, "q-one", 1, now=T0, duration_ms=1000)  # the other device
    refused, shown = machine.handle(study.Undo())
    assert refused == study.Notice("reviewed_elsewhere", "q-one") and shown.card_id == "m-one"
    assert [r.rating for r in card_info(collection.store, "q-one", T0).reviews] == [4, 1]  # both answers stand


def test_bury_and_suspend_take_the_card_out(collection):
    machine = session(collection, ("qa", "mistake"))
    machine.start()
    buried, nxt = machine.handle(study.Bury())
    assert buried == study.Notice("buried", "q-one") and nxt.card_id == "m-one"
    suspended, end = machine.handle(study.Suspend())
    assert suspended.kind == "suspended" and isinstance(end, study_views.QueueEnd)
    assert card_info(collection.store, "m-one", T0).suspended
    assert card_info(collection.store, "q-one", T0).buried_until is not None


def test_the_last_answer_can_be_undone_at_the_queue_end_and_next_ends_the_session(collection):
    """Easy pressed for Again on the last card ended the session at once: the slip could not be
    taken back (Anki's undo still works on its "Congratulations" screen)."""
    machine = session(collection, ("qa",))
    machine.start()
    machine.handle(study.Reveal())
    saved, end = machine.handle(study.Rate(4))
    assert saved.kind == "saved" and end == study_views.QueueEnd()
    assert machine.handle(study.Reveal()) == [machine.summary]  # any key but u: the summary
    machine = session(collection, ("mistake",))
    machine.start()
    machine.handle(study.Reveal())
    machine.handle(study.Rate(4))
    undone, shown = machine.handle(study.Undo())
    assert undone == study.Notice("undone", "m-one") and shown.card_id == "m-one" and shown.done == 0
    assert card_info(collection.store, "m-one", T0).reviews == []
    machine.handle(study.Suspend())  # a bury or suspend is taken back the same way
    undone, shown = machine.handle(study.Undo())
    assert undone == study.Notice("undone", "m-one") and shown.card_id == "m-one"
    assert not card_info(collection.store, "m-one", T0).suspended
    machine.handle(study.Reveal())
    *_, end = machine.handle(study.Rate(4))
    [summary] = machine.handle(study.Next())
    assert end == study_views.QueueEnd() and isinstance(summary, study_views.Summary) and summary.reviewed == 1
    assert [r.rating for r in card_info(collection.store, "m-one", T0).reviews] == [4]  # the first one undone


def test_the_queue_end_does_not_pause_after_a_verdict_or_on_a_pipe(collection):
    """A verdict's pause already offered undo: Next there ends the session. A script on a pipe is
    not asked for one more line."""
    machine = session(collection, ("choice",))
    machine.start()
    machine.handle(study.Answer("B"))  # right and quick: Good at first sight
    machine.handle(study.Rate(4))  # rated Easy instead: out of learning
    assert isinstance(machine.handle(study.Next())[-1], study_views.Summary)
    machine = session(collection, ("qa",), pauses=False)
    machine.start()
    machine.handle(study.Reveal())
    assert isinstance(machine.handle(study.Rate(4))[-1], study_views.Summary)


def test_undo_takes_back_a_bury_or_suspend_before_the_answer_before_it(collection):
    """As in Anki, undo takes back the latest action: a bury brought back the answer before it
    and left the card buried."""
    machine = session(collection, ("qa", "mistake", "choice"))
    machine.start()
    machine.handle(study.Reveal())
    machine.handle(study.Rate(3))  # q-one answered
    machine.handle(study.Bury())  # m-one buried
    undone, shown = machine.handle(study.Undo())
    assert undone == study.Notice("undone", "m-one") and shown.card_id == "m-one"
    assert card_info(collection.store, "m-one", T0).buried_until is None
    assert len(card_info(collection.store, "q-one", T0).reviews) == 1  # the answer before it stands
    machine.handle(study.Suspend())  # m-one suspended
    undone, shown = machine.handle(study.Undo())
    assert undone == study.Notice("undone", "m-one") and shown.card_id == "m-one"
    assert not card_info(collection.store, "m-one", T0).suspended
    undone, shown = machine.handle(study.Undo())  # then the answer
    assert undone == study.Notice("undone", "q-one") and shown.card_id == "q-one"
    assert card_info(collection.store, "q-one", T0).reviews == []


def test_cloze_blanks_are_graded_as_numbers_or_text(collection):
    clock = Clock()
    machine = session(collection, ("cloze",), clock)
    [front] = machine.start()
    assert "`［1］`" in front.front and "`［2：比例］`" in front.front and "15%" not in front.front
    assert front.hint == "3 blanks, separated by ;"
    retry, _ = machine.handle(study.Answer("15%; 80%"))
    assert "Type 3 answers" in retry.message
    clock.t += 20
    feedback, saved, _ = machine.handle(study.Answer("0.15；80% ; ［ｍａｓｋ］"))  # number, width, case
    assert feedback.correct and feedback.rating == 3 and saved.card_id == "z-one"
    assert card_info(collection.store, "z-one", T0).reviews[0].answer_text == "0.15; 80%; ［ｍａｓｋ］"  # shown as typed
    card = collection.cards["z-one"]  # an exam answer an older quizzer stored as "a ; b ; c" scores the same
    asked = kinds.of(card).ask(card, None)
    assert kinds.of(card).score(asked, "0.15 ; 80% ; [MASK]").score == kinds.of(card).score(asked, "0.15; 80%; [MASK]").score == 1.0


def test_cloze_wrong_blank_is_named(collection):
    machine = session(collection, ("cloze",))
    machine.start()
    feedback, *_ = machine.handle(study.Answer("15%; 0.7; MASK"))
    assert not feedback.correct and feedback.rating == 1 and "blank 2 wrong" in feedback.message


def test_study_ratings_equal_fsrs_run_directly(collection):
    machine = session(collection, ("qa",))
    machine.start()
    machine.handle(study.Reveal())
    machine.handle(study.Rate(4))
    direct, _ = DEFAULT_SCHEDULER.review_card(fsrs.Card(), fsrs.Rating.Easy, review_datetime=T0)
    memory = card_info(collection.store, "q-one", T0).memory
    assert memory.stability == pytest.approx(direct.stability) and memory.difficulty == pytest.approx(direct.difficulty)


# -- exam ----------------------------------------------------------------------


def exam_of(collection, clock: Clock, minutes: float = 30.0) -> exams.ExamSession:
    return exams.ExamSession.start(collection, PaperSpec(4), seed=3, minutes=minutes, tick=clock)


def answer_all(machine: exams.ExamSession, answers: dict[str, str], clock: Clock) -> list:
    views = machine.begin()
    while isinstance(views[-1], exam_views.QuestionView):
        clock.t += 10
        views = machine.handle(exam_views.Answer(answers[views[-1].card_id]))
    return views


def test_exam_answers_mark_and_report_without_a_terminal(collection):
    clock = Clock()
    machine = exam_of(collection, clock)
    assert machine.total == 4
    views = answer_all(machine, {"q-one": "讲了要点一", "m-one": "说反了", "c-one": "a", "z-one": "15%; 80%; [MASK]"}, clock)
    marks = [v for v in views if isinstance(v, exam_views.MarkView)]
    assert marks and marks[-1].card_id in ("q-one", "m-one")
    while isinstance(views[-1], exam_views.MarkView):
        view = views[-1]
        if view.card_id == "q-one":
            assert view.model_answer == "答案一" and view.points == ["要点一", "要点二"] and view.question == "问题一"
            retry, same = machine.handle(exam_views.Mark("１ ²"))  # only ASCII digits are point numbers
            assert isinstance(retry, exam_views.Retry) and same == view
            views = machine.handle(exam_views.Mark("1"))
        else:  # marked blind: a mistake card has no model answer, and its claim was not shown
            assert "错误说法" in view.question
            views = machine.handle(exam_views.Mark("a"))
    report = views[-1]
    assert isinstance(report, exam_views.Report)
    scores = {row.card_id: row.score for row in report.rows}
    assert scores == {"q-one": 0.5, "m-one": 1.0, "c-one": 0.0, "z-one": 1.0}
    assert report.noted == 1  # only c-one is below one half: the notebook's line is said
    assert report.exam.score == pytest.approx(62.5)
    stored = {q.card_id: q for q in exam_store.questions(collection.store, report.exam.id)}
    assert stored["c-one"].answer_text == "A" and stored["q-one"].covered == [1]
    missed = {row.card_id: row.missed for row in report.rows}  # the report said only 0.50, not what was missed
    assert missed == {"q-one": ["要点二"], "m-one": [], "c-one": [], "z-one": []}
    assert card_info(collection.store, "c-one", T0).reviews[-1].rating == 1


def test_a_perfect_paper_puts_nothing_in_the_notebook_and_its_report_says_none(collection):
    clock = Clock()
    machine = exam_of(collection, clock)
    views = answer_all(machine, {"q-one": "要点一 要点二", "m-one": "正确说法", "c-one": "b", "z-one": "15%; 80%; [MASK]"}, clock)
    while isinstance(views[-1], exam_views.MarkView):
        views = machine.handle(exam_views.Mark("a"))
    report = views[-1]
    assert report.exam.score == pytest.approx(100.0) and report.noted == 0


def test_every_exam_question_asks_for_the_answer_in_the_interface_language(collection):
    """A qa or mistake question's prompt read 回答（your answer） in Chinese."""
    from quizzer.base import i18n

    clock = Clock()
    i18n.use("zh")
    try:
        machine = exam_of(collection, clock)
        views, hints = machine.begin(), {}
        while isinstance(views[-1], exam_views.QuestionView):
            hints[views[-1].kind] = views[-1].hint
            views = machine.handle(exam_views.Answer({"choice": "A", "cloze": "1; 2; 3"}.get(views[-1].kind, "甲")))
    finally:
        i18n.use("en")
    assert hints["qa"] == hints["mistake"] == "用自己的话" and hints["cloze"] != hints["qa"]  # not 回答（你的答案）


def test_an_answered_question_whose_card_left_the_decks_stays_in_the_report(deck_folder, monkeypatch, tmp_path):
    """Resumed after its card was edited out of the deck, the report left the answered question out
    ('2 of 2 answered') while its score counted and the history said 3 of 3."""
    monkeypatch.setenv("QUIZ_NOW", T0.isoformat())
    folder = deck_folder(DECK)
    clock = Clock()
    machine = exam_of(open_collection(folder, tmp_path / "app.db"), clock)
    [first] = machine.begin()
    machine.handle(exam_views.Answer("c" if first.kind == "choice" else "x; y; z" if first.kind == "cloze" else "答"))
    machine.handle(exam_views.Leave())
    blocks = DECK.split("\n  - ")  # the header, then one block per card
    deck_folder("\n  - ".join(block for block in blocks if not block.startswith(f"{{id: {first.card_id},")
                                and not block.startswith(f"id: {first.card_id}\n")))
    collection = open_collection(folder, tmp_path / "app.db")
    assert first.card_id not in collection.cards and len(collection.cards) == 3
    resumed = exams.ExamSession.resume(collection, tick=clock)
    views = resumed.begin()
    while not isinstance(views[-1], exam_views.Report):
        views = resumed.handle(exam_views.Mark("a") if isinstance(views[-1], exam_views.MarkView) else exam_views.HandIn())
    report = views[-1]
    rows = {row.card_id: row for row in report.rows}
    assert len(rows) == 4 and rows[first.card_id].text == "(not in the decks)"
    assert rows[first.card_id].status == "answered" and report.answered >= 1


def test_exam_skip_goes_round_and_time_up_scores_what_was_given(collection, monkeypatch):
    clock = Clock()
    machine = exam_of(collection, clock, minutes=1)
    [first] = machine.begin()
    views = machine.handle(exam_views.Answer(""))  # skip
    assert isinstance(views[-1], exam_views.QuestionView) and views[-1].card_id != first.card_id
    monkeypatch.setenv("QUIZ_NOW", (T0 + timedelta(minutes=2)).isoformat())
    views = machine.handle(exam_views.Answer("late"))
    assert views[0] == exam_views.TimeIsUp(at_start=False)
    assert all(q.status != "answered" for q in exam_store.questions(collection.store, machine.exam.id))


def test_a_mark_is_kept_when_given_not_lost_with_the_marks_after_it(collection):
    """Ctrl-C at the second mark lost the first: marks were kept in memory until the last one,
    and `--resume` asked for every mark again, while the exit line said every answer was saved."""
    clock = Clock()
    machine = exam_of(collection, clock)
    views = answer_all(machine, {"q-one": "讲了要点一", "m-one": "说反了", "c-one": "b", "z-one": "15%; 80%; [MASK]"}, clock)
    first = views[-1]
    assert isinstance(first, exam_views.MarkView)
    second = machine.handle(exam_views.Mark("1" if first.card_id == "q-one" else "a"))[-1]
    assert isinstance(second, exam_views.MarkView) and second.card_id != first.card_id
    # interrupted here: the session is gone, the exam unfinished
    stored = {q.card_id: q for q in exam_store.questions(collection.store, machine.exam.id)}
    assert stored[first.card_id].review_id is not None and stored[second.card_id].review_id is None
    assert card_info(collection.store, first.card_id, T0).reviews[-1].mode == "exam"
    again = exams.ExamSession.resume(collection, tick=clock)
    views = again.begin()
    asked = [v.card_id for v in views if isinstance(v, exam_views.MarkView)]
    assert asked == [second.card_id]  # only the mark not given yet
    report = again.handle(exam_views.Mark("a"))[-1]
    assert isinstance(report, exam_views.Report)
    scores = {row.card_id: row.score for row in report.rows}
    assert scores[first.card_id] == (0.5 if first.card_id == "q-one" else 1.0) and scores[second.card_id] == 1.0
    assert len([r for r in card_info(collection.store, first.card_id, T0).reviews if r.mode == "exam"]) == 1


def test_a_paper_left_during_its_marking_is_marked_on_resume_not_answered_again(collection):
    """Ctrl-C while marking a handed-in paper, then `--resume`, went back to answering: the
    learner, having seen the model answers, could answer the questions skipped or not reached."""
    clock = Clock()
    machine = exam_of(collection, clock)
    views = machine.begin()
    while views[-1].card_id != "q-one":  # skip to the free-text question, answer it, hand in the rest unanswered
        views = machine.handle(exam_views.Answer(""))
    views = machine.handle(exam_views.Answer("讲了要点一"))
    marking = machine.handle(exam_views.HandIn())[-1]
    assert isinstance(marking, exam_views.MarkView) and marking.card_id == "q-one"
    # interrupted here, before the mark
    again = exams.ExamSession.resume(collection, tick=clock)
    assert again.exam.id == machine.exam.id and again.exam.handed_in_at is not None
    views = again.begin()
    assert isinstance(views[0], exam_views.HandedIn) and not any(isinstance(v, exam_views.QuestionView) for v in views)
    assert isinstance(views[-1], exam_views.MarkView) and views[-1].card_id == "q-one"
    report = again.handle(exam_views.Mark("1"))[-1]
    assert isinstance(report, exam_views.Report) and report.answered == 1
    assert exam_store.latest_unfinished(collection.store) is None


def test_leave_keeps_the_exam_for_resume(collection):
    clock = Clock()
    machine = exam_of(collection, clock)
    [first] = machine.begin()
    machine.handle(exam_views.Answer("c" if first.kind == "choice" else "x; y; z" if first.kind == "cloze" else "答"))
    [left] = machine.handle(exam_views.Leave())
    assert isinstance(left, exam_views.LeftUnfinished) and not left.expired
    again = exams.ExamSession.resume(collection, tick=clock)
    assert again.exam.id == machine.exam.id and len(again.pending) == 3


def test_a_paper_handed_in_days_later_dates_its_reviews_by_its_deadline(collection, monkeypatch):
    """Every review of a resumed exam was dated when it was handed in (days later, on another study
    day: the streak, the calendar and FSRS's elapsed time moved with it); an answer can only have
    been given before the deadline. A card studied since keeps its log in order: dated now."""
    from quizzer.scheduling.answer import answer

    typed = {"q-one": "答", "m-one": "说反了", "c-one": "b", "z-one": "15%; 80%; [MASK]"}
    machine = exam_of(collection, Clock(), minutes=30)
    views = machine.begin()
    for _ in range(2):
        views = machine.handle(exam_views.Answer(typed[views[-1].card_id]))
    machine.handle(exam_views.Leave())
    first, studied = [q.card_id for q in exam_store.questions(collection.store, machine.exam.id) if q.status == "answered"]
    answer(collection.store, studied, 3, now=T0 + timedelta(days=1), duration_ms=1000)
    handed_in = T0 + timedelta(days=2)
    monkeypatch.setenv("QUIZ_NOW", handed_in.isoformat())
    again = exams.ExamSession.resume(collection, tick=Clock())
    views = again.begin()
    assert views[0] == exam_views.TimeIsUp(at_start=True)
    while isinstance(views[-1], exam_views.MarkView):
        views = again.handle(exam_views.Mark("a"))
    assert isinstance(views[-1], exam_views.Report)
    dated = {card_id: [r.reviewed_at for r in card_info(collection.store, card_id, handed_in).reviews if r.mode == "exam"]
             for card_id in (first, studied)}
    assert dated == {first: [T0 + timedelta(minutes=30)], studied: [handed_in]}


def test_a_wrong_answer_given_another_rating_is_still_not_correct_in_the_summary(collection):
    """The summary counted by rating: a wrong answer re-rated Good said "correct 1"."""
    machine = session(collection, ("choice",))
    machine.start()
    feedback, *_ = machine.handle(study.Answer("A"))
    assert not feedback.correct and feedback.rating == 1
    machine.handle(study.Rate(3))
    summary = machine.handle(study.Quit())[-1]
    assert (summary.reviewed, summary.correct, summary.ratings) == (1, 0, {1: 0, 3: 1})


def test_a_paper_handed_in_on_two_devices_at_once_is_reviewed_once(collection, monkeypatch):
    """Two devices resumed one exam and handed it in together: each reviewed every question (8
    reviews for a paper of 4, each card's memory moved twice), and the stored answer could differ
    from the one its review scored. Device B here read the questions before A recorded any."""
    typed = {"q-one": "答", "m-one": "说反了", "c-one": "b", "z-one": "15%; 80%; [MASK]"}
    first = exam_of(collection, Clock())
    views = first.begin()
    views = first.handle(exam_views.Answer(typed[views[-1].card_id]))
    first.handle(exam_views.Leave())
    a, b = (exams.ExamSession.resume(collection, tick=Clock()) for _ in range(2))
    stale = exam_store.questions(collection.store, a.exam.id)  # what B read before A's hand-in
    for device in (a, b):
        views = device.begin()
        while isinstance(views[-1], exam_views.QuestionView):
            views = device.handle(exam_views.Answer(typed[views[-1].card_id]))
        with monkeypatch.context() as patched:
            if device is b:  # B's scoring sees no review recorded yet, as if it read just before A's
                patched.setattr(exam_store, "questions", lambda store, exam_id: stale)
            while isinstance(views[-1], exam_views.MarkView):
                views = device.handle(exam_views.Mark("a"))
    reviews = [r for cid in typed for r in card_info(collection.store, cid, T0).reviews if r.mode == "exam"]
    stored = exam_store.questions(collection.store, a.exam.id)
    assert len(reviews) == len([q for q in stored if q.review_id is not None]) == 4
    answers = {r.id: r.answer_text for r in reviews}
    assert all(answers[q.review_id] == q.answer_text for q in stored)  # each score beside the answer it scored
    [(exam, _, _)] = exam_store.history(collection.store)
    assert exam.score == views[-1].exam.score  # B's report says the first hand-in's score


def test_after_a_verdict_another_rating_saves_the_same_answer_with_it(collection, tmp_path, deck_folder):
    """A right answer given fast to a new card is rated Good; 2 in the verdict's pause saves it as Hard instead:
    one review, the same answer and time, and the memory state FSRS gives a Hard on the new card."""
    clock = Clock()
    machine = session(collection, ("choice",), clock)
    machine.start()
    clock.t += 3
    feedback, first, waiting = machine.handle(study.Answer("B"))
    assert feedback.rating == 3 and isinstance(waiting, study.Continue) and len(waiting.intervals) == 4
    assert first.due_in == waiting.intervals[2]  # the prompt's Good is what Good gave (found before the answer)
    clock.t += 60  # reading the explanation is not answering time
    saved, after = machine.handle(study.Rate(2))
    assert saved == study.Notice("saved", "c-one", 2) and isinstance(after, study.Continue)
    assert saved.due_in == waiting.intervals[1]  # the prompt's Hard is what Hard gave
    info = card_info(collection.store, "c-one", T0)
    [review] = info.reviews
    assert (review.rating, review.answer_text, review.correct, review.duration_ms) == (2, "B", True, 3000)
    card, _ = DEFAULT_SCHEDULER.review_card(fsrs.Card(card_id=1, due=T0), fsrs.Rating.Hard, T0)
    assert info.memory.state == card.state.value and info.memory.stability == pytest.approx(card.stability)
    assert machine.summary.ratings == {3: 0, 2: 1} and machine.summary.reviewed == 1 and machine.summary.correct == 1
    assert machine.handle(study.Rate(2)) == [after]  # the same rating again changes nothing
    undone, shown = machine.handle(study.Undo())  # undo takes back the answer as rated now
    assert undone == study.Notice("undone", "c-one") and shown.card_id == "c-one"
    assert card_info(collection.store, "c-one", T0).reviews == []



def test_another_rating_that_fails_half_way_keeps_the_answer_it_replaces(collection, monkeypatch):
    """Another rating took the review back in one transaction and saved the new one in a second:
    Ctrl-C while the second waited for the write lock left the card with no review at all."""
    from quizzer.store import cards as card_store

    machine = session(collection, ("choice",))
    machine.start()
    machine.handle(study.Answer("B"))  # right: Easy or Good
    [before] = card_info(collection.store, "c-one", T0).reviews

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt  # as Ctrl-C during the wait for the lock

    monkeypatch.setattr(card_store, "_record", interrupted)
    with pytest.raises(KeyboardInterrupt):
        machine.handle(study.Rate(2))
    assert card_info(collection.store, "c-one", T0).reviews == [before]


class HeldLock:
    """Another process's long write on the database ``db``: its lock is held until a session has
    waited for it twice (the session's ``waiting`` is this one's)."""

    def __init__(self, db) -> None:
        import sqlite3

        self.holder = sqlite3.connect(db, isolation_level=None)
        self.holder.execute("BEGIN IMMEDIATE")
        self.waits: list[str] = []

    def waiting(self, busy) -> None:
        self.waits.append(str(busy))
        if len(self.waits) == 2:
            self.holder.execute("COMMIT")

    def close(self) -> None:
        self.holder.close()


@pytest.mark.parametrize("event", ["bury", "suspend", "undo", "rerate", "edit"])
def test_bury_suspend_undo_and_another_rating_wait_for_a_write_lock_held_long(deck_folder, monkeypatch, tmp_path, event):
    """Only an answer waited for another process's long write: bury, suspend, undo and another
    rating ended the session with "is locked"."""
    monkeypatch.setenv("QUIZ_NOW", T0.isoformat())
    monkeypatch.setenv("QUIZ_BUSY_TIMEOUT_MS", "100")
    machine = session(open_collection(deck_folder(DECK), tmp_path / "app.db"), ("choice",))
    [shown] = machine.start()
    if event in ("undo", "rerate"):
        machine.handle(study.Answer("B"))  # right: Good or Easy
    held = HeldLock(tmp_path / "app.db")
    machine.waiting = Waiting(held.waiting)
    steps = {"bury": study.Bury(), "suspend": study.Suspend(), "undo": study.Undo(), "rerate": study.Rate(1),
             "edit": study.Edited()}
    if event == "edit":  # the card edited in $EDITOR meanwhile: the decks are read and synced again
        deck = tmp_path / "decks" / "mini.yaml"
        deck.write_text(deck.read_text("utf-8").replace("选哪个", "选哪个（改）"), "utf-8")
    views = machine.handle(steps[event])
    held.close()
    assert len(held.waits) == 2 and "locked" in held.waits[0]
    record = card_info(machine.collection.store, shown.card_id, T0)
    changed = {"bury": record.buried_until is not None, "suspend": record.suspended,
               "undo": record.reviews == [], "rerate": [r.rating for r in record.reviews] == [1],
               "edit": "（改）" in getattr(views[-1], "front", "")}
    assert changed[event], views


def test_marks_wait_for_a_write_lock_held_long_and_are_not_lost(deck_folder, monkeypatch, tmp_path):
    """Recording an exam's scores after marking ended the exam with "is locked": the marks, held
    only in memory, were lost, and `--resume` asked for them again."""
    monkeypatch.setenv("QUIZ_NOW", T0.isoformat())
    monkeypatch.setenv("QUIZ_BUSY_TIMEOUT_MS", "100")
    machine = exam_of(open_collection(deck_folder(DECK), tmp_path / "app.db"), Clock())
    typed = {"q-one": "答", "m-one": "说反了", "c-one": "b", "z-one": "15%; 80%; [MASK]"}
    views = machine.begin()
    while isinstance(views[-1], exam_views.QuestionView):
        views = machine.handle(exam_views.Answer(typed[views[-1].card_id]))
    held = HeldLock(tmp_path / "app.db")
    machine.waiting = Waiting(held.waiting)
    while isinstance(views[-1], exam_views.MarkView):
        views = machine.handle(exam_views.Mark("a"))
    held.close()
    assert isinstance(views[-1], exam_views.Report) and len(held.waits) == 2
    [(exam, _, _)] = exam_store.history(machine.store)
    assert exam.finished_at is not None
    reviewed = [q for q in exam_store.questions(machine.store, exam.id) if q.review_id is not None]
    assert len(reviewed) == 4
