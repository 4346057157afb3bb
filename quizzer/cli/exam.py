"""``quiz exam``: a timed mock interview, its resumption and the history of exams."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Optional

import typer

from quizzer.cli.base import app
from quizzer.cli.boundary import console
from quizzer.cli.context import DbOption, DecksOption, collection, settings
from quizzer.cli.options import DeckFilter, KindFilter, TagFilter, given, kind_values, seed_in_range
from quizzer.base.defaults import EXAM_COUNT, EXAM_MAX_MINUTES, EXAM_MIN_MINUTES, EXAM_MINUTES
from quizzer.base.errors import UsageError
from quizzer.base.i18n import N_, _, ngettext

if TYPE_CHECKING:
    from quizzer.app.collection import Collection


@app.command(help=N_("A timed mock interview: no hints until the end, then a score and what to work on."))
def exam(
    ctx: typer.Context,
    count: Annotated[int, typer.Option("--count", min=1, metavar="N", help=N_("Questions on the paper."))] = EXAM_COUNT,
    minutes: Annotated[float, typer.Option("--minutes", metavar="M",
                                           help=N_("Time allowed (up to a day, 1440)."))] = EXAM_MINUTES,
    deck: DeckFilter = None,
    tag: TagFilter = None,
    kind: KindFilter = None,
    seed: Annotated[Optional[int], typer.Option("--seed", metavar="N", show_default=False, min=0, callback=seed_in_range,
                                                help=N_("Draw this paper (the same seed gives the same paper)."))] = None,
    resume: Annotated[bool, typer.Option("--resume", help=N_("Continue the last unfinished exam."))] = False,
    show_history: Annotated[bool, typer.Option("--history", help=N_("Past exams and the trend of the score."))] = False,
    as_json: Annotated[bool, typer.Option("--json", help=N_("With --history: print JSON instead of a table."))] = False,
    decks_dir: DecksOption = None,
    db: DbOption = None,
) -> None:
    from quizzer.app import exam_open
    from quizzer.terminal.exam import begin_paper, sit
    from quizzer.terminal.prompter import for_stdin

    _check(ctx, minutes, resume, show_history, as_json)
    learner = settings()
    opened = collection(ctx, decks_dir, db)
    if show_history:
        _history(opened, as_json)
        return
    out = console()
    prompter = for_stdin(out)
    wanted = exam_open.NewPaper(count, minutes, seed, deck, tag, kind_values(kind))
    paper = exam_open.open_paper(opened, wanted, resume, settings=learner, pauses=prompter.interactive)
    session = begin_paper(out, prompter, paper, wanted, resume)
    if session is not None:
        sit(out, prompter, session, learner.clear_screen)


def _check(ctx: typer.Context, minutes: float, resume: bool, show_history: bool, as_json: bool) -> None:
    """The options that go together; a UsageError for those that do not."""
    if as_json and not show_history:
        raise UsageError(_("--json goes with --history"), "quiz exam --history --json")
    if not EXAM_MIN_MINUTES <= minutes <= EXAM_MAX_MINUTES:  # NaN too, which no bound refuses
        # the value as typed: {:g} would round 1440.0000001 to 1440
        raise UsageError(_("--minutes must be from {low:g} to {high:g} (a day), not {value}").format(
            low=EXAM_MIN_MINUTES, high=EXAM_MAX_MINUTES, value=f"{minutes:.15g}"))
    if show_history and resume:
        raise UsageError(_("--history lists the exams; --resume continues one: not both"))
    drawing = given(ctx, "count", "minutes", "deck", "tag", "kind", "seed")
    if (show_history or resume) and drawing:
        raise UsageError(ngettext("{options} chooses a new paper: not with {mode}",
                                  "{options} choose a new paper: not with {mode}", len(drawing)).format(
            options=" ".join(drawing), mode="--history" if show_history else "--resume"))


def _history(opened: Collection, as_json: bool) -> None:
    """The past exams: a table and the score's trend, or JSON."""
    from quizzer.base import clock
    from quizzer.app.exam_report import history
    from quizzer.app.exam_open import history_dicts

    past = history(opened)
    if as_json:
        from quizzer.cli.output import emit_json

        emit_json(history_dicts(past, clock.now()))
    elif past:
        from quizzer.terminal.exam import show_history as draw_history

        draw_history(console(), past, clock.now())
    else:
        console().print(_("No exams yet: `quiz exam` starts one."), markup=False)
