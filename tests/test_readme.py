"""The README's set-up commands are what CI runs, its list of commands is complete, and the
scripted examples of docs/studying.md do what the text next to them says."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text("utf-8")
STUDYING = (ROOT / "docs" / "studying.md").read_text("utf-8")


def example(marker: str) -> str:
    """The shell line following the comment ``marker`` in a code block of docs/studying.md."""
    block = re.search(rf"# {re.escape(marker)}[^\n]*\n([^\n]+)\n", STUDYING)
    assert block, marker
    return block.group(1).replace("| QUIZ_NOW", "| env QUIZ_NOW").replace(" quiz ", f" {sys.executable} -m quizzer ")


def run(line: str) -> str:
    return subprocess.run(["bash", "-c", line], capture_output=True, text=True, check=True).stdout


@pytest.mark.slow
def test_study_example_rates_two_questions_then_quits():
    out = run(example("reveal and rate two interview questions"))
    # "saved CARD-ID → RATING", then " · due in 10m" for people
    assert [l.split(" · ")[0].split()[-1] for l in out.splitlines() if l.startswith("saved ")] == ["Good", "Easy"]


@pytest.mark.slow
def test_exam_example_answers_one_skips_one_and_hands_in():
    out = run(example("a two-question multiple-choice paper"))
    assert "(1 of 2 answered" in out and "(skipped)" in out



def commands(text: str) -> list[str]:
    """The lines of a shell text that run something (no comments, blank lines, shell options,
    exports or cd)."""
    return [line for line in map(str.strip, text.splitlines())
            if line and not line.startswith(("#", "set ", "export ", "cd "))]


def set_up_commands() -> list[str]:
    """The commands of the README's *Set up* code block."""
    section = README.split("\n## Set up\n", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```sh\n(.*?)```", section, re.DOTALL)
    assert block, "no sh block in the Set up section"
    return commands(block.group(1))


def test_ci_runs_exactly_the_readme_set_up_commands():
    """.ci/run installs as the README says, the two commands unchanged and in their order (its
    other lines are the checks and the slow suite)."""
    readme_commands = set_up_commands()
    assert len(readme_commands) == 2
    ci_commands = commands((ROOT / ".ci" / "run").read_text("utf-8"))
    assert [line for line in ci_commands if line in readme_commands] == readme_commands
    for line in readme_commands:  # into a virtual environment, with PyTorch's CPU build on Linux
        assert line.startswith("python3 -m venv .venv && . .venv/bin/activate && pip install ")
        assert "--extra-index-url https://download.pytorch.org/whl/cpu" in line


def test_the_workflow_runs_ci_on_the_lowest_and_the_newest_supported_python():
    import tomllib

    workflow = (ROOT / ".github" / "workflows" / "decks.yml").read_text("utf-8")
    project = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]
    lowest = project["requires-python"].removeprefix(">=")
    newest = max((c.rsplit(" ", 1)[1] for c in project["classifiers"] if re.fullmatch(r"Programming Language :: Python :: 3\.\d+", c)),
                 key=lambda version: int(version.split(".")[1]))
    matrix = re.search(r"python-version: \[([^\]]*)\]", workflow)
    assert matrix and [v.strip(' "\'') for v in matrix.group(1).split(",")] == [lowest, newest]
    steps = re.findall(r"^\s*run: CI=true \.ci/run ?(.*)$", workflow, re.MULTILINE)  # installs as the README does
    assert sorted(steps) == ["fast", "lint", "slow"]
    assert "pip install" not in workflow  # and in no other way


def test_every_command_is_in_the_readmes_table():
    """A command added without a line in the table of commands is one a learner never finds."""
    from quizzer.cli.base import COMMANDS, app

    for module in set(COMMANDS.values()):  # each is loaded when its command runs
        __import__(module)

    def commands(group, path):
        for command in group.registered_commands:
            yield " ".join([*path, command.name or command.callback.__name__.replace("_", "-")])
        for sub in group.registered_groups:
            yield from commands(sub.typer_instance, [*path, sub.name])

    table = README.split("## Commands")[1].split("\n## ")[0] if "## Commands" in README else README
    listed = set(re.findall(r"`quiz ([a-z][a-z -]*?)(?= [A-Z\[-]|`)", table))
    assert sorted(set(commands(app, [])) - listed) == []
