"""``quiz lint`` and ``quiz schema``: checking deck files, and the format they are checked against."""

from __future__ import annotations

import enum
import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from quizzer.cli.base import app
from quizzer.cli.boundary import counted_cards
from quizzer.cli.context import DecksOption, locations as where
from quizzer.base.i18n import N_, _, ngettext


class LintFormat(str, enum.Enum):
    text = "text"
    github = "github"


@app.command(help=N_("Check deck files: YAML, fields, ids, answers, checkers and worked examples."))
def lint(
    ctx: typer.Context,
    paths: Annotated[Optional[list[Path]], typer.Argument(metavar="[PATH]...", show_default=False,
                                                         help=N_("Deck files or folders (default: all decks)."))] = None,
    output: Annotated[LintFormat, typer.Option(
        "--format", help=N_("text: path:line:column: message; github: Actions annotations."))] = LintFormat.text,
    decks_dir: DecksOption = None,
) -> None:
    from quizzer.app.deck_files import lint as checked
    from quizzer.base.errors import problems_counted
    from quizzer.base.locations import deck_dirs

    found = checked(paths or deck_dirs(where(ctx, decks_dir).decks))
    for problem in found.problems:
        typer.echo(problem.github() if output is LintFormat.github else str(problem))
    if found.problems:
        typer.echo(problems_counted(found.problems), err=True)
        raise typer.Exit(1)
    for warning in found.warnings:
        typer.echo(str(warning), err=True)
    typer.echo(_clean(found.files, found.cards))


def _clean(files: int, cards: int | None) -> str:
    """What a clean lint checked: ``2 decks, 214 cards: no problems`` (the files only: ``cards`` None)."""
    if cards is None:
        return ngettext("{count} deck: no problems", "{count} decks: no problems", files).format(count=files)
    return _("{decks}, {cards}: no problems").format(
        decks=ngettext("{count} deck", "{count} decks", files).format(count=files), cards=counted_cards(cards))


@app.command(help=N_("Print the JSON Schema of the deck format (decks/schema.json is this output)."))
def schema() -> None:
    from quizzer.app.deck_files import json_schema

    sys.stdout.write(json_schema())
