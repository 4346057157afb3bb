"""The study session on a terminal (or a pipe): draws its views, reads keys and typed answers.

Keys (Anki's where Anki has one): space/Enter reveals, 1-4 rate (Again, Hard, Good, Easy),
``u`` undoes the last review, ``b`` buries the card until tomorrow, ``s`` suspends it, ``e``
opens it in ``$EDITOR``, ``q`` quits. Where a prompt takes a typed answer, a command letter
that could also be an answer (``b`` is option B) is typed as ``!b``.
"""

from __future__ import annotations

import os
import shlex
import subprocess
from collections.abc import Sequence
from datetime import timedelta

from rich.console import Console
from rich.panel import Panel
from rich.table import Table

from quizzer.app.collection import Collection
from quizzer.app.study import Answer as AnswerEvent
from quizzer.app.study import (
    BackView,
    Bury,
    CardView,
    Continue,
    Edited,
    Event,
    Feedback,
    Next,
    Notice,
    Quit,
    Rate,
    Reveal,
    StudySession,
    Summary,
    Suspend,
    Undo,
    View,
)
from quizzer.app.views import Retry
from quizzer.defaults import LEECH_LAPSES, Rating
from quizzer.settings import Settings
from quizzer.store.filter import EVERYTHING, CardFilter
from quizzer.terminal import render
from quizzer.terminal.prompter import Prompter, TerminalPrompter, for_stdin
from quizzer.terminal.render import markdown, safe

COMMANDS: dict[str, Event] = {"u": Undo(), "b": Bury(), "s": Suspend(), "q": Quit()}  # and "e", which the terminal handles
RATE_PROMPT = "1 Again · 2 Hard · 3 Good · 4 Easy"  # with each button's interval when known: rate_prompt()


def label(rating: int) -> str:
    return Rating(rating).label


def interval(span: timedelta) -> str:
    """An interval as Anki's answer buttons show it: seconds under a minute, minutes under an
    hour, hours under a day, days under 30 days, then months (30 days) and years (365 days)
    to one decimal: ``45s``, ``10m``, ``3h``, ``8d``, ``1.5mo``, ``2y``."""
    seconds = max(0.0, span.total_seconds())
    for unit, size, limit in (("s", 1, 60), ("m", 60, 3600), ("h", 3600, 86400), ("d", 86400, 30 * 86400)):
        if seconds < limit:
            return f"{round(seconds / size)}{unit}"
    days = seconds / 86400
    amount, unit = (days / 30, "mo") if days < 365 else (days / 365, "y")
    return f"{amount:.1f}".removesuffix(".0") + unit


def rate_prompt(intervals: Sequence[timedelta] = ()) -> str:
    """``1 Again 10m · 2 Hard 1d · 3 Good 3d · 4 Easy 8d`` (RATE_PROMPT when not known)."""
    if len(intervals) != len(Rating):
        return RATE_PROMPT
    return " · ".join(f"{r.value} {r.label} {interval(span)}" for r, span in zip(Rating, intervals))


class StudyScreen:
    """Runs a StudySession against a prompter and a console."""

    def __init__(self, session: StudySession, prompter: Prompter, console: Console) -> None:
        self.session = session
        self.prompter = prompter
        self.console = console

    def run(self) -> Summary:
        """Until the session ends; Ctrl-C propagates (every answer is already saved)."""
        views: Sequence[View] = self.session.start()
        while True:
            for view in views:
                self.draw(view)
            last = views[-1]
            if isinstance(last, Summary):
                return last
            views = self.session.handle(self.read(last))

    # -- input ---------------------------------------------------------------

    def read(self, view: View) -> Event:
        while True:
            event = self._read_once(view)
            if event is not None:
                return event

    def _read_once(self, view: View) -> Event | None:
        if isinstance(view, CardView) and view.graded:
            text = self.prompter.line(f"answer ({view.hint})").strip()
            bang = text.startswith("!") and len(text) == 2
            if bang or (len(text) == 1 and text.lower() in "ubseq" and not self.session.could_be_answer(text)):
                return self._command(text[-1].lower())
            return AnswerEvent(text)
        if isinstance(view, CardView):
            return self._key("[space/Enter] show answer", {"": Reveal()})
        if isinstance(view, BackView):
            return self._key(rate_prompt(view.intervals), {str(r): Rate(r) for r in range(1, 5)})
        if isinstance(view, Continue):
            key = self.prompter.key("[space/Enter] next · u undo · q quit")
            return COMMANDS[key] if key in ("u", "q") else Next()
        return Quit()

    def _key(self, prompt: str, allowed: dict[str, Event]) -> Event | None:
        """A key among ``allowed`` or a command; anything else asks again."""
        key = self.prompter.key(prompt)
        if key in allowed:
            return allowed[key]
        return self._command(key) if len(key) == 1 and key in "ubseq" else None

    def _command(self, key: str) -> Event | None:
        if key == "e":
            return self._edit()
        return COMMANDS.get(key)

    def _edit(self) -> Event | None:
        """Open the card in the editor at its line; the session reloads the decks. Refused on a
        pipe: an editor would read the script's remaining lines as keystrokes."""
        if not self.prompter.interactive:
            self.console.print("[yellow]`e` needs a terminal: the editor cannot run on a pipe.[/yellow]")
            return None
        path, line = self.session.location()
        editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
        try:
            subprocess.call([*shlex.split(editor), f"+{line}", str(path)])
        except OSError as err:
            self.console.print(f"[red]Could not start the editor '{safe(editor)}' ({err.strerror}); set $EDITOR.[/red]")
            return None
        return Edited()

    # -- output --------------------------------------------------------------

    def draw(self, view: View) -> None:
        out = self.console
        if isinstance(view, CardView):
            title = (f"{safe(view.deck_title)} · {view.kind} · §{safe(view.source)}   "
                     f"[dim]{view.done} done · {view.left} left[/dim]")
            render.card(out, title, view.front)
        elif isinstance(view, BackView):
            out.print(Panel(markdown(view.back), border_style="green"))
        elif isinstance(view, Feedback):
            colour = "green" if view.correct else "red"
            due = f" · due in {interval(view.interval)}" if view.interval is not None else ""
            out.print(f"[{colour}]{safe(view.message)}[/{colour}]", f"[dim]→ {label(view.rating)}{due}[/dim]")
            if view.explanation:
                out.print(markdown(view.explanation))
            if view.solution:
                out.print(Panel(markdown(view.solution), title="解题过程", border_style="red"))
        elif isinstance(view, Retry):
            render.retry(out, view.message)
        elif isinstance(view, Notice):
            self.notice(view)
        elif isinstance(view, Summary):
            report(out, view)

    def notice(self, notice: Notice) -> None:
        card = safe(notice.card_id)
        due = f" · due in {interval(notice.due_in)}" if notice.due_in is not None else ""
        text = {  # "saved CARD-ID → RATING" starts the line scripts read; what follows is for people
            "saved": f"[dim]saved {card} → {label(notice.rating) if notice.rating else ''}{due}[/dim]",
            "undone": f"[yellow]Undone: {card}[/yellow]",
            "nothing_to_undo": "[yellow]Nothing to undo.[/yellow]",
            "buried": f"[yellow]Buried until tomorrow: {card}[/yellow]",
            "suspended": f"[yellow]Suspended: {card} (`quiz show {card} --unsuspend` brings it back)[/yellow]",
            "edit_failed": f"[red]The deck has problems now, keeping the old card:[/red]\n{safe(notice.detail)}",
            "skipped_gone": f"[yellow]No longer in the decks, skipped: {safe(notice.detail)}[/yellow]",
        }[notice.kind]
        self.console.print(text)


def report(console: Console, summary: Summary) -> None:
    """The end of a session: what was done, and what is coming."""
    minutes, seconds = divmod(int(summary.seconds), 60)
    ratings = " · ".join(f"{label(r)} {n}" for r, n in sorted(summary.ratings.items()) if n)
    console.print(
        f"\n[bold]Reviewed {summary.reviewed}[/bold], correct {summary.correct}"
        f" in {minutes}m{seconds:02d}s" + (f"  ({ratings})" if ratings else "")
    )
    if summary.leeches:
        console.print(f"[red]Leeches (lapsed {LEECH_LAPSES} times; rewrite or suspend them):[/red] {', '.join(summary.leeches)}")
    if summary.forecast:
        table = Table("day", "due", title="Coming up")
        for day, count in summary.forecast:
            table.add_row(day.isoformat(), str(count))
        console.print(table)


def run(collection: Collection, queue: list[str], *, chosen: CardFilter = EVERYTHING, only_queued: bool = False,
        settings: Settings | None = None) -> None:
    """A study session over ``queue`` on standard input; Ctrl-C shows the summary, then
    propagates (every answer is already saved). ``settings``: the learner's (config file and
    environment) unless given."""
    from quizzer import settings as configured

    out = Console()
    prompter = for_stdin(out)
    session = StudySession(collection, queue, chosen=chosen, only_queued=only_queued,
                           pause_after_feedback=isinstance(prompter, TerminalPrompter),
                           settings=configured.load() if settings is None else settings)
    try:
        StudyScreen(session, prompter, out).run()
    except KeyboardInterrupt:
        report(out, session.handle(Quit())[-1])  # type: ignore[arg-type]  # Quit always ends in the Summary
        raise
