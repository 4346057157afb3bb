"""``quiz mistakes``: the mistakes notebook, and ``--drill`` to study it now."""

from __future__ import annotations

from typing import Annotated

import typer

from quizzer.cli.base import DbOption, DecksOption, app, collection, console


@app.command()
def mistakes(
    ctx: typer.Context,
    drill: Annotated[bool, typer.Option("--drill", help="Study the notebook's cards now.")] = False,
    decks_dir: DecksOption = None,
    db: DbOption = None,
) -> None:
    """The mistakes notebook: what went wrong in exams, until right on two later days."""
    from rich.table import Table

    from quizzer import clock
    from quizzer.app import notebook
    from quizzer.store.cards import studiable
    from quizzer.terminal import study as screen
    from quizzer.terminal.exam import when
    from quizzer.terminal.render import safe

    opened = collection(ctx, decks_dir, db)
    out = console()
    entries = notebook.entries(opened.store)
    if not entries:
        out.print("The mistakes notebook is empty.")
        return
    if drill:
        queue = studiable(opened.store, [e.card_id for e in entries], clock.now())
        if not queue:
            out.print("Every card in the notebook is suspended or buried for today.")
            return
        screen.run(opened, queue, only_queued=True)
        return
    table = Table("card", "times wrong", "last wrong", "last wrong answer", "right on later days")
    table.columns[0].overflow = "fold"  # the full id, for `quiz card ID`
    for entry in entries:
        table.add_row(entry.card_id, str(entry.times_wrong), when(entry.last_wrong_at),
                      safe((entry.last_wrong_answer or "（未作答）")[:40]),
                      f"{entry.right_days} / {notebook.RIGHT_DAYS_TO_LEAVE}")
    out.print(table)
