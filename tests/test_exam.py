"""`quiz exam`: a scripted mock interview, its score and report, the clock, kills and resume."""

from __future__ import annotations

import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from typer.testing import CliRunner

from quizzer import kinds
from quizzer.app import notebook
from quizzer.app import paper as paper_of
from quizzer.scheduling import answer as answering
from quizzer.scheduling import queue as queues
from quizzer.scheduling.summary import card_info
from quizzer.store import exams as exam_store
from quizzer.store.filter import CardFilter
from quizzer.store.records import PaperSpec
from quizzer.cli import app
from quizzer.base.errors import DatabaseError
from quizzer.decks import load_decks
from quizzer.store import open_store

from conftest import MINI_DECK, run_in_terminal

runner = CliRunner()
T0 = datetime(2026, 1, 5, 10, 0, tzinfo=timezone.utc)

DECK = MINI_DECK + """\
  - {id: q-qa, kind: qa, source: "1.1", question: BERT 是什么？, answer: 双向编码器。, points: [Encoder-only, 双向注意力, MLM 预训练]}
  - {id: q-right, kind: choice, source: "1.2", question: 选乙, options: [甲, 乙, 丙], answer: B, explanation: 乙对。}
  - {id: q-wrong, kind: choice, source: "1.3", question: 选丙, options: [甲, 乙, 丙], answer: C, explanation: 丙对。}
  - {id: q-num, kind: numeric, source: "1.4", checker: mlm_loss, params: {}}
  - {id: q-mis, kind: mistake, source: "1.5", claim: BERT 是 Decoder, correction: 它是 Encoder-only, why: 没有 causal mask}
"""


@pytest.fixture
def deck_dir(deck_folder) -> Path:
    return deck_folder(DECK)


def run(deck_dir: Path, args: list[str], lines: list[str] = (), when: datetime = T0):
    result = runner.invoke(app, [*args, "--decks", str(deck_dir)], input="".join(l + "\n" for l in lines),
                           env={"QUIZ_NOW": when.isoformat(), "COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    return result


def paper(deck_dir: Path, seed: int, count: int = 5, kinds: list[str] | None = None) -> list[paper_of.Item]:
    """The paper `quiz exam --seed` will draw (the store must be synced first)."""
    cards = {c.id: c for d in load_decks([deck_dir]) for c in d.deck.cards}
    return paper_of.draw_paper(open_store(), cards, PaperSpec(count, kinds=kinds), seed, T0)


def numeric_answer(deck_dir: Path, item: paper_of.Item) -> str:
    card = next(c for d in load_decks([deck_dir]) for c in d.deck.cards if c.id == item.card_id)
    return kinds.of(card).ask(card, item.seed).drawn.answer_text


def test_scripted_exam_scores_reports_and_feeds_mistakes_and_study(deck_dir):
    run(deck_dir, ["exam", "--history"])  # creates and syncs the store
    items = paper(deck_dir, seed=7)
    assert sorted(i.card_id for i in items) == ["q-mis", "q-num", "q-qa", "q-right", "q-wrong"]
    first_round = {
        "q-qa": ["Encoder-only，用 MLM 训练，" + "很长的解释" * 8],  # free text, marked below: points 1 and 3 of 3
        "q-right": ["b"],
        "q-wrong": ["A"],
        "q-num": ["not a number", numeric_answer(deck_dir, next(i for i in items if i.card_id == "q-num"))],
        "q-mis": [""],  # skipped
    }
    lines = [line for item in items for line in first_round[item.card_id]]
    lines += ["!f"]  # the skipped question comes round again: hand in instead
    lines += ["1 3"]  # marking the free-text answer
    result = run(deck_dir, ["exam", "--seed", "7", "--count", "5"], lines)

    assert "Cannot read" in result.stdout  # the format error asked again, without grading
    expected = 100 * (2 / 3 + 1 + 0 + 1 + 0) / 5
    assert f"{expected:.1f} / 100" in result.stdout
    rows = {line.split("│")[2].strip(): line for line in result.stdout.splitlines() if line.count("│") == 7}
    assert "0.67" in rows["q-qa"] and "1.00" in rows["q-right"] and "0.00" in rows["q-wrong"]
    assert "1.00" in rows["q-num"] and "(skipped)" in rows["q-mis"]
    assert "Right answer: C" in result.stdout  # the wrong choice is explained
    skipped = result.stdout.split("q-mis ·")[1].split("╰")[0]  # a mistake's answer is labelled: under "Right answer"
    assert "Right answer: In fact" not in skipped and "In fact: 它是 Encoder-only" in skipped, skipped
    missed = result.stdout.split("Key points not covered")[1].split("╰")[0].splitlines()[1:]  # 1 and 3 of 3 marked
    assert [line.strip(" │•") for line in missed if line.strip(" │")] == ["双向注意力"]
    # the answer cell was cut at 40 characters without a mark; the question's panel has it whole
    assert "Encoder-only，用 MLM 训练，很长的解释" in rows["q-qa"] and "很长的解释" * 8 in result.stdout
    by_section = result.stdout.split("By section")[1].split("By tag")[0]
    assert "mini §1" in by_section  # the deck too: two decks may each have a §1

    store = open_store()
    [stored] = exam_store.history(store)
    assert stored[0].score == pytest.approx(expected) and stored[0].finished_at == T0
    questions = {q.card_id: q for q in exam_store.questions(store, stored[0].id)}
    assert {k: q.status for k, q in questions.items()} == {
        "q-qa": "answered", "q-right": "answered", "q-wrong": "answered", "q-num": "answered", "q-mis": "skipped"}
    assert questions["q-qa"].covered == [1, 3]
    ratings = {cid: card_info(store, cid, T0).reviews[-1] for cid in questions}
    assert {cid: r.rating for cid, r in ratings.items()} == {"q-qa": 2, "q-right": 3, "q-wrong": 1, "q-num": 3, "q-mis": 1}
    assert all(r.mode == "exam" for r in ratings.values())

    assert [e.card_id for e in notebook.entries(store)] in (["q-wrong", "q-mis"], ["q-mis", "q-wrong"])
    listed = run(deck_dir, ["mistakes"]).stdout
    assert "q-wrong" in listed and "q-mis" in listed and "q-right" not in listed

    later = T0 + timedelta(hours=1)
    queue = queues.build_queue(store, later)
    assert set(queue[:2]) == {"q-wrong", "q-mis"}  # due first in the next study session


def test_never_seen_cards_an_exam_asks_leave_the_new_cards_a_day_as_they_were(deck_dir):
    """An exam is extra practice, as an Anki filtered deck: study still offers its new cards."""
    run(deck_dir, ["exam", "--history"])
    items = paper(deck_dir, seed=3, count=2, kinds=["choice"])
    answers = {"q-right": "B", "q-wrong": "C"}
    run(deck_dir, ["exam", "--seed", "3", "--count", "2", "--kind", "choice"], [answers[i.card_id] for i in items])
    store = open_store()
    assert {r.mode for cid in answers for r in card_info(store, cid, T0).reviews} == {"exam"}  # both were new
    assert len(queues.new_offered(store, T0 + timedelta(minutes=5), new_per_day=2)) == 2


def server_gone(write, counted=lambda kwargs: True):
    """``write`` for the first call ``counted`` finds, then the error of a server that went down."""
    calls = []

    def once(*args, **kwargs):
        calls.append(counted(kwargs))
        if sum(calls) > 1:
            raise DatabaseError("postgresql://db/quiz: cannot connect to the database server", "is the server running?")
        return write(*args, **kwargs)

    return once


def test_an_answer_the_database_refuses_is_named_and_resume_asks_it_again(deck_dir, monkeypatch):
    """The server went down as an answer was given: the error said "cannot connect" and no more."""
    run(deck_dir, ["exam", "--history"])
    items = paper(deck_dir, seed=3, count=2, kinds=["choice"])
    answers = {"q-right": "B", "q-wrong": "C"}
    saved = exam_store.save_answer
    monkeypatch.setattr(exam_store, "save_answer", server_gone(saved, lambda kwargs: kwargs.get("status") == "answered"))
    lines = "".join(answers[i.card_id] + "\n" for i in items)
    result = runner.invoke(app, ["exam", "--seed", "3", "--count", "2", "--kind", "choice", "--decks", str(deck_dir)],
                           input=lines, env={"QUIZ_NOW": T0.isoformat()})
    assert result.exit_code == 1 and result.stderr.strip() == (
        "Error: postgresql://db/quiz: cannot connect to the database server (the answer to question 2 was not saved; "
        "`quiz exam --resume` asks it again; is the server running?)"), result.stderr
    monkeypatch.setattr(exam_store, "save_answer", saved)
    resumed = run(deck_dir, ["exam", "--resume"], [answers[items[1].card_id]])
    assert "Question 2 of 2" in resumed.stdout and "Question 1 of 2" not in resumed.stdout, resumed.stdout
    assert "100.0 / 100" in resumed.stdout, resumed.stdout


def test_scores_the_database_refuses_at_hand_in_are_saved_by_resume(deck_dir, monkeypatch):
    from quizzer.app import exam as exam_app

    run(deck_dir, ["exam", "--history"])
    items = paper(deck_dir, seed=3, count=2, kinds=["choice"])
    answers = {"q-right": "B", "q-wrong": "A"}
    saved = exam_app.record_answer
    monkeypatch.setattr(exam_app, "record_answer", server_gone(saved))
    result = runner.invoke(app, ["exam", "--seed", "3", "--count", "2", "--kind", "choice", "--decks", str(deck_dir)],
                           input="".join(answers[i.card_id] + "\n" for i in items), env={"QUIZ_NOW": T0.isoformat()})
    assert result.exit_code == 1 and "(the exam's scores are not all saved; `quiz exam --resume` saves the rest; is the server" in result.stderr
    monkeypatch.setattr(exam_app, "record_answer", saved)
    resumed = run(deck_dir, ["exam", "--resume"])
    assert "50.0 / 100" in resumed.stdout, resumed.stdout
    store = open_store()
    assert {cid: [r.rating for r in card_info(store, cid, T0).reviews] for cid in answers} == {"q-right": [3], "q-wrong": [1]}


def test_a_full_width_command_from_a_chinese_input_method_is_the_command(deck_dir):
    """！ｆ was saved as the answer and the paper went on."""
    run(deck_dir, ["exam", "--history"])
    result = run(deck_dir, ["exam", "--seed", "2", "--count", "2", "--kind", "choice"], ["！ｆ"])
    store = open_store()
    [(exam, questions, answered)] = exam_store.history(store)
    assert exam.finished_at is not None and (questions, answered) == (2, 0) and "！ｆ" not in result.stdout


def test_a_wrong_answer_in_the_drill_starts_the_notebook_days_again(deck_dir):
    """Failed in the drill the day after the exam, right the day after: the card left the
    notebook, though it was wrong the day before."""
    run(deck_dir, ["exam", "--history"])
    run(deck_dir, ["exam", "--seed", "1", "--count", "2", "--kind", "choice"], ["A", "A"])  # both wrong

    def drill(day: int, answer: str) -> None:  # the same letter to both cards: q-right's is B, q-wrong's C
        run(deck_dir, ["mistakes", "--drill"], [answer, answer, "!q"], when=T0 + timedelta(days=day))

    def noted() -> dict[str, tuple[int, int, str | None]]:
        return {e.card_id: (e.times_wrong, e.right_days, e.last_wrong_answer) for e in notebook.entries(open_store())}

    assert noted()["q-wrong"] == (1, 0, "A")
    drill(1, "B")  # wrong again
    assert noted()["q-wrong"] == (2, 0, "B")
    drill(2, "C")
    assert noted()["q-wrong"] == (2, 1, "B")
    drill(3, "C")
    assert "q-wrong" not in noted()


def test_a_half_way_score_by_kind_is_shown_as_the_total_is_not_rounded_to_even(deck_dir):
    """12.5 read 12% in the score by kind (Python rounds half to even) beside a total of 12.5."""
    run(deck_dir, ["exam", "--history"])
    items = paper(deck_dir, seed=4, count=2, kinds=["choice"])
    answers = {"q-right": "B", "q-wrong": "A"}  # one right of two: 50
    result = run(deck_dir, ["exam", "--seed", "4", "--count", "2", "--kind", "choice"], [answers[i.card_id] for i in items])
    by_kind = result.stdout.split("By kind")[1].split("By section")[0]
    assert "50.0 / 100" in result.stdout and "50.0%" in by_kind, by_kind


@pytest.mark.parametrize(("args", "says"), [
    (["--history", "--resume"], "--history lists the exams; --resume continues one: not both"),  # --resume was ignored
    (["--resume", "--seed", "3"], "--seed chooses a new paper: not with --resume"),
    (["--history", "--count", "3", "--kind", "qa"], "--count --kind choose a new paper: not with --history"),
])
def test_options_that_do_not_go_together_are_a_usage_error(deck_dir, args, says):
    result = runner.invoke(app, ["exam", *args, "--decks", str(deck_dir)], env={"QUIZ_NOW": T0.isoformat()})
    assert result.exit_code == 2 and result.stderr.startswith(f"Error: {says}"), result.stderr


def test_a_count_beyond_the_cards_there_are_is_said(deck_dir):
    result = run(deck_dir, ["exam", "--count", "100000", "--kind", "choice"], ["!q"])
    assert "Exam 1: 2 questions" in result.stdout and "Only 2 cards can be asked with these options." in result.stdout


def test_a_wrong_numeric_answer_is_reported_with_its_answer_once_in_the_solution(deck_dir):
    """The report said the answer three times: in the verdict, on a "Right answer" line, and at
    the end of the worked solution; the line is left out where the solution ends with it."""
    run(deck_dir, ["exam", "--history"])
    [item] = paper(deck_dir, seed=5, count=1, kinds=["numeric"])
    right = numeric_answer(deck_dir, item)
    result = run(deck_dir, ["exam", "--seed", "5", "--count", "1", "--kind", "numeric"], ["123456"])
    panel = result.stdout.split("q-num ·")[1].split("╰")[0]
    assert "Wrong. The answer is" in panel and "Right answer" not in panel, panel
    assert panel.count(right) == 2 and f"Answer: {right}" in panel  # the verdict's, and the solution's last line


def test_same_seed_same_paper(deck_dir):
    run(deck_dir, ["exam", "--history"])
    first = paper(deck_dir, seed=3, count=4)
    run(deck_dir, ["exam", "--seed", "3", "--count", "4"], ["!q"])
    assert paper(deck_dir, seed=3, count=4) == first
    assert paper(deck_dir, seed=4, count=4) != first
    assert {i.kind for i in first} == {"qa", "choice", "numeric", "mistake"}  # every kind represented


@pytest.mark.parametrize("count", [1, 2, 3, 5, 9])
def test_the_paper_has_the_asked_number_of_distinct_questions(deck_dir, count):
    run(deck_dir, ["exam", "--history"])
    items = paper(deck_dir, seed=count, count=count)
    assert len(items) == min(count, 5) == len({i.card_id for i in items})


def test_weak_spots_are_drawn_more_often(deck_dir):
    """A card with lapses and past exam mistakes appears on more papers than a well-known one."""
    run(deck_dir, ["exam", "--history"])
    store = open_store()
    for card_id in ("q-qa", "q-right", "q-wrong", "q-num", "q-mis"):
        answering.answer(store, card_id, 3, now=T0 - timedelta(days=30), duration_ms=1000)
        answering.answer(store, card_id, 3, now=T0 - timedelta(days=29), duration_ms=1000)
    for day in range(3):  # q-wrong keeps lapsing
        answering.answer(store, "q-wrong", 1, now=T0 - timedelta(days=20 - day), duration_ms=1000)
    picks = [i.card_id for seed in range(300) for i in paper(deck_dir, seed=1000 + seed, count=1)]
    assert picks.count("q-wrong") > 2 * picks.count("q-right")


def test_clock_moved_past_the_limit_scores_the_answered_part(deck_dir):
    run(deck_dir, ["exam", "--history"])
    items = paper(deck_dir, seed=5)
    answers = {"q-right": "B", "q-wrong": "C", "q-qa": "x", "q-mis": "y", "q-num": "1"}
    run(deck_dir, ["exam", "--seed", "5", "--minutes", "10"], [answers[items[0].card_id], answers[items[1].card_id], "!q"])
    history = run(deck_dir, ["exam", "--history"], when=T0 + timedelta(minutes=5)).stdout
    assert "unfinished (--resume)" in history
    assert "minutes allowed" in history  # the time allowed, not taken: "minutes" read as the time spent
    result = run(deck_dir, ["exam", "--resume"], ["a", "a"], when=T0 + timedelta(minutes=11))
    assert "time had run out" in result.stdout
    store = open_store()
    stored = exam_store.questions(store, 1)
    assert [q.status for q in stored] == ["answered", "answered", "unanswered", "unanswered", "unanswered"]
    assert all(not q.score for q in stored[2:])
    assert exam_store.history(store)[0][0].finished_at is not None
    # the third was on screen when `!q` left the exam, to be come back to, and the last two were
    # never shown: they score 0 but are no reviews (it was Again), no lapse, no mistake
    assert [q.review_id is not None for q in stored] == [True, True, False, False, False]
    unreached = {q.card_id for q in stored[2:]}
    for card_id in unreached:
        assert [r for r in card_info(store, card_id, T0 + timedelta(minutes=12)).reviews if r.mode == "exam"] == []
    assert not unreached & {entry.card_id for entry in notebook.entries(store)}


def test_the_report_tells_a_question_shown_and_not_answered_from_one_never_reached(deck_dir):
    """Both read "(unanswered)", though the one on screen at the hand-in is a review of Again and
    a mistake (as in an interview) and the other nothing: the learner could not tell which counted."""
    run(deck_dir, ["exam", "--history"])
    items = paper(deck_dir, seed=5, count=3, kinds=["choice", "mistake"])
    first = {"q-right": "B", "q-wrong": "C", "q-mis": "y"}[items[0].card_id]
    out = run(deck_dir, ["exam", "--seed", "5", "--count", "3", "--kind", "choice", "--kind", "mistake"],
              [first, "!f", "a"] if items[0].card_id == "q-mis" else [first, "!f"]).stdout
    rows = {line.split("│")[2].strip(): line for line in out.splitlines() if line.count("│") == 7}
    assert "(shown, no answer)" in rows[items[1].card_id] and "(not reached)" in rows[items[2].card_id]


def test_an_unfinished_exam_with_little_time_left_says_how_little(deck_dir):
    """"continues it until 22:37" with five seconds to go read as a paper with its time to come."""
    run(deck_dir, ["exam", "--kind", "choice", "--count", "2", "--minutes", "10"], ["!q"])
    late = " ".join(run(deck_dir, [], when=T0 + timedelta(minutes=9, seconds=55)).stdout.split())
    assert re.search(r"continues it until \d\d:\d\d, 00:05 left\.", late), late
    early = " ".join(run(deck_dir, [], when=T0).stdout.split())
    assert re.search(r"continues it until \d\d:\d\d, 10:00 left\.", early), early


def exam_process(tmp_path: Path, deck_dir: Path, *args: str, now: str | None = None) -> subprocess.Popen:
    env = {**os.environ, "QUIZ_DB": os.environ["QUIZ_DB"], "QUIZ_CACHE_DIR": os.environ["QUIZ_CACHE_DIR"],
           "QUIZ_DECKS": str(deck_dir), "COLUMNS": "100"}
    env.pop("QUIZ_NOW", None)
    if now:
        env["QUIZ_NOW"] = now
    return subprocess.Popen([sys.executable, "-m", "quizzer", "exam", *args], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env, bufsize=1,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))  # a runner started with & ignores Ctrl-C


def read_until(proc: subprocess.Popen, marker: str, seen: list[str]) -> None:
    for line in proc.stdout:
        seen.append(line)
        if marker in line:
            return
    raise AssertionError(f"{marker!r} never came:\n{''.join(seen)}")


def typed(proc: subprocess.Popen, keys: str, until: str | None = None, seen: list[str] | None = None) -> None:
    """``keys`` to the exam, then its output read up to ``until`` (into ``seen``)."""
    proc.stdin.write(keys)
    proc.stdin.flush()
    if until is not None:
        read_until(proc, until, [] if seen is None else seen)


def interrupted(proc: subprocess.Popen) -> str:
    """Ctrl-C, then the rest of the output. stdin stays open: a Ctrl-C not obeyed would hang the
    suite, so the process is killed after 60 s."""
    proc.send_signal(signal.SIGINT)
    guard = threading.Timer(60, proc.kill)
    guard.start()
    output = proc.stdout.read()
    guard.cancel()
    return output


@pytest.mark.slow
def test_time_runs_out_in_the_middle_of_typing(tmp_path, deck_dir):
    """A real clock: the exam ends by itself while the learner is still on a question, and the
    half-typed answer is kept (unanswered, with its text), scored and reported as cut off."""
    proc = exam_process(tmp_path, deck_dir, "--kind", "choice", "--minutes", "0.15")  # 9 seconds: a slow machine's first answer must come in time
    seen: list[str] = []
    read_until(proc, "(empty: skip", seen)
    typed(proc, "A\n", "(empty: skip", seen)
    typed(proc, "B")  # half an answer, never finished
    started = time.monotonic()
    guard = threading.Timer(30, proc.kill)  # stdin stays open: only the clock can end this exam
    guard.start()
    output = proc.stdout.read()
    guard.cancel()
    assert proc.wait() == 0 and time.monotonic() - started < 20
    assert "Time is up" in output
    stored = exam_store.questions(open_store(), 1)
    assert [(q.status, q.answer_text) for q in stored] == [("answered", "A"), ("unanswered", "B")]
    right = {"q-right": "B", "q-wrong": "C"}  # the deck's answers
    assert [q.score for q in stored] == [float(right[q.card_id] == given) for q, given in zip(stored, "AB")]
    lines = output.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("│ 2 "))
    assert "│ B " in lines[at] and "(cut off)" in lines[at + 1]  # the mark on the line under the answer
    assert "(2 of 2 answered, 1 of them cut off by the clock" in output  # the cut-off answer is scored as given
    [past] = json.loads(run(deck_dir, ["exam", "--history", "--json"]).stdout)  # it said 1 answered
    assert (past["questions"], past["answered"]) == (2, 2)


@pytest.mark.slow
def test_killed_exam_keeps_its_answers_and_resumes(tmp_path, deck_dir):
    now = T0.isoformat()
    proc = exam_process(tmp_path, deck_dir, "--kind", "choice", "--seed", "9", now=now)
    seen: list[str] = []
    read_until(proc, "(empty: skip", seen)
    first = "选丙" if "选丙" in "".join(seen) else "选乙"
    typed(proc, "C\n", "(empty: skip", seen)  # the first answer is saved before the next question shows
    proc.send_signal(signal.SIGKILL)
    proc.wait()

    db = os.environ["QUIZ_DB"]
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        rows = conn.execute("SELECT status, answer_text FROM exam_questions ORDER BY position").fetchall()
    assert rows == [("answered", "C"), ("unanswered", None)]

    assert "unfinished (--resume)" in run(deck_dir, ["exam", "--history"], when=T0 + timedelta(minutes=1)).stdout
    result = run(deck_dir, ["exam", "--resume"], ["B"], when=T0 + timedelta(minutes=2))
    assert "Question 2 of 2" in result.stdout and "Question 1 of 2" not in result.stdout.split("/ 100")[0]
    store = open_store()
    [(row, total, answered)] = exam_store.history(store)
    assert (total, answered) == (2, 2) and row.finished_at is not None
    # 选丙 answered C is right; the other question, answered B after resuming, is 选乙: right too
    expected = 100.0 if first == "选丙" else 0.0
    assert row.score == pytest.approx(expected)


def test_resume_continues_with_the_unanswered_questions(deck_dir):
    run(deck_dir, ["exam", "--history"])
    items = paper(deck_dir, seed=11, count=2, kinds=["choice"])
    run(deck_dir, ["exam", "--seed", "11", "--count", "2", "--kind", "choice"], ["!q"])
    result = run(deck_dir, ["exam", "--resume"], ["A", "A"], when=T0 + timedelta(minutes=3))
    assert "Exam 1:" in result.stdout and "/ 100" in result.stdout
    questions = exam_store.questions(open_store(), 1)
    assert [(q.card_id, q.status, q.answer_text) for q in questions] == [(i.card_id, "answered", "A") for i in items]
    assert run(deck_dir, ["exam", "--history"]).stdout.count("unfinished") == 0


def test_the_overview_reminds_of_an_exam_left_unfinished_until_it_is_handed_in(deck_dir):
    run(deck_dir, ["exam", "--seed", "11", "--count", "2", "--kind", "choice", "--minutes", "10"], ["!q"])
    running = run(deck_dir, [], when=T0 + timedelta(minutes=3))
    deadline = f"{(T0 + timedelta(minutes=10)).astimezone():%H:%M}"
    assert f"Exam 1 is unfinished: `quiz exam --resume` continues it until {deadline}, 07:00 left." in running.stdout
    expired = run(deck_dir, [], when=T0 + timedelta(days=1))
    assert "Exam 1 is unfinished and its time is up: `quiz exam --resume` scores it." in expired.stdout
    assert json.loads(run(deck_dir, ["--json"], when=T0 + timedelta(days=1)).stdout)["unfinished_exam"] == 1
    run(deck_dir, ["exam", "--resume"], when=T0 + timedelta(days=1))
    assert "unfinished" not in run(deck_dir, [], when=T0 + timedelta(days=1)).stdout
    assert json.loads(run(deck_dir, ["--json"], when=T0 + timedelta(days=1)).stdout)["unfinished_exam"] is None


@pytest.mark.slow
def test_a_new_exam_over_an_unfinished_one_says_so_and_on_a_terminal_takes_it_up_first(deck_dir):
    """`quiz exam` with one left unfinished started a new paper without a word; the old one could
    be taken up only once the new one was done, and one left behind twice could not be reached.
    On a terminal the unfinished paper comes first; a pipe's script is as before, with the note."""
    run(deck_dir, ["exam", "--seed", "11", "--count", "2", "--kind", "choice", "--minutes", "10"], ["!q"])
    piped = run(deck_dir, ["exam", "--count", "1", "--kind", "choice"], ["!q"], when=T0 + timedelta(minutes=3))
    deadline = f"{(T0 + timedelta(minutes=10)).astimezone():%H:%M}"
    note = f"Exam 1 is unfinished: `quiz exam --resume` continues it until {deadline}, 07:00 left."
    assert piped.stdout.startswith(note) and "Exam 2: 1 question" in piped.stdout
    env = {"QUIZ_NOW": (T0 + timedelta(minutes=4)).isoformat(), "QUIZ_LANG": "en"}
    args = ["exam", "--count", "1", "--kind", "choice", "--decks", str(deck_dir)]
    code, screen = run_in_terminal(args, env, ["q"])
    assert code == 0 and "Exam 2 is unfinished" in screen
    assert "[Enter] continue it · q quit (a new paper once it is handed in: !f)" in screen
    assert [exam.id for exam, _, _ in exam_store.history(open_store())] == [1, 2]  # q: nothing started
    code, screen = run_in_terminal(args, env, ["\r", "!f\r"])  # Enter takes exam 2 up
    assert code == 0 and "Exam 3" not in screen and "Exam 2: " in screen
    late = {**env, "QUIZ_NOW": (T0 + timedelta(hours=1)).isoformat()}  # exam 1's time is up: scoring it is offered
    code, screen = run_in_terminal(args, late, ["\r"])
    assert code == 0 and "[Enter] score it · q quit (a new paper once it is done)" in screen and "Exam 1: " in screen
    assert all(exam.finished_at is not None for exam, _, _ in exam_store.history(open_store()))


def test_an_exam_resumable_until_another_day_names_that_day(deck_dir):
    """A day-long exam left at 10:00 was "resumable until 10:00": read an hour later, as over."""
    left = run(deck_dir, ["exam", "--seed", "11", "--count", "2", "--kind", "choice", "--minutes", "1440"], ["!q"])
    deadline = T0 + timedelta(days=1)
    assert f"continues it until {deadline.astimezone():%Y-%m-%d %H:%M}, and after" in left.stdout
    later = run(deck_dir, [], when=T0 + timedelta(hours=1)).stdout
    assert f"continues it until {deadline.astimezone():%Y-%m-%d %H:%M}." in later
    today = run(deck_dir, [], when=deadline - timedelta(minutes=30)).stdout  # the same day: the time is enough
    assert f"continues it until {deadline.astimezone():%H:%M}, 30:00 left." in today


def test_a_mistake_leaves_the_notebook_after_two_right_days(deck_dir):
    run(deck_dir, ["exam", "--history"])
    run(deck_dir, ["exam", "--seed", "2", "--count", "2", "--kind", "choice"], ["A", "A", "!f"])  # both wrong
    store = open_store()
    assert [e.card_id for e in notebook.entries(store)] == ["q-right", "q-wrong"]
    right = {"q-right": "B", "q-wrong": "C"}
    for day in (1, 2):
        when = T0 + timedelta(days=day)
        drill = run(deck_dir, ["mistakes", "--drill"], [right[e.card_id] for e in notebook.entries(store)], when=when)
        assert "saved q-right" in drill.stdout and "saved q-wrong" in drill.stdout
        assert [e.right_days for e in notebook.entries(store)] == ([1, 1] if day == 1 else [])
    assert "notebook is empty" in run(deck_dir, ["mistakes"], when=T0 + timedelta(days=2)).stdout


def test_history_shows_the_trend(deck_dir):
    run(deck_dir, ["exam", "--history"])
    for seed, when in ((21, T0), (22, T0 + timedelta(days=1))):
        items = paper(deck_dir, seed=seed, count=2, kinds=["choice"])
        answers = {"q-right": "B", "q-wrong": "C"}
        run(deck_dir, ["exam", "--seed", str(seed), "--count", "2", "--kind", "choice"],
            [answers[i.card_id] for i in items] + ["!f"], when=when)
    result = run(deck_dir, ["exam", "--history"])
    assert "Trend: ▅▅  (first 100.0 → last 100.0)" in result.stdout and result.stdout.count("100.0") == 4
    items = paper(deck_dir, seed=23, count=2, kinds=["choice"])  # a drop from 100 to 50 (one of two right)
    run(deck_dir, ["exam", "--seed", "23", "--count", "2", "--kind", "choice"], ["B" for _ in items] + ["!f"],
        when=T0 + timedelta(days=2))
    assert "Trend: ██▁  (first 100.0 → last 50.0)" in run(deck_dir, ["exam", "--history"]).stdout


def test_the_trend_scales_between_the_lowest_and_highest_score():
    """On a fixed 0-100 scale 61 then 50 were both ▅: the drop the learner came to see was not there."""
    from quizzer.terminal.exam import sparkline

    assert sparkline([61, 50]) == "█▁" and sparkline([50, 61, 55.5]) == "▁█▅"
    assert sparkline([80]) == sparkline([80, 80])[:1] == "▅"


@pytest.mark.slow
def test_ctrl_c_leaves_the_exam_resumable(tmp_path, deck_dir):
    proc = exam_process(tmp_path, deck_dir, "--kind", "choice", "--seed", "9", now=T0.isoformat())
    seen: list[str] = []
    read_until(proc, "(empty: skip", seen)
    typed(proc, "C\n", "(empty: skip", seen)
    output = interrupted(proc)
    assert proc.wait() == 130 and "left unfinished, every answer saved" in output and "Traceback" not in output
    assert [q.status for q in exam_store.questions(open_store(), 1)] == ["answered", "unanswered"]


def test_leaving_at_the_marking_keeps_the_rest_for_resume_and_says_how_the_answering_ended(deck_dir):
    """Ctrl-D (the end of input) at a marking prompt marked the answer as covering nothing, a
    review of Again, and went on: at an answer prompt it leaves. And a paper whose time ran out
    was resumed as "handed in before it was left", which the learner never did."""
    run(deck_dir, ["exam", "--kind", "qa", "--kind", "mistake", "--count", "2", "--minutes", "10"], ["双向", "!q"])
    late = run(deck_dir, ["exam", "--resume"], [], when=T0 + timedelta(hours=1))  # its time is up: to the marking
    assert "time had run out" in late.stdout and "left during its marking" in " ".join(late.stdout.split())
    assert [q.review_id for q in exam_store.questions(open_store(), 1)] == [None, None]  # nothing marked, no review
    resumed = run(deck_dir, ["exam", "--resume"], ["a"], when=T0 + timedelta(hours=2))
    assert "This exam's time was up before it was left: the marking goes on." in " ".join(resumed.stdout.split())
    assert exam_store.latest_unfinished(open_store()) is None


def test_a_mark_taken_back_leaves_no_trace_and_is_given_again(deck_dir):
    """A mistyped mark (empty: nothing covered, a review of Again and a mistake) could not be taken back."""
    run(deck_dir, ["exam", "--kind", "qa", "--kind", "mistake", "--count", "2"], ["答一", "答二", "", "!u", "a", "a"])
    store = open_store()
    questions = exam_store.questions(store, 1)
    assert [q.score for q in questions] == [1.0, 1.0] and sorted(len(q.covered or []) for q in questions) == [2, 3]
    for question in questions:
        [review] = card_info(store, question.card_id, T0).reviews  # the one taken back is gone
        assert review.rating == 3 and review.correct
    assert exam_store.mistakes(store) == ([], []) and exam_store.history(store)[0][0].score == 100


def test_a_mark_taken_back_gives_the_notebook_its_earlier_mistake_back(deck_dir):
    run(deck_dir, ["exam", "--kind", "qa", "--kind", "mistake", "--count", "2"], ["答一", "答二", "", ""])
    store = open_store()
    before = {m.card_id: m for m in exam_store.mistakes(store)[0]}
    assert {m.times_wrong for m in before.values()} == {1}
    later = T0 + timedelta(days=2)
    run(deck_dir, ["exam", "--kind", "qa", "--kind", "mistake", "--count", "2"], ["答三", "答四", "", "!u", "a", ""],
        when=later)
    second = exam_store.questions(store, 2)
    after = {m.card_id: m for m in exam_store.mistakes(store)[0]}
    assert after[second[0].card_id] == before[second[0].card_id]  # as the first exam left it
    assert after[second[1].card_id].times_wrong == 2 and after[second[1].card_id].last_wrong_answer == "答四"
    assert "No mark to take back." in run(deck_dir, ["exam", "--kind", "qa", "--count", "1"], ["答", "!u", "a"],
                                          when=later).stdout


@pytest.mark.slow
def test_on_a_terminal_the_last_mark_can_be_taken_back_before_the_report(deck_dir):
    from conftest import Terminal

    with Terminal(["exam", "--decks", str(deck_dir), "--kind", "qa", "--count", "1"],
                  {"QUIZ_NOW": T0.isoformat(), "QUIZ_LANG": "en"}) as term:
        term.expect("answer (")
        term.send("双向编码器\r")
        after = term.expect("points covered")
        term.send("\r")  # meant "a"
        after = term.expect("Every answer is marked. Enter: the report · !u: take back the last mark", after=after)
        term.send("!u\r")
        after = term.expect("a: all of 1-3 · !q: leave)", after=term.expect("Mark question 1", after=after))
        term.send("a\r")
        term.expect("Every answer is marked.", after=after)
        term.send("\r")
        term.expect("100.0 / 100", after=after)
        assert term.wait() == 0
    [review] = card_info(open_store(), "q-qa", T0).reviews
    assert review.rating == 3 and exam_store.mistakes(open_store()) == ([], [])


LIST_ANSWER = MINI_DECK + """\
  - id: q-list
    kind: qa
    source: "1.1"
    question: 三类架构的输出分别怎么用？
    answer: |
      - Encoder-only：取 [CLS]
      - Decoder-only：LM head 生成
    points: [Encoder-only, Decoder-only]
"""


def test_a_model_answer_that_is_a_list_is_shown_under_its_label(deck_folder):
    """"Model answer: - Encoder-only：…" ran the list's first item on after the label, the rest as
    bullets; and a one-minute paper said "1 minutes allowed"."""
    folder = deck_folder(LIST_ANSWER)
    out = run(folder, ["exam", "--minutes", "1"], ["编码器", ""]).stdout
    marking = out.split("Mark question 1")[1].split("╰")[0]
    lines = [line.strip(" │") for line in marking.splitlines()]
    assert "Model answer" in lines and "- Encoder" not in marking, marking  # the label alone, then the list
    assert lines[lines.index("Model answer") + 2].startswith("• Encoder-only：取 [CLS]")
    assert "(0 of 1 answered, 1 minute allowed)" not in out and "1 of 1 answered, 1 minute allowed)" in out


@pytest.mark.slow
def test_ctrl_c_while_marking_resumes_the_marking_not_the_answering(tmp_path, deck_dir):
    """Ctrl-C at the marking of a handed-in paper said it was left unfinished, and `--resume`
    asked the questions again: the learner had seen the model answer."""
    proc = exam_process(tmp_path, deck_dir, "--kind", "qa", "--count", "1", now=T0.isoformat())
    seen: list[str] = []
    read_until(proc, "(empty: skip", seen)
    typed(proc, "双向编码器\n", "points covered", seen)
    output = interrupted(proc)
    assert proc.wait() == 130 and "left during its marking" in output and "Traceback" not in output
    assert "was handed in and is not all marked" in " ".join(run(deck_dir, []).stdout.split())
    code, screen = run_in_terminal(["exam", "--decks", str(deck_dir)], {"QUIZ_NOW": T0.isoformat(), "QUIZ_LANG": "en"},
                                   ["q"])
    assert code == 0 and "[Enter] mark it · q quit (a new paper once it is done)" in screen
    resumed = run(deck_dir, ["exam", "--resume"], ["1 2"])
    assert "handed in before it was left" in resumed.stdout and "(empty: skip" not in resumed.stdout
    [question] = exam_store.questions(open_store(), 1)
    assert question.score == pytest.approx(2 / 3) and question.review_id is not None
    assert exam_store.latest_unfinished(open_store()) is None


def test_resume_after_a_card_left_the_decks(deck_folder, deck_dir):
    run(deck_dir, ["exam", "--seed", "4", "--count", "2", "--kind", "choice"], ["!q"])
    deck_folder(DECK.replace("  - {id: q-wrong,", "  - {id: q-gone,"))  # q-wrong is removed (renamed)
    result = run(deck_dir, ["exam", "--resume"], ["B"], when=T0 + timedelta(minutes=1))
    assert "/ 100" in result.stdout
    stored = {q.card_id: q for q in exam_store.questions(open_store(), 1)}
    assert stored["q-right"].status == "answered" and stored["q-wrong"].status == "unanswered"


def test_an_answer_to_a_card_gone_before_hand_in_feeds_nothing_to_study(deck_folder, deck_dir):
    """A question answered, then its card removed from the decks, then the paper handed in: it
    was scored 0, logged as an Again review and put in the mistakes notebook, right or not."""
    from quizzer.store import cards as card_store

    run(deck_dir, ["exam", "--seed", "4", "--count", "2", "--kind", "choice"], ["B", "!q"])
    answered = next(q.card_id for q in exam_store.questions(open_store(), 1) if q.status == "answered")
    deck_folder("\n".join(line for line in DECK.splitlines() if f"id: {answered}," not in line) + "\n")
    run(deck_dir, ["exam", "--resume"], ["!f"], when=T0 + timedelta(minutes=1))
    store = open_store()
    assert card_store.reviews(store, answered) == [] and answered not in {m.card_id for m in exam_store.mistakes(store)[0]}
    assert exam_store.get(store, 1).finished_at is not None


def test_drill_skips_suspended_cards_and_exam_options_are_checked(deck_dir):
    run(deck_dir, ["exam", "--seed", "2", "--count", "2", "--kind", "choice"], ["A", "A", "!f"])  # both wrong
    drill = run(deck_dir, ["mistakes", "--drill"], ["!s", "!q"], when=T0 + timedelta(days=1))
    assert "Suspended" in drill.stdout
    again = run(deck_dir, ["mistakes", "--drill"], ["!q"], when=T0 + timedelta(days=1))
    suspended = drill.stdout.split("Suspended: ")[1].split()[0]
    assert f"{suspended} " not in again.stdout.split("╭")[1]  # the suspended card is not drilled again
    for args, said in ((["--minutes", "0"], "--minutes must be from 0.01 to 1440 (a day), not 0"),
                       (["--minutes", "-1"], "--minutes must be from 0.01 to 1440 (a day), not -1"),
                       (["--count", "0"], "Invalid value for '--count'"), (["--count", "-1"], "Invalid value for '--count'")):
        result = runner.invoke(app, ["exam", "--decks", str(deck_dir), *args])
        assert result.exit_code == 2 and said in result.output, result.output


def test_cloze_in_an_exam_through_the_cli(deck_folder):
    """A cloze question is read when answered (wrong count asked again) and scored by its blanks."""
    folder = deck_folder(DECK + '  - {id: q-cloze, kind: cloze, source: "1.6", text: "遮 {{c1::15%}}，其中 {{c2::80%}} 换成 MASK"}\n')
    run(folder, ["exam", "--history"])
    result = run(folder, ["exam", "--seed", "5", "--count", "1", "--kind", "cloze"], ["15%", "15%; 70%", "!f"])
    assert "Type 2 answers" in result.stdout and "50.0 / 100" in result.stdout
    [question] = exam_store.questions(open_store(), 1)
    assert (question.answer_text, question.score) == ("15%; 70%", 0.5)
    assert card_info(open_store(), "q-cloze", T0).reviews[-1].rating == 2  # half right → Hard
    # the report says which blank was wrong, as study does (it gave only the score and the answer)
    assert "✗ blank 2 wrong; the answer is" in " ".join(result.stdout.split())


@pytest.mark.parametrize("args", [["--history", "--count", "3"], ["--resume", "--deck", "mini", "--seed", "1"]])
def test_paper_options_with_history_or_resume_are_a_usage_error(deck_dir, args):
    """`quiz exam --history --count 3` dropped --count without a word."""
    result = runner.invoke(app, ["exam", *args, "--decks", str(deck_dir)], env={"QUIZ_NOW": T0.isoformat()})
    assert result.exit_code == 2 and "choose" in result.stderr and args[0] in result.stderr, result.output


@pytest.mark.parametrize("seed", ["99999999999999999999", "-1"])
def test_a_seed_out_of_range_is_a_usage_error_and_no_exam_starts(deck_dir, seed):
    result = runner.invoke(app, ["exam", "--seed", seed, "--decks", str(deck_dir)], input="",
                           env={"QUIZ_NOW": "2026-01-05T10:00"})
    assert result.exit_code == 2 and "--seed" in result.output  # it was an OverflowError from SQLite
    history = runner.invoke(app, ["exam", "--history", "--json", "--decks", str(deck_dir)])
    assert json.loads(history.stdout) == []


def test_a_papers_section_is_named_once_in_the_question_and_the_report():
    """A question from a paper was headed `§Holtzman2020§3.1`, and the report grouped it as
    `§Holtzman2020§3` beside the decks' sections."""
    result = runner.invoke(app, ["exam", "--deck", "interview-numbers", "--count", "1", "--minutes", "5"], input="!f\n",
                           env={"QUIZ_NOW": T0.isoformat(), "COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    header = next(line for line in result.stdout.splitlines() if line.startswith("╭─ Question 1 of 1"))
    assert re.search(r" · [A-Za-z]+\d{4}§[\d.]+ ─", header) and not re.search(r"§[A-Za-z]", header), header
    # the deck's title, as study gives it: "§4.3" alone could be either chapter's
    assert "Question 1 of 1 · 05:00 left · 面试数字题：Transformer 与大模型 · numeric · " in header, header
    by_section = result.stdout.split("By section")[1].split("By tag")[0]
    assert re.search(r"interview-numbers [A-Za-z]+\d{4}§\d+ ", by_section), by_section


@pytest.mark.parametrize("columns", [80, 100])
def test_the_report_keeps_each_card_id_whole_before_the_kind_and_the_seconds(columns):
    """At 80 columns the question table folded `d12-cloze-gpt-weight-tying` as `…-tyi` / `ng`."""
    result = runner.invoke(app, ["exam", "--count", "6", "--minutes", "5", "--seed", "5"], input="!f\n",
                           env={"QUIZ_NOW": T0.isoformat(), "COLUMNS": str(columns)})
    assert result.exit_code == 0, result.output
    table = result.stdout.split("Questions")[1].split("└")[0]
    ids = [q.card_id for q in exam_store.questions(open_store(), 1)]
    assert all(f"│ {card_id} " in table for card_id in ids), table
    assert ("seconds" in table) == (columns == 100)  # the first to go on a narrow terminal


@pytest.mark.parametrize("chosen", [CardFilter(), CardFilter(("mini",), None, ("qa", "choice")), CardFilter(None, ("t",), None)])
def test_a_papers_stored_spec_gives_back_the_cards_it_was_drawn_from(chosen):
    spec = chosen.paper(5)
    assert json.loads(spec.to_json())["count"] == 5 and CardFilter.of_paper(spec) == chosen


def test_a_report_group_is_plain_text_the_table_escapes_once():
    """The section group was escaped for markup, then again by the table: a bracket showed a backslash."""
    from quizzer.app.exam_views import ReportRow
    from quizzer.terminal.exam import chapter

    row = ReportRow(0, "c", "qa", "d", "[a]1.2", [], "answered", "x", False, 1, 1.0, "q", "a", None)
    assert chapter(row) == "d §[a]1"


@pytest.mark.parametrize("minutes, shown", [("inf", "inf"), ("1e308", "1e+308"), ("1441", "1441"), ("0", "0"), ("nan", "nan"),
                                            ("0.001", "0.001"), ("1440.0000001", "1440.0000001")])
def test_minutes_out_of_range_are_refused_naming_the_range(deck_dir, minutes, shown):
    """`nan` passed every bound and was then refused as "less than or equal to 1440"."""
    refused = runner.invoke(app, ["exam", "--minutes", minutes, "--decks", str(deck_dir)], env={"QUIZ_NOW": T0.isoformat()})
    assert refused.exit_code == 2
    assert refused.stderr == f"Error: --minutes must be from 0.01 to 1440 (a day), not {shown} (`quiz exam -h` for help)\n"


@pytest.mark.parametrize("minutes", ["inf", "1e308", "1441"])
def test_minutes_past_a_day_stored_by_an_older_quiz_break_nothing(deck_dir, minutes):
    """`--minutes inf` was taken and saved: every later `quiz`, `exam --history` and `--resume` then
    failed with "unexpected OverflowError", and `quiz check` said ok."""
    run(deck_dir, ["exam", "--seed", "11", "--count", "2", "--kind", "choice"], ["!q"])
    with sqlite3.connect(os.environ["QUIZ_DB"]) as conn:  # as an older quiz saved it
        conn.execute("UPDATE exams SET minutes = ?", (float(minutes),))
    assert "Exam 1 is unfinished" in run(deck_dir, []).stdout
    assert "unfinished" in run(deck_dir, ["exam", "--history"]).stdout
    checked = runner.invoke(app, ["check"], env={"QUIZ_NOW": T0.isoformat()})
    assert checked.exit_code == 1 and "exams: an exam whose time allowed is not from 0.01 to 1440 minutes: 1" in checked.stdout


def test_the_exam_s_first_line_counts_in_the_singular_too(deck_dir):
    """It said "Exam 1: 1 questions, 1 minutes"."""
    started = run(deck_dir, ["exam", "--count", "1", "--minutes", "1", "--kind", "choice"], ["!q"])
    assert "Exam 1: 1 question, 1 minute (seed " in started.stdout
    assert "Exam 2: 2 questions, 0.5 minutes (seed " in run(deck_dir, ["exam", "--count", "2", "--minutes", "0.5",
                                                                       "--kind", "choice"], ["!q"]).stdout


def test_a_mistake_card_s_missed_point_is_named_not_repeated(deck_dir):
    """The report printed the card's reason under the right answer, then again, word for word, as
    the key point not covered ("Says why: …")."""
    result = run(deck_dir, ["exam", "--count", "1", "--kind", "mistake"], ["它是 Encoder-only", "1"])
    panel = result.stdout.split("Key points not covered")[1].split("╰")[0]
    assert [line.strip(" │•") for line in panel.splitlines()[1:] if line.strip(" │")] == ["Says why"]
    report = result.stdout.split("Exam 1:")[-1]  # after the marking screen, which lists each point whole
    assert report.count("没有 causal mask") == 1, report


def test_the_report_shows_kind_and_seconds_whenever_they_fit_beside_whole_ids(deck_folder):
    """At 80 columns a paper of choice cards with 28-character ids lost the kind and the seconds
    columns with room to spare: a fixed 55 columns was kept for them."""
    long_ids = DECK.replace("id: q-right,", "id: c-" + "r" * 26 + ",").replace("id: q-wrong,", "id: c-" + "w" * 26 + ",")
    folder = deck_folder(long_ids)
    result = runner.invoke(app, ["exam", "--count", "2", "--kind", "choice", "--decks", str(folder)], input="A\nA\n",
                           env={"QUIZ_NOW": T0.isoformat(), "COLUMNS": "80"})
    header = next(line for line in result.stdout.splitlines() if "your answer" in line)
    assert "kind" in header and "seconds" in header and max(map(len, result.stdout.splitlines())) <= 80, result.stdout
    assert "c-" + "r" * 26 in result.stdout  # whole


def test_a_report_of_an_exam_no_longer_stored_says_so(deck_dir):
    """It raised "no unfinished exam to resume", which is about --resume, not a report."""
    from quizzer.app.collection import open_collection
    from quizzer.app.exam_report import report
    from quizzer.base.errors import DatabaseError

    collection = open_collection(deck_dir, None)
    with pytest.raises(DatabaseError, match=r"^exam 4242 is not in ") as raised:
        report(collection, 4242)
    assert raised.value.hint == "`quiz exam --history` lists the exams there"


def test_a_section_with_brackets_is_shown_as_written_in_every_title(deck_folder):
    """The titles became Text, but still took the section escaped for markup: `§1.1[a]` read `§1.1\\[a]`."""
    folder = deck_folder(DECK.replace('source: "1.1"', 'source: "1.1[a]"'))
    env = {"QUIZ_NOW": T0.isoformat(), "COLUMNS": "120"}
    studied = runner.invoke(app, ["study", "--kind", "qa", "--decks", str(folder)], input="q\n", env=env)
    examined = runner.invoke(app, ["exam", "--kind", "qa", "--count", "1", "--decks", str(folder)], input="!q\n", env=env)
    shown = runner.invoke(app, ["show", "q-qa", "--decks", str(folder)], env=env)
    for result in (studied, examined, shown):
        title = next(line for line in result.stdout.splitlines() if line.startswith("╭") and "§" in line)
        assert "§1.1[a]" in title and "\\" not in title, title


@pytest.mark.parametrize("language", ["en", "zh"])
def test_at_60_columns_the_answer_gives_way_to_a_long_id_and_a_title_keeps_its_score(deck_folder, language):
    """At 60 columns the question table folded a 39-character id over three lines while the answer
    kept 23 columns, and the wrong answer's panel title lost its score (`… · 0.─╮` for 0.25)."""
    from rich.cells import cell_len

    from quizzer.base import i18n

    card_id = "d12-arch-pretraining-objectives-and-more"
    folder = deck_folder(DECK.replace("id: q-qa,", f"id: {card_id},"))
    i18n.use(language)
    try:
        result = runner.invoke(app, ["exam", "--count", "1", "--kind", "qa", "--decks", str(folder)],
                               input="BERT is an encoder-only transformer trained with masked language modelling\n1\n",
                               env={"QUIZ_NOW": T0.isoformat(), "COLUMNS": "60"})
    finally:
        i18n.use("en")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    row = next(i for i, line in enumerate(lines) if line.startswith("│ 1 │ d12-"))
    assert lines[row + 1].startswith("│   │ objectives-and-more "), result.stdout  # two lines, not three
    # an id is never cut (it read `…-and-m─╮`, then `d12-arch-pre…`): too long for the title, it heads the panel
    headed = [i for i, line in enumerate(lines) if line.startswith("╭─ ")
              and (f" {card_id} ─" in line or lines[i + 1].startswith(f"│ {card_id} "))]
    assert len(headed) == 2, result.stdout  # the marking's panel, then the report's
    marking, title = headed
    assert "…" not in lines[marking] + lines[title], result.stdout
    assert " · 0.33 ─" in lines[title] and cell_len(lines[title]) == 60, lines[title]
