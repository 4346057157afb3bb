"""``quiz cards``: the card browser, one row per card, with search, filters and sorting."""

from __future__ import annotations

import enum
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from quizzer.cli.base import app
from quizzer.cli.boundary import console, counted_cards
from quizzer.cli.help_text import help_with
from quizzer.cli.context import NO_DECKS, DbOption, DecksOption, collection, settings
from quizzer.cli.options import DeckFilter, JsonOption, KindFilter, TagFilter, kind_values
from quizzer.i18n import N_, _, join

if TYPE_CHECKING:
    from rich.table import Table
    from rich.text import Text

    from quizzer.app.browse import Row


class State(str, enum.Enum):  # quizzer.app.browse.STATES (kept here so `quiz --help` imports nothing heavy)
    new = "new"
    learning = "learning"
    review = "review"
    due = "due"
    suspended = "suspended"
    buried = "buried"
    leech = "leech"
    mistake = "mistake"


class Sort(str, enum.Enum):  # quizzer.app.browse.SORTS
    due = "due"
    recall = "recall"
    lapses = "lapses"
    id = "id"


TABLE_LIMIT = 300  # rows a table shows unless --limit says otherwise: a chapter's deck whole, not 50,000 lines
SHOWN_STATES = (N_("new"), N_("learning"), N_("review"), N_("relearning"), N_("due"), N_("suspended"), N_("buried"),
                N_("leech"), N_("mistake"))  # a row's state and flags, shown translated (JSON keeps the names)


@app.command("cards", help=N_("Browse the cards: id, kind, deck, section, question, state, due, stability, recall now."))
def cards_command(
    ctx: typer.Context,
    search: Annotated[Optional[str], typer.Option(
        "--search", "-s", metavar="TEXT", show_default=False,
        help=N_("Only cards whose id, tags or text hold every word of TEXT (case and width ignored)."))] = None,
    deck: DeckFilter = None,
    tag: TagFilter = None,
    kind: KindFilter = None,
    state: Annotated[Optional[State], typer.Option(
        "--state", metavar="STATE", show_default=False,
        help=help_with(N_("Only cards in this state: {states}."), states=[s.value for s in State]))] = None,
    sort: Annotated[Sort, typer.Option(
        "--sort", metavar="ORDER",
        help=N_("due (soonest first, new cards last), recall (lowest first), lapses (most first) or id."))] = Sort.due,
    limit: Annotated[Optional[int], typer.Option(
        "--limit", "-n", metavar="N", min=0, show_default=False,
        help=help_with(N_("Show the first N cards in the chosen order; 0 shows them all (default: {count} in the "
                          "table, all with --json)."), count=TABLE_LIMIT))] = None,
    as_json: JsonOption = False,
    decks_dir: DecksOption = None,
    db: DbOption = None,
) -> None:
    from quizzer import clock
    from quizzer.app import browse
    from quizzer.cli.output import emit_json
    from quizzer.terminal.mathtext import math_to_unicode

    shown = (None if as_json else TABLE_LIMIT) if limit is None else (limit or None)
    opened = collection(ctx, decks_dir, db)
    found = browse.browse(opened, clock.now(), search=search, decks=deck, tags=tag, kinds_wanted=kind_values(kind),
                          state=state.value if state else None, sort=sort.value, limit=shown, plain=math_to_unicode,
                          settings=settings())
    rows = found.rows
    if as_json:
        emit_json(rows)
        return
    out = console()
    if not rows:
        out.print(_("No cards match.") if opened.decks else _(NO_DECKS), markup=False)
        return
    from quizzer.clock import when

    states = [[_(name) for name in [row.state, *row.flags]] for row in rows]  # joined on a line, or one a line
    dues = [when(row.due) if row.due else "-" for row in rows]
    stabilities = [_("{days} d").format(days=f"{row.stability:.1f}") if row.stability is not None else "-"
                   for row in rows]
    lapses = sort.value == "lapses"  # the order's reason shown: sorted by lapses, the lapses are a column
    room, wide, split = _layout(rows, states, dues, stabilities, out.width, lapses)
    table = _listing(rows, states, [due.replace(" ", "\n") if split else due for due in dues], stabilities, room, wide,
                     lapses)
    out.print(table)
    counted = counted_cards(found.total)
    if len(rows) < found.total:
        counted = _("the first {shown} of {counted}; --limit 0 shows all").format(shown=f"{len(rows):,}", counted=counted)
    out.print(counted, markup=False)


def _layout(rows: list[Row], states: list[list[str]], dues: list[str], stabilities: list[str], width: int,
            lapses: bool) -> tuple[int, bool, bool]:
    """The id column's width, whether kind, deck, section and stability go beside the question,
    and whether a due time goes under its date. Every column but the question is kept whole and the question keeps
    PREVIEW_AT_LEAST columns (rich would otherwise squeeze the state to a character a line, or
    push the recall past the edge); within that, whole ids come first (an id is what `quiz show`
    takes), then the wide layout, then a due's time on its own line (a date and time side by side
    leave an id fewer columns). Ids fold only where even then they have less."""
    from rich.cells import cell_len

    from quizzer.app.kind_names import title
    from quizzer.terminal.tables import room_beside

    def widest(header: str, cells: list[str]) -> int:
        return max(map(cell_len, [header, *cells]))

    narrow = [widest(_("state"), [name for names in states for name in names]), widest(_("due"), dues),
              widest(_("recall"), ["100%"])]  # narrow, a card's states go one a line
    narrow += [widest(_("lapses"), [str(row.lapses) for row in rows])] if lapses else []
    wide = [widest(_("state"), [join(names) for names in states]), *narrow[1:],
            widest(_("kind"), [word for row in rows for word in title(row.kind).split()]), widest(_("deck"), [row.deck for row in rows]),
            widest("§", [row.section for row in rows]), widest(_("stability"), stabilities)]  # wide, on one line
    longest = max(cell_len(row.id) for row in rows)
    if room_beside(width, wide) >= longest:
        return longest, True, False
    if room_beside(width, narrow) >= longest:
        return longest, False, False
    narrow[1] = widest(_("due"), [part for due in dues for part in due.split()])
    return min(longest, max(12, room_beside(width, narrow))), False, True


def _listing(rows: list[Row], states: list[list[str]], dues: list[str], stabilities: list[str], room: int,
             wide: bool, lapses: bool) -> Table:
    """The browser's table; ``wide`` adds kind, deck, section and stability beside the question."""
    from quizzer.app.kind_names import title
    from quizzer.terminal.render import safe
    from quizzer.terminal.tables import ident, listing, number, preview, text

    columns = [text(_("card"), width=room)]  # fixed: longer ids fold over lines, never cut
    columns += [ident(_("kind")), ident(_("deck")), ident("§")] if wide else []
    whole = ident if wide else text  # the wide layout leaves them room (_wide_fits): only the question wraps
    columns += [text(_("front")), whole(_("state")), whole(_("due"))]
    columns += [number(_("stability"))] if wide else []
    columns += [number(_("lapses"))] if lapses else []
    table = listing(*columns, number(_("recall")))  # an id is what `quiz show` takes: folded, never cut
    for row, state, due, stability in zip(rows, states, dues, stabilities):
        cells: list[str | Text] = [safe(row.id)]
        cells += ["\n".join(title(row.kind).split()), safe(row.deck), safe(row.section)] if wide else []  # as study: 计算题
        cells += [preview(row.front), join(state) if wide else "\n".join(state), due]  # never 到 / 期
        cells += [stability] if wide else []
        cells += [str(row.lapses)] if lapses else []
        table.add_row(*cells, f"{row.recall:.0%}" if row.recall is not None else "-")
    return table
