"""Ctrl-Z and ``fg`` in a session on a real terminal (a pseudo-terminal): the screen that waited
(a card's front, its back, a typed answer, a verdict, an exam question, a marking) is drawn again
with its prompt, the keys work as before, and nothing is recorded twice or lost.

The pseudo-terminal's program is in an orphaned process group, where the kernel drops the stop a
SIGTSTP asks for; the tests stop it with SIGSTOP after the key, as a shell's job control would
have, then continue it with SIGCONT, as ``fg`` does."""

from __future__ import annotations

import os
import signal
from datetime import datetime, timezone

import pytest
from conftest import MINI_DECK, Terminal

from quizzer.scheduling.summary import card_info
from quizzer.store import exams as exam_store
from quizzer.store import open_store

pytestmark = [pytest.mark.slow,  # every test here starts a process
              pytest.mark.skipif(not hasattr(signal, "SIGCONT"), reason="job control is POSIX")]

T0 = datetime(2026, 1, 5, 10, 0, tzinfo=timezone.utc)
CTRL_Z = "\x1a"

DECK = MINI_DECK + """\
  - {id: q-qa, kind: qa, source: "1.1", question: BERT 是什么？, answer: 双向编码器。, points: [Encoder-only, 双向注意力, MLM 预训练]}
  - {id: z-one, kind: cloze, source: "1.2", text: "BERT 的 {{c1::编码器}} 是双向的"}
"""


def stop_and_fg(term: Terminal) -> int:
    """Ctrl-Z at the prompt that waits, the program stopped, then ``fg``; where the text drawn
    after ``fg`` starts."""
    term.send(CTRL_Z)
    term.watch(1)  # the key taken
    os.kill(term.pid, signal.SIGSTOP)
    mark = len(term.text)
    os.kill(term.pid, signal.SIGCONT)
    return mark


def reviews(card_id: str) -> list[tuple[int, str | None]]:
    return [(review.rating, review.answer_text) for review in card_info(open_store(), card_id, T0).reviews]


@pytest.mark.parametrize("setting, language, reveal, rate", [
    ("on", "en", "[space/Enter] show answer", "1 Again"), ("off", "zh", "[空格/回车] 显示答案", "1 重来")], ids=["cleared-en", "log-zh"])
def test_fg_draws_the_card_and_its_prompt_again_and_the_keys_still_rate(deck_folder, setting, language, reveal, rate):
    """After Ctrl-Z and `fg` the shell's `Stopped` and what was typed to it stood where the card
    was, and no prompt said what was waiting. Now the front (and then the back with its ratings)
    is drawn again, on a cleared screen or, with clear_screen off, below; Space and 3 then reveal
    and rate as before, and the card is saved once."""
    with Terminal(["study", "--decks", str(deck_folder(DECK)), "--kind", "qa"],
                  {"QUIZ_NOW": T0.isoformat(), "QUIZ_LANG": language, "QUIZ_CLEAR_SCREEN": setting}) as term:
        term.expect(reveal)
        mark = stop_and_fg(term)
        after = term.expect(reveal, after=term.expect("BERT 是什么？", after=mark, timeout=15))
        term.send(" ")
        after = term.expect(rate, after=after)
        mark = stop_and_fg(term)
        after = term.expect(rate, after=term.expect("双向编码器。", after=mark, timeout=15))
        assert "BERT 是什么？" in term.text[mark:after]  # the front above the back, as before
        term.send("3")
        term.expect("q-qa", after=after)  # saved
        term.send("q")
        assert term.wait() == 0
    assert (b"\x1b[2J" in term.raw) == (setting == "on")  # one card: only `fg` cleared the screen
    assert reviews("q-qa") == [(3, None)]
    assert "Traceback" not in term.text


def test_fg_draws_a_typed_answer_card_again_with_what_was_typed(deck_folder):
    """In the line editor, `fg` drew only the prompt line again, the card pushed up by the shell's
    lines. Now the card is drawn again with the half-typed answer; at the verdict too."""
    with Terminal(["study", "--decks", str(deck_folder(DECK)), "--kind", "cloze"], {"QUIZ_NOW": T0.isoformat()}) as term:
        after = term.expect("answer (the blank)")
        term.send("编码")
        term.expect("编码", after=after)
        mark = stop_and_fg(term)
        after = term.expect("answer (the blank) 编码", after=term.expect("BERT 的 ", after=mark, timeout=15))
        term.send("器\r")
        after = term.expect("[space/Enter] next", after=after)
        mark = stop_and_fg(term)
        after = term.expect("[space/Enter] next", after=term.expect("编码器", after=term.expect("BERT 的 ", after=mark,
                                                                                              timeout=15)))
        term.send(" ")
        term.expect("answer (the blank)", after=after)  # right at first sight: Good, back within learn-ahead
        term.send("!q\r")
        assert term.wait() == 0
    assert reviews("z-one") == [(3, "编码器")]  # right and fast at first sight: Good (never Easy), saved once
    assert "Reviewed 1, correct 1" in term.text


def test_fg_draws_the_exam_question_and_the_marking_again(deck_folder):
    """An exam's question after `fg`: drawn again with the answer being typed and the clock under it;
    the marking too."""
    with Terminal(["exam", "--decks", str(deck_folder(DECK)), "--kind", "qa", "--count", "1"],
                  {"QUIZ_NOW": T0.isoformat()}) as term:
        after = term.expect("answer (in your own words)")
        term.send("双向")
        term.expect("双向", after=after)
        mark = stop_and_fg(term)
        after = term.expect("answer (in your own words) 双向", after=term.expect("BERT 是什么？", after=mark, timeout=15))
        term.expect("left · 1/1", after=after)
        term.send("编码器\r")
        after = term.expect("points covered", after=after)
        mark = stop_and_fg(term)
        after = term.expect("points covered", after=term.expect("Mark question 1", after=mark, timeout=15))
        term.send("a\r")
        after = term.expect("Every answer is marked.", after=after)
        term.send("\r")
        term.expect("100.0 / 100", after=after)
        assert term.wait() == 0
    [question] = exam_store.questions(open_store(), 1)
    assert (question.answer_text, question.covered) == ("双向编码器", [1, 2, 3])
    assert reviews("q-qa") == [(3, "双向编码器")]
