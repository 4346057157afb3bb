"""``quiz`` with no command: today's numbers per deck, as Anki's deck list shows them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated

import typer

from quizzer.cli.base import app
from quizzer.cli.boundary import console
from quizzer.cli.context import NO_DECKS, DbOption, DecksOption, check_clock, collection
from quizzer.base.errors import UsageError
from quizzer.base.i18n import N_, _, join, ngettext


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
                                          help=N_("Print the version and exit."))] = False,
    as_json: Annotated[bool, typer.Option("--json", help=N_(
        "Print today's numbers as JSON (a command's own --json goes after it: quiz cards --json)."))] = False,
) -> None:
    """Today's numbers per deck (the help text is the app's)."""
    check_clock()
    if ctx.invoked_subcommand is not None:
        if as_json:
            raise UsageError(_("--json goes after the command: quiz {command} --json").format(command=ctx.invoked_subcommand),
                             _("before a command, --json is plain quiz's, for today's numbers"))
        return
    from quizzer.base import clock
    from quizzer.app.today import learner_today
    from quizzer.cli.context import settings

    learner = settings()
    opened = collection(ctx, None, None)
    now = clock.now()
    day = learner_today(opened, learner, now)
    rows, total = day.decks, day.total
    if as_json:
        from quizzer.cli.output import emit_json

        emit_json({"decks": rows, "total": {"new": total.new, "new_waiting": total.new_waiting,
                                             "learning": total.learning, "due": total.due,
                                             "due_waiting": total.due_waiting},
                   "new_per_day": day.new_per_day, "new_per_day_setting": learner.new_per_day,
                   "reviews_per_day": learner.reviews_per_day, "practice": day.practice,
                   "interview": day.interview.day if day.interview else None,
                   "unfinished_exam": day.unfinished_exam.id if day.unfinished_exam else None})
        return
    out = console()
    if not rows:
        out.print(_(NO_DECKS), markup=False)
        return
    from quizzer.terminal.render import safe
    from quizzer.terminal.tables import ident, listing, number

    table = listing(ident(_("deck")), _("title"), number(_("new")), number(_("learning")), number(_("due")),
                  title=_("Today"))
    for row in rows:
        table.add_row(safe(row.deck), safe(row.title), str(row.new), str(row.learning), str(row.due))
    table.add_section()
    table.add_row(_("total"), "", str(total.new), str(total.learning), str(total.due), style="bold")
    out.print(table)
    if total.new < total.new_waiting:
        line = (_("new: what today's study introduces ({per_day} new cards a day{decks}; {waiting} not seen yet)")
                if day.new_per_day <= learner.new_per_day else  # the value in force, and why it is not the setting's
                _("new: what today's study introduces ({per_day} new cards a day, raised from {setting} by the interview "
                  "plan{decks}; {waiting} not seen yet)"))
        out.print(line.format(
            per_day=day.new_per_day, setting=learner.new_per_day, waiting=f"{total.new_waiting:,}",
            decks=_own_limits([r.deck for r in rows if r.new < r.new_waiting], learner.deck_new_per_day, day.new_per_day)),
            markup=False)
    if total.due < total.due_waiting:
        out.print(_("due: what today's study reviews ({per_day} reviews a day{decks}; {waiting} due)").format(
            per_day=learner.reviews_per_day, waiting=f"{total.due_waiting:,}",
            decks=_own_limits([r.deck for r in rows if r.due < r.due_waiting], learner.deck_reviews_per_day,
                              learner.reviews_per_day)),
            markup=False)
    if day.practice:
        out.print(ngettext("practice: in its last days the plan adds {count} review of a card not due yet (`quiz study`; "
                           "its schedule stays)",
                           "practice: in its last days the plan adds {count} reviews of cards not due yet (`quiz study`; "
                           "their schedule stays)", day.practice).format(count=day.practice), markup=False)
    if day.interview is not None:
        days = (day.interview.day - clock.study_day(now, learner.day_start_hour)).days
        out.print(ngettext("Interview on {day}, {days} day left: the day's cards follow its plan (`quiz plan`).",
                           "Interview on {day}, {days} days left: the day's cards follow its plan (`quiz plan`).",
                           days).format(day=day.interview.day, days=days), markup=False)
    if day.unfinished_exam is not None:
        from quizzer.terminal.messages import unfinished_line

        out.print(unfinished_line(day.unfinished_exam, now), markup=False)
    out.print(_("`quiz study` for the daily drill, `quiz exam` for a mock interview, `quiz --help` for everything."),
              markup=False)


def _own_limits(capped: list[str], own: Mapping[str, int], everywhere: int) -> str:
    """``, alpha and beta by their own limits``: the capped decks whose own limit, lower than the
    global one, holds them (the footer names the limit that holds each deck)."""
    decks = [deck for deck in capped if own.get(deck, everywhere) < everywhere]
    return ngettext(", {decks} by its own limit", ", {decks} by their own limits", len(decks)).format(
        decks=join(decks)) if decks else ""
