"""``quiz show ID``: one card as study and exam show it (front, back, worked solution), its
memory state and its review history. ``quiz card ID`` is a hidden alias, kept for scripts."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Optional

import typer

from quizzer.cli.base import app
from quizzer.cli.boundary import console
from quizzer.cli.context import DbOption, DecksOption, collection, settings
from quizzer.cli.options import JsonOption, NoPagerOption, seed_in_range
from quizzer.base.i18n import N_, _, join

if TYPE_CHECKING:
    from rich.console import Console

    from quizzer.app.browse import Shown


REVIEW_MODES = (N_("study"), N_("exam"))  # a review's mode, shown translated
STATUSES = (N_("not in any deck now"), N_("suspended"), N_("buried"), N_("active"))  # Shown.status, translated


def show(
    ctx: typer.Context,
    card_id: Annotated[str, typer.Argument(metavar="ID", help=N_("A card id, as `quiz cards` lists them."))],
    seed: Annotated[Optional[int], typer.Option(
        "--seed", metavar="N", show_default=False, min=0, callback=seed_in_range,
        help=N_("A generated (numeric) card: ask the question drawn from seed N (default: a fresh one)."))] = None,
    unsuspend: Annotated[bool, typer.Option("--unsuspend", help=N_("Put a suspended card back into the drill."))] = False,
    unbury: Annotated[bool, typer.Option("--unbury", help=N_("Put a buried card back into today's drill."))] = False,
    as_json: JsonOption = False,
    no_pager: NoPagerOption = False,
    decks_dir: DecksOption = None,
    db: DbOption = None,
) -> None:
    from quizzer.base import clock
    from quizzer.app import browse
    from quizzer.app.kind_names import title
    from quizzer.cli.output import emit_json
    from quizzer.base.errors import UsageError

    opened = collection(ctx, decks_dir, db)
    shown = browse.show(opened, card_id, clock.now(), seed, settings())  # CardNotFound (exit 1) before any change
    if seed is not None and shown.seed is None and shown.front is not None:  # --seed is for a generated question
        raise UsageError(_("--seed picks a numeric card's question: {card} is a {kind} card").format(
            card=shown.info.id, kind=title(shown.info.kind)), _("without --seed: `quiz show {card}`").format(card=shown.info.id))
    was_suspended, was_buried = shown.info.suspended, shown.buried
    shown = browse.put_back(opened, shown, clock.now(), unsuspend=unsuspend, unbury=unbury, settings=settings())
    if as_json:
        emit_json(_json(shown))
        return
    _draw(shown, bool(opened.left_out), not no_pager)
    card_id = shown.info.id  # the whole id, however it was typed
    if unsuspend:  # said last, under the card: the drawing is long
        console().print(_("Unsuspended {card}: it is back in the drill.").format(card=card_id) if was_suspended else
                        _("{card} was not suspended: nothing changed.").format(card=card_id), markup=False, highlight=False)
    if unbury:
        console().print(_("Unburied {card}: it is back in today's drill.").format(card=card_id) if was_buried else
                        _("{card} was not buried: nothing changed.").format(card=card_id), markup=False, highlight=False)


app.command("show", help=N_("One card: its question and answer as study asks them, its memory state and review history."))(show)
app.command("card", hidden=True, help=N_("The same as `quiz show` (kept for scripts)."))(show)


def _json(shown: Shown) -> dict[str, Any]:
    from quizzer.app.records import NEW, STATE_NAMES

    info, memory = shown.info, shown.info.memory

    return {
        "id": info.id, "deck": info.deck, "deck_title": shown.deck_title, "kind": info.kind, "section": shown.source,
        "tags": list(info.tags), "status": shown.status, "state": STATE_NAMES[memory.state],
        "due": memory.due if memory.state != NEW else None, "stability": memory.stability, "difficulty": memory.difficulty,
        "recall": info.retrievability, "lapses": memory.lapses, "leech": memory.leech, "suspended": info.suspended,
        "buried_until": info.buried_until if shown.buried else None, "mistake": shown.mistake,
        "seed": shown.seed, "front": shown.front, "back": shown.back, "solution": shown.solution,
        "reviews": [
            {"reviewed_at": r.reviewed_at, "mode": r.mode, "rating": r.rating, "correct": r.correct,
             "answer": r.answer_text, "seed": r.seed, "duration_ms": r.duration_ms, "scheduled": r.scheduled}
            for r in info.reviews
        ],
    }


def _draw(shown: Shown, left_out: bool, pager: bool) -> None:
    """The card's question at once, then (when worked out: a numeric card's solution imports torch,
    on a background thread set going once the question is on screen) its answer, solution, memory
    state and reviews, through the pager when longer than the screen (``pager``). ``left_out``: a
    deck file is left out (the warning above names it), perhaps this card's."""
    from quizzer.cli.output import paged

    out = console()
    _draw_question(out, shown, left_out)
    out.file.flush()
    if shown.worked is not None:
        shown.worked.start()
    with paged(out, pager):
        _draw_answer(out, shown)


def _draw_question(out: Console, shown: Shown, left_out: bool) -> None:
    from quizzer.app import kind_names
    from quizzer.base.clock import when
    from quizzer.terminal import render
    from rich.text import Text

    from quizzer.terminal.render import clean, safe

    info, memory = shown.info, shown.info.memory
    status = _(shown.status)
    if not info.active and left_out:  # under the warning that a file is left out, "in no deck now" would mislead
        status = _("not in the decks in use: a deck file is left out")
    if shown.buried and info.buried_until is not None:
        status = _("buried until {when}").format(when=when(info.buried_until))
    extra = [flag for flag, on in ((_("leech"), memory.leech), (_("in the mistakes notebook"), shown.mistake)) if on]
    out.print(f"[bold]{safe(info.id)}[/bold]  {safe(info.deck)} · {safe(kind_names.title(info.kind))} · {join([status, *extra])}")
    out.print(_("tags: {tags}").format(tags=safe(join(info.tags) or "-")))  # a line of its own: `标` / `签` split
    if shown.wrong_at is not None:
        out.print(_("The question you got wrong {when}, worked out below (`--seed N` draws another).").format(
            when=when(shown.wrong_at)), markup=False, highlight=False)
    if shown.front is not None:
        seed = " · " + _("seed {seed}").format(seed=shown.seed) if shown.seed is not None else ""
        render.card(out, [Text(clean(shown.deck_title or "")), Text(kind_names.title(info.kind)),
                          Text(clean(render.section_text(shown.source or "")) + seed)], shown.front, optional=0)


def _draw_answer(out: Console, shown: Shown) -> None:
    from rich.panel import Panel

    from quizzer.app import kind_names
    from quizzer.app.records import NEW
    from quizzer.base.clock import when
    from quizzer.base.defaults import Rating
    from quizzer.terminal.render import clean, markdown, safe
    from quizzer.terminal.tables import dropping

    info, memory = shown.info, shown.info.memory
    if shown.front is not None:
        out.print(Panel(markdown(shown.back or ""), border_style="green"))
        if shown.solution:
            title = _(kind_names.solution_title(info.kind))  # a worked solution, or a choice's explanation
            out.print(Panel(markdown(shown.solution), title=safe(title), border_style="dim"))
    recall = f"{info.retrievability:.0%}" if info.retrievability is not None else "-"
    stability = _("{days} days").format(days=f"{memory.stability:.2f}") if memory.stability is not None else "-"
    difficulty = f"{memory.difficulty:.2f}" if memory.difficulty is not None else "-"
    due = when(memory.due) if memory.due and memory.state != NEW else _("none yet (a new card)")
    out.print(_("due {due} · stability {stability} · difficulty {difficulty} · recall now {recall} · lapses {lapses}").format(
        due=due, stability=stability, difficulty=difficulty, recall=recall, lapses=memory.lapses))
    if not info.reviews:
        out.print(_("No reviews yet."))
        return
    # the answer gives way, whole words kept; on a narrow terminal the seconds, then the mark, then the mode go
    rows = []
    for review in info.reviews:
        correct = "" if review.correct is None else _("yes") if review.correct else _("no")
        seconds = f"{review.duration_ms / 1000:.1f}" if review.duration_ms is not None else ""
        rows.append([when(review.reviewed_at), _(review.mode), f"{review.rating} {Rating(review.rating).shown}", correct,
                     clean(review.answer_text or ""), seconds])
    out.print(dropping(out, [_("when"), _("mode"), _("rating"), _("correct"), _("answer"), _("seconds")], rows,
                       gives_way=4, optional=[5, 3, 1], title=_("Reviews")))
