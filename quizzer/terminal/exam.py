"""The timed mock interview on a terminal (or a pipe): questions under a clock, marking, the
report and the history of exams."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from rich.console import Console
from rich.panel import Panel
from rich.table import Table

from quizzer.app.exam import (
    Answer,
    Event,
    ExamSession,
    GoingRound,
    HandIn,
    Leave,
    LeftUnfinished,
    Mark,
    MarkView,
    QuestionView,
    Report,
    TimeIsUp,
    TimeUp,
    View,
)
from quizzer.app.views import Retry
from quizzer.store.records import ExamRecord
from quizzer.terminal import render
from quizzer.terminal.prompter import Prompter
from quizzer.terminal.prompter import TimeUp as TimedOut
from quizzer.terminal.render import markdown, safe

HAND_IN, LEAVE = "!f", "!q"
SPARKS = "▁▂▃▄▅▆▇█"


def clock_text(seconds: float) -> str:
    minutes, secs = divmod(max(0, int(seconds + 0.999)), 60)
    return f"{minutes:02d}:{secs:02d}"


def when(moment: datetime) -> str:
    """A stored UTC time as the learner's local time."""
    return f"{moment.astimezone():%Y-%m-%d %H:%M}"


class ExamScreen:
    def __init__(self, session: ExamSession, prompter: Prompter, console: Console) -> None:
        self.session = session
        self.prompter = prompter
        self.console = console

    def run(self) -> Report | LeftUnfinished:
        views: Sequence[View] = self.session.begin()
        while True:
            for view in views:
                self.draw(view)
            last = views[-1]
            if isinstance(last, (Report, LeftUnfinished)):
                return last
            views = self.session.handle(self.read(last))

    def read(self, view: View) -> Event:
        if isinstance(view, QuestionView):
            prompt = f"{view.hint} (empty: skip · {HAND_IN}: hand in · {LEAVE}: leave)"
            try:
                text = self.prompter.timed_line(prompt, self.session.seconds_left())
            except TimedOut:
                return TimeUp()
            command = text.strip()
            return HandIn() if command == HAND_IN else Leave() if command == LEAVE else Answer(text)
        if isinstance(view, MarkView):
            return Mark(self.prompter.line(f"points covered (e.g. 1 3 · empty: none · a: all of 1-{len(view.points)})"))
        raise AssertionError(f"no input for {view!r}")

    def draw(self, view: View) -> None:
        out = self.console
        if isinstance(view, QuestionView):
            title = (f"Question {view.number} of {view.total} · {clock_text(view.seconds_left)} left · "
                     f"{view.kind} · §{safe(view.source)}")
            render.card(out, title, view.front)
            if view.earlier_answer:
                out.print(f"[dim]Your earlier answer: {safe(view.earlier_answer)}[/dim]")
        elif isinstance(view, Retry):
            render.retry(out, view.message)
        elif isinstance(view, GoingRound):
            out.print(f"[yellow]{view.skipped} skipped: going round them again "
                      f"(empty line skips, {HAND_IN} hands in).[/yellow]")
        elif isinstance(view, TimeIsUp):
            if view.at_start:
                out.print("[yellow]This exam's time had run out; scoring what was answered.[/yellow]")
            else:
                out.print("[bold red]Time is up.[/bold red] Answers given so far are scored.")
        elif isinstance(view, MarkView):
            model = f"**参考答案**：{view.model_answer}\n\n" if view.model_answer else ""
            body = (f"**Your answer**：{view.answer_text}\n\n" + model
                    + "**要点**\n\n" + "\n".join(f"{i}. {p}" for i, p in enumerate(view.points, 1)))
            out.print()
            out.print(Panel(markdown(body), title=f"Mark question {view.position + 1} · {safe(view.card_id)}",
                            title_align="left", border_style="cyan"))
        elif isinstance(view, LeftUnfinished):
            out.print(left_message(view))
        elif isinstance(view, Report):
            show_report(out, view)
            out.print("Wrong answers are in `quiz mistakes` and come back soon in `quiz study`.")


def left_message(view: LeftUnfinished) -> str:
    if view.expired:
        return f"Exam {view.exam_id} left unfinished, every answer saved; its time is up: `quiz exam --resume` scores it."
    return (f"Exam {view.exam_id} left unfinished, every answer saved; `quiz exam --resume` continues it "
            f"until {view.deadline.astimezone():%H:%M}.")


def show_report(console: Console, report: Report) -> None:
    """Score, score by kind / section / tag, time per question, and what went wrong."""
    exam = report.exam
    console.print(f"\n[bold]Exam {exam.id}: {exam.score or 0.0:.1f} / 100[/bold]  "
                  f"({report.answered} of {len(report.rows)} answered, {exam.minutes:g} minutes allowed)")
    for title, key in (("kind", lambda r: r.kind), ("section", lambda r: r.source.split(".")[0]),
                       ("tag", lambda r: r.tags or ["-"])):
        table = Table(title, "score", "questions", title=f"By {title}")
        for group, percent, count in report.by(key):
            table.add_row(safe(group), f"{percent:.0f}%", str(count))
        console.print(table)
    table = Table("#", "card", "kind", "your answer", "score", "seconds", title="Questions")
    table.columns[1].overflow = "fold"  # the full id, for `quiz show ID`
    for row in report.rows:
        given = row.answer_text or f"({row.status})"
        table.add_row(str(row.position + 1), row.card_id, row.kind, safe(given[:40]), f"{row.score:.2f}",
                      f"{row.duration_ms / 1000:.0f}")
    console.print(table)
    for row in report.rows:
        if row.score >= 1.0:
            continue
        body = (f"{row.text}\n\n"
                f"**Your answer**：{row.answer_text or '（未作答）'}\n\n**Right answer**：{row.right_answer}")
        if row.solution:
            body += f"\n\n{row.solution}"
        console.print(Panel(markdown(body), title=f"Question {row.position + 1} · {safe(row.card_id)} · {row.score:.2f}",
                            title_align="left", border_style="red"))


def show_history(console: Console, rows: list[tuple[ExamRecord, int, int]], now: datetime) -> None:
    table = Table("exam", "started", "questions", "answered", "minutes", "score", title="Exams")
    scores = []
    for exam, total, answered in rows:
        if exam.finished_at is not None and exam.score is not None:
            score = f"{exam.score:.1f}"
            scores.append(exam.score)
        else:
            score = "unfinished" + (" (--resume)" if exam.deadline > now else "")
        table.add_row(str(exam.id), when(exam.started_at), str(total), str(answered), f"{exam.minutes:g}", score)
    console.print(table)
    if scores:
        trend = "".join(SPARKS[min(len(SPARKS) - 1, int(s / 100 * len(SPARKS)))] for s in scores)
        console.print(f"Trend: {trend}  (first {scores[0]:.0f} → last {scores[-1]:.0f})")
