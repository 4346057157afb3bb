"""`quiz checkers`, `quiz generate`, and deck numbers verified by `quiz lint`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from decimal import ROUND_UP, Decimal
from pathlib import Path

import pytest
from typer.testing import CliRunner

from checkers import registry
from quizzer.cli import app
from quizzer.decks.yamlsource import parse

runner = CliRunner()
ROOT = Path(__file__).resolve().parents[1]


def test_checkers_lists_every_registered_checker():
    result = runner.invoke(app, ["checkers"], env={"COLUMNS": "200"})
    assert result.exit_code == 0
    for name in registry.names():
        assert name in result.stdout


@pytest.mark.parametrize("name", registry.names())
def test_generate_json_is_reproducible_and_complete(name):
    first = runner.invoke(app, ["generate", name, "--seed", "11", "--json"])
    again = runner.invoke(app, ["generate", name, "--seed", "11", "--json"])
    other = runner.invoke(app, ["generate", name, "--seed", "12", "--json"])
    assert first.exit_code == 0, first.output
    assert first.stdout == again.stdout and first.stdout != other.stdout
    data = json.loads(first.stdout)
    assert {"prompt", "inputs", "answer", "tolerance", "solution"} <= data.keys()
    question = registry.get(name).generate(11)
    assert data["answer"] == question.answer and data["inputs"] == question.inputs


@pytest.mark.parametrize("name", registry.names())
def test_generate_text_shows_the_answer_once_at_the_end_of_its_solution(name):
    """The worked solution ends with the answer; a line of its own before it said it twice."""
    result = runner.invoke(app, ["generate", name, "--seed", "3"], env={"COLUMNS": "300"})
    question = registry.get(name).generate(3)
    assert result.exit_code == 0, result.output
    labelled = [line for line in result.stdout.splitlines() if line.startswith(("答案", "Answer"))]
    assert len(labelled) == 1 and question.answer_text in labelled[0], labelled
    assert result.stdout.rstrip().endswith(labelled[0].rstrip())


@pytest.mark.slow
def test_generate_unknown_checker_in_the_interface_language():
    result = runner.invoke(app, ["generate", "nope"])
    assert result.exit_code == 2 and "no checker 'nope' (known: activation_memory, albert_embedding, " in result.stderr
    chinese = subprocess.run([sys.executable, "-m", "quizzer", "generate", "nope"], capture_output=True, text=True,
                             env={**os.environ, "QUIZ_LANG": "zh"})  # it was English there
    assert chinese.returncode == 2 and "没有题目生成器 'nope'" in chinese.stderr and "attention_shapes、" in chinese.stderr


def numeric_examples():
    """(deck file, line of the example's answer, its first stated value) for every worked example."""
    found = []
    for path in sorted((ROOT / "decks").glob("*.yaml")):
        doc = parse(path.read_text("utf-8"))
        for i, card in enumerate(doc.data["cards"]):
            if card.get("kind") == "numeric" and card.get("example"):
                answer_path = ("cards", i, "example", "answer")
                stated = card["example"]["answer"]
                first_path = answer_path + ((0,) if isinstance(stated, list) else ())
                first = stated[0] if isinstance(stated, list) else stated
                found.append((path, doc.values[answer_path].line, doc.values[first_path], first))
    return found


def test_the_decks_have_worked_examples():
    assert len(numeric_examples()) >= 15


@pytest.mark.parametrize("path,line,position,stated", numeric_examples(), ids=lambda v: str(v) if not isinstance(v, Path) else v.stem)
def test_a_stated_value_off_by_5_percent_fails_lint_with_its_line(tmp_path, path, line, position, stated):
    value = Decimal(stated)
    wrong = value * Decimal("1.05") if value != 0 else Decimal("0.05")
    # 5% off, rounded away from the truth to the stated digits so the change always shows
    wrong_text = format(wrong.quantize(Decimal(1).scaleb(value.as_tuple().exponent), rounding=ROUND_UP), "f")
    lines = path.read_text("utf-8").splitlines(keepends=True)
    row = lines[position.line - 1]
    start = position.column - 1
    assert row[start:].startswith(stated) or row[start:].startswith(f'"{stated}"') or row[start:].startswith(f"'{stated}'")
    quote = row[start] if row[start] in "\"'" else ""
    lines[position.line - 1] = row[:start] + quote + wrong_text + row[start + len(quote) + len(stated):]
    broken = tmp_path / path.name
    broken.write_text("".join(lines), "utf-8")
    result = runner.invoke(app, ["lint", str(broken)])
    assert result.exit_code == 1
    assert f"{broken}:{line}:" in result.stdout and "example answer" in result.stdout


def test_the_registry_table_names_each_checker_by_its_own_name():
    """registry.WHERE (imported lazily) against the classes: each entry's class carries that name,
    and every checker class in the package is listed."""
    import importlib
    import inspect

    from checkers.base import BaseChecker

    for name, (module, cls) in registry.WHERE.items():
        assert getattr(importlib.import_module(module), cls).name == name
    listed = {(module, cls) for module, cls in registry.WHERE.values()}
    import pkgutil

    import checkers

    every = {f"checkers.{m.name}" for m in pkgutil.iter_modules(checkers.__path__)} - {"checkers.reference"}  # torch
    for module in every:
        for cls_name, cls in inspect.getmembers(importlib.import_module(module), inspect.isclass):
            if issubclass(cls, BaseChecker) and cls.__module__ == module and not inspect.isabstract(cls):
                assert (module, cls_name) in listed, f"{module}.{cls_name} is not in registry.WHERE"


@pytest.mark.slow
def test_one_checker_imports_only_its_own_family():
    import subprocess
    import sys

    code = ("import sys\nfrom checkers import registry\nregistry.get('mlm_loss').draw(1, {})\n"
            "print(sorted(m for m in sys.modules if m.startswith('checkers.')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "checkers.pretraining" in out and "checkers.attention" not in out and "checkers.costs" not in out


@pytest.mark.parametrize("args", [["generate", "mlm_loss"], ["show", "bert-mlm-loss-cute"], ["exam"]])
@pytest.mark.parametrize("seed", ["-1", str(2**63)])
def test_every_seed_option_takes_the_same_range(args, seed):
    """`exam --seed -1` was refused while `generate` and `show` took it (and 2**90)."""
    result = runner.invoke(app, [*args, "--seed", seed])
    assert result.exit_code == 2 and "Invalid value for '--seed'" in result.stderr, result.output
