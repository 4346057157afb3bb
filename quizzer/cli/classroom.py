"""``quiz class report``: every learner on a shared server, and what the class fails most."""

from __future__ import annotations

from typing import Annotated

import typer

from quizzer.cli.base import app, group
from quizzer.cli.boundary import console
from quizzer.cli.context import DbOption, learner, settings, locations as where
from quizzer.cli.options import JsonOption
from quizzer.base.i18n import N_

class_app = group(N_("A class sharing one database server."))
app.add_typer(class_app, name="class")


@class_app.command("report", help=N_(
    "Per learner: reviews and days studied, true retention, exam scores and their trend, the interview date; for the "
    "class: the cards and tags failed most, with the share of learners who failed them. Needs the right to read "
    "every learner's collection."))
def class_report(
    ctx: typer.Context,
    days: Annotated[int, typer.Option("--days", min=1, max=3650, metavar="N", help=N_(
        "The study days looked at, up to and including today."))] = 14,
    as_json: JsonOption = False,
    db: DbOption = None,
) -> None:
    from quizzer.base import clock
    from quizzer.app.classroom import class_report

    figures = class_report(where(ctx, None, db).db, learner(), clock.now(), settings().day_start_hour, days)
    if as_json:
        from quizzer.cli.output import emit_json

        emit_json(figures)
        return
    from quizzer.terminal.classroom import show

    show(console(), figures)
