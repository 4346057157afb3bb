"""`quiz study` driven as a script (one line per prompt), across simulated days."""

from __future__ import annotations

import json
import re

import os
import sqlite3
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

import fsrs
import pytest
from typer.testing import CliRunner

from quizzer.scheduling.memory import DEFAULT_SCHEDULER
from quizzer.scheduling.summary import card_info
from quizzer.cli import app
from conftest import MINI_DECK, fsrs_by_study_days, run_in_terminal
from quizzer.store import open_store

runner = CliRunner()

DECK = MINI_DECK + """\
  - {id: q-one, kind: qa, source: "1.1", question: 问题一, answer: 答案一, points: [要点一]}
  - {id: q-two, kind: qa, source: "1.2", question: 问题二, answer: 答案二, points: [要点二]}
  - {id: m-one, kind: mistake, source: "1.3", claim: 错误说法, correction: 正确说法, why: 原因}
  - id: c-one
    kind: choice
    source: "1.4"
    question: 选哪个？
    options: [甲, 乙, 丙]
    answer: B
    explanation: 乙对。
"""


@pytest.fixture
def deck_dir(deck_folder) -> Path:
    return deck_folder(DECK)


def study(deck_dir: Path, lines: list[str], when: datetime, *args: str):
    result = runner.invoke(
        app, ["study", "--decks", str(deck_dir), *args],
        input="".join(line + "\n" for line in lines), env={"QUIZ_NOW": when.isoformat()},
    )
    assert result.exit_code == 0, result.output
    return result


def session_lines(rating: int, cards: int) -> list[str]:
    """Reveal and rate each self-rated card; pick B (right) or A (wrong) for the choice card."""
    return ["", str(rating)] * cards


def test_multi_day_session_matches_fsrs_run_directly(deck_dir):
    """Every card's stored memory state equals fsrs replaying the same ratings at the same times
    (days counted in study days, as Anki counts them)."""
    start = datetime(2026, 1, 5, 10, 0, tzinfo=timezone.utc)
    sessions = [(start, 3), (start + timedelta(minutes=15), 3), (start + timedelta(days=3), 1),
                (start + timedelta(days=3, minutes=20), 3), (start + timedelta(days=10), 4), (start + timedelta(days=40), 2)]
    given: dict[str, list[tuple[datetime, int]]] = {}
    for when, rating in sessions:
        result = study(deck_dir, session_lines(rating, 6), when, "--kind", "qa", "--kind", "mistake")
        for line in result.stdout.splitlines():
            if line.startswith("saved "):
                card_id = line.split()[1]
                given.setdefault(card_id, []).append((when, rating))
    assert set(given) == {"q-one", "q-two", "m-one"}
    assert all(len(v) >= 3 for v in given.values())  # several reviews each
    assert len({when.date() for v in given.values() for when, _ in v}) >= 3  # over several days

    store = open_store()
    for card_id, reviews in given.items():
        direct = fsrs.Card()
        for when, rating in reviews:
            direct = fsrs_by_study_days(DEFAULT_SCHEDULER, direct, rating, when)
        stored = card_info(store, card_id, start + timedelta(days=13))
        assert [r.rating for r in stored.reviews] == [r for _, r in reviews]
        assert stored.memory.state == direct.state.value
        assert stored.memory.step == direct.step
        assert stored.memory.stability == pytest.approx(direct.stability, rel=1e-9)
        assert stored.memory.difficulty == pytest.approx(direct.difficulty, rel=1e-9)
        assert stored.memory.last_review == direct.last_review


def test_a_failed_card_comes_back_before_the_session_ends(deck_dir):
    """As in Anki: a card rated Again is due again in minutes, so the same session shows it again."""
    when = datetime(2026, 1, 5, 10, 0, tzinfo=timezone.utc)
    result = study(deck_dir, ["", "1", "", "3", "", "3", "q"], when, "--kind", "qa", "--limit", "1")
    saved = [line.split()[1] for line in result.stdout.splitlines() if line.startswith("saved ")]
    assert saved[0] == saved[1] == "q-one"
    info = card_info(open_store(), "q-one", when)
    assert [r.rating for r in info.reviews][:2] == [1, 3]


def test_limit_holds_against_cards_in_learning_from_earlier(deck_dir):
    """`--limit 1` with two cards in learning from an earlier session said "2 left" (two learning) and showed
    both: the session brought every learning card due, not only those its limit took."""
    when = datetime(2026, 1, 5, 10, 0, tzinfo=timezone.utc)
    study(deck_dir, ["", "1", "", "1", "q"], when, "--kind", "qa")  # both in learning, due again in a minute
    result = study(deck_dir, ["", "3", "", "3", "", "3", "q"], when + timedelta(minutes=5), "--limit", "1")
    saved = {line.split()[1] for line in result.stdout.splitlines() if line.startswith("saved ")}
    assert len(saved) == 1 and "0 done · 0 new · 1 learning · 0 due" in result.stdout, result.stdout


def test_choice_is_graded_and_rated_automatically(deck_dir):
    when = datetime(2026, 1, 5, 10, 0, tzinfo=timezone.utc)
    result = study(deck_dir, ["b"], when, "--kind", "choice")  # lower-case b is option B, not bury
    assert "✓ right" in result.stdout
    store = open_store()
    [review] = card_info(store, "c-one", when).reviews
    assert (review.rating in (3, 4), review.correct, review.answer_text) == (True, True, "B")

    later = when + timedelta(days=30)
    result = study(deck_dir, ["A"], later, "--kind", "choice")
    assert "✗ wrong; the answer is B" in result.stdout
    last = card_info(store, "c-one", later).reviews[-1]
    assert (last.rating, last.correct, last.answer_text) == (1, False, "A")


def test_invalid_choice_asks_again_and_bang_commands_work(deck_dir):
    when = datetime(2026, 1, 5, 10, 0, tzinfo=timezone.utc)
    result = study(deck_dir, ["Z", "!b"], when, "--kind", "choice")
    assert "Type one of A, B, C." in result.stdout and "Buried until tomorrow: c-one" in result.stdout
    info = card_info(open_store(), "c-one", when)
    assert info.reviews == [] and info.buried_until is not None


def test_undo_restores_the_previous_state(deck_dir):
    when = datetime(2026, 1, 5, 10, 0, tzinfo=timezone.utc)
    store = open_store()
    # rate the first card Good, undo, then rate it Again: only the Again review remains
    result = study(deck_dir, ["", "3", "u", "", "1", "q"], when, "--kind", "qa")
    assert "Undone: q-one" in result.stdout
    info = card_info(store, "q-one", when)
    assert [r.rating for r in info.reviews] == [1]
    direct, _ = DEFAULT_SCHEDULER.review_card(fsrs.Card(), fsrs.Rating.Again, review_datetime=when)
    assert info.memory.stability == pytest.approx(direct.stability)
    assert "Reviewed 1" in result.stdout


def test_suspend_and_quit(deck_dir):
    when = datetime(2026, 1, 5, 10, 0, tzinfo=timezone.utc)
    result = study(deck_dir, ["s", "q"], when, "--kind", "qa")
    assert "Suspended: q-one" in result.stdout and "Reviewed 0" in result.stdout
    result = study(deck_dir, ["", "3"], when, "--kind", "qa")
    assert "q-one" not in result.stdout.split("saved")[1]  # the suspended card is not shown again
    runner.invoke(app, ["card", "q-one", "--unsuspend", "--decks", str(deck_dir)])
    assert not card_info(open_store(), "q-one", when).suspended


def test_nothing_due_says_when_and_offers_ahead(deck_dir):
    when = datetime(2026, 1, 5, 10, 0, tzinfo=timezone.utc)
    study(deck_dir, session_lines(4, 4) + ["B"], when)
    result = study(deck_dir, [], when + timedelta(hours=1))
    assert "Nothing is due now. The next card is due" in result.stdout and "--ahead" in result.stdout
    result = study(deck_dir, ["", "3", "q"], when + timedelta(hours=1), "--ahead", "--kind", "qa")
    assert "saved" in result.stdout


def test_nothing_due_names_the_next_card_of_the_cards_chosen(deck_dir):
    """`quiz study --deck X` with nothing to study named the next due card of another deck."""
    when = datetime(2026, 1, 5, 10, 0, tzinfo=timezone.utc)
    study(deck_dir, ["", "4", "", "4", "q"], when, "--kind", "qa")  # due in days
    later = when + timedelta(hours=1)
    assert "The next card is due" in study(deck_dir, [], later, "--kind", "qa").stdout
    assert "The next card is due" not in study(deck_dir, [], later, "--kind", "choice", "--new", "0").stdout


def test_deck_edits_keep_history(deck_dir):
    """Changed text keeps progress, a removed card keeps its history, a re-added card resumes."""
    when = datetime(2026, 1, 5, 10, 0, tzinfo=timezone.utc)
    deck = deck_dir / "mini.yaml"
    study(deck_dir, session_lines(3, 3), when, "--kind", "qa", "--kind", "mistake")
    store = open_store()
    before = card_info(store, "q-one", when)
    assert len(before.reviews) == 1

    deck.write_text(DECK.replace("问题一", "问题一（修订）").replace(
        '  - {id: q-two, kind: qa, source: "1.2", question: 问题二, answer: 答案二, points: [要点二]}\n', ""), "utf-8")
    day2 = when + timedelta(days=1)
    result = study(deck_dir, session_lines(3, 3), day2, "--kind", "qa", "--kind", "mistake")
    assert "问题一（修订）" in result.stdout and "q-two" not in result.stdout
    edited = card_info(store, "q-one", day2)
    assert edited.reviews[0] == before.reviews[0] and edited.content_hash != before.content_hash
    removed = card_info(store, "q-two", day2)
    assert not removed.active and len(removed.reviews) == 1

    deck.write_text(DECK, "utf-8")
    result = study(deck_dir, [], day2, "--kind", "qa")
    back = card_info(store, "q-two", day2)
    assert back.active and back.reviews == removed.reviews and back.memory == removed.memory


def test_card_command_shows_history(deck_dir):
    when = datetime(2026, 1, 5, 10, 0, tzinfo=timezone.utc)
    study(deck_dir, ["", "3"], when, "--kind", "qa", "--limit", "1")
    result = runner.invoke(app, ["card", "q-one", "--decks", str(deck_dir)], env={"QUIZ_NOW": when.isoformat()})
    assert result.exit_code == 0 and "q-one" in result.stdout and "stability" in result.stdout
    assert result.stdout.count("study") == 1
    assert "3 Good" in result.stdout  # the rating by number and by the button's name
    assert runner.invoke(app, ["card", "nope", "--decks", str(deck_dir)]).exit_code == 1


def test_check_and_backups(deck_dir, isolated):
    when = datetime(2026, 1, 5, 10, 0, tzinfo=timezone.utc)
    study(deck_dir, ["", "3"], when, "--limit", "1")
    assert runner.invoke(app, ["check"]).stdout.strip() == "ok"
    listed = runner.invoke(app, ["backup", "list"]).stdout.strip().splitlines()
    db = isolated / "quiz.db"
    assert listed[0] == f"1 backup in {db.parent / 'backups'}, newest first:" and len(listed) == 2
    name = listed[1].split()[-1]  # the file's name, which restore takes as it is listed
    assert (db.parent / "backups" / name).is_file() and "/" not in name
    with sqlite3.connect(db) as conn:
        conn.execute("DELETE FROM review_log")
        conn.execute("INSERT INTO meta (key, value) VALUES ('changed-since', 'x')")
    result = runner.invoke(app, ["backup", "restore", name, "--yes"], env={"QUIZ_NOW": (when + timedelta(hours=1)).isoformat()})
    assert result.exit_code == 0, result.output
    with sqlite3.connect(db) as conn:
        # the backup was taken when the session opened, before its one review
        assert conn.execute("SELECT count(*) FROM review_log").fetchone()[0] == 0
        assert conn.execute("SELECT count(*) FROM meta WHERE key = 'changed-since'").fetchone()[0] == 0
    # the safety copy by its name: "restore again" stopped being true once a later backup was taken
    undo = re.search(r"\(`quiz backup restore (\S+)` undoes this\)", result.stdout)
    assert undo, result.stdout
    runner.invoke(app, ["backup", "create"], env={"QUIZ_NOW": (when + timedelta(hours=2)).isoformat()})
    undone = runner.invoke(app, ["backup", "restore", undo.group(1), "-y"], env={"QUIZ_NOW": (when + timedelta(hours=3)).isoformat()})
    assert undone.exit_code == 0, undone.output
    with sqlite3.connect(db) as conn:  # the database as it was before the restore
        assert conn.execute("SELECT count(*) FROM meta WHERE key = 'changed-since'").fetchone()[0] == 1
    too_long = runner.invoke(app, ["backup", "restore", "a" * 5000, "--yes"])  # "unexpected OSError: File name too long"
    assert too_long.exit_code == 1 and too_long.stderr.startswith("Error: no backup 'aaa") and len(too_long.stderr) < 300


def study_with_editor(deck_dir: Path, tmp_path: Path, edit: str, keys: list[str], limit: str) -> str:
    """A qa session on a terminal whose $EDITOR is a Python script running ``edit`` on ``deck``
    (the file given); returns the screen."""
    editor = tmp_path / "editor.py"
    editor.write_text(f"import sys, pathlib\ndeck = pathlib.Path(sys.argv[2])\n{edit}\n", "utf-8")
    when = datetime(2026, 1, 5, 10, 0, tzinfo=timezone.utc)
    code, screen = run_in_terminal(
        ["study", "--decks", str(deck_dir), "--kind", "qa", "--limit", limit], keys=keys,
        env={"QUIZ_NOW": when.isoformat(), "EDITOR": f"{sys.executable} {editor}", "VISUAL": ""},
    )
    assert code == 0, screen
    return screen


@pytest.mark.slow
def test_e_opens_the_card_in_the_editor_at_its_line_and_shows_the_edit(deck_dir, tmp_path):
    """The editor gets +LINE and the deck file; the session reloads and shows the edited card."""
    calls = tmp_path / "calls.txt"
    result = study_with_editor(
        deck_dir, tmp_path, f"pathlib.Path({str(calls)!r}).write_text(' '.join(sys.argv[1:]))\n"
        "deck.write_text(deck.read_text('utf-8').replace('问题一', '问题一（已改）'), 'utf-8')", ["e", " ", "3", "q"], "1")
    line = 6  # q-one's line in the deck
    assert calls.read_text() == f"+{line} {deck_dir / 'mini.yaml'}"
    assert "问题一（已改）" in result and "Saved q-one" in result


@pytest.mark.slow
def test_torch_is_imported_in_the_background_only_for_numeric_cards():
    code = (
        "import sys\n"
        "from quizzer.kinds.numeric import NumericCard\n"
        "from quizzer.kinds.qa import QaCard\n"
        "from quizzer.app.study import prewarm as prewarm_torch\n"
        "qa = QaCard(id='a', kind='qa', source='1', question='q', answer='a', points=['p'])\n"
        "assert prewarm_torch([qa]) is None and 'torch' not in sys.modules\n"
        "num = NumericCard(id='n', kind='numeric', source='1', checker='mlm_loss')\n"
        "thread = prewarm_torch([qa, num])\n"
        "thread.join()\n"
        "assert 'torch' in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.slow
def test_nothing_loads_torch_before_the_first_card_is_on_screen(deck_folder):
    """The first card is drawn before torch starts loading (it holds the GIL while it loads);
    once it is on screen, the queue's numeric card starts the solve and torch loads."""
    folder = deck_folder(DECK.replace("cards:\n", "cards:\n  - {id: n-one, kind: numeric, source: '1.5', checker: mlm_loss}\n"))
    code = (
        "import sys, threading\n"
        "from quizzer.app.collection import open_collection\n"
        "from quizzer.app.study import StudySession\n"
        f"from pathlib import Path\ncollection = open_collection(Path({str(folder)!r}), None)\n"
        "session = StudySession(collection, ['n-one', 'q-one'])\n"
        "[view] = session.start()\n"
        "assert view.card_id == 'n-one' and 'torch' not in sys.modules\n"
        "assert not [t for t in threading.enumerate() if t.name.startswith(('solve-', 'torch-'))]\n"
        "session.prepare()\n"
        "assert session.asked.drawn.question().answer_text\n"
        "assert 'torch' in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.slow
def test_a_missing_editor_is_a_message_not_a_crash(deck_dir):
    when = datetime(2026, 1, 5, 10, 0, tzinfo=timezone.utc)
    code, screen = run_in_terminal(["study", "--decks", str(deck_dir), "--kind", "qa", "--limit", "1"], keys=["e", " ", "3", "q"],
                                   env={"QUIZ_NOW": when.isoformat(), "EDITOR": "no-such-editor-here", "VISUAL": ""})
    assert code == 0, screen
    assert "Could not start the editor 'no-such-editor-here'" in screen and "Saved q-one" in screen


@pytest.mark.slow
def test_why_an_answer_is_asked_again_is_said_next_to_the_prompt(deck_folder):
    """On a terminal the screen is cleared for the card drawn again, and the reason was printed
    before it: at the top, a screen away from the prompt under the card."""
    folder = deck_folder(DECK.replace("cards:\n", "cards:\n  - {id: n-one, kind: numeric, source: '1.5', checker: mlm_loss}\n"))
    when = datetime(2026, 1, 5, 10, 0, tzinfo=timezone.utc)
    code, screen = run_in_terminal(["study", "--decks", str(folder), "--kind", "numeric", "--limit", "1"],
                                   keys=["abc\r", "!q\r"], env={"QUIZ_NOW": when.isoformat()})
    assert code == 0, screen
    again = screen.split("abc", 1)[1]  # what the terminal shows after the answer
    assert again.index("Cannot read 'abc'") > again.rindex("╰"), again  # under the card drawn again


def test_the_editor_is_refused_on_a_pipe(deck_dir, tmp_path):
    """On a pipe an editor would eat the script's lines (or hang): `e` says so and the session goes on."""
    marker = tmp_path / "ran"
    when = datetime(2026, 1, 5, 10, 0, tzinfo=timezone.utc)
    result = study(deck_dir, ["e", "", "3"], when, "--kind", "qa", "--limit", "1")
    assert "`e` needs a terminal" in result.stdout and "saved q-one" in result.stdout and not marker.exists()


def test_bare_quiz_shows_todays_numbers_per_deck(deck_dir):
    when = datetime(2026, 1, 5, 10, 0, tzinfo=timezone.utc)

    def today() -> tuple[int, int, int]:
        shown = runner.invoke(app, ["--decks", str(deck_dir), "--json"], env={"QUIZ_NOW": when.isoformat()})
        assert shown.exit_code == 0, shown.output
        [row] = [row for row in json.loads(shown.stdout)["decks"] if row["deck"] == "mini"]
        return row["new"], row["learning"], row["due"]

    table = runner.invoke(app, ["--decks", str(deck_dir)], env={"QUIZ_NOW": when.isoformat(), "COLUMNS": "120"})
    assert re.search(r"^mini\s.*\s4\s+0\s+0\s*$", table.stdout, re.MULTILINE), table.stdout
    assert today() == (4, 0, 0)
    study(deck_dir, ["", "3"], when, "--kind", "qa", "--limit", "1")
    assert today() == (3, 1, 0)


@pytest.mark.slow
def test_editing_a_card_away_skips_it_instead_of_crashing(deck_dir, tmp_path):
    result = study_with_editor(
        deck_dir, tmp_path, "deck.write_text(deck.read_text('utf-8').replace('id: q-one', 'id: q-renamed'), 'utf-8')",
        ["e", " ", "3", "q"], "2")
    assert "No longer in the decks, skipped: q-one" in result and "Saved q-two" in result


def test_limits_must_be_sensible(deck_dir):
    for args in (["--new", "-1"], ["--limit", "0"], ["--new-per-day", "-5"]):
        result = runner.invoke(app, ["study", "--decks", str(deck_dir), *args])
        assert result.exit_code == 2 and "Invalid value" in result.output


def test_a_multi_letter_line_at_a_key_prompt_asks_again(deck_dir):
    when = datetime(2026, 1, 5, 10, 0, tzinfo=timezone.utc)
    result = study(deck_dir, ["ub", "", "3", "q"], when, "--kind", "qa", "--limit", "1")
    assert result.stdout.split("saved q-one")[0].count("show answer") == 2  # "ub" was asked again


def test_a_bad_quiz_now_is_a_clear_error(deck_dir):
    result = runner.invoke(app, ["study", "--decks", str(deck_dir)], env={"QUIZ_NOW": "garbage"})
    assert result.exit_code == 2 and "QUIZ_NOW='garbage' is not an ISO date-time" in result.output
    # tracebacks in every command (and an exam row written); 1970 east of UTC is 1969, whose reviews
    # and 8999's century-long intervals `quiz check` then called broken
    for far in ("9999-12-31T23:59", "0001-01-01T00:00", "1970-01-01T00:00+09:00", "8999-12-31T23:00Z"):
        for command in (["study"], ["exam", "--minutes", "5"], ["stats"], ["cards"], []):
            result = runner.invoke(app, [*command, "--decks", str(deck_dir)], env={"QUIZ_NOW": far})
            assert result.exit_code == 2 and f"QUIZ_NOW='{far}' is not between 1970 and 8900 in UTC" in result.output, command
    assert runner.invoke(app, ["--decks", str(deck_dir)], env={"QUIZ_NOW": "1970-01-01T09:00+09:00"}).exit_code == 0


@pytest.mark.parametrize("written", ["2026/02/20", "2026.2.20", "2026年2月20日", " 2026-02-20 "])
def test_the_interview_day_is_read_as_learners_write_it(deck_dir, written):
    """`--date 2026/12/20` was "not a date": only the ISO form was read."""
    env = {"QUIZ_NOW": "2026-01-05T10:00"}
    assert runner.invoke(app, ["plan", "--date", written, "--decks", str(deck_dir)], env=env).exit_code == 0
    shown = json.loads(runner.invoke(app, ["plan", "--json", "--decks", str(deck_dir)], env=env).stdout)
    assert shown["interview"] == "2026-02-20"
    wrong = runner.invoke(app, ["plan", "--date", "2026/02/30", "--decks", str(deck_dir)], env=env)
    assert wrong.exit_code == 2 and "--date '2026/02/30' is not a date" in wrong.stderr


def test_an_interview_more_than_ten_years_away_is_refused(deck_dir):
    env = {"QUIZ_NOW": "2026-01-05T10:00"}
    result = runner.invoke(app, ["plan", "--date", "9999-12-31", "--decks", str(deck_dir)], env=env)
    assert result.exit_code == 2 and "--date 9999-12-31 is more than 10 years away" in result.output
    shown = runner.invoke(app, ["plan", "--decks", str(deck_dir)], env=env)
    assert shown.exit_code == 0 and "No interview set" in shown.output  # nothing was saved
    assert runner.invoke(app, ["plan", "--date", "2036-01-01", "--decks", str(deck_dir)], env=env).exit_code == 0


CLOZE_DECK = DECK + """\
  - id: z-one
    kind: cloze
    source: "1.5"
    text: 选取 {{c1::15%}} 的 token，其中 {{c2::80%}} 换成 {{c3::[MASK]}}。
"""


def test_cloze_through_the_line_protocol(deck_folder):
    """Blanks typed on one line: a wrong count asks again, numbers grade as numbers, a wrong blank is named."""
    folder = deck_folder(CLOZE_DECK)
    when = datetime(2026, 1, 5, 10, 0, tzinfo=timezone.utc)
    result = study(folder, ["15%", "0.15; 80 %; [mask]", "q"], when, "--kind", "cloze")
    assert "answer (3 blanks, separated by ;)" in result.stdout and "Type 3 answers" in result.stdout
    assert "✓ right" in result.stdout and "saved z-one" in result.stdout
    [review] = card_info(open_store(), "z-one", when).reviews
    assert review.correct and review.rating in (3, 4) and review.answer_text == "0.15; 80 %; [mask]"
    later = when + timedelta(days=30)
    result = study(folder, ["15%; 70%; [MASK]"], later, "--kind", "cloze")
    assert "✗ blank 2 wrong" in result.stdout and "［2］80%" in result.stdout
    assert card_info(open_store(), "z-one", later).reviews[-1].rating == 1


def test_an_empty_answer_shows_the_answer_and_counts_as_again(deck_folder):
    """A typed card could not be given up on: an empty answer was refused ("Type 3 answers",
    "Enter one or more of A, B, C"), so the learner made up a wrong one to see the answer. Empty
    is "I don't know", as Anki's reveal and Again: the solution is shown, the card comes back soon."""
    folder = deck_folder(CLOZE_DECK)
    when = datetime(2026, 1, 5, 10, 0, tzinfo=timezone.utc)
    result = study(folder, ["", "", "q"], when, "--kind", "cloze", "--kind", "choice")
    assert result.stdout.count("No answer: the right one is below.") == 2, result.stdout
    assert result.stdout.count("Right answer") == 2 and "选取 15% 的 token" in result.stdout and "乙对。" in result.stdout
    for card_id in ("z-one", "c-one"):
        [review] = card_info(open_store(), card_id, when).reviews
        assert (review.rating, review.correct, review.answer_text) == (1, False, None)


def test_over_long_and_binary_lines_are_refused_and_the_session_goes_on(deck_dir):
    when = datetime(2026, 1, 5, 10, 0, tzinfo=timezone.utc)
    result = study(deck_dir, ["x" * 5000, "\x00\x01", "", "3", "q"], when, "--kind", "qa", "--limit", "1")
    assert "line longer than 4096 bytes; the line is ignored" in result.stdout
    assert "line holds binary data (NUL); the line is ignored" in result.stdout and "saved q-one → Good" in result.stdout


@pytest.mark.slow
def test_binary_input_on_a_real_pipe_is_refused(deck_dir):
    """Through a real file descriptor (select/os.read): invalid UTF-8 is refused, not decoded."""
    env = {**os.environ, "QUIZ_DECKS": str(deck_dir), "QUIZ_NOW": "2026-01-05T10:00:00+00:00"}
    result = subprocess.run([sys.executable, "-m", "quizzer", "study", "--kind", "qa", "--limit", "1"],
                            input=b"\xff\xfe\n\n3\nq\n", capture_output=True, env=env, timeout=60)
    out = result.stdout.decode()
    assert result.returncode == 0 and "line is not UTF-8 text; the line is ignored" in out and "saved q-one" in out


@pytest.mark.parametrize("columns", [60, 80])
def test_the_card_header_keeps_the_progress_beside_a_long_deck_title(columns):
    """The bundled interview-numbers deck has a long title and paper sections (Vaswani2017§3.2.2):
    the header cut the progress off at 80 columns, and showed §Vaswani2017§…."""
    result = runner.invoke(app, ["study", "--deck", "interview-numbers", "--limit", "1"], input="!q\n",
                           env={"QUIZ_NOW": "2026-01-05T10:00", "COLUMNS": str(columns)})
    assert result.exit_code == 0, result.output
    header = next(line for line in result.stdout.splitlines() if line.startswith("╭"))
    assert "0 done · 1 new · 0 learning · 0 due" in header and "§Vaswani" not in result.stdout


@pytest.mark.slow
def test_on_a_terminal_space_rates_good_as_in_anki(deck_dir):
    """Space shows the answer, space again rates it Good; on a pipe an empty line is no rating."""
    when = datetime(2026, 1, 5, 10, 0, tzinfo=timezone.utc)
    code, screen = run_in_terminal(["study", "--decks", str(deck_dir), "--kind", "qa", "--limit", "1"],
                                   {"QUIZ_NOW": when.isoformat()}, keys=[" ", " ", "q"])
    assert code == 0 and "Saved q-one → Good" in screen, screen


def server_gone_after_one(monkeypatch, error: Exception) -> list[str]:
    """Every answer after the first raises ``error``; the cards answered, in order (tries included)."""
    from quizzer.scheduling import answer as answering

    saved, calls = answering.answer, []

    def gone(*args, **kwargs):
        calls.append(args[1])
        if len(calls) > 1:
            raise error
        return saved(*args, **kwargs)

    monkeypatch.setattr(answering, "answer", gone)
    return calls


def test_an_answer_the_database_refuses_is_named_as_not_saved(deck_dir, monkeypatch):
    """The server went down with a card on screen: the answer was lost and the error said only
    "cannot connect", not that this answer (and no earlier one) needs giving again."""
    from quizzer.base.errors import DatabaseError

    calls = server_gone_after_one(monkeypatch, DatabaseError("postgresql://db/quiz: cannot connect to the database server",
                                                             "is the server running?"))
    result = runner.invoke(app, ["study", "--decks", str(deck_dir), "--kind", "qa"], input="\n3\n\n3\n",
                           env={"QUIZ_NOW": "2026-01-05T10:00"})
    assert result.exit_code == 1 and result.stderr.strip() == (
        f"Error: postgresql://db/quiz: cannot connect to the database server (the answer to {calls[1]} was not "
        "saved, every answer before it was; is the server running?)"), result.stderr


def test_quitting_when_the_database_cannot_be_read_still_shows_what_was_done(deck_dir, monkeypatch):
    from quizzer.app import study_order
    from quizzer.base.errors import DatabaseError

    def gone(*args, **kwargs):
        raise DatabaseError("postgresql://db/quiz: cannot connect to the database server")

    monkeypatch.setattr(study_order, "due_forecast", gone)
    result = study(deck_dir, ["", "3", "q"], datetime(2026, 1, 5, 10, 0, tzinfo=timezone.utc), "--kind", "qa")
    assert "Reviewed 1, correct 1" in result.stdout and "Coming up" not in result.stdout


@pytest.mark.slow
def test_the_last_rating_can_be_undone_before_the_session_ends(deck_dir):
    """Easy on the last card ended the session at once, with no way to take a slip back."""
    when = datetime(2026, 1, 5, 10, 0, tzinfo=timezone.utc)
    code, screen = run_in_terminal(["study", "--decks", str(deck_dir), "--kind", "qa", "--limit", "1"],
                                   {"QUIZ_NOW": when.isoformat()}, keys=[" ", "4", "u", " ", "4", " "])
    assert code == 0, screen
    assert screen.count("No cards left. [space/Enter] finish · u undo the last answer") == 2, screen
    assert "Undone: q-one" in screen and "Reviewed 1, correct 1" in screen, screen


@pytest.mark.slow
@pytest.mark.parametrize("command", [["study"], ["exam", "--minutes", "1"]])
def test_a_closed_standard_input_ends_the_session_without_a_traceback(deck_dir, command, tmp_path):
    env = {**os.environ, "QUIZ_NOW": "2026-01-05T10:00", "QUIZ_DB": str(tmp_path / "q.db")}
    result = subprocess.run([sys.executable, "-m", "quizzer", *command, "--decks", str(deck_dir)], env=env,
                            stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120,
                            preexec_fn=lambda: os.close(0))  # `quiz study <&-`: sys.stdin is None
    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr


@pytest.mark.parametrize("pressed", [[""], ["2", ""], ["b", "2", ""]])  # b: passed over, it went on
def test_on_a_terminal_a_graded_answer_says_its_rating_once(deck_dir, tmp_path, monkeypatch, pressed):
    """The verdict line (→ Good · due in …) was followed by a 'Saved …' line saying the same. Driven
    through the screen with a terminal's prompter stand-in (prompt_toolkit needs a real terminal).
    A key 1-4 in the verdict's pause saves the answer with that rating instead, and says so."""
    from rich.console import Console

    from quizzer.app.collection import open_collection
    from quizzer.app.study import StudySession
    from quizzer.scheduling.queue import build_queue
    from quizzer.store.filter import CardFilter
    from quizzer.terminal.study import StudyScreen

    class Keys:
        interactive = True

        def __init__(self) -> None:
            self.typed, self.pressed = ["b", "!q"], list(pressed)

        def key(self, prompt: str, allowed: object = None) -> str:
            return self.pressed.pop(0) if self.pressed else "q"

        def discard_typed_ahead(self) -> None:
            pass

        def line(self, prompt: str, **options: object) -> str:
            return self.typed.pop(0)

    monkeypatch.setenv("QUIZ_NOW", "2026-01-05T10:00")
    collection = open_collection(deck_dir, tmp_path / "q.db")
    queue = build_queue(collection.store, datetime(2026, 1, 5, 10, 0, tzinfo=timezone.utc),
                        chosen=CardFilter(kinds=("choice",)), limit=1)
    out = Console(width=100, record=True, color_system=None)
    StudyScreen(StudySession(collection, queue), Keys(), out).run()
    screen = out.export_text()
    assert "→ Good · due in" in screen and "another rating" not in screen  # the prompt is the prompter's
    if pressed == [""]:
        assert "Saved c-one" not in screen, screen
    else:
        assert "Saved c-one → Hard · due in" in screen, screen
        assert [r.rating for r in card_info(collection.store, "c-one", datetime(2026, 1, 6, tzinfo=timezone.utc)).reviews] == [2]


def test_the_saved_line_scripts_read_is_never_wrapped(deck_folder):
    """At 40 columns (or 80, with a long id) the line broke after the arrow: a script reading
    `saved ID → RATING · due in X` line by line got half of it."""
    long_id = "q-" + "long-" * 20 + "id"
    folder = deck_folder(DECK.replace("id: q-one,", f"id: {long_id},"))
    result = runner.invoke(app, ["study", "--decks", str(folder), "--kind", "qa", "--limit", "1"], input="\n3\n",
                           env={"QUIZ_NOW": "2026-01-05T10:00", "COLUMNS": "40"})
    saved = [line for line in result.stdout.splitlines() if line.startswith("saved ")]
    assert len(saved) == 1 and re.fullmatch(rf"saved {long_id} → Good · due in \S+", saved[0]), result.stdout


def test_a_server_out_of_reach_past_the_retries_shows_the_summary_and_names_the_answer(deck_dir, monkeypatch):
    """The session ended with one error line and no summary: what was done was not said."""
    from quizzer.app import busy
    from quizzer.base.errors import ServerUnavailable

    calls = server_gone_after_one(monkeypatch, ServerUnavailable(
        "postgresql://db/quiz: cannot connect to the database server", "is it running?"))
    pauses, now = [], [0.0]
    monkeypatch.setattr(busy, "monotonic", lambda: now[0])  # the retries' pauses pass at once
    monkeypatch.setattr(busy, "sleep", lambda seconds: (pauses.append(seconds), now.__setitem__(0, now[0] + seconds)))
    result = runner.invoke(app, ["study", "--decks", str(deck_dir), "--kind", "qa"], input="\n3\n\n3\n",
                           env={"QUIZ_NOW": "2026-01-05T10:00"})
    assert result.exit_code == 1, result.output
    shown = " ".join(result.stdout.split())  # lines wrapped at the terminal's width
    assert shown.count("cannot connect to the database server: trying again; this answer is saved once the server "
                       "answers") == 5  # before each of the five pauses
    assert "Reviewed 1, correct 1" in result.stdout  # the summary of what was saved
    assert result.stderr.strip() == (
        f"Error: postgresql://db/quiz: cannot connect to the database server (the answer to {calls[1]} was not "
        "saved, every answer before it was; is it running?)"), result.stderr
    assert pauses == [0.5, 1.0, 2.0, 4.0, 4.0] and len(calls) == 2 + len(pauses)  # 15 s: the first, then six tries
