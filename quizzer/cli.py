"""The ``quiz`` command line: thin typer commands over the library modules.

Heavy modules (pydantic, SQLAlchemy, numpy, torch) are imported inside the commands that
need them, so ``quiz --help`` and shell completion start instantly.
"""

from __future__ import annotations

import enum
import json
import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

app = typer.Typer(
    help="Flashcards, numeric drills and mock interviews for BERT / GPT / Transformer interviews.",
    no_args_is_help=True,
    add_completion=True,
    rich_markup_mode=None,
    pretty_exceptions_enable=False,
)

DecksOption = Annotated[
    Optional[Path],
    typer.Option("--decks", help="Deck folder to use instead of the bundled decks (or set QUIZ_DECKS).", show_default=False),
]


class LintFormat(str, enum.Enum):
    text = "text"
    github = "github"


def _console():
    from rich.console import Console

    return Console()


def _load(decks_dir: Path | None):
    """The decks to use, or a clean exit naming every problem that makes them unusable."""
    from quizzer import decks

    try:
        return decks.load_decks(decks.deck_dirs(decks_dir))
    except decks.DeckError as err:
        for problem in err.problems:
            typer.echo(str(problem), err=True)
        typer.echo("These decks have problems; `quiz lint` checks them.", err=True)
        raise typer.Exit(2) from None


@app.command("decks")
def decks_command(decks_dir: DecksOption = None) -> None:
    """List the decks with how many cards of each kind they hold."""
    from rich.table import Table

    from quizzer.model import KINDS

    table = Table("deck", "title", *KINDS, "total")
    for loaded in _load(decks_dir):
        counts = [sum(card.kind == kind for card in loaded.deck.cards) for kind in KINDS]
        table.add_row(loaded.deck.id, loaded.deck.title, *map(str, counts), str(len(loaded.deck.cards)))
    _console().print(table)


@app.command()
def lint(
    paths: Annotated[Optional[list[Path]], typer.Argument(help="Deck files or folders (default: all decks).", show_default=False)] = None,
    output: Annotated[LintFormat, typer.Option("--format", help="text: path:line:column: message; github: Actions annotations.")] = LintFormat.text,
    decks_dir: DecksOption = None,
) -> None:
    """Check deck files: YAML, fields, ids, answers, checkers and worked examples."""
    from quizzer import decks

    problems = decks.lint(paths or decks.deck_dirs(decks_dir))
    for problem in problems:
        typer.echo(problem.github() if output is LintFormat.github else str(problem))
    if problems:
        typer.echo(f"{len(problems)} problem(s)", err=True)
        raise typer.Exit(1)


@app.command()
def schema() -> None:
    """Print the JSON Schema of the deck format (decks/schema.json is this output)."""
    from quizzer.model import json_schema

    sys.stdout.write(json_schema())


@app.command("checkers")
def checkers_command() -> None:
    """List the numeric-question checkers."""
    from rich.table import Table

    from checkers import registry

    table = Table("checker", "what it asks")
    for name in registry.names():
        table.add_row(name, registry.get(name).description)
    _console().print(table)


@app.command()
def generate(
    name: Annotated[str, typer.Argument(help="Checker name (see `quiz checkers`).")],
    seed: Annotated[int, typer.Option(help="Same seed, same question.")] = 0,
    as_json: Annotated[bool, typer.Option("--json", help="Print prompt, inputs, answer and tolerance as JSON.")] = False,
) -> None:
    """Generate one numeric question with its answer and worked solution."""
    from checkers import registry

    from quizzer import render

    if name not in registry.names():
        typer.echo(f"unknown checker '{name}'; known: {', '.join(registry.names())}", err=True)
        raise typer.Exit(2)
    question = registry.get(name).generate(seed)
    if as_json:
        typer.echo(json.dumps(question.to_dict(), ensure_ascii=False, indent=2))
        return
    console = _console()
    console.print(render.markdown(question.prompt))
    console.print(f"\n[bold]答案[/bold] {question.answer_text}\n")
    console.print(render.markdown(question.solution))


def main() -> None:
    app()
