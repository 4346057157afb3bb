"""``quiz mistakes``: the mistakes notebook, and ``--drill`` to study it now."""

from __future__ import annotations

from typing import Annotated

import typer

from quizzer.cli.base import app
from quizzer.cli.boundary import console
from quizzer.cli.context import DbOption, DecksOption, collection, settings
from quizzer.cli.options import JsonOption
from quizzer.base.errors import UsageError
from quizzer.base.i18n import N_, _, ngettext

WIDE = 100  # columns from which the notebook shows every column with its full header
NARROW = 80  # below it, the last wrong answer gives way too (the drill and --json have it): the question first


@app.command(help=N_("The mistakes notebook: what went wrong in exams, and cards study saw fail twice within a week, "
                    "until right on two later days."))
def mistakes(
    ctx: typer.Context,
    drill: Annotated[bool, typer.Option("--drill", help=N_("Study the notebook's cards now."))] = False,
    as_json: JsonOption = False,
    decks_dir: DecksOption = None,
    db: DbOption = None,
) -> None:
    from quizzer.base import clock
    from quizzer.app import browse
    from quizzer.cli.output import emit_json
    from quizzer.terminal.mathtext import math_to_unicode

    if drill and as_json:
        raise UsageError(_("--json lists the notebook; it does not go with --drill"))
    opened = collection(ctx, decks_dir, db)
    out = console()
    rows = browse.mistakes(opened, plain=math_to_unicode, settings=settings())
    if as_json:
        emit_json(rows)
        return
    if not rows:
        out.print(_("The mistakes notebook is empty."))
        return
    if drill:
        from quizzer.app.browse import mistakes_drill
        from quizzer.terminal import study as screen

        queue = mistakes_drill(opened, rows, clock.now())
        if not queue:
            out.print(_("Every card in the notebook is suspended or buried for today."))
            return
        screen.run(opened, queue, only_queued=True)
        return
    from rich.cells import cell_len

    from quizzer.app.notebook import RIGHT_DAYS_TO_LEAVE
    from quizzer.base.clock import when
    from quizzer.terminal.render import safe
    from quizzer.terminal.tables import ident, listing, number, preview, room_beside

    dates = [when(row.last_wrong_at) for row in rows]
    # the richest layout the width allows that leaves the ids whole on one line (an id is what
    # `quiz show` takes: folded, it cannot be copied), else the richest with the short ids `quiz
    # cards` shows, which `quiz show` takes as well; where none fits, the narrowest with short ids
    layouts = [(short, wide, answer) for short in (False, True)
               for wide, answer in ((True, True), (False, True), (False, False))
               if (not wide or out.width >= WIDE) and (not answer or out.width >= NARROW)]
    for short, wide, answer in layouts:
        longest = max(cell_len(row.short_id if short else row.id) for row in rows)
        wrong, right, others, previews = _columns(wide, answer, out.width, longest, dates)
        if room_beside(out.width, others, previews) >= longest:
            break
    counts = [number(header, header_wraps=True) for header in (wrong, right)]
    for column, width in zip(counts, others):
        column.max_width = width
    table = listing(ident(_("card")), _("question"), *([ident(_("from"))] if wide else []), counts[0],
                    *([ident(_("last wrong"))] if wide else []),
                    *([_("last wrong answer") if wide else _("wrong answer")] if answer else []), counts[1])
    for row, last in zip(rows, dates):
        question = preview(row.front) if row.front is not None else _("(not in the decks)")
        table.add_row(safe(row.short_id if short else row.id), question,
                      *([_sources(row.sources)] if wide else []), str(row.times_wrong), *([last] if wide else []),
                      *([preview(row.last_wrong_answer or _("(no answer)"))] if answer else []),
                      f"{row.right_days}/{row.right_days_needed}")
    out.print(table)
    out.print(ngettext("A card leaves the notebook once answered right on {count} study day after its last mistake "
                       "(the day of the mistake does not count); `quiz mistakes --drill` practises them now.",
                       "A card leaves the notebook once answered right on {count} study days after its last mistake "
                       "(the day of the mistake does not count); `quiz mistakes --drill` practises them now.",
                       RIGHT_DAYS_TO_LEAVE).format(count=RIGHT_DAYS_TO_LEAVE), markup=False)
    if any(row.seed is not None for row in rows):
        out.print(_("A numeric card's question is the one you got wrong; `quiz show CARD` works it out."), markup=False)


SOURCES = {"exam": N_("exam"), "study": N_("study")}  # where a notebook entry came from, as its column says it


def _sources(sources: tuple[str, ...]) -> str:
    return "+".join(_(SOURCES[source]) for source in sources)


def _columns(wide: bool, answer: bool, width: int, longest: int, dates: list[str]) -> tuple[str, str, list[int], int]:
    """A layout's count headers, the widths of its count and date columns (the headers whole where
    the question keeps its room beside ids ``longest`` wide, or 12 at least, else on two lines),
    and its previews."""
    from rich.cells import cell_len

    from quizzer.terminal.tables import room_beside, two_lines

    wrong, right = (_("times wrong"), _("right on later days")) if wide else (_("wrong"), _("right days"))
    date = [max(map(cell_len, [_("last wrong"), *dates]))] if wide else []
    previews = 2 if answer else 1
    source = [max(cell_len(_("from")), cell_len(_sources(tuple(SOURCES))))] if wide else []
    whole = room_beside(width, [cell_len(wrong), cell_len(right), *date, *source], previews) >= max(12, longest)
    return (wrong, right, [cell_len(header) if whole else two_lines(header) for header in (wrong, right)] + date + source,
            previews)

