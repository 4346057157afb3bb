"""The README's scripted examples do what the text next to them says."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

README = (Path(__file__).resolve().parents[1] / "README.md").read_text("utf-8")


def example(marker: str) -> str:
    """The shell line following the comment ``marker`` in a README code block."""
    block = re.search(rf"# {re.escape(marker)}[^\n]*\n([^\n]+)\n", README)
    assert block, marker
    return block.group(1).replace("| QUIZ_NOW", "| env QUIZ_NOW").replace(" quiz ", f" {sys.executable} -m quizzer ")


def run(line: str) -> str:
    return subprocess.run(["bash", "-c", line], capture_output=True, text=True, check=True).stdout


def test_study_example_rates_two_questions_then_quits():
    out = run(example("reveal and rate two interview questions"))
    # "saved CARD-ID → RATING", then " · due in 10m" for people
    assert [l.split(" · ")[0].split()[-1] for l in out.splitlines() if l.startswith("saved ")] == ["Good", "Easy"]


def test_exam_example_answers_one_skips_one_and_hands_in():
    out = run(example("a two-question multiple-choice paper"))
    assert "(1 of 2 answered" in out and "(skipped)" in out
