"""The timed mock interview on a terminal (or a pipe): questions under a clock, marking, the
report and the history of exams.

On a terminal the clock lives in the status line under the answer prompt, redrawn in place
every half second (the question's header has no time in it, so nothing on screen goes
stale); on a pipe the header says the time left when the question was shown. At the answer
prompt only ``!``-words are commands: ``!f`` hands in, ``!q`` leaves."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime

from rich.cells import cell_len
from rich.console import Console, Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from quizzer.app import kind_names
from quizzer.app.busy import Waiting
from quizzer.app.exam import ExamSession
from quizzer.app.exam_views import (
    AllMarked,
    Answer,
    Event,
    GoingRound,
    HandedIn,
    HandIn,
    Leave,
    LeftUnfinished,
    Mark,
    MarkView,
    QuestionView,
    Report,
    ReportRow,
    SeeReport,
    TimeIsUp,
    TimeUp,
    UndoMark,
    View,
    never_asked,
)
from quizzer.app.views import Retry
from quizzer.base import clock
from quizzer.base.clock import later_when, when
from quizzer.base.errors import ConnectionLost, ServerUnavailable
from quizzer.base.i18n import _, ngettext, translate_checker_message
from quizzer.app.exam_open import NewPaper, Offer
from quizzer.app.records import ExamRecord
from quizzer.terminal import render
from quizzer.terminal.messages import clock_text, unfinished_line
from quizzer.terminal.page import Page
from quizzer.terminal.prompter import Prompter, command
from quizzer.terminal.prompter import TimeUp as TimedOut
from quizzer.terminal.render import markdown, safe
from quizzer.terminal.tables import ident, listing, number, preview, text

HAND_IN, LEAVE, UNDO = "!f", "!q", "!u"
SPARKS = "▁▂▃▄▅▆▇█"


def sparkline(scores: Sequence[float]) -> str:
    """A bar per score, from the lowest to the highest of them (as a sparkline scales): on a fixed
    0-100 scale, 61 then 50 were both ▅ and the drop was not seen. Equal scores are level bars."""
    low, high = min(scores), max(scores)
    if high == low:
        return SPARKS[len(SPARKS) // 2] * len(scores)
    return "".join(SPARKS[round((s - low) / (high - low) * (len(SPARKS) - 1))] for s in scores)


class ExamScreen:
    """Runs an ExamSession against a prompter and a console. ``clear_screen``: clear the
    terminal between questions (the learner's ``clear_screen`` setting, which the caller has)."""

    def __init__(self, session: ExamSession, prompter: Prompter, console: Console, *, clear_screen: bool) -> None:
        self.session = session
        self.prompter = prompter
        self.console = console
        # a transcript on a pipe keeps every question
        self.page = Page(console, self.draw, bool(clear_screen) and prompter.interactive, prompter)
        self.time_up = False  # the clock ended the paper: each marking title says so (the line saying it scrolls away)
        # an answer waits out another process's long write, and a server out of reach for a while
        session.waiting = Waiting(render.waiting(console), session.settings.server_retry_seconds)

    def run(self) -> Report | LeftUnfinished:
        views: Sequence[View] = self.session.begin()
        while True:
            self.page.show(views, any(isinstance(view, (QuestionView, MarkView)) for view in views))
            last = views[-1]
            if isinstance(last, (Report, LeftUnfinished)):
                return last
            views = self.session.handle(self.read(last))

    def read(self, view: View) -> Event:
        if isinstance(view, QuestionView):
            self.session.prepare()  # the question is on screen: its answer can be worked out while it is read
            return self.answer(view)
        if isinstance(view, MarkView):  # Ctrl-D or !q leaves the marking, as it leaves the answering
            prompt = _("points covered (e.g. 1 3 · empty: none · a: all of 1-{count} · {leave}: leave)").format(
                count=len(view.points), leave=LEAVE)
            if view.undoable:
                prompt = _("points covered (e.g. 1 3 · empty: none · a: all of 1-{count} · {undo}: take back the last mark "
                           "· {leave}: leave)").format(count=len(view.points), undo=UNDO, leave=LEAVE)
            text = self.prompter.line(prompt)
            commands: dict[str, Event] = {LEAVE: Leave(), UNDO: UndoMark()}
            return commands.get(command(text) or "", Mark(text))
        if isinstance(view, AllMarked):
            text = self.prompter.line(_("Every answer is marked. Enter: the report · {undo}: take back the last mark · "
                                        "{leave}: leave").format(undo=UNDO, leave=LEAVE))
            ending: dict[str, Event] = {LEAVE: Leave(), UNDO: UndoMark()}
            return ending.get(command(text) or "", SeeReport())
        raise AssertionError(f"no input for {view!r}")

    def answer(self, view: QuestionView) -> Event:
        """An answer, a command, or what was typed when the clock ran out."""
        if self.prompter.interactive:  # the keys and the clock are in the status line
            prompt = _("answer ({hint})").format(hint=view.hint)
        else:
            prompt = _("{hint} (empty: skip · {hand_in}: hand in · {leave}: leave)").format(
                hint=view.hint, hand_in=HAND_IN, leave=LEAVE)
        while True:
            try:
                text = self.prompter.line(prompt, status=lambda: self.status(view), seconds=self.session.seconds_left())
            except TimedOut as cut:
                return TimeUp("" if command(cut.typed) else cut.typed)  # a half-typed command is no answer
            word = command(text)
            if word is None:
                return Answer(text)
            if word in (HAND_IN, LEAVE):
                return HandIn() if word == HAND_IN else Leave()
            render.retry(self.console, _("{text} is not a command: {hand_in} hands in, {leave} leaves").format(
                text=text.strip(), hand_in=HAND_IN, leave=LEAVE))

    def status(self, view: QuestionView) -> str:
        """The status line under the answer prompt, the live clock first (a narrow terminal puts the rest below)."""
        return " " + _("{clock} left · {number}/{total} · empty: skip · {hand_in}: hand in · {leave}: leave").format(
            clock=clock_text(self.session.seconds_left()), number=view.number, total=view.total,
            hand_in=HAND_IN, leave=LEAVE)

    def draw(self, view: View) -> None:
        out = self.console
        if isinstance(view, QuestionView):
            progress = _("Question {number} of {total}").format(number=view.number, total=view.total)
            if not self.prompter.interactive:  # else the clock is live in the status line
                progress = _("{progress} · {clock} left").format(progress=progress, clock=clock_text(view.seconds_left))
            # as study's title: the deck's goes where the line is too narrow for it
            render.card(out, [Text(progress), Text(render.clean(view.deck_title)), Text(kind_names.title(view.kind)),
                              Text(render.clean(render.section_text(view.source)))], view.front, optional=1)
            if view.earlier_answer:
                out.print("[dim]" + _("Your earlier answer: {answer}").format(answer=safe(view.earlier_answer)) + "[/dim]",
                          highlight=False)
        elif isinstance(view, Retry):
            render.retry(out, translate_checker_message(view.message))
        elif isinstance(view, GoingRound):
            out.print("[yellow]" + _("{count} skipped: going round them again (empty line skips, {hand_in} hands in).")
                      .format(count=view.skipped, hand_in=HAND_IN) + "[/yellow]", highlight=False)
        elif isinstance(view, TimeIsUp):
            self.time_up = True
            if view.at_start:
                out.print("[yellow]" + _("This exam's time had run out; scoring what was answered.") + "[/yellow]")
            else:
                out.print(_("{time_is_up} Answers given so far are scored, with any answer being typed as it stands.")
                          .format(time_is_up="[bold red]" + _("Time is up.") + "[/bold red]"), highlight=False)
        elif isinstance(view, HandedIn):
            self.time_up = view.time_up
            note = _("This exam's time was up before it was left: the marking goes on.") if view.time_up else \
                _("This exam was handed in before it was left: the marking goes on.")
            out.print("[yellow]" + note + "[/yellow]")
        elif isinstance(view, MarkView):
            label = _("Your answer (cut off when time ran out)") if view.cut_off else _("Your answer")
            heading = _("Model answer")
            model = labelled(heading, view.model_answer) + "\n\n" if view.model_answer else ""
            body = (view.question + "\n\n---\n\n"
                    + labelled(label, view.answer_text or "") + "\n\n" + model
                    + "**" + _("Key points") + "**\n\n" + "\n".join(f"{i}. {p}" for i, p in enumerate(view.points, 1)))
            out.print()
            title, card = marking_title(out.width, view.position + 1, view.card_id, self.time_up)
            out.print(Panel(headed(card, markdown(body)), title=title, title_align="left", border_style="cyan"))
        elif isinstance(view, LeftUnfinished):
            out.print(left_message(view), highlight=False)
        elif isinstance(view, Report):
            show_report(out, view)
            if view.noted:
                out.print(_("Wrong answers are in `quiz mistakes` and come back soon in `quiz study`."), highlight=False)


def marking_title(width: int, number: int, card_id: str, time_up: bool) -> tuple[Text, str | None]:
    """A marking panel's title (a paper the clock ended says so) and the card id apart, as
    :func:`titled` gives them."""
    return titled(width, [_("Mark question {number}").format(number=number), *([_("time is up")] if time_up else [])],
                  card_id)


def titled(width: int, parts: list[str], card_id: str, after: Sequence[str] = ()) -> tuple[Text, str | None]:
    """A panel's title of ``parts``, the card id and the parts ``after`` it on a ``width`` columns
    screen, and the id apart when the title's border (as render.card's, 6 columns short of the
    width) cannot hold it whole: it then heads the panel's text, as an id is never cut (`quiz
    show` takes it)."""
    whole = " · ".join([*parts, card_id, *after])
    if cell_len(whole) <= width - 6:
        return Text(whole), None
    return Text(" · ".join([*parts, *after])), card_id


def headed(card_id: str | None, body: RenderableType) -> RenderableType:
    """A panel's text under the card id its title could not hold (``titled``)."""
    return body if card_id is None else Group(Text(card_id, style="bold"), Text(), body)


def labelled(label: str, value: str) -> str:
    """``**label**: value`` in Markdown; a value of its own lines (a model answer's list, a mistake's
    "In fact: …", "Why: …") under its label: after the colon its first item ran on as text."""
    if "\n" in value.strip() or value.startswith("**"):
        return f"**{label}**\n\n{value}"
    return _("{label}: {value}").format(label=f"**{label}**", value=value)


def left_message(view: LeftUnfinished) -> str:
    if view.marking:
        return _("Exam {id} left during its marking, every mark given saved; `quiz exam --resume` goes on with the "
                 "marking (the answers stand as handed in).").format(id=view.exam_id)
    if view.expired:
        return _("Exam {id} left unfinished, every answer saved; its time is up: `quiz exam --resume` scores it.").format(
            id=view.exam_id)
    return _("Exam {id} left unfinished, every answer saved; `quiz exam --resume` continues it until {time}, "
             "and after that scores what was answered.").format(id=view.exam_id, time=later_when(view.deadline, clock.now()))


def status_text(row: ReportRow) -> str:
    """A question's status as the report says it: an unanswered one shown (a review of Again and a
    mistake, as in an interview) apart from one the paper never reached (no review)."""
    if row.status == "unanswered":
        return _("not reached") if never_asked(row) else _("shown, no answer")
    return {"skipped": _("skipped")}.get(row.status, row.status)


ANSWER_ROOM = 12  # columns the report's answers keep at least beside whole card ids


def room_beside_ids(rows: Sequence[ReportRow], all_columns: bool) -> int:
    """What the report's question table needs beside the card ids: each column's rules and padding,
    the number, the score and ANSWER_ROOM columns of the answer; with ``all_columns``, also the
    kind (the longest on this paper, in the interface language) and the seconds."""
    needs = [len(str(len(rows))), cell_len(_("score")), ANSWER_ROOM]
    if all_columns:
        needs += [max(cell_len(_("seconds")), 4),
                  max([cell_len(_("kind")), *(cell_len(kind_names.title(row.kind)) for row in rows)])]
    return sum(needs) + 3 * (len(needs) + 1) + 1  # and the id's own column


def chapter(row: ReportRow) -> str:
    """A question's deck and top section (``ch08-bert §8``): two decks may both have a §8."""
    # plain text: the report's table escapes it, as it does every group
    return row.deck if row.source == "-" else f"{row.deck} {render.section_text(row.source.split('.')[0])}"


def show_report(console: Console, report: Report) -> None:
    """Score, score by kind / section / tag, time per question, and what went wrong."""
    exam = report.exam
    # an answer the clock cut off is scored and marked as given: counted with the answered, so a
    # score above 0 never stands beside "0 of 2 answered"
    answered = _("{answered} of {total} answered").format(answered=report.answered + report.cut_off, total=len(report.rows))
    if report.cut_off:
        answered = _("{answered}, {count} of them cut off by the clock").format(answered=answered, count=report.cut_off)
    score = _("Exam {id}: {score} / 100").format(id=exam.id, score=f"{exam.score or 0.0:.1f}")
    details = ngettext("({answered}, {minutes} minute allowed)", "({answered}, {minutes} minutes allowed)",
                       1 if exam.minutes == 1 else 2).format(answered=answered, minutes=f"{exam.minutes:g}")
    console.print(f"\n[bold]{score}[/bold]  {details}", highlight=False)
    groups: list[tuple[str, str, Callable[[ReportRow], str | list[str]]]] = [
        (_("kind"), _("By kind"), lambda r: kind_names.title(r.kind)),
        (_("section"), _("By section"), chapter),
        (_("tag"), _("By tag"), lambda r: r.tags or ["-"]),
    ]
    for name, title, key in groups:
        table = Table(name, _("score"), _("questions"), title=title)
        for group, percent, count in report.by(key):
            table.add_row(safe(group), f"{percent:.1f}%", str(count))  # as the total: 12.5, not 12
        console.print(table)
    # the id whole (for `quiz show ID`) before the kind and the seconds, which go first on a
    # narrow terminal; folded only where even then the answer would keep no words beside it
    longest = max((cell_len(row.card_id) for row in report.rows), default=0)
    wide = console.width >= longest + room_beside_ids(report.rows, all_columns=True)
    room = console.width - room_beside_ids(report.rows, all_columns=False)
    card = ident(_("card"))
    if room < longest:  # the answer gives way first: the ids fold over as few lines as its ANSWER_ROOM leaves
        card = text(_("card"), width=max(line.cell_len for row in report.rows
                                         for line in Text(row.card_id).wrap(console, max(room, 1), overflow="fold")))
    table = Table(number("#"), card, *([ident(_("kind"))] if wide else []), text(_("your answer")), number(_("score")),
                  *([number(_("seconds"))] if wide else []), title=_("Questions"))
    for row in report.rows:
        given: Text | Group = (preview(row.answer_text) if row.answer_text
                               else Text(_("({text})").format(text=status_text(row))))
        if row.cut_off:  # on a line of its own: the answer's two lines may be cut
            given = Group(given, Text(_("({text})").format(text=_("cut off")), style="yellow"))
        table.add_row(str(row.position + 1), row.card_id, *([kind_names.title(row.kind)] if wide else []), given, f"{row.score:.2f}",
                      *([f"{row.duration_ms / 1000:.0f}"] if wide else []))
    console.print(table)
    for row in report.rows:
        if row.score >= 1.0:
            continue
        label = _("Your answer (cut off when time ran out)") if row.cut_off else _("Your answer")
        none, right = _("({text})").format(text=status_text(row)), _("Right answer")  # as the table says
        answered = labelled(label, row.answer_text or none)
        if row.verdict:  # which blank, how far off: what study would have said
            answered += "\n\n" + translate_checker_message(row.verdict)
        parts = [row.text, answered]
        if row.right_answer is not None:  # else the worked solution below ends with it
            parts.append(labelled(right, row.right_answer))
        body = "\n\n".join(parts)
        if row.missed:  # what the marking found missing, not only the score
            missed = "\n".join(f"- {point}" for point in row.missed)
            body += "\n\n**" + _("Key points not covered") + f"**\n\n{missed}"
        if row.solution:
            body += f"\n\n{row.solution}"
        heading, apart = titled(console.width, [_("Question {number}").format(number=row.position + 1)], row.card_id,
                                [f"{row.score:.2f}"])
        console.print(Panel(headed(apart, markdown(body)), title=heading, title_align="left", border_style="red"))


def show_history(console: Console, rows: list[tuple[ExamRecord, int, int]], now: datetime) -> None:
    table = listing(ident(_("exam")), text(_("started"), min_width=10), number(_("questions")), number(_("answered")),
                    number(_("minutes allowed"), header_wraps=True), text(_("score"), justify="right"), title=_("Exams"))  # dates wrap, never cut
    scores = []
    for exam, total, answered in rows:
        if exam.finished_at is not None and exam.score is not None:
            score = f"{exam.score:.1f}"
            scores.append(exam.score)
        else:
            score = _("unfinished ({option})").format(option="--resume") if exam.deadline > now else _("unfinished")
        table.add_row(str(exam.id), when(exam.started_at), str(total), str(answered), f"{exam.minutes:g}", score)
    console.print(table)
    if scores:
        trend = sparkline(scores)
        console.print(_("Trend: {trend}  (first {first} → last {last})").format(
            trend=trend, first=f"{scores[0]:.1f}", last=f"{scores[-1]:.1f}"), highlight=False)


def begin_paper(out: Console, prompter: Prompter, opened: Offer | ExamSession, wanted: NewPaper,
                resumed: bool) -> ExamSession | None:
    """The exam to sit, said: an unfinished one offered first (None: the learner quit instead), a new
    paper announced with what it holds."""

    if isinstance(opened, Offer):
        prompter.discard_typed_ahead()  # a second Enter after `quiz exam` is not the answer to the offer
        out.print(unfinished_line(opened.waiting, clock.now()), markup=False)
        if not prompter.interactive:  # a script's new paper goes ahead
            return announced(out, opened.start_new(), wanted)
        to_do = opened.to_do(clock.now())
        if to_do == "marking":
            offer = _("[Enter] mark it · q quit (a new paper once it is done)")
        elif to_do == "scoring":
            offer = _("[Enter] score it · q quit (a new paper once it is done)")
        else:
            offer = _("[Enter] continue it · q quit (a new paper once it is handed in: {hand_in})").format(
                hand_in=HAND_IN)
        return None if prompter.key(offer, {""}) == "q" else opened.take_up()
    return opened if resumed else announced(out, opened, wanted)


def announced(out: Console, session: ExamSession, wanted: NewPaper) -> ExamSession:
    """A new paper said: its id, questions, time and seed, and how many fewer cards than asked it holds."""
    minutes = wanted.minutes
    out.print(_("Exam {id}: {questions}, {minutes} (seed {seed}).").format(
        id=session.exam.id, questions=ngettext("{count} question", "{count} questions", session.total).format(
            count=session.total), minutes=ngettext("{count} minute", "{count} minutes", 1 if minutes == 1 else 2).format(
            count=f"{minutes:g}"), seed=session.exam.seed), markup=False)
    if session.total < wanted.count:  # --count larger than the pool: say how many were drawn
        out.print(ngettext("Only {count} card can be asked with these options.",
                           "Only {count} cards can be asked with these options.", session.total).format(
            count=session.total), markup=False)
    return session


def sit(out: Console, prompter: Prompter, session: ExamSession, clear_screen: bool) -> None:
    """The exam from its question to its report; broken off (Ctrl-C, or the server out of reach past
    its retries: the error that follows names the answer not saved), what is left is said."""
    try:
        ExamScreen(session, prompter, out, clear_screen=clear_screen).run()
    except (KeyboardInterrupt, ServerUnavailable, ConnectionLost):
        out.print("\n" + left_message(session.interrupted()), markup=False)
        raise
