"""``quiz cards``: the card browser, one row per card, with search, filters and sorting."""

from __future__ import annotations

import enum
from typing import Annotated, Optional

import typer

from quizzer.cli.base import (
    DbOption,
    DeckFilter,
    DecksOption,
    JsonOption,
    KindFilter,
    TagFilter,
    app,
    collection,
    console,
    kind_values,
)


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


@app.command("cards")
def cards_command(
    ctx: typer.Context,
    search: Annotated[Optional[str], typer.Option(
        "--search", "-s", metavar="TEXT", show_default=False,
        help="Only cards whose id, tags or text hold every word of TEXT (case and width ignored).")] = None,
    deck: DeckFilter = None,
    tag: TagFilter = None,
    kind: KindFilter = None,
    state: Annotated[Optional[State], typer.Option(
        "--state", metavar="STATE", show_default=False,
        help=f"Only cards in this state: {', '.join(s.value for s in State)}.")] = None,
    sort: Annotated[Sort, typer.Option(
        "--sort", metavar="ORDER",
        help="due (soonest first, new cards last), recall (lowest first), lapses (most first) or id.")] = Sort.due,
    as_json: JsonOption = False,
    decks_dir: DecksOption = None,
    db: DbOption = None,
) -> None:
    """Browse the cards: id, kind, deck, section, question, state, due, stability, recall now."""
    from quizzer import clock
    from quizzer.app import browse
    from quizzer.cli.output import emit_json
    from quizzer.terminal.render import math_to_unicode

    opened = collection(ctx, decks_dir, db)
    rows = browse.browse(opened, clock.now(), search=search, decks=deck, tags=tag, kinds_wanted=kind_values(kind),
                         state=state.value if state else None, sort=sort.value, plain=math_to_unicode)
    if as_json:
        emit_json(rows)
        return
    out = console()
    if not rows:
        out.print("No cards match.", markup=False)
        return
    from rich import box
    from rich.table import Table

    from quizzer.terminal.exam import when
    from quizzer.terminal.render import safe

    table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, collapse_padding=True)
    table.add_column("id", overflow="fold")  # for `quiz show ID`: folded on a narrow screen, never cut
    for name in ("kind", "deck", "§"):
        table.add_column(name, overflow="fold")  # what --kind and --deck take: never cut either
    table.add_column("front")
    table.add_column("state")
    for name in ("due", "stability", "recall"):
        table.add_column(name, justify="left" if name == "due" else "right")
    for row in rows:
        table.add_row(
            safe(row.id), row.kind, safe(row.deck), safe(row.section), safe(row.front), row.label,
            when(row.due) if row.due else "-",
            f"{row.stability:.1f} d" if row.stability is not None else "-",
            f"{row.recall:.0%}" if row.recall is not None else "-",
        )
    out.print(table)
    out.print(f"{len(rows)} card{'s' if len(rows) != 1 else ''}", markup=False)
