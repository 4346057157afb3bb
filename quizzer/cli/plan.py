"""``quiz plan``: interview-date mode. ``--date`` sets the interview the scheduler aims at until
then, ``--clear`` removes it, and without options it shows the plan: the predicted share of cards
recalled on the day and the reviews a day it needs (``quizzer.app.plan.status``, which ``quiz stats``
shows too)."""

from __future__ import annotations

from datetime import date
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from quizzer.cli.base import (
    DbOption,
    DeckFilter,
    DecksOption,
    JsonOption,
    app,
    calendar_day,
    collection,
    console,
    say,
    settings,
)
from quizzer.errors import UsageError
from quizzer.i18n import _, join, ngettext

if TYPE_CHECKING:
    from quizzer.app.plan import PlanStatus


@app.command(help=_("Interview-date mode: aim every card at the interview's day (--date), show the plan, or "
                    "--clear it. Until that day, intervals stop short of it, new cards come early enough and a "
                    "tight day reviews what gains most on the day; afterwards normal scheduling resumes."))
def plan(
    ctx: typer.Context,
    on: Annotated[Optional[str], typer.Option(
        "--date", metavar="YYYY-MM-DD", show_default=False, help=_("The interview's day."))] = None,
    retention: Annotated[Optional[float], typer.Option(
        "--retention", metavar="R", show_default=False,
        help=_("The recall every card should have on the day (0.70-0.99; default 0.95)."))] = None,
    deck: DeckFilter = None,
    clear: Annotated[bool, typer.Option("--clear", help=_("Remove the interview: normal scheduling."))] = False,
    as_json: JsonOption = False,
    decks_dir: DecksOption = None,
    db: DbOption = None,
) -> None:
    from quizzer import clock
    from quizzer.app.plan import status
    from quizzer.scheduling.plan import DEFAULT_RETENTION
    from quizzer.store import learner

    if clear and (on is not None or retention is not None or deck):
        raise UsageError(_("--clear takes no other option"), _("`quiz plan --clear` removes the interview"))
    if on is None and (retention is not None or deck):
        raise UsageError(_("--retention and --deck need --date"), _("e.g. quiz plan --date 2026-12-24"))
    learner_settings = settings()
    now = clock.now()
    opened = collection(ctx, decks_dir, db)
    if clear:
        had = learner.load(opened.store).interview
        learner.save_interview(opened.store, None)
        _say(as_json, dict(interview=None), _("The interview of {day} is cleared: normal scheduling again.").format(
            day=had.day) if had else _("No interview was set: scheduling stays normal."))
        return
    if on is not None:
        day = _day(on, clock.study_day(now, learner_settings.day_start_hour))
        opened.card_filter(deck)  # an unknown deck is an error naming the known ones
        learner.save_interview(opened.store, learner.InterviewRecord(
            day, _retention(retention) if retention is not None else DEFAULT_RETENTION,
            tuple(dict.fromkeys(deck)) if deck else None))
    shown = status(opened.store, learner_settings, now)
    if shown is None:
        _say(as_json, dict(interview=None), _("No interview set (`quiz plan --date YYYY-MM-DD` sets one)."))
        return
    if as_json:
        from quizzer.cli.output import emit_json

        emit_json(as_dict(shown))
        return
    show_status(shown)


PLAN_YEARS_AHEAD = 10


def _day(text: str, today: date) -> date:
    try:
        day = calendar_day(text)
    except ValueError:
        raise UsageError(_("--date {value!r} is not a date").format(value=text), _("e.g. --date 2026-12-24")) from None
    if day <= today:
        raise UsageError(_("--date {day} is not after today ({today})").format(day=day, today=today),
                         _("give the interview's day, later than today"))
    if day.year - today.year > PLAN_YEARS_AHEAD:  # 9999-12-31 overflowed the scheduler's dates
        raise UsageError(_("--date {day} is more than {years} years away").format(day=day, years=PLAN_YEARS_AHEAD),
                         _("give the interview's day"))
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


def as_dict(shown: PlanStatus) -> dict[str, object]:
    interview, forecast = shown.interview, shown.forecast
    if forecast is None:
        return dict(interview=interview.day, passed=True)
    return dict(passed=False, interview=interview.day, retention=interview.retention,
                decks=list(interview.decks) if interview.decks else None, days_left=forecast.days_left,
                cards=forecast.cards, seen=forecast.seen, predicted_recall=round(forecast.recalled, 4),
                share_at_target=round(forecast.at_target, 4), reviews_per_day=round(forecast.reviews_per_day, 1),
                new_per_day=forecast.new_per_day, new_per_day_raised=forecast.new_per_day > shown.new_per_day_setting,
                decks_below_pace=shown.below_pace)


def show_status(shown: PlanStatus) -> None:
    from quizzer.app.plan import FEW_AT_TARGET

    interview, forecast = shown.interview, shown.forecast
    out = console()
    if forecast is None:
        out.print(_("The interview on {day} has come: scheduling is normal again. `quiz plan --date YYYY-MM-DD` "
                    "aims at the next one, `quiz plan --clear` removes this one.").format(day=interview.day))
        return
    decks = join(interview.decks) if interview.decks else _("every deck")
    out.print(ngettext("Interview on {day} ({days} day left), {decks}: every card at {target:.0%} recall or more on "
                       "the day.", "Interview on {day} ({days} days left), {decks}: every card at {target:.0%} recall "
                       "or more on the day.", forecast.days_left).format(
        day=interview.day, days=forecast.days_left, decks=decks, target=interview.retention))
    reviews = round(forecast.reviews_per_day)
    out.print(ngettext("Following the plan (every review answered Good): {recalled:.1%} of the {cards} cards recalled "
                       "on the day, {share:.0%} of them at the target; {reviews} review a day.",
                       "Following the plan (every review answered Good): {recalled:.1%} of the {cards} cards recalled "
                       "on the day, {share:.0%} of them at the target; {reviews} reviews a day.", reviews).format(
        recalled=forecast.recalled, cards=f"{forecast.cards:,}", share=forecast.at_target, reviews=f"{reviews:,}"))
    line = raised(shown.new_per_day_setting, forecast.new_per_day)
    if line:
        out.print(line)
    if shown.below_pace:  # the forecast paced their new cards as if nothing held them
        out.print(_("{decks}: a deck's own limit on new cards, below the plan's {pace} a day, holds its cards back, so "
                    "the figures above are too hopeful for it. `quiz config unset deck.ID.new_per_day` lets the plan "
                    "pace it.").format(decks=join([_("{deck} ({limit} a day)").format(deck=deck, limit=limit)
                                                   for deck, limit in shown.below_pace.items()]),
                                       pace=f"{forecast.new_per_day:,}"))
    if forecast.reviews_per_day > shown.reviews_per_day_setting:  # the forecast assumes every review is done
        out.print(_("That is more than your {limit} reviews a day: on a full day the reviews that gain most by the "
                    "interview come first, and the rest wait. `quiz config set reviews_per_day N` raises the limit.")
                  .format(limit=shown.reviews_per_day_setting))
    if forecast.at_target < FEW_AT_TARGET:  # the raised pace promised stable cards; the figure above says otherwise
        out.print(_("Most cards cannot reach {target:.0%} by then, however many reviews are done: the days left are too "
                    "few to make them that stable. A lower target (`quiz plan --retention 0.9`) or a later date is one "
                    "the plan can meet.").format(target=interview.retention))


def raised(setting: int, pace: int) -> str | None:
    """What ``quiz plan`` and ``quiz study`` say when the plan's pace needs more new cards a day."""
    if pace <= setting:
        return None
    return _("New cards a day raised from {setting} to {pace}, so every card is seen early enough to become "
             "stable before the interview.").format(setting=f"{setting:,}", pace=f"{pace:,}")
