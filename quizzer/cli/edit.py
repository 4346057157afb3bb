"""``quiz edit ID``: a card's deck file in the learner's editor, at the card's line."""

from __future__ import annotations

from typing import Annotated

import typer

from quizzer.cli.base import app
from quizzer.cli.context import DbOption, DecksOption, collection
from quizzer.base.i18n import N_, _


@app.command("edit", help=N_("Open a card in $EDITOR at its line; an edit that breaks its deck file is undone."))
def edit(
    ctx: typer.Context,
    card_id: Annotated[str, typer.Argument(metavar="ID", help=N_("A card id, as `quiz cards` lists them."))],
    decks_dir: DecksOption = None,
    db: DbOption = None,
) -> None:
    from quizzer.app.deck_files import edit_card
    from quizzer.terminal import editor

    changed = edit_card(collection(ctx, decks_dir, db), card_id, editor.open_in_editor)
    typer.echo(_("Saved: the deck file passes `quiz lint`.") if changed else _("Nothing changed."))
