"""``quiz study``: the daily drill."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from quizzer.cli.base import app
from quizzer.cli.boundary import console
from quizzer.cli.context import NO_DECKS, DbOption, DecksOption, collection, settings
from quizzer.cli.options import DeckFilter, KindFilter, TagFilter, kind_values
from quizzer.i18n import _, join

if TYPE_CHECKING:
    from quizzer.store import Store
    from quizzer.store.filter import CardFilter


@app.command(help=_("The daily drill: due cards, then a few new ones, scheduled with FSRS."))
def study(
    ctx: typer.Context,
    deck: DeckFilter = None,
    tag: TagFilter = None,
    kind: KindFilter = None,
    new: Annotated[Optional[int], typer.Option("--new", min=0, metavar="N", help=_("At most N new cards this session."), show_default=False)] = None,
    limit: Annotated[Optional[int], typer.Option("--limit", min=1, metavar="N", help=_("At most N cards this session."), show_default=False)] = None,
    ahead: Annotated[bool, typer.Option("--ahead", help=_("Practise cards not yet due (their schedule is kept)."))] = False,
    new_per_day: Annotated[Optional[int], typer.Option(
        min=0, max=9999, metavar="N", show_default=False,
        help=_("New cards per study day, this run (default: `quiz config`'s new_per_day)."))] = None,
    reviews_per_day: Annotated[Optional[int], typer.Option(
        min=0, max=9999, metavar="N", show_default=False,
        help=_("Reviews per study day, this run (default: `quiz config`'s reviews_per_day)."))] = None,
    decks_dir: DecksOption = None,
    db: DbOption = None,
) -> None:
    from quizzer import clock
    from quizzer.terminal.messages import pace_message as raised
    from quizzer.scheduling.learner import schedule_of
    from quizzer.scheduling.queue import build_queue, new_per_day_today, new_waiting
    from quizzer.scheduling.summary import next_due
    from quizzer.terminal import study as screen

    chosen_settings = settings(new_per_day=new_per_day, reviews_per_day=reviews_per_day)
    opened = collection(ctx, decks_dir, db)
    if not opened.decks:  # "nothing is due" sent the learner to --ahead
        console().print(_(NO_DECKS), markup=False)
        return
    chosen = opened.card_filter(deck, tag, kind_values(kind))
    schedule = schedule_of(opened.store, chosen_settings)
    pace = new_per_day_today(opened.store, clock.now(), chosen_settings.new_per_day, schedule.interview)
    line = raised(chosen_settings.new_per_day, pace)
    if line and new != 0:  # --new 0 takes none: a raised pace is news for another run
        console().print(line, markup=False)
    queue = build_queue(opened.store, clock.now(), new_per_day=chosen_settings.new_per_day,
                        reviews_per_day=chosen_settings.reviews_per_day, chosen=chosen, new_limit=new, limit=limit,
                        ahead=ahead, rollover_hour=chosen_settings.day_start_hour,
                        scheduler=schedule.scheduler, interview=schedule.interview,
                        deck_new_per_day=chosen_settings.deck_new_per_day,
                        deck_reviews_per_day=chosen_settings.deck_reviews_per_day)
    if not queue:
        upcoming = next_due(opened.store, clock.now(), chosen)
        when = _(" The next card is due {when}.").format(when=clock.when(upcoming)) if upcoming else ""
        waiting = new_waiting(opened.store, clock.now(), chosen)
        if waiting and new == 0:
            console().print(_("Nothing is due now, and --new 0 takes no new card ({count} wait).{when}").format(
                count=waiting, when=when), markup=False)
        elif held := _held_by_own_limit(opened.store, chosen, chosen_settings.deck_new_per_day, pace, waiting):
            console().print(_("Today's new cards are done, {decks}, and {count} more wait.{when} "
                              "`quiz config set deck.ID.new_per_day N` raises a deck's own limit, "
                              "`quiz config unset deck.ID.new_per_day` gives it the global one.").format(
                decks=held, count=waiting, when=when), markup=False)
        elif waiting:  # as Anki says the limit is reached: "nothing is due" hid the new cards
            console().print(_("Today's new cards are done ({limit} a day), and {count} more wait.{when} "
                              "`quiz study --new-per-day N` raises the limit for this run, "
                              "`quiz config set new_per_day N` for every day.").format(
                limit=pace, count=waiting, when=when), markup=False)
        else:
            console().print(_("Nothing is due now.{when} `quiz study --ahead` practises cards early; "
                              "reviews of cards not yet due leave their schedule alone.").format(when=when), markup=False)
        return
    screen.run(opened, queue, chosen=chosen, settings=chosen_settings, only_queued=limit is not None,
               refills=new is None and limit is None)  # --new / --limit: this run's own count


def _held_by_own_limit(store: Store, chosen: CardFilter, own: Mapping[str, int], pace: int, waiting: int) -> str:
    """``ch08 by its own limit (0 a day)`` when every new card waiting is in decks whose own
    new_per_day, lower than today's global one, holds them; '' otherwise. The message named the
    global limit, and raising it with --new-per-day changed nothing."""
    from dataclasses import replace

    from quizzer import clock
    from quizzer.scheduling.queue import held_by_own_limits, new_waiting

    held = held_by_own_limits(store, clock.now(), chosen, own, pace)
    if not held or new_waiting(store, clock.now(), replace(chosen, decks=tuple(held))) < waiting:
        return ""
    return join([_("{deck} by its own limit ({limit} a day)").format(deck=deck, limit=limit)
                 for deck, limit in held.items()])
