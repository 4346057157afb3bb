"""``quiz import chapter``: a course chapter in the platform's markup turned into a deck draft
(``quizzer.transfer.chapter``); re-importing adds only what the deck lacks."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from quizzer.cli.base import app, group
from quizzer.cli.files import output_file
from quizzer.cli.options import JsonOption, path_or_standard, standard_input
from quizzer.base.errors import UsageError, printable
from quizzer.base.i18n import N_, _, join, ngettext

import_app = group(N_("Bring material in as decks (a course chapter)."))
app.add_typer(import_app, name="import")


@import_app.command("chapter", help=N_(
    "Turn a course chapter into a deck draft: interview questions, quizzes, common mistakes and key tables become "
    "cards, with the chapter's sections and ids that stay the same on every import."))
def import_chapter(
    ctx: typer.Context,
    file: Annotated[Path, typer.Argument(metavar="FILE", show_default=False, parser=path_or_standard, help=N_(
        "The chapter, in the course markup; - reads it from standard input."))],
    deck: Annotated[str | None, typer.Option("--deck", metavar="ID", show_default=False, help=N_(
        "The deck's id (default: from the file name, or the id of the deck in --out)."))] = None,
    out: Annotated[Path | None, typer.Option("--out", metavar="decks/NAME.yaml", show_default=False, help=N_(
        "Write the deck here; if it exists, add the chapter's new cards and keep its own (default: print the YAML)."))] = None,
    as_json: JsonOption = False,
) -> None:
    """The chapter's cards as YAML, or added to the deck in --out (the help text is the command's)."""
    from quizzer.app.exchange import import_chapter as run

    if as_json and out is None:
        raise UsageError(_("--json needs --out: without it the YAML itself goes to standard output"))
    if out is not None:  # adding to a deck is its purpose, but never writing the database, settings or a backup
        output_file(ctx, out, deck_file=True)
    stream = standard_input(file, _("chapter"), "xclip -o | quiz import chapter -")
    report = run(file, deck, out, stream)
    for warning in report.warnings:
        typer.echo(_("warning: {message}").format(message=warning), err=True)
    if out is None:
        typer.echo(report.text, nl=False)
        return
    if as_json:
        from quizzer.cli.output import emit_json

        emit_json(dict(file=str(file), deck=report.deck_id, out=str(out), written=report.written, added=report.added,
                       changed=[dict(id=c.card_id, fields=c.fields) for c in report.changed],
                       unchanged=report.unchanged, kept_only_in_deck=report.deck_only, warnings=report.warnings,
                       already_asked=[dict(id=card_id, deck_card=twin) for card_id, twin in report.duplicates]))
        return
    if report.created:
        typer.echo(ngettext("{out}: deck {deck} with {count} card", "{out}: deck {deck} with {count} cards", len(report.added)).format(
            out=printable(out), deck=report.deck_id, count=len(report.added)))
        return
    for card_id in report.added:
        typer.echo(_("added      {id}").format(id=card_id))
    for changed in report.changed:
        typer.echo(_("changed    {id} (the deck differs in: {fields}; its version is kept)").format(
            id=changed.card_id, fields=join(changed.fields)))
    for card_id, twin in report.duplicates:
        typer.echo(_("not added  {id} (the deck asks the same question as {twin})").format(id=card_id, twin=twin))
    for card_id in report.deck_only:
        typer.echo(_("kept       {id} (only in the deck)").format(id=card_id))
    typer.echo(_("{out}: {added} added, {changed} changed, {unchanged} unchanged, {asked} already asked, {kept} kept "
                 "only in the deck").format(out=printable(out), added=len(report.added), changed=len(report.changed),
                                             unchanged=len(report.unchanged), asked=len(report.duplicates),
                                             kept=len(report.deck_only))
        + ("" if report.written else " · " + _("file not changed")))
    if report.changed:
        typer.echo(ngettext("{count} changed card keeps its text in the deck: edit it there to take the chapter's",
                            "{count} changed cards keep their text in the deck: edit them there to take the chapter's",
                            len(report.changed)).format(count=len(report.changed)))
