"""``quiz study``: the daily drill."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from quizzer.cli.base import (
    DbOption,
    DeckFilter,
    DecksOption,
    KindFilter,
    TagFilter,
    app,
    collection,
    console,
    kind_values,
)
from quizzer.defaults import NEW_PER_DAY, REVIEWS_PER_DAY


@app.command()
def study(
    ctx: typer.Context,
    deck: DeckFilter = None,
    tag: TagFilter = None,
    kind: KindFilter = None,
    new: Annotated[Optional[int], typer.Option("--new", min=0, metavar="N", help="At most N new cards this session.", show_default=False)] = None,
    limit: Annotated[Optional[int], typer.Option("--limit", min=1, metavar="N", help="At most N cards this session.", show_default=False)] = None,
    ahead: Annotated[bool, typer.Option("--ahead", help="Practise cards not yet due (their schedule is kept).")] = False,
    new_per_day: Annotated[int, typer.Option(min=0, metavar="N", help="New cards per study day.")] = NEW_PER_DAY,
    reviews_per_day: Annotated[int, typer.Option(min=0, metavar="N", help="Reviews per study day.")] = REVIEWS_PER_DAY,
    decks_dir: DecksOption = None,
    db: DbOption = None,
) -> None:
    """The daily drill: due cards, then a few new ones, scheduled with FSRS."""
    from quizzer import clock
    from quizzer.scheduling.queue import build_queue
    from quizzer.scheduling.summary import next_due
    from quizzer.terminal import study as screen

    opened = collection(ctx, decks_dir, db)
    chosen = opened.card_filter(deck, tag, kind_values(kind))
    queue = build_queue(opened.store, clock.now(), new_per_day=new_per_day, reviews_per_day=reviews_per_day,
                        chosen=chosen, new_limit=new, limit=limit, ahead=ahead)
    if not queue:
        upcoming = next_due(opened.store, clock.now())
        when = f" The next card is due {upcoming.astimezone():%Y-%m-%d %H:%M}." if upcoming else ""
        console().print(f"Nothing is due now.{when} `quiz study --ahead` practises cards early; "
                        "reviews of cards not yet due leave their schedule alone.", markup=False)
        return
    screen.run(opened, queue, chosen=chosen)
