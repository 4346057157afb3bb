"""``quiz stats``: cards by state, the forecast, reviews per day, true retention and the rest."""

from __future__ import annotations

import typer

from quizzer.cli.base import (
    DbOption,
    DeckFilter,
    DecksOption,
    JsonOption,
    TagFilter,
    app,
    collection,
    console,
)


@app.command()
def stats(
    ctx: typer.Context,
    deck: DeckFilter = None,
    tag: TagFilter = None,
    json_output: JsonOption = False,
    decks_dir: DecksOption = None,
    db: DbOption = None,
) -> None:
    """Statistics: cards by state, due forecast, reviews per day, true retention, ratings, streak,
    time, recall, exam scores, the weakest cards and tags."""
    from quizzer import clock
    from quizzer.app.stats import compute

    opened = collection(ctx, decks_dir, db)
    chosen = opened.card_filter(deck, tag)
    figures = compute(opened.store, chosen, clock.now(), [loaded.id for loaded in opened.decks])
    if json_output:
        from quizzer.cli.output import emit_json

        emit_json(figures)
        return
    from quizzer.terminal.stats import show

    show(console(), figures)
