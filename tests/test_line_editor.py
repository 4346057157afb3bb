"""The typed-answer line editor on a real terminal (a pseudo-terminal): cursor keys, wide
characters, history within the session, paste, Ctrl-D; and the exam's countdown in a status
line that never reprints the prompt."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

import pytest
from conftest import MINI_DECK, Terminal

from quizzer.scheduling.summary import card_info
from quizzer.store import exams as exam_store
from quizzer.store import open_store

pytestmark = pytest.mark.slow  # every test here starts a process

T0 = datetime(2026, 1, 5, 10, 0, tzinfo=timezone.utc)
LEFT, UP = "\x1b[D", "\x1b[A"  # what a terminal sends for the arrow keys
PASTE_START, PASTE_END = "\x1b[200~", "\x1b[201~"  # bracketed paste

DECK = MINI_DECK + """\
  - {id: z-one, kind: cloze, source: "1.1", text: "BERT 的 {{c1::编码器}} 是双向的"}
  - {id: z-two, kind: cloze, source: "1.2", text: "GPT 不用双向的 {{c1::编码器}}"}
"""


@pytest.fixture
def deck_dir(deck_folder) -> Path:
    return deck_folder(DECK)


def study(deck_dir: Path, **size: int) -> Terminal:
    return Terminal(["study", "--decks", str(deck_dir), "--kind", "cloze"], {"QUIZ_NOW": T0.isoformat()}, **size)


def answers() -> dict[str, str | None]:
    """Each card's first stored answer, as typed (a one-blank cloze stores its blank)."""
    store = open_store()
    return {cid: (reviews[0].answer_text if reviews else None)
            for cid in ("z-one", "z-two") for reviews in [card_info(store, cid, T0).reviews]}


def answer_next_card(term: Terminal, keys: str, after: int) -> int:
    """At the next typed-answer prompt, type ``keys`` and Enter; then leave the feedback."""
    after = term.expect("answer (the blank)", after=after)
    term.send(keys + "\r")
    after = term.expect("[space/Enter] next", after=after)
    term.send(" ")
    return after


def quit_at_next_prompt(term: Terminal, after: int) -> int:
    """``!q`` at the next answer prompt (a card answered wrong comes back within the session)."""
    term.expect("answer (the blank)", after=after)
    term.send("!q\r")
    return term.wait()


def test_cursor_keys_edit_the_middle_of_a_wide_character_answer(deck_dir):
    """"编器", left arrow, "码": the answer saved is 编码器 (the cursor moved one wide character)."""
    with study(deck_dir) as term:
        after = answer_next_card(term, "编器" + LEFT + "码", 0)
        after = answer_next_card(term, "编器" + LEFT + LEFT + "码" + "\x05" + "!", after)  # Ctrl-E: to the end
        assert quit_at_next_prompt(term, after) == 0
    assert "[D" not in term.text  # the arrow key is never typed into the answer
    assert sorted(answers().values()) == sorted(["编码器", "码编器!"])


def test_history_and_paste(deck_dir):
    """The up arrow brings back this session's last answer; a bracketed paste is typed text."""
    with study(deck_dir) as term:
        after = answer_next_card(term, PASTE_START + "编码器" + PASTE_END, 0)
        after = answer_next_card(term, UP, after)
        # both right at first sight: Good, back within the session's learn-ahead, where !q ends it
        assert quit_at_next_prompt(term, after) == 0
    assert list(answers().values()) == ["编码器", "编码器"]
    assert "Reviewed 2, correct 2" in term.text


GBK_ZHONG = b"\xd6\xd0"  # 中 as a terminal set to GBK sends it: not UTF-8


def test_bytes_that_are_not_utf8_neither_end_the_session_nor_stop_the_answer_being_saved(deck_dir):
    """At a key prompt the session ended with "unexpected UnicodeDecodeError"; in a typed answer
    the bytes reached the database as lone surrogates, saving failed and the answer was lost."""
    with study(deck_dir) as term:
        after = term.expect("answer (the blank)")
        os.write(term.fd, GBK_ZHONG)
        term.send("编码器\r")
        after = term.expect("[space/Enter] next", after=after)
        os.write(term.fd, GBK_ZHONG)  # at a key prompt: no key, passed over
        term.send(" ")
        quit_at_next_prompt(term, after)
    assert term.code == 0 and "Error" not in term.text
    assert "\ufffd\ufffd编码器" in answers().values()  # what was typed, the bytes shown as not text


def test_keys_typed_before_a_screen_is_drawn_answer_nothing(deck_dir):
    """Keys pressed while the program started answered the cards it then drew (Space 4 Space 4
    at start-up saved two cards Easy): what is typed before a screen is drawn is dropped."""
    with study(deck_dir) as term:
        term.send("编码器\r编码器\r")  # before the first card is on screen
        term.expect("answer (the blank)")
        term.send("\x04")
        assert term.wait() == 0
    assert "Reviewed 0" in term.text and answers() == {"z-one": None, "z-two": None}


@pytest.mark.skipif(not hasattr(signal, "SIGCONT"), reason="job control is POSIX")
def test_a_key_prompt_takes_single_keys_again_after_fg(monkeypatch):
    """After Ctrl-Z and `fg` the shell had left the terminal in line mode: keys echoed and waited
    for Enter, so a Space and an Enter typed to get going revealed an answer never drawn and rated
    it Good. On SIGCONT the prompt sets single keys again."""
    import io
    import pty
    import termios
    import threading

    from rich.console import Console

    from quizzer.terminal.prompter import TerminalPrompter

    master, slave = pty.openpty()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.FileIO(slave, closefd=False)))

    def shell_then_fg() -> None:
        time.sleep(0.5)  # the prompt waits for a key
        mode = termios.tcgetattr(slave)
        mode[3] |= termios.ICANON | termios.ECHO  # the shell's line mode, as `fg` left it
        termios.tcsetattr(slave, termios.TCSANOW, mode)
        os.kill(os.getpid(), signal.SIGCONT)
        time.sleep(0.5)
        os.write(master, b" ")
        time.sleep(3)
        os.write(master, b"\n")  # what line mode waits for: the key comes only now

    helper = threading.Thread(target=shell_then_fg)
    started = time.monotonic()
    helper.start()
    try:
        key = TerminalPrompter(Console(file=io.StringIO())).key("[space/Enter] show answer", {""})
        waited = time.monotonic() - started
    finally:
        helper.join()
        os.close(master)
        os.close(slave)
    assert key == "" and waited < 3


def test_ctrl_d_at_an_empty_answer_quits_with_the_summary(deck_dir):
    with study(deck_dir) as term:
        term.expect("answer (the blank)")
        term.send("\x04")
        assert term.wait() == 0
    assert "Reviewed 0" in term.text and answers() == {"z-one": None, "z-two": None}


def test_a_resized_terminal_draws_the_card_anew_and_keeps_what_was_typed(deck_dir):
    """Made narrower mid-answer, the terminal's reflow broke the card's box into half-lines and
    pushed its question off the top; only the prompt was drawn anew. Now the card is drawn again at
    the new width (at an answer and at a key prompt), and the half-typed answer stays."""
    from rich.cells import cell_len

    def borders(text: str) -> set[int]:
        return {cell_len(line.rstrip()) for line in text.splitlines() if line.startswith("╭")}

    with Terminal(["study", "--decks", str(deck_dir), "--kind", "cloze"], {"QUIZ_NOW": T0.isoformat()},
                  columns=100, resizable=True) as term:
        after = term.expect("answer (the blank)")
        assert borders(term.text) == {100}
        term.send("编码")
        term.expect("编码", after=after)
        mark = len(term.text)
        term.resize(60)
        after = term.expect("answer (the blank) 编码", after=term.expect("╭─ 0 done", after=mark))
        assert borders(term.text[mark:]) == {60}, term.text[mark:]  # the card drawn anew, the answer kept
        term.send("器\r")
        mark = term.expect("[space/Enter] next", after=after)
        term.resize(80)
        after = term.expect("[space/Enter] next", after=term.expect("╭─ 0 done", after=mark))
        assert borders(term.text[mark:]) == {80}, term.text[mark:]  # the card and verdict anew, the keys asked again
        term.send(" ")
        assert quit_at_next_prompt(term, after) == 0
    assert answers()["z-one"] == "编码器" or answers()["z-two"] == "编码器"
    assert "Traceback" not in term.text


@pytest.mark.parametrize("setting", ["on", "off"])
def test_the_screen_is_cleared_between_cards_unless_the_setting_is_off(deck_dir, setting):
    """``clear_screen`` (default on): the next card starts on a clean screen; the first card
    keeps what was above it."""
    with Terminal(["study", "--decks", str(deck_dir), "--kind", "cloze"],
                  {"QUIZ_NOW": T0.isoformat(), "QUIZ_CLEAR_SCREEN": setting}) as term:
        after = answer_next_card(term, "编码器", 0)
        first_card = term.raw
        after = answer_next_card(term, "编码器", after)
        assert quit_at_next_prompt(term, after) == 0  # right at first sight: Good, so they come back
    clear = b"\x1b[2J"
    assert clear not in first_card
    assert (clear in term.raw) == (setting == "on")


QA_DECK = MINI_DECK + """\
  - {id: q-qa, kind: qa, source: "1.1", question: BERT 是什么？, answer: 双向编码器。, points: [Encoder-only, 双向注意力, MLM 预训练]}
"""
# 30 wide characters and some Latin: longer than a 60-column line, so the answer wraps
TYPED = "BERT 是 Encoder-only 的模型，用双向注意力读整句话，预训练时遮住一部分词元来预测"


def test_time_out_mid_answer_keeps_and_marks_the_text(deck_folder):
    """A 12-second qa exam at 60 columns: the answer is typed (wrapping) but never sent. When
    the clock runs out the text is kept, offered for marking, scored by the points marked, and
    reported as cut off."""
    folder = deck_folder(QA_DECK)
    with Terminal(["exam", "--decks", str(folder), "--minutes", "0.2"], {}, columns=60, rows=24) as term:
        start = term.expect("answer (in your own words)")
        term.send(TYPED)
        term.expect("Time is up", timeout=60, after=start)
        mark = term.expect("points covered", after=start)
        term.send("1\r")  # one of three points: 1/3, below half: a mistake
        term.expect("Every answer is marked", after=mark)  # the last mark can still be taken back
        term.send("\r")
        assert term.wait() == 0

    assert "cut off when time ran out" in term.text[start:mark]  # said while marking
    [question] = exam_store.questions(open_store(), 1)
    assert (question.answer_text, question.covered, question.score) == (TYPED, [1], pytest.approx(1 / 3))
    report = re.sub(r"\s|│", "", term.text[mark:])  # the table and the header wrap at 60 columns
    assert "(cutoff)" in report and "1of1answered,1ofthemcutoffbytheclock" in report and "（未作答）" not in report
    review = card_info(open_store(), "q-qa").reviews[-1]
    assert (review.mode, review.answer_text, review.rating) == ("exam", TYPED, 1)  # Again, and in the notebook


@pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux, a terminal whose screen can be read back")
@pytest.mark.parametrize("columns", [60, 120])
def test_the_countdown_redraws_in_place_and_never_repeats_the_prompt(deck_folder, columns):
    """The screen (and its scrollback) read back from tmux every second while the exam's clock
    runs and a wrapping answer is typed: one prompt line each time, the clock moving, the
    header without a clock that would go stale."""
    folder = deck_folder(QA_DECK)
    server = ["tmux", "-L", f"quizzer-test-{os.getpid()}-{columns}", "-f", os.devnull]

    def tmux(*args: str) -> str:
        return subprocess.run([*server, *args], check=True, capture_output=True, text=True).stdout

    def screen() -> str:  # the visible screen and all of the scrollback
        return tmux("capture-pane", "-p", "-J", "-S", "-", "-t", "exam")

    command = f"env -u COLUMNS -u LINES {shlex.quote(sys.executable)} -m quizzer exam --decks {shlex.quote(str(folder))} --minutes 0.25; sleep 60"
    tmux("new-session", "-d", "-s", "exam", "-x", str(columns), "-y", "24", command)
    try:
        shots = []
        deadline = time.monotonic() + 90
        while "answer (in your own words)" not in screen() and time.monotonic() < deadline:
            time.sleep(0.3)
        tmux("send-keys", "-t", "exam", "-l", TYPED)
        while "Time is up" not in (shot := screen()) and time.monotonic() < deadline:
            shots.append(shot)
            time.sleep(1)
    finally:
        tmux("kill-server")
    typing = [shot for shot in shots if TYPED[-4:] in shot]  # the whole answer is on screen
    assert len(typing) >= 3, shots
    assert all(shot.count("answer (in your own words)") == 1 for shot in typing), typing
    clocks = {clock for shot in typing for clock in re.findall(r"(\d\d:\d\d) left", shot)}
    assert len(clocks) >= 3  # it counted down
    assert all(re.search(r"Question 1 of 1 · (Mini · )?Q&A", shot) and not re.search(r"Question.*left", shot) for shot in typing)


@pytest.mark.parametrize("language, hint", [("en", "Enter: show the answer"), ("zh", "回车看答案")])
def test_a_status_line_wider_than_the_terminal_goes_on_a_second_line(deck_dir, language, hint):
    """At 60 columns study's status line was cut at the edge: `… · !q quit · Enter:`, its last hint lost."""
    with Terminal(["study", "--decks", str(deck_dir), "--kind", "cloze"], {"QUIZ_NOW": T0.isoformat(), "QUIZ_LANG": language},
                  columns=60) as term:
        term.expect(hint, timeout=20)
        term.send("!q\r")
        assert term.wait() == 0
