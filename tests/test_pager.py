"""Long output through a pager, as git's: `quiz stats`, `quiz cards` and `quiz show` on a terminal
when longer than the screen; plainly with --no-pager, off a terminal, or with the pager set empty.
The pager itself (a process on a terminal) is in the slow tests at the end."""

from __future__ import annotations

import sys
from datetime import datetime, timezone
from pathlib import Path

import pytest
from typer.testing import CliRunner

from conftest import run_in_terminal

from quizzer.cli import app
from quizzer.cli.output import DEFAULT_PAGER, pager_command

runner = CliRunner()
NOW = datetime(2026, 1, 5, 10, 0, tzinfo=timezone.utc).isoformat()


@pytest.mark.parametrize("env, expected", [
    ({}, DEFAULT_PAGER),
    ({"PAGER": "more"}, "more"),
    ({"PAGER": "more", "QUIZ_PAGER": "most -s"}, "most -s"),
    ({"PAGER": "more", "QUIZ_PAGER": ""}, None),
    ({"PAGER": " "}, None),
])
def test_the_pager_is_quiz_pager_else_pager_else_less(monkeypatch, env, expected):
    for name in ("PAGER", "QUIZ_PAGER"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert pager_command() == expected


@pytest.mark.parametrize("args", [["cards"], ["stats"], ["show", "bert-vs-gpt-core"]])
def test_off_a_terminal_long_output_is_printed_plainly(args):
    """No pager can start here (no such program): the whole output arrives, as with --no-pager."""
    env = {"QUIZ_NOW": NOW, "QUIZ_PAGER": "no-such-pager-here", "COLUMNS": "100"}
    result = runner.invoke(app, args, env=env)
    plain = runner.invoke(app, [*args, "--no-pager"], env=env)
    assert result.exit_code == plain.exit_code == 0, result.output
    assert result.stdout == plain.stdout and result.stdout.count("\n") > (25 if args == ["cards"] else 5)


def paged_by(tmp_path: Path, args: list[str], extra: dict[str, str] | None = None) -> tuple[str, str]:
    """``quiz ARGS`` on a terminal whose pager is a script keeping what it is given; (what the
    pager got, the screen)."""
    kept = tmp_path / "paged.txt"
    kept.unlink(missing_ok=True)
    script = tmp_path / "pager.py"
    script.write_text(f"import sys, pathlib\npathlib.Path({str(kept)!r}).write_bytes(sys.stdin.buffer.read())\n")
    code, screen = run_in_terminal(args, env={"QUIZ_NOW": NOW, "QUIZ_PAGER": f"{sys.executable} {script}",
                                              **(extra or {})}, keys=[])
    assert code == 0, screen
    return (kept.read_text("utf-8") if kept.exists() else ""), screen


@pytest.mark.slow
def test_on_a_terminal_a_long_listing_goes_through_the_pager_and_a_short_one_does_not(tmp_path):
    paged, screen = paged_by(tmp_path, ["cards"])
    assert "ch08-bert" in paged and "ch08-bert" not in screen
    assert "\x1b[" in paged  # colours kept, as less -R shows them
    paged, screen = paged_by(tmp_path, ["cards", "--no-pager"])
    assert paged == "" and "ch08-bert" in screen
    paged, screen = paged_by(tmp_path, ["cards", "--limit", "2"])
    assert paged == "" and "ch08-bert" in screen  # it fits the screen: printed as is
    paged, screen = paged_by(tmp_path, ["cards"], {"QUIZ_PAGER": ""})
    assert paged == "" and "ch08-bert" in screen
