"""Messages several commands say: the plan's pace, an unfinished exam, the interview plan's status.
A command draws them here rather than taking them from another command's module."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from quizzer.base.clock import later_when
from quizzer.base.i18n import _, join, ngettext

if TYPE_CHECKING:
    from rich.console import Console

    from quizzer.app.plan import PlanStatus
    from quizzer.app.records import ExamRecord

CLOCK_SHOWN_UNDER = 3600  # seconds left: an unfinished exam's line says them beside the deadline


def pace_message(setting: int, pace: int) -> str | None:
    """What ``quiz plan`` and ``quiz study`` say when the plan's pace needs more new cards a day
    than the setting gives (None: it does not)."""
    if pace <= setting:
        return None
    return _("New cards a day raised from {setting} to {pace}, so every card is seen early, with the most days left "
             "to become stable before the interview.").format(setting=f"{setting:,}", pace=f"{pace:,}")


def clock_text(seconds: float) -> str:
    """An exam's time left as ``MM:SS``, a second begun counted whole."""
    minutes, secs = divmod(max(0, int(seconds + 0.999)), 60)
    return f"{minutes:02d}:{secs:02d}"


def unfinished_line(exam: ExamRecord, now: datetime) -> str:
    """What is left of an unfinished exam and the command that goes on with it."""
    left = exam.left_to_do(now)
    if left == "marking":
        return _("Exam {id} was handed in and is not all marked: `quiz exam --resume` goes on with the marking.").format(
            id=exam.id)
    if left == "scoring":
        return _("Exam {id} is unfinished and its time is up: `quiz exam --resume` scores it.").format(id=exam.id)
    seconds = (exam.deadline - now).total_seconds()
    if seconds < CLOCK_SHOWN_UNDER:  # the deadline alone reads as time to come: the seconds left are said too
        return _("Exam {id} is unfinished: `quiz exam --resume` continues it until {time}, {left} left.").format(
            id=exam.id, time=later_when(exam.deadline, now), left=clock_text(seconds))
    return _("Exam {id} is unfinished: `quiz exam --resume` continues it until {time}.").format(
        id=exam.id, time=later_when(exam.deadline, now))


def show_status(out: Console, shown: PlanStatus) -> None:
    """The interview plan: the day, what following it gives, and what holds it back."""
    from quizzer.app.plan import out_of_reach

    interview, forecast = shown.interview, shown.forecast
    if forecast is None:
        out.print(_("The interview on {day} has come: scheduling is normal again. `quiz plan --date YYYY-MM-DD` "
                    "aims at the next one, `quiz plan --clear` removes this one.").format(day=interview.day))
        return
    decks = join(interview.decks) if interview.decks else _("every deck")
    out.print(ngettext("Interview on {day} ({days} day left), {decks}: aiming at {target:.0%} recall on the day.",
                       "Interview on {day} ({days} days left), {decks}: aiming at {target:.0%} recall on the day.",
                       forecast.days_left).format(
        day=interview.day, days=forecast.days_left, decks=decks, target=interview.retention))
    short = out_of_reach(shown)
    if short:  # said before the figures: they are what the limits allow, not the target
        out.print(short)
    reviews = round(forecast.reviews_per_day)
    out.print(ngettext("Following the plan (assuming each card is forgotten at first sight, then as often as FSRS "
                       "predicts for your memory): {recalled:.1%} of the {cards} cards recalled on the day, {share:.0%} "
                       "of the cards at the target; {reviews} answer a day, new cards and learning steps included.",
                       "Following the plan (assuming each card is forgotten at first sight, then as often as FSRS "
                       "predicts for your memory): {recalled:.1%} of the {cards} cards recalled on the day, {share:.0%} "
                       "of the cards at the target; {reviews} answers a day, new cards and learning steps included.",
                       reviews).format(
        recalled=forecast.recalled, cards=f"{forecast.cards:,}", share=forecast.at_target, reviews=f"{reviews:,}"))
    if shown.answers_read:
        out.print(ngettext("Your {count} review of a card last seen on an earlier day shows memories lasting "
                           "{strength:.0%} as long as FSRS's parameters predict; the forecast counts this.",
                           "Your {count} reviews of cards last seen on an earlier day show memories lasting "
                           "{strength:.0%} as long as FSRS's parameters predict; the forecast counts this.",
                           shown.answers_read).format(count=f"{shown.answers_read:,}", strength=shown.strength))
    line = pace_message(shown.new_per_day_setting, forecast.new_per_day)
    if line:
        out.print(line)
    if shown.below_pace:
        out.print(_("{decks}: a deck's own limit on new cards, below the plan's {pace} a day, holds its cards back, and "
                    "the figures above count it. `quiz config unset deck.ID.new_per_day` lets the plan pace it.")
                  .format(decks=join([_("{deck} ({limit} a day)").format(deck=deck, limit=limit)
                                      for deck, limit in shown.below_pace.items()]), pace=f"{forecast.new_per_day:,}"))
