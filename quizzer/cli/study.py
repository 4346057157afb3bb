"""``quiz study``: the daily drill."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from quizzer.cli.base import app
from quizzer.cli.boundary import console
from quizzer.cli.context import NO_DECKS, DbOption, DecksOption, collection, settings
from quizzer.cli.options import DeckFilter, KindFilter, TagFilter, kind_values
from quizzer.base.i18n import N_, _


@app.command(help=N_("The daily drill: due cards, then a few new ones, scheduled with FSRS."))
def study(
    ctx: typer.Context,
    deck: DeckFilter = None,
    tag: TagFilter = None,
    kind: KindFilter = None,
    new: Annotated[Optional[int], typer.Option("--new", min=0, metavar="N", help=N_("At most N new cards this session."), show_default=False)] = None,
    limit: Annotated[Optional[int], typer.Option("--limit", min=1, metavar="N", help=N_("At most N cards this session."), show_default=False)] = None,
    ahead: Annotated[bool, typer.Option("--ahead", help=N_("Practise cards not yet due (their schedule is kept unless answered Again)."))] = False,
    new_per_day: Annotated[Optional[int], typer.Option(
        min=0, max=9999, metavar="N", show_default=False,
        help=N_("New cards per study day, this run (default: `quiz config`'s new_per_day)."))] = None,
    reviews_per_day: Annotated[Optional[int], typer.Option(
        min=0, max=9999, metavar="N", show_default=False,
        help=N_("Reviews per study day, this run (default: `quiz config`'s reviews_per_day)."))] = None,
    decks_dir: DecksOption = None,
    db: DbOption = None,
) -> None:
    from quizzer.base import clock
    from quizzer.app.queue import Planned, plan_session
    from quizzer.terminal.messages import pace_message
    from quizzer.terminal import study as screen

    chosen_settings = settings(new_per_day=new_per_day, reviews_per_day=reviews_per_day)
    opened = collection(ctx, decks_dir, db)
    if not opened.decks:  # no deck: nothing to study, due or ahead
        console().print(_(NO_DECKS), markup=False)
        return
    chosen = opened.card_filter(deck, tag, kind_values(kind))
    planned = plan_session(opened, chosen, chosen_settings, clock.now(), new=new, limit=limit, ahead=ahead)
    if planned.pace.raised:
        console().print(pace_message(planned.pace.setting, planned.pace.today), markup=False)
    if not isinstance(planned, Planned):
        console().print(screen.nothing_due(planned), markup=False)
        return
    screen.run(opened, planned.queue, chosen=chosen, settings=chosen_settings, only_queued=limit is not None,
               refills=new is None and limit is None)  # --new / --limit: this run's own count
