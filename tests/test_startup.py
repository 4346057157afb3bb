"""Start-up stays light: heavy modules load only when a command needs them."""

from __future__ import annotations

import subprocess
import sys

import pytest
from typer.testing import CliRunner

from quizzer.cli import app

HEAVY = ("torch", "numpy", "sqlalchemy", "pydantic", "alembic")


def imported_after(code: str, modules: tuple[str, ...] = HEAVY) -> set[str]:
    """Which of ``modules`` are imported once ``code`` has run in a fresh interpreter."""
    probe = f"{code}\nimport sys\nprint('HEAVY:', *sorted(m for m in {modules!r} if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    [line] = [row for row in out.stdout.splitlines() if row.startswith("HEAVY:")]
    return set(line.split()[1:])


def running(command: list[str]) -> str:
    """Code that runs ``quiz COMMAND`` in the probe's interpreter."""
    return f"import sys\nfrom quizzer.cli import app\nsys.argv = ['quiz', *{command!r}]\ntry:\n    app()\nexcept SystemExit:\n    pass"


@pytest.mark.slow
def test_importing_the_cli_imports_nothing_heavy():
    assert imported_after("import quizzer.cli") == set()


@pytest.mark.slow
def test_help_imports_nothing_heavy():
    assert imported_after(running(["--help"])) == set()


@pytest.mark.slow
@pytest.mark.parametrize("command", [["decks"], ["lint", "decks/schema.json"], ["checkers"]])
def test_deck_commands_never_import_torch(command):
    assert "torch" not in imported_after(running(command))


@pytest.mark.slow
def test_typer_loads_pydantic_only_for_an_option_given():
    """typer coerces an option's value through pydantic; options left out need no coercion, so
    `quiz decks` (its deck index read from the cache) stays pydantic-free until one is given."""
    imported_after(running(["decks"]))  # fills the cache (a fresh one per test: conftest)
    assert "pydantic" not in imported_after(running(["decks"]))
    assert "pydantic" in imported_after(running(["decks", "--decks", "decks"]))


@pytest.mark.slow
def test_a_table_imports_no_markdown_renderer():
    """rich.markdown (with markdown-it and pygments) loads where deck text is drawn, not for a table."""
    assert imported_after(running(["decks"]), ("rich.table", "rich.markdown")) == {"rich.table"}
    assert "rich.markdown" in imported_after(running(["card", "bert-vs-gpt-core"]), ("rich.markdown",))


@pytest.mark.parametrize(("option", "value", "message"), [
    ("--new", "abc", "Invalid value for '--new': Input should be a valid integer"),
    ("--limit", "0", "Invalid value for '--limit': Input should be greater than or equal to 1"),
    ("--kind", "bogus", "Invalid value for '--kind': 'bogus' is not one of 'qa', "),
])
def test_an_option_given_is_still_checked_by_typer(tmp_path, option, value, message):
    """Coercing only the options given keeps typer's checks and messages for those (pydantic's wording)."""
    result = CliRunner().invoke(app, ["study", option, value, "--db", str(tmp_path / "q.db")])
    assert result.exit_code == 2
    assert message in " ".join(result.output.split())  # typer wraps the message to the terminal width


@pytest.mark.slow
def test_the_first_card_needs_no_orm():
    """The store is SQLAlchemy Core: `quiz study` opens the database, syncs, queues and shows its
    first card (then reads the end of input) without ever importing sqlalchemy.orm, the cost of
    an ORM nothing here uses. The run is the second on its database: the first creates the schema."""
    probe = (f"{running(['study'])}\n"
             "print('LOADED:', *sorted(m for m in ('sqlalchemy', 'sqlalchemy.orm') if m in sys.modules))")
    outputs = [subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True,
                              stdin=subprocess.DEVNULL).stdout for _ in range(2)]
    [line] = [row for row in outputs[1].splitlines() if row.startswith("LOADED:")]
    assert "0 done" in outputs[1]  # the first card was on screen
    assert line.split()[1:] == ["sqlalchemy"]  # the store was used, its ORM never loaded


@pytest.mark.slow
def test_no_store_module_imports_the_orm():
    """Every module of quizzer.store (those off the first card's path too) is Core only."""
    code = ("import importlib, pkgutil, quizzer.store\n"
            "for module in pkgutil.iter_modules(quizzer.store.__path__):\n"
            "    importlib.import_module(f'quizzer.store.{module.name}')")
    assert imported_after(code, ("sqlalchemy", "sqlalchemy.orm")) == {"sqlalchemy"}
