"""``quiz exam``: a timed mock interview, its resumption and the history of exams."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Optional

import typer

from quizzer.cli.base import app
from quizzer.cli.boundary import console
from quizzer.cli.context import DbOption, DecksOption, collection, settings
from quizzer.cli.options import DeckFilter, KindFilter, TagFilter, given, kind_values, seed_in_range
from quizzer.defaults import EXAM_COUNT, EXAM_MAX_MINUTES, EXAM_MIN_MINUTES, EXAM_MINUTES
from quizzer.errors import NoDecks, UsageError
from quizzer.i18n import _, ngettext

if TYPE_CHECKING:
    from datetime import datetime

    from quizzer.store.records import ExamRecord


@app.command(help=_("A timed mock interview: no hints until the end, then a score and what to work on."))
def exam(
    ctx: typer.Context,
    count: Annotated[int, typer.Option("--count", min=1, metavar="N", help=_("Questions on the paper."))] = EXAM_COUNT,
    minutes: Annotated[float, typer.Option("--minutes", metavar="M",
                                           help=_("Time allowed (up to a day, 1440)."))] = EXAM_MINUTES,
    deck: DeckFilter = None,
    tag: TagFilter = None,
    kind: KindFilter = None,
    seed: Annotated[Optional[int], typer.Option("--seed", metavar="N", show_default=False, min=0, callback=seed_in_range,
                                                help=_("Draw this paper (the same seed gives the same paper)."))] = None,
    resume: Annotated[bool, typer.Option("--resume", help=_("Continue the last unfinished exam."))] = False,
    show_history: Annotated[bool, typer.Option("--history", help=_("Past exams and the trend of the score."))] = False,
    as_json: Annotated[bool, typer.Option("--json", help=_("With --history: print JSON instead of a table."))] = False,
    decks_dir: DecksOption = None,
    db: DbOption = None,
) -> None:
    from quizzer import clock
    from quizzer.app import exam as exams
    from quizzer.cli.overview import unfinished_line
    from quizzer.terminal.exam import HAND_IN, ExamScreen, left_message
    from quizzer.terminal.exam import show_history as draw_history
    from quizzer.terminal.prompter import for_stdin

    if as_json and not show_history:
        raise UsageError(_("--json goes with --history"), "quiz exam --history --json")
    if not EXAM_MIN_MINUTES <= minutes <= EXAM_MAX_MINUTES:  # also NaN, which no bound refuses
        raise UsageError(_("--minutes must be from {low:g} to {high:g} (a day), not {value}").format(
            low=EXAM_MIN_MINUTES, high=EXAM_MAX_MINUTES, value=f"{minutes:.15g}"))  # 1440.0000001 was "not 1440"
    if show_history and resume:
        raise UsageError(_("--history lists the exams; --resume continues one: not both"))
    drawing = given(ctx, "count", "minutes", "deck", "tag", "kind", "seed")
    if (show_history or resume) and drawing:
        raise UsageError(ngettext("{options} chooses a new paper: not with {mode}",
                                  "{options} choose a new paper: not with {mode}", len(drawing)).format(
            options=" ".join(drawing), mode="--history" if show_history else "--resume"))
    learner = settings()
    opened = collection(ctx, decks_dir, db)
    out = console()
    if show_history:
        past = exams.history(opened)
        if as_json:
            _history_json(past, clock.now())
        elif past:
            draw_history(out, past, clock.now())
        else:
            out.print(_("No exams yet: `quiz exam` starts one."), markup=False)
        return
    prompter = for_stdin(out)
    if not resume and not opened.decks:
        raise NoDecks()
    if not resume and (waiting := exams.ExamSession.unfinished(opened)) is not None:
        # a new paper left the last one behind without a word, reachable only once this one was done;
        # on a terminal it is taken up first (one unfinished paper at a time), a pipe's script goes on
        prompter.discard_typed_ahead()  # a second Enter after `quiz exam` is not the answer to the offer
        out.print(unfinished_line(waiting, clock.now()), markup=False)
        if prompter.interactive:
            to_do = waiting.left_to_do(clock.now())
            if to_do == "marking":
                offer = _("[Enter] mark it · q quit (a new paper once it is done)")
            elif to_do == "scoring":
                offer = _("[Enter] score it · q quit (a new paper once it is done)")
            else:
                offer = _("[Enter] continue it · q quit (a new paper once it is handed in: {hand_in})").format(
                    hand_in=HAND_IN)
            if prompter.key(offer, {""}) == "q":
                return
            resume = True
    if resume:
        session = exams.ExamSession.resume(opened, settings=learner, pauses=prompter.interactive)
    else:
        chosen = opened.card_filter(deck, tag, kind_values(kind))
        session = exams.ExamSession.start(opened, chosen.paper(count), seed, minutes, settings=learner,
                                          pauses=prompter.interactive)
        out.print(_("Exam {id}: {questions}, {minutes} (seed {seed}).").format(
            id=session.exam.id, questions=ngettext("{count} question", "{count} questions", session.total).format(
                count=session.total), minutes=ngettext("{count} minute", "{count} minutes", 1 if minutes == 1 else 2).format(
                count=f"{minutes:g}"), seed=session.exam.seed), markup=False)
        if session.total < count:  # --count 100000 gave every card there is, without a word
            out.print(ngettext("Only {count} card can be asked with these options.",
                               "Only {count} cards can be asked with these options.", session.total).format(
                count=session.total), markup=False)
    try:
        ExamScreen(session, prompter, out, clear_screen=learner.clear_screen).run()
    except KeyboardInterrupt:
        expired = session.seconds_left() <= 0
        left = exams.LeftUnfinished(session.exam.id, session.exam.deadline, expired, marking=session.phase == "marking")
        out.print("\n" + left_message(left), markup=False)
        raise


def _history_json(past: list[tuple[ExamRecord, int, int]], now: datetime) -> None:
    import json

    from quizzer.cli.output import emit_json

    def filters(text: str) -> Any:
        try:
            return json.loads(text)
        except ValueError:
            return text

    emit_json([
        {"id": exam.id, "seed": exam.seed, "started_at": exam.started_at, "finished_at": exam.finished_at,
         "minutes": exam.minutes, "questions": total, "answered": answered,
         "score": exam.score if exam.finished_at is not None else None,
         "unfinished": exam.finished_at is None, "resumable": exam.finished_at is None and exam.deadline > now,
         "filters": filters(exam.filters)}
        for exam, total, answered in past
    ])
