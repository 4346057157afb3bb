"""``quiz decks``: the decks with how many cards of each kind they hold."""

from __future__ import annotations

import typer

from quizzer.cli.base import DecksOption, app, console, load
from quizzer.kinds import KINDS


@app.command("decks")
def decks_command(ctx: typer.Context, decks_dir: DecksOption = None) -> None:
    """List the decks with how many cards of each kind they hold."""
    from rich.table import Table

    table = Table("deck", "title", *KINDS, "total")
    table.columns[0].no_wrap = True  # the id is what --deck needs: never cut it
    for loaded in load(ctx, decks_dir):
        counts = [sum(card.kind == kind for card in loaded.deck.cards) for kind in KINDS]
        table.add_row(loaded.deck.id, loaded.deck.title, *map(str, counts), str(len(loaded.deck.cards)))
    console().print(table, markup=False)
