"""``quiz plan``: interview-date mode. ``--date`` sets the interview the scheduler aims at until
then, ``--clear`` removes it, and without options it shows the plan: the predicted share of cards
recalled on the day within the queue's limits, and the reviews a day that would reach the target
when they fall short (``quizzer.app.plan.status``, which ``quiz stats`` shows too)."""

from __future__ import annotations

from datetime import date
from typing import Annotated, Optional

import typer

from quizzer.cli.base import app
from quizzer.cli.boundary import console, say
from quizzer.cli.context import DbOption, DecksOption, collection, settings
from quizzer.cli.options import DeckFilter, JsonOption, calendar_day
from quizzer.base.errors import UsageError
from quizzer.base.i18n import N_, _


@app.command(help=N_("Interview-date mode: aim every card at the interview's day (--date), show the plan, or "
                    "--clear it. Until that day, intervals stop short of it, new cards come early enough and a "
                    "tight day reviews what gains most on the day; afterwards normal scheduling resumes."))
def plan(
    ctx: typer.Context,
    on: Annotated[Optional[str], typer.Option(
        "--date", metavar="YYYY-MM-DD", show_default=False, help=N_("The interview's day."))] = None,
    retention: Annotated[Optional[float], typer.Option(
        "--retention", metavar="R", show_default=False,
        help=N_("The recall to reach on the day (0.70-0.99; default 0.95): every card is aimed at it."))] = None,
    deck: DeckFilter = None,
    clear: Annotated[bool, typer.Option("--clear", help=N_("Remove the interview: normal scheduling."))] = False,
    as_json: JsonOption = False,
    decks_dir: DecksOption = None,
    db: DbOption = None,
) -> None:
    from quizzer.base import clock
    from quizzer.app import plan as plans

    if clear and (on is not None or retention is not None or deck):
        raise UsageError(_("--clear takes no other option"), _("`quiz plan --clear` removes the interview"))
    if on is None and (retention is not None or deck):
        raise UsageError(_("--retention and --deck need --date"), _("e.g. quiz plan --date 2026-12-24"))
    learner_settings = settings()
    now = clock.now()
    opened = collection(ctx, decks_dir, db)
    if clear:
        had = plans.clear_interview(opened)
        _say(as_json, dict(interview=None), _("The interview of {day} is cleared: normal scheduling again.").format(
            day=had.day) if had else _("No interview was set: scheduling stays normal."))
        return
    if on is not None:
        day = _day(on, clock.study_day(now, learner_settings.day_start_hour))
        plans.set_interview(opened, day, _retention(retention) if retention is not None else None, deck)
    shown = plans.status(opened, learner_settings, now)
    if shown is None:
        _say(as_json, dict(interview=None), _("No interview set (`quiz plan --date YYYY-MM-DD` sets one)."))
        return
    if as_json:
        from quizzer.cli.output import emit_json

        emit_json(plans.plan_dict(shown))
        return
    from quizzer.terminal.messages import show_status

    show_status(console(), shown)


def _day(text: str, today: date) -> date:
    try:
        day = calendar_day(text)
    except ValueError:
        raise UsageError(_("--date {value!r} is not a date").format(value=text), _("e.g. --date 2026-12-24")) from None
    from quizzer.app.plan import day_problem

    problem = day_problem(day, today)
    if problem:
        raise UsageError(_("--date {problem}").format(problem=problem), _("give the interview's day, later than today"))
    return day


def _retention(value: float) -> float:
    from quizzer.settings import BadValue
    from quizzer.settings import retention as checked

    try:
        return checked(value)
    except BadValue as problem:
        raise UsageError(_("--retention: {problem}").format(problem=problem)) from None


def _say(as_json: bool, data: dict[str, object], text: str) -> None:
    if as_json:
        from quizzer.cli.output import emit_json

        emit_json(data)
    else:
        say(text)
