"""Checks that keep the design honest: kinds as the only place that knows kinds, and every script loads.
(Types, unused names and the import layers are .ci/run's lint step: mypy, ruff, lint-imports.)"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_no_module_outside_the_kinds_names_a_kind():
    """Study, exam, lint and the front ends go through the Kind interface: none of them
    compares a card with a kind's name or class."""
    kind_names = "|".join(("qa", "choice", "mistake", "numeric", "cloze"))
    branching = re.compile(rf"""(\.kind\s*[!=]=\s*["']({kind_names})["']|isinstance\([^)]*(Qa|Choice|Mistake|Numeric|Cloze)Card)""")
    offenders = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for path in (ROOT / "quizzer").rglob("*.py") if "kinds" not in path.parts
        for number, line in enumerate(path.read_text("utf-8").splitlines(), 1) if branching.search(line)
    ]
    assert offenders == []


@pytest.mark.slow
def test_every_benchmark_and_tool_loads():
    """mypy and the tests cover quizzer and checkers only: bench_history imported a name the store
    had dropped (`card_ids`), and it failed for whoever ran it next."""
    scripts = sorted(str(path) for folder in ("bench", "tools") for path in (ROOT / folder).glob("*.py"))
    code = "import runpy, sys\nfor path in sys.argv[1:]:\n    runpy.run_path(path, run_name='loaded')"  # not __main__
    result = subprocess.run([sys.executable, "-c", code, *scripts], cwd=ROOT, capture_output=True, text=True,
                            env={**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "bench")])})
    assert len(scripts) > 5 and result.returncode == 0, result.stderr


MODULE_LINES_MAX = 400  # a module does one job; past this it holds two


def test_no_module_passes_the_line_limit():
    """Every module in quizzer/ and checkers/ (subpackages included) is at most MODULE_LINES_MAX lines."""
    modules = [path for folder in ("quizzer", "checkers") for path in (ROOT / folder).rglob("*.py")]
    too_long = {str(path.relative_to(ROOT)): lines for path in modules
                if (lines := len(path.read_text(encoding="utf-8").splitlines())) > MODULE_LINES_MAX}
    assert len(modules) > 100 and not too_long, too_long
