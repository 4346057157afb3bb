"""``quiz export anki`` / ``quiz export markdown``: the decks as an Anki package, or as a
printable review sheet (all cards, or the learner's weakest ones)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from quizzer.cli.base import app, group
from quizzer.cli.boundary import counted_cards, counted_reviews, say
from quizzer.cli.context import DbOption, DecksOption, collection, load, settings
from quizzer.cli.files import output_file
from quizzer.cli.options import DeckFilter, STANDARD, path_or_standard
from quizzer.base.errors import UsageError, printable
from quizzer.base.i18n import N_, _, ngettext

export_app = group(N_("The decks as an Anki package or a printable review sheet."))
app.add_typer(export_app, name="export")


@export_app.command("anki", help=N_("Write the decks (or --deck) to an Anki package: a note type per card kind, "
                                   "numeric cards as a few generated variants; importing a newer package into "
                                   "Anki updates the notes instead of adding copies."))
def export_anki(
    ctx: typer.Context,
    file: Annotated[Path, typer.Argument(metavar="FILE.apkg", show_default=False, help=N_("The package to write."))],
    deck: DeckFilter = None,
    with_schedule: Annotated[bool, typer.Option(
        "--with-schedule/--new", help=N_("Carry each card's schedule, FSRS memory and reviews, as Anki stores them "
                                        "(the default; cards never reviewed arrive new), or send every card new."))] = True,
    decks_dir: DecksOption = None,
    db: DbOption = None,
) -> None:
    from quizzer.base import clock
    from quizzer.app.deck_files import chosen_decks
    from quizzer.app.exchange import anki_package, save_anki_package

    target = output_file(ctx, file, db, decks_dir)  # before the package is made: that takes seconds
    if target.suffix.lower() != ".apkg":  # Anki's import offers .apkg files only
        raise UsageError(_("{file}: Anki imports a package named .apkg").format(file=file),
                         _("e.g. {name}").format(name=target.with_suffix(".apkg").name))
    if with_schedule:
        opened = collection(ctx, decks_dir, db)
        exported = anki_package(chosen_decks(opened.decks, deck), clock.now(), opened, settings())
    else:
        exported = anki_package(chosen_decks(load(ctx, decks_dir), deck), clock.now())
    save_anki_package(target, exported)
    say(ngettext("exported {cards} as {notes} Anki note to {file}",  # a numeric card is several notes
                 "exported {cards} as {notes} Anki notes to {file}", exported.notes)
        .format(notes=exported.notes, file=printable(file),
                cards=counted_cards(exported.cards)))
    if exported.reviews:
        say(_("with the schedule of {cards} and {reviews}").format(
            cards=counted_cards(exported.scheduled_cards), reviews=counted_reviews(exported.reviews)))


@export_app.command("markdown", help=N_("Write a printable review sheet in Markdown: the questions, then the answers. "
                                       "--weak keeps the weakest cards (as `quiz stats` ranks them)."))
def export_markdown(
    ctx: typer.Context,
    deck: DeckFilter = None,
    weak: Annotated[bool, typer.Option("--weak", help=N_("Only the weakest cards: most lapses, then most mistakes, "
                                                         "then lowest recall."))] = False,
    out: Annotated[Optional[Path], typer.Option("--out", metavar="FILE", show_default=False, parser=path_or_standard,
                                                help=N_("Write to this file (default, or `-`: standard output)."))] = None,
    decks_dir: DecksOption = None,
    db: DbOption = None,
) -> None:
    from quizzer.app.deck_files import chosen_decks
    from quizzer.app.exchange import review_sheet

    target = None if out is None or out is STANDARD else output_file(ctx, out, db, decks_dir)
    cards: list[Any]
    if weak:
        from quizzer.base import clock
        from quizzer.app.stats import weakest_cards

        opened = collection(ctx, decks_dir, db)
        chosen = chosen_decks(opened.decks, deck)
        cards = weakest_cards(opened, deck, clock.now(), settings())
        if not cards:
            typer.echo(_("No weak cards: no reviewed card of these decks has a lapse, a mistake or recall under your "
                         "desired retention."), err=True)
            return
    else:
        chosen = chosen_decks(load(ctx, decks_dir), deck)
        cards = [card for loaded in chosen for card in loaded.deck.cards]
    title = " · ".join(loaded.deck.title for loaded in chosen)
    text = review_sheet(_("{decks}: the weakest cards").format(decks=title) if weak else title, cards)
    if target is None:
        typer.echo(text, nl=False)
        return
    from quizzer.base.files import write_whole

    write_whole(target, text.encode("utf-8"))
    say(ngettext("wrote {count} card to {file}", "wrote {count} cards to {file}", len(cards))
        .format(count=len(cards), file=printable(target)))
