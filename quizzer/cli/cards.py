"""``quiz cards``: the card browser, one row per card, with search, filters and sorting."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from quizzer.cli.base import app
from quizzer.cli.boundary import console, counted_cards
from quizzer.cli.help_text import help_with
from quizzer.cli.context import NO_DECKS, DbOption, DecksOption, collection, settings
from quizzer.cli.options import DeckFilter, JsonOption, KindFilter, NoPagerOption, TagFilter, kind_values
from quizzer.base.i18n import N_, _, join

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
    no_pager: NoPagerOption = False,
    decks_dir: DecksOption = None,
    db: DbOption = None,
) -> None:
    from quizzer.base import clock
    from quizzer.app import browse
    from quizzer.cli.output import emit_json, paged
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
    from quizzer.base.clock import when

    states = [[_(name) for name in [row.state, *row.flags]] for row in rows]  # joined on a line, or one a line
    dues = [when(row.due) if row.due else "-" for row in rows]
    stabilities = [_("{days} d").format(days=f"{row.stability:.1f}") if row.stability is not None else "-"
                   for row in rows]
    lapses = sort.value == "lapses"  # the order's reason shown: sorted by lapses, the lapses are a column
    layout = _layout(rows, states, dues, stabilities, out.width, lapses)
    table = _listing(rows, states, [due.replace(" ", "\n") if layout.split_due else due for due in dues], stabilities,
                     layout, lapses)
    counted = counted_cards(found.total)
    if len(rows) < found.total:
        counted = _("the first {shown} of {counted}; --limit 0 shows all").format(shown=f"{len(rows):,}", counted=counted)
    with paged(out, not no_pager):
        out.print(table)
        out.print(counted, markup=False)


@dataclass(frozen=True)
class Layout:
    """How the browser's table fits the terminal: whole or short ids (``Row.short_id``), which
    columns go beside the question, and whether a due time goes under its date."""

    short: bool
    columns: str  # "wide": kind, deck, section and stability; "stacked": the deck over the kind; "narrow": neither
    split_due: bool
    fits: bool = True  # every column but the question whole; else (a very narrow terminal) the others wrap too


LAYOUTS = (  # the first that leaves the question PREVIEW_AT_LEAST columns: whole ids first, then the most columns
    Layout(False, "wide", False), Layout(False, "stacked", False), Layout(False, "stacked", True),
    Layout(True, "wide", False), Layout(True, "stacked", False), Layout(True, "stacked", True),
    Layout(True, "narrow", False), Layout(True, "narrow", True),
)


def _layout(rows: list[Row], states: list[list[str]], dues: list[str], stabilities: list[str], width: int,
            lapses: bool) -> Layout:
    """The first of LAYOUTS in which every column but the question is whole (an id is never folded
    or cut: it is what the learner types back) and the question keeps PREVIEW_AT_LEAST columns;
    rich would otherwise squeeze the state to a character a line, or push the recall past the
    edge. Short ids, at most a few characters, leave the question its room at 60 columns."""
    from rich.cells import cell_len

    from quizzer.app.kind_names import title
    from quizzer.terminal.tables import room_beside

    def widest(header: str, cells: list[str]) -> int:
        return max(map(cell_len, [header, *cells]))

    kinds = [word for row in rows for word in title(row.kind).split()]
    for layout in LAYOUTS:
        due = widest(_("due"), [part for due in dues for part in (due.split() if layout.split_due else [due])])
        beside = [widest(_("state"), [join(names) for names in states] if layout.columns == "wide" else
                         [name for names in states for name in names]), due, widest(_("recall"), ["100%"])]
        beside += [widest(_("lapses"), [str(row.lapses) for row in rows])] if lapses else []
        if layout.columns == "wide":
            beside += [widest(_("kind"), kinds), widest(_("deck"), [row.deck for row in rows]),
                       widest("§", [row.section for row in rows]), widest(_("stability"), stabilities)]
        elif layout.columns == "stacked":
            beside += [widest(_("deck"), [*kinds, *(row.deck for row in rows)])]
        longest = max(cell_len(row.short_id if layout.short else row.id) for row in rows)
        if room_beside(width, beside) >= max(longest, cell_len(_("card"))):
            return layout
    return Layout(True, "narrow", True, fits=False)


def _listing(rows: list[Row], states: list[list[str]], dues: list[str], stabilities: list[str], layout: Layout,
             lapses: bool) -> Table:
    """The browser's table, its columns as ``layout`` has them."""
    from quizzer.app.kind_names import title
    from quizzer.terminal.render import safe
    from quizzer.terminal.tables import ident, listing, number, preview, text

    wide, stacked = layout.columns == "wide", layout.columns == "stacked"
    columns = [ident(_("card"))]  # never folded or cut: the layout leaves it its width
    columns += [ident(_("kind")), ident(_("deck")), ident("§")] if wide else []
    columns += [ident(_("deck"))] if stacked else []  # the kind under the deck, a word a line
    whole = ident if layout.fits else text  # the layout leaves them room: only the question wraps
    columns += [text(_("front")), whole(_("state")), whole(_("due"))]
    columns += [number(_("stability"))] if wide else []
    columns += [number(_("lapses"))] if lapses else []
    table = listing(*columns, number(_("recall")))
    for row, state, due, stability in zip(rows, states, dues, stabilities):
        cells: list[str | Text] = [safe(row.short_id if layout.short else row.id)]
        cells += ["\n".join(title(row.kind).split()), safe(row.deck), safe(row.section)] if wide else []  # as study: 计算题
        cells += ["\n".join([safe(row.deck), *title(row.kind).split()])] if stacked else []
        cells += [preview(row.front), join(state) if wide else "\n".join(state), due]  # never 到 / 期
        cells += [stability] if wide else []
        cells += [str(row.lapses)] if lapses else []
        table.add_row(*cells, f"{row.recall:.0%}" if row.recall is not None else "-")
    return table
