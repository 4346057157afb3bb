"""The wheel as a user gets it: built from the checkout, installed into a fresh virtual
environment, and run from another folder, so nothing can come from the checkout itself."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import sysconfig
import zipfile
from email.parser import Parser
from pathlib import Path

import pytest
import yaml

pytestmark = pytest.mark.slow  # every test here starts a process

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", str(ROOT), "-w", str(out)],
                   check=True, capture_output=True, text=True)
    [built] = out.glob("quizzer-*.whl")
    return built


@pytest.fixture(scope="module")
def venv(wheel, tmp_path_factory) -> Path:
    """A fresh venv holding the wheel; its dependencies come from the environment running the
    tests (--system-site-packages, plus this environment's site-packages when it is itself a
    venv), so nothing is downloaded."""
    env_dir = tmp_path_factory.mktemp("venv") / "env"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(env_dir)], check=True)
    python = env_dir / "bin" / "python"
    purelib = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             check=True, capture_output=True, text=True).stdout.strip()
    ours = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    (Path(purelib) / "outer-environment.pth").write_text("\n".join(sorted(ours)) + "\n")  # plain paths: no .pth of ours runs
    subprocess.run([python, "-m", "pip", "install", "--no-deps", "--quiet", str(wheel)], check=True,
                   capture_output=True, text=True)
    return env_dir


def run(venv: Path, elsewhere: Path, *args: str, stdin: str = "", now: str = "2026-01-05T10:00") -> str:
    """``quiz ARGS`` from the venv, in a folder that is not the checkout."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "QUIZ_DECKS")}
    result = subprocess.run([str(venv / "bin" / "quiz"), *args], cwd=elsewhere, input=stdin, capture_output=True,
                            text=True, env={**env, "QUIZ_NOW": now, "QUIZ_LANG": "en"})
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def shipped_decks(wheel: Path) -> dict[str, int]:
    """Deck id → number of cards, read from the wheel's deck files without quizzer."""
    with zipfile.ZipFile(wheel) as archive:
        return {doc["id"]: len(doc["cards"]) for doc in (
            yaml.safe_load(archive.read(name)) for name in archive.namelist()
            if re.fullmatch(r"quizzer/bundled_decks/[^/]+\.yaml", name))}


def test_the_wheel_holds_the_package_the_decks_the_license_and_the_metadata(wheel):
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        [metadata_name] = [n for n in names if n.endswith(".dist-info/METADATA")]
        metadata = Parser().parsestr(archive.read(metadata_name).decode())
    assert {"quizzer/bundled_decks/ch08-bert.yaml", "quizzer/bundled_decks/day12-bert-gpt.yaml"} <= set(names)
    assert any(re.search(r"\.dist-info/licenses/LICENSE$", n) for n in names)
    assert "quizzer/cli/__init__.py" in names and "checkers/registry.py" in names
    assert {"quizzer/py.typed", "checkers/py.typed"} <= set(names)  # PEP 561: type checkers read our hints
    assert not [n for n in names if n.startswith(("tests/", "bench/", ".venv/"))]
    assert metadata["Requires-Python"] == ">=3.11"
    assert metadata["License-Expression"] == "MIT" or metadata["License"] == "MIT"
    assert "Programming Language :: Python :: 3.11" in metadata.get_all("Classifier")
    assert metadata.get_all("Project-URL")


def test_quizzer_runs_from_the_venv_not_the_checkout(venv, tmp_path):
    where = subprocess.run([venv / "bin" / "python", "-c", "import quizzer, checkers; print(quizzer.__file__, checkers.__file__)"],
                           cwd=tmp_path, check=True, capture_output=True, text=True,
                           env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"}).stdout.split()
    assert all(Path(path).is_relative_to(venv) for path in where), where


def test_quiz_decks_lists_the_bundled_decks(wheel, venv, tmp_path):
    import json

    listed = json.loads(run(venv, tmp_path, "decks", "--json"))
    assert {row["deck"]: row["total"] for row in listed} == shipped_decks(wheel) != {}
    assert all(Path(row["path"]).is_relative_to(venv) for row in listed)


def test_quiz_lint_checks_the_bundled_decks(wheel, venv, tmp_path):
    counts = shipped_decks(wheel)
    assert run(venv, tmp_path, "lint").strip() == f"{len(counts)} decks, {sum(counts.values())} cards: no problems"


def test_a_scripted_study_rates_two_questions(venv, tmp_path):
    out = run(venv, tmp_path, "study", "--kind", "qa", stdin="\n3\n\n4\nq\n")
    ratings = [line.split(" · ")[0].split()[-1] for line in out.splitlines() if line.startswith("saved ")]
    assert ratings == ["Good", "Easy"]
