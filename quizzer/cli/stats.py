"""``quiz stats``: cards by state, the forecast, reviews per day, true retention and the rest."""

from __future__ import annotations

import typer

from quizzer.cli.base import app
from quizzer.cli.boundary import console
from quizzer.cli.context import DbOption, DecksOption, collection, settings
from quizzer.cli.options import DeckFilter, JsonOption, NoPagerOption, TagFilter
from quizzer.base.i18n import N_


@app.command(help=N_("Statistics: cards by state, due forecast, reviews per day, true retention, ratings, streak, "
                    "time, recall, exam scores, the weakest cards and tags."))
def stats(
    ctx: typer.Context,
    deck: DeckFilter = None,
    tag: TagFilter = None,
    json_output: JsonOption = False,
    no_pager: NoPagerOption = False,
    decks_dir: DecksOption = None,
    db: DbOption = None,
) -> None:
    from dataclasses import asdict

    from quizzer.base import clock
    from quizzer.app.plan import plan_dict, status
    from quizzer.app.stats import of_collection

    learner = settings()
    opened = collection(ctx, decks_dir, db)
    figures = of_collection(opened, clock.now(), learner, deck, tag)
    planned = status(opened, learner, clock.now())  # the interview's forecast, when one is set
    if json_output:
        from quizzer.cli.output import emit_json

        emit_json({**asdict(figures), "plan": plan_dict(planned) if planned else None})
        return
    from quizzer.cli.output import paged
    from quizzer.terminal.messages import show_status
    from quizzer.terminal.stats import show

    out = console()
    with paged(out, not no_pager):
        show(out, figures)
        if planned:
            show_status(out, planned)
