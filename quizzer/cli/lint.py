"""``quiz lint`` and ``quiz schema``: checking deck files, and the format they are checked against."""

from __future__ import annotations

import enum
import os
import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from quizzer.cli.base import app
from quizzer.cli.boundary import counted_cards
from quizzer.cli.context import DecksOption, locations as where
from quizzer.i18n import _, ngettext


class LintFormat(str, enum.Enum):
    text = "text"
    github = "github"


@app.command(help=_("Check deck files: YAML, fields, ids, answers, checkers and worked examples."))
def lint(
    ctx: typer.Context,
    paths: Annotated[Optional[list[Path]], typer.Argument(metavar="[PATH]...", show_default=False,
                                                         help=_("Deck files or folders (default: all decks)."))] = None,
    output: Annotated[LintFormat, typer.Option(
        "--format", help=_("text: path:line:column: message; github: Actions annotations."))] = LintFormat.text,
    decks_dir: DecksOption = None,
) -> None:
    from quizzer import decks
    from quizzer.errors import problems_counted

    chosen = paths or decks.deck_dirs(where(ctx, decks_dir).decks)
    problems = decks.lint(chosen)
    for problem in problems:
        typer.echo(problem.github() if output is LintFormat.github else str(problem))
    if problems:
        typer.echo(problems_counted(problems), err=True)
        raise typer.Exit(1)
    typer.echo(_checked(chosen))


def _checked(paths: list[Path]) -> str:
    """What a clean lint checked: ``2 decks, 214 cards: no problems``."""
    from quizzer import decks
    from quizzer.errors import DeckProblems

    files = list({Path(os.path.realpath(path)): path for path in decks.deck_files(paths)}.values())  # each file once
    try:
        cards = sum(len(loaded.entries) for loaded in decks.load_decks(files))  # cached for the next command
    except DeckProblems:  # changed while being checked: count the files only
        return ngettext("{count} deck: no problems", "{count} decks: no problems", len(files)).format(count=len(files))
    return _("{decks}, {cards}: no problems").format(
        decks=ngettext("{count} deck", "{count} decks", len(files)).format(count=len(files)),
        cards=counted_cards(cards))


@app.command(help=_("Print the JSON Schema of the deck format (decks/schema.json is this output)."))
def schema() -> None:
    from quizzer.model import json_schema

    sys.stdout.write(json_schema())
