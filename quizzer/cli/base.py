"""The root command, its one error boundary and the options commands share.

Heavy modules (pydantic, SQLAlchemy, torch) are imported inside the commands that need them,
so ``quiz --help`` and shell completion start instantly.
"""

from __future__ import annotations

import enum
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Optional

import typer
from typer.core import TyperGroup

from quizzer import clock
from quizzer.errors import ExitCode, QuizError, UsageError
from quizzer.kinds import KINDS

if TYPE_CHECKING:
    from rich.console import Console
    from typer._click.core import Context as ClickContext  # typer carries its own click

    from quizzer.app.collection import Collection
    from quizzer.decks import LoadedDeck
    from quizzer.settings import Settings


class QuizGroup(TyperGroup):
    """The one error boundary: a QuizError becomes ``Error: ...`` on stderr and its exit code;
    Ctrl-C exits 130. ``QUIZ_DEBUG=1`` lets the traceback through for bug reports."""

    def invoke(self, ctx: ClickContext) -> Any:
        try:
            return super().invoke(ctx)
        except QuizError as err:
            if os.environ.get("QUIZ_DEBUG"):
                raise
            for line in err.details:
                typer.echo(line, err=True)
            typer.echo(f"Error: {err.message}" + (f" ({err.hint})" if err.hint else ""), err=True)
            raise typer.Exit(int(err.exit_code)) from None
        except KeyboardInterrupt:
            if os.environ.get("QUIZ_DEBUG"):
                raise
            typer.echo("\nInterrupted; every answer given so far is saved.", err=True)
            raise typer.Exit(int(ExitCode.INTERRUPTED)) from None


app = typer.Typer(
    cls=QuizGroup,
    help="Flashcards, numeric drills and mock interviews for BERT / GPT / Transformer interviews.",
    invoke_without_command=True,
    add_completion=True,
    rich_markup_mode=None,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


@dataclass(frozen=True)
class Where:
    """The root options, which every command inherits unless it gives its own."""

    decks: Path | None = None
    db: Path | None = None


DecksOption = Annotated[
    Optional[Path],
    typer.Option("--decks", metavar="DIR", show_default=False,
                 help="Deck folder to use instead of the bundled decks (or set QUIZ_DECKS)."),
]
DbOption = Annotated[
    Optional[Path],
    typer.Option("--db", metavar="FILE", show_default=False,
                 help="Database file (or set QUIZ_DB; default: the user data directory)."),
]
DeckFilter = Annotated[Optional[list[str]], typer.Option("--deck", metavar="DECK", show_default=False,
                                                         help="Only this deck (repeatable).")]
TagFilter = Annotated[Optional[list[str]], typer.Option("--tag", metavar="TAG", show_default=False,
                                                        help="Only cards with this tag (repeatable).")]
Kind = enum.Enum("Kind", {kind: kind for kind in KINDS}, type=str)  # type: ignore[misc]  # built from the registry; typer validates the choice
KindFilter = Annotated[Optional[list[Kind]], typer.Option(
    "--kind", metavar="KIND", show_default=False, help=f"Only this kind: {', '.join(KINDS)} (repeatable).")]
JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")]


def kind_values(chosen: list[Any] | None) -> list[str] | None:
    return [k.value for k in chosen] if chosen else None


def where(ctx: typer.Context, decks: Path | None = None, db: Path | None = None) -> Where:
    """A command's own --decks / --db, else the ones given before the command."""
    root: Where = ctx.find_root().obj or Where()
    return Where(decks if decks is not None else root.decks, db if db is not None else root.db)


def console() -> Console:
    from quizzer.terminal.render import console

    return console()


def load(ctx: typer.Context, decks: Path | None) -> list[LoadedDeck]:
    """The decks to use (no database needed); DeckProblems if they cannot be used."""
    from quizzer.decks import deck_dirs, load_decks

    return load_decks(deck_dirs(where(ctx, decks).decks))


def collection(ctx: typer.Context, decks: Path | None, db: Path | None) -> Collection:
    """The decks joined to the database."""
    from quizzer.app.collection import open_collection

    chosen = where(ctx, decks, db)
    return open_collection(chosen.decks, chosen.db)


def settings(**options: Any) -> Settings:
    """The learner's settings (defaults, config file, environment) with the options given for
    this run (None: not given); a bad value anywhere is a UsageError naming its key."""
    from quizzer.settings import load

    return load().with_options(**options)


def check_clock() -> None:
    """QUIZ_NOW, if set, must be a date-time: every command reads the clock."""
    try:
        clock.now()
    except ValueError:
        raise UsageError(f"QUIZ_NOW={os.environ['QUIZ_NOW']!r} is not an ISO date-time",
                         "e.g. QUIZ_NOW=2026-01-05T10:00") from None
