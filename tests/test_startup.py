"""Start-up stays light: heavy modules load only when a command needs them."""

from __future__ import annotations

import subprocess
import sys

import pytest

HEAVY = ("torch", "numpy", "sqlalchemy", "pydantic", "alembic")


def imported_after(code: str) -> set[str]:
    probe = f"{code}\nimport sys\nprint('HEAVY:', *sorted(m for m in {HEAVY!r} if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    [line] = [row for row in out.stdout.splitlines() if row.startswith("HEAVY:")]
    return set(line.split()[1:])


def test_importing_the_cli_imports_nothing_heavy():
    assert imported_after("import quizzer.cli") == set()


def test_help_imports_nothing_heavy():
    code = "import sys\nfrom quizzer.cli import app\nsys.argv = ['quiz', '--help']\ntry:\n    app()\nexcept SystemExit:\n    pass"
    assert imported_after(code) == set()


@pytest.mark.parametrize("command", [["decks"], ["lint", "decks/schema.json"], ["checkers"]])
def test_deck_commands_never_import_torch(command):
    code = f"import sys\nfrom quizzer.cli import app\nsys.argv = ['quiz', *{command!r}]\ntry:\n    app()\nexcept SystemExit:\n    pass"
    assert "torch" not in imported_after(code)
