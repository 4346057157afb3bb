"""The timed mock interview on screen: questions under a clock, marking, and the report.

During the exam nothing says right or wrong. An empty answer skips (skipped questions come
round again while time is left), ``!f`` hands the paper in, ``!q`` leaves it unfinished
(``quiz exam --resume`` continues while its time lasts). When the clock runs out the exam
ends at once, even mid-answer, and what was answered is scored.
"""

from __future__ import annotations

import time
from datetime import datetime

from rich.console import Console
from rich.markup import escape
from rich.panel import Panel
from rich.table import Table

from quizzer import clock, exam, render
from quizzer.model import ChoiceCard, NumericCard, QaCard
from quizzer.prompter import Prompter, TimeUp

HAND_IN, LEAVE = "!f", "!q"
SPARKS = "▁▂▃▄▅▆▇█"


def _clock(seconds: float) -> str:
    minutes, secs = divmod(max(0, int(seconds + 0.999)), 60)
    return f"{minutes:02d}:{secs:02d}"


class ExamSession:
    def __init__(self, store, cards: dict, exam_row, prompter: Prompter, console: Console) -> None:
        self.store = store
        self.cards = cards
        self.exam = exam_row
        self.prompter = prompter
        self.console = console
        self.deadline = exam.deadline(exam_row)
        self.asked_at = time.monotonic()  # when the question on screen was shown

    def left(self) -> float:
        return (self.deadline - clock.now()).total_seconds()

    # ------------------------------------------------------------ answering

    def run(self) -> str:
        """Ask until handed in ('handed in'), out of time ('time up') or left ('left')."""
        questions = exam.questions(self.store, self.exam.id)
        total = len(questions)
        pending = [q for q in questions if q.status != "answered" and q.card_id in self.cards]  # a removed card stays unanswered
        while pending:
            for question in list(pending):
                if self.left() <= 0:
                    return self._time_up()
                self.asked_at = time.monotonic()
                try:
                    text, spent = self.ask(question, total)
                except TimeUp:
                    spent = int((time.monotonic() - self.asked_at) * 1000)
                    exam.save_answer(self.store, self.exam.id, question.position, spent_ms=spent)
                    return self._time_up()
                if text in (LEAVE, HAND_IN):
                    exam.save_answer(self.store, self.exam.id, question.position, spent_ms=spent)
                    return "left" if text == LEAVE else "handed in"
                status = "answered" if text.strip() else "skipped"
                exam.save_answer(self.store, self.exam.id, question.position, status=status,
                                 answer_text=text.strip() or None, spent_ms=spent)
                if status == "answered":
                    pending.remove(question)
            if pending:
                self.console.print(f"[yellow]{len(pending)} skipped: going round them again "
                                   f"(empty line skips, {HAND_IN} hands in).[/yellow]")
        return "handed in"

    def _time_up(self) -> str:
        self.console.print("[bold red]Time is up.[/bold red] Answers given so far are scored.")
        return "time up"

    def ask(self, question, total: int) -> tuple[str, int]:
        """Show one question and read its answer; (text, milliseconds spent)."""
        card = self.cards[question.card_id]
        asked = exam.generated(card, question.seed) if isinstance(card, NumericCard) else None
        title = (f"Question {question.position + 1} of {total} · {_clock(self.left())} left · "
                 f"{card.kind} · §{card.source}")
        self.console.print()
        self.console.print(Panel(render.markdown(render.question_text(card, asked)), title=title, title_align="left"))
        if question.answer_text:
            self.console.print(f"[dim]Your earlier answer: {escape(question.answer_text)}[/dim]")
        hint = {"choice": "letter(s)", "numeric": "number / vector"}.get(card.kind, "your answer")
        tick = self.asked_at
        while True:
            text = self.prompter.timed_line(f"{hint} (empty: skip · {HAND_IN}: hand in · {LEAVE}: leave)", self.left())
            if self.left() <= 0:  # typed past the deadline (a pipe cannot be interrupted mid-line)
                raise TimeUp
            problem = None if text.strip() in ("", HAND_IN, LEAVE) else self.format_problem(card, asked, text)
            if problem is None:
                if isinstance(card, ChoiceCard) and text.strip() not in ("", HAND_IN, LEAVE):
                    text = "".join(card.pick(text))  # "c, a" is stored as "AC"
                return text, int((time.monotonic() - tick) * 1000)
            self.console.print(f"[yellow]{escape(problem)}[/yellow]")

    @staticmethod
    def format_problem(card, asked, text: str) -> str | None:
        """Why an answer cannot be read (never whether it is right)."""
        if isinstance(card, ChoiceCard):
            return None if card.pick(text) else f"Type letters among {', '.join(card.letters)}."
        if isinstance(card, NumericCard):
            from checkers.grading import grade

            result = grade(text, asked)
            return result.message if result.outcome == "format" else None
        return None

    # ------------------------------------------------------------ marking and scoring

    def mark(self) -> dict[int, exam.Scored]:
        """Score every question; free-text answers are marked against their key points."""
        scored: dict[int, exam.Scored] = {}
        for question in exam.questions(self.store, self.exam.id):
            card = self.cards.get(question.card_id)
            score = exam.auto_score(card, question) if card is not None else 0.0
            if score is not None:
                scored[question.position] = exam.Scored(score)
                continue
            points = exam.key_points(card)
            self.console.print()
            model = f"**参考答案**：{card.answer}\n\n" if isinstance(card, QaCard) else ""
            body = (f"**Your answer**：{question.answer_text}\n\n" + model
                    + "**要点**\n\n" + "\n".join(f"{i}. {p}" for i, p in enumerate(points, 1)))
            self.console.print(Panel(render.markdown(body), title=f"Mark question {question.position + 1} · {card.id}",
                                     title_align="left", border_style="cyan"))
            covered = self.covered(len(points))
            scored[question.position] = exam.Scored(len(covered) / len(points), covered)
        return scored

    def covered(self, count: int) -> list[int]:
        while True:
            text = self.prompter.line(f"points covered (e.g. 1 3 · empty: none · a: all of 1-{count})").strip().lower()
            if text in ("a", "all"):
                return list(range(1, count + 1))
            if text in ("", "q"):
                return []
            parts = text.replace(",", " ").replace("，", " ").split()
            if all(p.isdigit() and 1 <= int(p) <= count for p in parts):
                return sorted({int(p) for p in parts})
            self.console.print(f"[yellow]Numbers between 1 and {count}, separated by spaces.[/yellow]")


def show_report(console: Console, report: exam.Report) -> None:
    """Score, score by kind / section / tag, time per question, and what went wrong."""
    row_exam = report.exam
    answered = sum(r.question.status == "answered" for r in report.rows)
    console.print(f"\n[bold]Exam {row_exam.id}: {row_exam.score:.1f} / 100[/bold]  "
                  f"({answered} of {len(report.rows)} answered, {row_exam.minutes:g} minutes allowed)")
    for title, key in (("kind", lambda r: r.card.kind), ("section", lambda r: r.card.source.split(".")[0]),
                       ("tag", lambda r: r.card.tags or ["-"])):
        table = Table(title, "score", "questions", title=f"By {title}")
        for group, percent, count in report.by(key):
            table.add_row(group, f"{percent:.0f}%", str(count))
        console.print(table)
    table = Table("#", "card", "kind", "your answer", "score", "seconds", title="Questions")
    table.columns[1].overflow = "fold"  # the full id, for `quiz card ID`
    for row in report.rows:
        given = row.question.answer_text or f"({row.question.status})"
        table.add_row(str(row.position + 1), row.card.id, row.card.kind, given[:40], f"{row.score:.2f}",
                      f"{row.question.duration_ms / 1000:.0f}")
    console.print(table)
    for row in report.rows:
        if row.score >= 1.0:
            continue
        body = (f"{row.text}\n\n"
                f"**Your answer**：{row.question.answer_text or '（未作答）'}\n\n**Right answer**：{row.right_answer}")
        if row.solution:
            body += f"\n\n{row.solution}"
        console.print(Panel(render.markdown(body), title=f"Question {row.position + 1} · {row.card.id} · {row.score:.2f}",
                            title_align="left", border_style="red"))


def show_history(console: Console, rows: list, now: datetime) -> None:
    table = Table("exam", "started", "questions", "answered", "minutes", "score", title="Exams")
    scores = []
    for row, total, answered in rows:
        if row.finished_at is not None:
            score = f"{row.score:.1f}"
            scores.append(row.score)
        else:
            running = exam.deadline(row) > now
            score = "unfinished" + (" (--resume)" if running else "")
        table.add_row(str(row.id), f"{row.started_at.astimezone():%Y-%m-%d %H:%M}", str(total), str(answered),
                      f"{row.minutes:g}", score)
    console.print(table)
    if scores:
        trend = "".join(SPARKS[min(len(SPARKS) - 1, int(s / 100 * len(SPARKS)))] for s in scores)
        console.print(f"Trend: {trend}  (first {scores[0]:.0f} → last {scores[-1]:.0f})")
