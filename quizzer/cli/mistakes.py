"""``quiz mistakes``: the mistakes notebook, and ``--drill`` to study it now."""

from __future__ import annotations

from typing import Annotated

import typer

from quizzer.cli.base import DbOption, DecksOption, JsonOption, app, collection, console
from quizzer.errors import UsageError


@app.command()
def mistakes(
    ctx: typer.Context,
    drill: Annotated[bool, typer.Option("--drill", help="Study the notebook's cards now.")] = False,
    as_json: JsonOption = False,
    decks_dir: DecksOption = None,
    db: DbOption = None,
) -> None:
    """The mistakes notebook: what went wrong in exams, until right on two later days."""
    from quizzer import clock
    from quizzer.app import browse
    from quizzer.cli.output import emit_json
    from quizzer.terminal.render import math_to_unicode

    if drill and as_json:
        raise UsageError("--json lists the notebook; it does not go with --drill")
    opened = collection(ctx, decks_dir, db)
    out = console()
    rows = browse.mistakes(opened, plain=math_to_unicode)
    if as_json:
        emit_json(rows)
        return
    if not rows:
        out.print("The mistakes notebook is empty.")
        return
    if drill:
        from quizzer.store.cards import studiable
        from quizzer.terminal import study as screen

        queue = studiable(opened.store, [row.id for row in rows], clock.now())
        if not queue:
            out.print("Every card in the notebook is suspended or buried for today.")
            return
        screen.run(opened, queue, only_queued=True)
        return
    from rich.table import Table

    from quizzer.terminal.exam import when
    from quizzer.terminal.render import safe

    table = Table("card", "question", "times wrong", "last wrong", "last wrong answer", "right on later days")
    table.columns[0].overflow = "fold"  # the full id, for `quiz show ID`
    for row in rows:
        table.add_row(safe(row.id), safe(row.front) if row.front is not None else "（不在牌组中）",
                      str(row.times_wrong), when(row.last_wrong_at),
                      safe((row.last_wrong_answer or "（未作答）")[:40]), f"{row.right_days} / {row.right_days_needed}")
    out.print(table)
