"""``quiz checkers`` and ``quiz generate``: the numeric-question generators."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from quizzer.cli.base import app
from quizzer.cli.boundary import console
from quizzer.cli.context import DecksOption, load
from quizzer.cli.options import JsonOption, seed_in_range
from quizzer.base.errors import UnknownName, UsageError
from quizzer.base.i18n import N_, _, translate_checker_message

if TYPE_CHECKING:
    from checkers.base import Question


@app.command("checkers", help=N_("List the numeric-question checkers."))
def checkers_command(as_json: JsonOption = False) -> None:
    from quizzer.terminal.tables import ident, listing

    from checkers import registry

    if as_json:
        from quizzer.cli.output import emit_json

        emit_json([{"name": name, "description": translate_checker_message(registry.get(name).description)}
                   for name in registry.names()])
        return
    table = listing(ident(_("checker")), _("what it asks"))
    for name in registry.names():
        table.add_row(name, translate_checker_message(registry.get(name).description))
    console().print(table, markup=False)


@app.command(help=N_("Generate one numeric question with its answer and worked solution."))
def generate(
    ctx: typer.Context,
    name: Annotated[Optional[str], typer.Argument(
        metavar="[CHECKER]", show_default=False, help=N_("Checker name (see `quiz checkers`); or give --card."))] = None,
    card_id: Annotated[Optional[str], typer.Option(
        "--card", metavar="ID", show_default=False,
        help=N_("A numeric card: draw its question exactly as study does, with the card's params."))] = None,
    seed: Annotated[int, typer.Option(metavar="N", min=0, callback=seed_in_range, help=N_("Same seed, same question."))] = 0,
    as_json: JsonOption = False,
    decks_dir: DecksOption = None,
) -> None:
    from checkers import registry
    from quizzer.terminal.render import markdown

    if (name is None) == (card_id is None):
        raise UsageError(_("give a CHECKER or --card ID, not both or neither"), _("`quiz checkers` lists the checkers"))
    if card_id is not None:
        question = _card_question(ctx, card_id, seed, decks_dir)
    else:
        try:
            checker = registry.get(str(name))
        except registry.UnknownChecker:
            raise UnknownName("checker", str(name), registry.names()) from None
        question = checker.generate(seed)
    if as_json:
        from quizzer.cli.output import emit_json

        emit_json(question.to_dict())
        return
    out = console()
    out.print(markdown(question.prompt))
    out.print()
    out.print(markdown(question.solution))  # it ends with the answer


def _card_question(ctx: typer.Context, card_id: str, seed: int, decks_dir: Path | None) -> Question:
    """The question study draws for this card from ``seed``."""
    from quizzer.app.deck_files import card_question

    return card_question(load(ctx, decks_dir), card_id, seed)
