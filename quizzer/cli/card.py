"""``quiz card ID``: one card's text, memory state and review history."""

from __future__ import annotations

from typing import Annotated

import typer

from quizzer.cli.base import DbOption, DecksOption, app, collection, console


@app.command()
def card(
    ctx: typer.Context,
    card_id: Annotated[str, typer.Argument(metavar="ID", help="A card id, as `quiz lint` and the decks show them.")],
    unsuspend: Annotated[bool, typer.Option("--unsuspend", help="Put a suspended card back into the drill.")] = False,
    decks_dir: DecksOption = None,
    db: DbOption = None,
) -> None:
    """One card: its text, its memory state and its review history."""
    from rich.panel import Panel
    from rich.table import Table

    from quizzer import clock, kinds
    from quizzer.scheduling import answer as answering
    from quizzer.scheduling.summary import card_info
    from quizzer.terminal.exam import when
    from quizzer.terminal.render import markdown, safe

    opened = collection(ctx, decks_dir, db)
    info = card_info(opened.store, card_id, clock.now())
    if unsuspend:
        answering.unsuspend(opened.store, card_id)
        info = card_info(opened.store, card_id, clock.now())
    out = console()
    memory = info.memory
    buried = info.buried_until is not None and info.buried_until > clock.now()
    status = ("suspended" if info.suspended else "not in any deck now" if not info.active
              else f"buried until {when(info.buried_until)}" if buried and info.buried_until else "active")
    out.print(f"[bold]{safe(info.id)}[/bold]  {safe(info.deck)} · {info.kind} · {status}  "
              f"tags: {safe(', '.join(info.tags) or '-')}")
    deck_card = opened.cards.get(card_id)
    if deck_card is not None:
        kind = kinds.of(deck_card)
        out.print(Panel(markdown(kind.front(kind.ask(deck_card))), border_style="dim"))
    recall = f"{info.retrievability:.0%}" if info.retrievability is not None else "-"
    stability = f"{memory.stability:.2f} days" if memory.stability is not None else "-"
    difficulty = f"{memory.difficulty:.2f}" if memory.difficulty is not None else "-"
    due = when(memory.due) if memory.due else "new"
    out.print(f"due {due} · stability {stability} · difficulty {difficulty} · recall now {recall} · lapses {memory.lapses}")
    table = Table("when", "mode", "rating", "correct", "answer", "seconds")
    for review in info.reviews:
        correct = "" if review.correct is None else "yes" if review.correct else "no"
        seconds = f"{review.duration_ms / 1000:.1f}" if review.duration_ms is not None else ""
        table.add_row(when(review.reviewed_at), review.mode, str(review.rating), correct,
                      safe(review.answer_text or ""), seconds)
    out.print(table)
