"""``quiz`` with no command: today's numbers per deck, as Anki's deck list shows them."""

from __future__ import annotations

from typing import Annotated

import typer

from quizzer.cli.base import (
    DbOption,
    DecksOption,
    Where,
    app,
    check_clock,
    collection,
    console,
)


def _version(value: bool) -> None:
    if value:
        from importlib.metadata import version

        typer.echo(f"quiz {version('quizzer')}")
        raise typer.Exit()


@app.callback()
def overview(
    ctx: typer.Context,
    decks_dir: DecksOption = None,
    db: DbOption = None,
    version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True,
                                          help="Print the version and exit.")] = False,
) -> None:
    """With no command: today's numbers per deck, as Anki's deck list shows them."""
    check_clock()
    ctx.obj = Where(decks_dir, db)
    if ctx.invoked_subcommand is not None:
        return
    from rich.table import Table

    from quizzer import clock
    from quizzer.scheduling.summary import DeckToday, today_by_deck

    opened = collection(ctx, None, None)
    today = today_by_deck(opened.store, clock.now())
    table = Table("deck", "title", "new", "learning", "due", title="Today")
    table.columns[0].no_wrap = True  # the id is what --deck needs: never cut it
    for loaded in opened.decks:
        counts = today.get(loaded.deck.id, DeckToday(0, 0, 0))
        table.add_row(loaded.deck.id, loaded.deck.title, str(counts.new), str(counts.learning), str(counts.due),
                      )
    out = console()
    out.print(table, markup=False)
    out.print("`quiz study` for the daily drill, `quiz exam` for a mock interview, `quiz --help` for everything.",
              markup=False)
