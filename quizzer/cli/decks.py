"""``quiz decks``: the decks with how many cards of each kind they hold."""

from __future__ import annotations

from typing import Any

import typer

from quizzer.cli.base import DecksOption, JsonOption, app, console, load
from quizzer.kinds import KINDS


@app.command("decks")
def decks_command(ctx: typer.Context, as_json: JsonOption = False, decks_dir: DecksOption = None) -> None:
    """List the decks with how many cards of each kind they hold."""
    loaded_decks = load(ctx, decks_dir)
    rows: list[dict[str, Any]] = [
        {"deck": loaded.deck.id, "title": loaded.deck.title, "path": str(loaded.path),
         "kinds": {kind: sum(card.kind == kind for card in loaded.deck.cards) for kind in KINDS},
         "total": len(loaded.deck.cards)}
        for loaded in loaded_decks
    ]
    if as_json:
        from quizzer.cli.output import emit_json

        emit_json(rows)
        return
    if not rows:
        console().print("No decks: the deck folders hold no deck files (*.yaml, *.yml).", markup=False)
        return
    from rich.table import Table

    from quizzer.terminal.render import safe

    table = Table("deck", "title", *KINDS, "total")
    table.columns[0].no_wrap = True  # the id is what --deck needs: never cut it
    for row in rows:
        table.add_row(safe(row["deck"]), safe(row["title"]), *(str(row["kinds"][kind]) for kind in KINDS), str(row["total"]))
    console().print(table)
