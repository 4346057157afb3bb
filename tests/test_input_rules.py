"""Input that means what it says: at a typed-answer prompt only ``!``-words are commands; a
letter that is not an option, or several letters on a one-answer card, is asked again with the
reason; single keys stay commands at the reveal and rating prompts."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import pytest
from conftest import MINI_DECK, Terminal
from typer.testing import CliRunner

from quizzer.cli import app
from quizzer.scheduling.summary import card_info
from quizzer.store import exams as exam_store
from quizzer.store import open_store

runner = CliRunner()
T0 = datetime(2026, 1, 5, 10, 0, tzinfo=timezone.utc)

DECK = MINI_DECK + """\
  - {id: c-one, kind: choice, source: "1.1", question: 选乙, options: [甲, 乙, 丙], answer: B, explanation: 乙对。}
  - {id: c-many, kind: choice, source: "1.2", question: 选甲丙, options: [甲, 乙, 丙, 丁], answer: [A, C], explanation: 甲丙对。}
  - {id: z-one, kind: cloze, source: "1.3", text: "遮住 {{c1::15%}} 的词元"}
  - {id: q-one, kind: qa, source: "1.4", question: 问题一, answer: 答案一, points: [要点一]}
"""


@pytest.fixture
def deck_dir(deck_folder) -> Path:
    return deck_folder(DECK)


def study(deck_dir: Path, lines: list[str], *args: str) -> str:
    result = runner.invoke(app, ["study", "--decks", str(deck_dir), *args], input="".join(f"{line}\n" for line in lines),
                           env={"QUIZ_NOW": T0.isoformat(), "COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    return result.stdout


def reviews(card_id: str) -> list[tuple[str | None, bool | None]]:
    return [(r.answer_text, r.correct) for r in card_info(open_store(), card_id, T0).reviews]


def test_a_letter_that_is_not_an_option_is_asked_again_with_the_reason(deck_dir):
    """E on a three-option card (it used to open the editor) and Q (it used to quit) are asked
    again, naming the letter; the session goes on to the real answer."""
    out = study(deck_dir, ["E", "q", "b"], "--deck", "mini", "--kind", "choice", "--limit", "1")
    assert "Not an option here: E. Type one of A, B, C." in out
    assert "Not an option here: Q. Type one of A, B, C." in out
    assert reviews("c-one") == [("B", True)]  # lower-case b is option B


def test_several_letters_on_a_one_answer_card_are_asked_again(deck_dir):
    out = study(deck_dir, ["AB", "A C", "Ｂ"], "--kind", "choice", "--limit", "1")
    assert out.count("Only one answer is right here, not 2. Type one of A, B, C.") == 2
    assert reviews("c-one") == [("B", True)]  # a full-width letter is the letter


def test_several_letters_are_an_answer_where_several_are_right(deck_dir):
    study(deck_dir, ["c, a", "B", "c, a", "!q"], "--kind", "choice")  # c-one asks again; c-many takes it
    assert reviews("c-many") == [("AC", True)] and reviews("c-one") == [("B", True)]


@pytest.mark.parametrize(("command", "says"), [("!b", "Buried until tomorrow: c-one"),
                                               ("!s", "Suspended: c-one"),
                                               ("！ｓ", "Suspended: c-one"),  # as a Chinese input method types it
                                               ("！S", "Suspended: c-one"),
                                               ("!e", "`e` needs a terminal")])
def test_bang_words_are_commands_at_a_typed_answer_prompt(deck_dir, command, says):
    out = study(deck_dir, [command, "!q"], "--kind", "choice", "--limit", "1")
    assert says in out and reviews("c-one") == []


def test_bang_u_undoes_and_bang_q_quits(deck_dir):
    """The answer given again after the undo is rated by the learner (3: Good), then !q quits."""
    out = study(deck_dir, ["A", "!u", "B", "3", "!q"], "--kind", "choice", "--limit", "1")
    assert "Undone: c-one" in out and reviews("c-one") == [("B", True)]  # the undone A is gone
    assert "Reviewed 1" in out


def test_an_unknown_bang_word_is_asked_again(deck_dir):
    out = study(deck_dir, ["!x", "B"], "--kind", "choice", "--limit", "1")
    assert "!x is not a command: !u undo · !b bury · !s suspend · !q quit" in out  # no !e on a pipe: it is refused
    assert reviews("c-one") == [("B", True)]


@pytest.mark.parametrize("word", ["q", "u", "b", "s", "e"])
def test_plain_words_that_look_like_commands_are_answers(deck_dir, word):
    """A cloze blank typed as ``q`` is graded (wrong), not taken as quit."""
    study(deck_dir, [word, "!q"], "--kind", "cloze", "--limit", "1")
    assert reviews("z-one") == [(word, False)]


def test_single_keys_stay_commands_at_the_reveal_prompt(deck_dir):
    out = study(deck_dir, ["b", "q"], "--kind", "qa", "--limit", "1")
    assert "[space/Enter] show answer · u undo · b bury · s suspend · q quit" in out  # it lists them, but e: a pipe
    assert "Buried until tomorrow: q-one" in out


def test_the_end_of_input_at_a_typed_answer_quits(deck_dir):
    out = study(deck_dir, [], "--kind", "cloze")
    assert "Reviewed 0" in out and reviews("z-one") == []


def exam(deck_dir: Path, lines: list[str], *args: str) -> str:
    result = runner.invoke(app, ["exam", "--decks", str(deck_dir), "--seed", "1", *args],
                           input="".join(f"{line}\n" for line in lines), env={"QUIZ_NOW": T0.isoformat(), "COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    return result.stdout


def test_the_exam_reads_the_same_way(deck_dir):
    """In an exam, ``!f`` hands in and ``!q`` leaves; an unknown ``!``-word and a letter that is
    not an option are asked again; ``f`` and ``q`` alone are answers (here: not options)."""
    out = exam(deck_dir, ["!x", "q", "f", "AB", "B", "!f"], "--kind", "choice", "--count", "1", "--deck", "mini")
    assert "!x is not a command: !f hands in, !q leaves" in out
    assert "Not an option here: Q." in out and "Not an option here: F." in out
    [question] = exam_store.questions(open_store(), 1)
    assert question.status == "answered" and question.answer_text in ("B", "AB")  # whichever card was drawn
    if question.card_id == "c-one":
        assert "Only one answer is right here, not 2." in out and question.answer_text == "B"


@pytest.mark.slow
def test_on_a_terminal_an_option_letter_is_an_answer_and_bang_b_buries(deck_dir):
    """Through a pseudo-terminal (the line editor): E is asked again, then !b buries."""
    with Terminal(["study", "--decks", str(deck_dir), "--kind", "choice", "--limit", "1"],
                  {"QUIZ_NOW": T0.isoformat()}) as term:
        after = term.expect("answer (a letter)")
        term.send("E\r")
        after = term.expect("Not an option here: E. Type one of A, B, C.", after=after)
        term.expect("answer (a letter)", after=after)
        term.send("!b\r")
        term.expect("Buried until tomorrow: c-one")
        term.expect("No cards left. [space/Enter] finish · u undo the last answer")  # a bury can be taken back
        term.send("\x04")  # Ctrl-D: the end of input quits
        assert term.wait() == 0
    assert reviews("c-one") == []


@pytest.mark.slow
def test_on_a_terminal_full_width_keys_are_the_keys(deck_dir):
    """At the single-key prompts ３ and ｕ (a Chinese input method in full-width mode) did nothing
    and said nothing; typed answers took ！ｑ and Ｃ already."""
    with Terminal(["study", "--decks", str(deck_dir), "--kind", "qa"], {"QUIZ_NOW": T0.isoformat()}) as term:
        term.expect("[space/Enter] show answer")
        term.send("\u3000")  # the ideographic space shows the answer
        after = term.expect("1 Again")
        term.send("４")
        after = term.expect("No cards left.", after=after)
        term.send("ｕ")
        term.expect("Undone: q-one", after=after)
        term.send("ｑ")
        assert term.wait() == 0
    assert reviews("q-one") == []


def test_on_a_pipe_a_full_width_key_is_the_key(deck_dir):
    assert "Undone: q-one" in study(deck_dir, ["", "３", "ｕ", "ｑ"], "--kind", "qa")
    assert reviews("q-one") == []
