"""``quiz decks``: the decks with how many cards of each kind they hold."""

from __future__ import annotations

from typing import Any

import typer

from quizzer.cli.base import app
from quizzer.cli.boundary import console
from quizzer.cli.context import NO_DECKS, DecksOption, load
from quizzer.cli.options import JsonOption
from quizzer.base.i18n import N_, _


@app.command("decks", help=N_("List the decks with how many cards of each kind they hold."))
def decks_command(ctx: typer.Context, as_json: JsonOption = False, decks_dir: DecksOption = None) -> None:
    from quizzer.app.deck_files import kinds_held
    from quizzer.app.kind_names import KINDS, title

    rows: list[dict[str, Any]] = [{"deck": held.deck, "title": held.title, "path": str(held.path), "kinds": held.kinds,
                                   "total": held.total} for held in kinds_held(load(ctx, decks_dir))]
    if as_json:
        from quizzer.cli.output import emit_json

        emit_json(rows)
        return
    if not rows:
        console().print(_(NO_DECKS), markup=False)
        return
    from quizzer.terminal.render import safe
    from quizzer.terminal.tables import ident, listing, number, room_beside, text, two_lines

    from rich.cells import cell_len

    out = console()
    headers = [*map(title, KINDS), _("total")]  # as study and exam name them (--json keeps the ids)
    narrow = out.width < 80  # no room for a title column: the title goes under the id
    counts = [number(header, header_wraps=narrow) for header in headers]  # narrow: "common" / "mistake"
    cells = [[str(row["kinds"][kind]) for kind in KINDS] + [str(row["total"])] for row in rows]
    widths = [max(two_lines(h), *(len(c[i]) for c in cells)) for i, h in enumerate(headers)]
    for column, width in zip(counts, widths):
        column.max_width = width if narrow else None
    # the ids whole where the counts leave room (each count column and the gap before it), else folded
    room = room_beside(out.width, widths if narrow else [max(cell_len(h), w) for h, w in zip(headers, widths)], 0)
    widest = min(max(len(row["deck"]) for row in rows), max(room, 1))
    table = (listing(text(_("deck"), min_width=widest), *counts) if narrow
             else listing(ident(_("deck")), _("title"), *counts))
    for row, numbers in zip(rows, cells):
        if narrow:
            table.add_row(f"{safe(row['deck'])}\n[dim]{safe(row['title'])}[/dim]", *numbers)
        else:
            table.add_row(safe(row["deck"]), safe(row["title"]), *numbers)
    out.print(table)
