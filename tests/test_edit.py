"""`quiz edit ID`: the card's deck file in $EDITOR at its line, checked after saving and put back
as it was when the edit broke it. In process, the editor replaced by a function; the real editor
process (a script as $EDITOR) is in the slow test at the end."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from conftest import MINI_DECK
from quizzer.cli import app
from quizzer.terminal import editor

runner = CliRunner()
DECK = MINI_DECK + """\
  - {id: qa-bert, kind: qa, source: "1.1", question: What does BERT pretrain on?, answer: MLM and NSP., points: [MLM]}
  - {id: qa-ffn, kind: qa, source: "1.2", question: How wide is the FFN?, answer: 4d., points: [four times]}
"""


@pytest.fixture
def folder(deck_folder):
    return deck_folder(DECK)


def edit_with(monkeypatch, change, *args: str) -> tuple[list[tuple[Path, int]], object]:
    """``quiz edit ARGS`` with an editor that records what it was given and runs ``change`` on the file."""
    calls: list[tuple[Path, int]] = []

    def fake(path: Path, line: int) -> None:
        calls.append((path, line))
        change(path)

    monkeypatch.setattr(editor, "open_in_editor", fake)
    return calls, runner.invoke(app, ["edit", *args])


def replace(old: str, new: str):
    return lambda path: path.write_text(path.read_text("utf-8").replace(old, new), "utf-8")


def test_the_editor_opens_the_card_s_file_at_its_line_and_a_good_edit_is_kept(folder, monkeypatch):
    deck = folder / "mini.yaml"
    line = DECK.splitlines().index(next(row for row in DECK.splitlines() if "id: qa-ffn" in row)) + 1
    calls, result = edit_with(monkeypatch, replace("How wide is the FFN?", "How wide is the FFN layer?"),
                              "qa-ffn", "--decks", str(folder))
    assert result.exit_code == 0, result.output
    assert calls == [(deck, line)]
    assert "How wide is the FFN layer?" in runner.invoke(app, ["show", "qa-ffn", "--decks", str(folder)]).stdout


def test_an_edit_that_breaks_the_deck_is_put_back_byte_for_byte(folder, monkeypatch):
    deck = folder / "mini.yaml"
    before = deck.read_bytes()
    _calls, result = edit_with(monkeypatch, replace("kind: qa, source: \"1.2\"", "kind: qq, source: \"1.2\""),
                               "qa-ffn", "--decks", str(folder))
    assert result.exit_code == 1, result.output
    assert deck.read_bytes() == before
    error = [line for line in result.stderr.splitlines() if line.startswith("Error:")]
    assert len(error) == 1 and "put back as it was" in error[0] and "quiz edit qa-ffn" in error[0], result.stderr
    assert f"{deck}:7:" in result.stderr  # the problem, with its line, above the error


def test_a_deck_file_taken_away_is_put_back(folder, monkeypatch):
    deck = folder / "mini.yaml"
    before = deck.read_bytes()
    _calls, result = edit_with(monkeypatch, Path.unlink, "qa-bert", "--decks", str(folder))
    assert result.exit_code == 1 and deck.read_bytes() == before, result.output


def test_edit_takes_a_short_id_and_names_the_cards_an_ambiguous_one_could_be(folder, monkeypatch):
    short = hashlib.sha1(b"qa-bert").hexdigest()[:6]  # a start of its short id's digits: unique here
    calls, result = edit_with(monkeypatch, lambda path: None, short, "--decks", str(folder))
    assert result.exit_code == 0 and calls[0][1] == 6 and "Nothing changed" in result.stdout, result.output
    calls, result = edit_with(monkeypatch, lambda path: None, "qa-", "--decks", str(folder))
    assert result.exit_code == 1 and not calls, result.output
    assert result.stderr.count("\n") == 1 and "qa-bert" in result.stderr and "qa-ffn" in result.stderr, result.stderr
    calls, result = edit_with(monkeypatch, lambda path: None, "no-such", "--decks", str(folder))
    assert result.exit_code == 1 and not calls and "no card 'no-such'" in result.stderr, result.output


@pytest.mark.slow
def test_the_editor_is_the_command_in_editor_with_the_line_before_the_file(folder, tmp_path):
    script = tmp_path / "editor.py"
    script.write_text("import sys, pathlib\npathlib.Path(sys.argv[0] + '.args').write_text(' '.join(sys.argv[1:]))\n"
                      "deck = pathlib.Path(sys.argv[2])\ndeck.write_text(deck.read_text().replace('4d.', 'four d.'))\n")
    env = {**os.environ, "EDITOR": f"{sys.executable} {script}", "VISUAL": "", "QUIZ_DB": str(tmp_path / "q.db")}
    done = subprocess.run([sys.executable, "-m", "quizzer", "edit", "qa-ffn", "--decks", str(folder)], env=env,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert Path(f"{script}.args").read_text() == f"+7 {folder / 'mini.yaml'}"
    assert "four d." in (folder / "mini.yaml").read_text()
    env["EDITOR"] = "no-such-editor-here"
    missing = subprocess.run([sys.executable, "-m", "quizzer", "edit", "qa-ffn", "--decks", str(folder)], env=env,
                             capture_output=True, text=True)
    assert missing.returncode == 1 and missing.stderr.startswith("Error: Could not start the editor 'no-such-editor-here'"), \
        missing.stderr
