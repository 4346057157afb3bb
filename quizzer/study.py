"""The daily drill: one card at a time, graded or self-rated, each review committed as made.

Keys (Anki's where Anki has one): space/Enter reveals, 1-4 rate (Again, Hard, Good, Easy),
``u`` undoes the last review, ``b`` buries the card until tomorrow, ``s`` suspends it, ``e``
opens it in ``$EDITOR``, ``q`` quits. Where a prompt takes a typed answer, a command letter
that could also be an answer (``b`` is option B) is typed as ``!b``.

Choice and numeric cards grade themselves: wrong is Again; right is Good, or Easy when
answered within FAST seconds, Hard when it took longer than SLOW seconds.
"""

from __future__ import annotations

import os
import secrets
import shlex
import subprocess
import threading
import time
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Callable

from rich.console import Console
from rich.markup import escape
from rich.panel import Panel

from quizzer import clock, render
from quizzer.decks import DeckError, LoadedDeck
from quizzer.model import ChoiceCard, MistakeCard, NumericCard, QaCard
from quizzer.prompter import Prompter

AGAIN, HARD, GOOD, EASY = 1, 2, 3, 4
RATING_NAMES = {AGAIN: "Again", HARD: "Hard", GOOD: "Good", EASY: "Easy"}
# seconds: (answered within -> Easy, took longer than -> Hard)
FAST_SLOW = {"choice": (8, 45), "numeric": (30, 180)}
COMMANDS = "ubseq"
LEARN_AHEAD = timedelta(minutes=20)  # Anki's default: show learning cards due this soon before ending


class Quit(Exception):
    """The learner pressed q (or input ended)."""


@dataclass
class Command(Exception):
    """A command key pressed at a prompt, handled by the session loop."""

    key: str


@dataclass
class Outcome:
    rating: int
    answer_text: str | None = None
    correct: bool | None = None
    seed: int | None = None


@dataclass
class Summary:
    reviewed: int = 0
    correct: int = 0
    seconds: float = 0.0
    leeches: list[str] = field(default_factory=list)
    ratings: dict[int, int] = field(default_factory=dict)


def auto_rating(kind: str, right: bool, seconds: float) -> int:
    """The rating a self-grading card earns from being right and how long it took."""
    if not right:
        return AGAIN
    fast, slow = FAST_SLOW[kind]
    return EASY if seconds <= fast else HARD if seconds > slow else GOOD


def prewarm_torch(cards: list) -> threading.Thread | None:
    """Import torch in the background when the queue holds a numeric card, so it shows at once."""
    if not any(isinstance(card, NumericCard) for card in cards):
        return None

    def load() -> None:
        from checkers import reference  # noqa: F401  (imports torch)

    thread = threading.Thread(target=load, name="torch-prewarm", daemon=True)
    thread.start()
    return thread


class StudySession:
    """Shows the queue's cards and records each answer through ``record``."""

    def __init__(
        self,
        store,
        decks: list[LoadedDeck],
        queue: list[str],
        prompter: Prompter,
        console: Console,
        *,
        mode: str = "study",
        reload: Callable[[], list[LoadedDeck]] | None = None,
        pause_after_feedback: bool = False,
        filters: dict | None = None,
        only_queued: bool = False,
    ) -> None:
        self.store = store
        self.filters = filters or {}
        self.scope = set(queue) if only_queued else None  # a drill brings back only its own cards
        self.pause_after_feedback = pause_after_feedback
        self.prompter = prompter
        self.console = console
        self.mode = mode
        self.reload = reload
        self._index(decks)
        self.queue = [card_id for card_id in queue if card_id in self.cards]
        self.history: list = []  # scheduler.Answered, newest last, for undo
        self.summary = Summary()

    def _index(self, decks: list[LoadedDeck]) -> None:
        self.cards = {card.id: card for d in decks for card in d.deck.cards}
        self.where = {card.id: (d, d.lines.get(card.id, 1)) for d in decks for card in d.deck.cards}

    # ------------------------------------------------------------ loop

    def run(self) -> Summary:
        from quizzer import scheduler

        prewarm_torch([self.cards[i] for i in self.queue])
        started = time.monotonic()
        position = 0
        try:
            while position < len(self.queue) or self.requeue_learning(position):
                card_id = self.queue[position]
                if card_id not in self.cards:  # undone, then edited away
                    del self.queue[position]
                    continue
                try:
                    tick = time.monotonic()
                    outcome = self.ask(self.cards[card_id], done=position, left=len(self.queue) - position)
                    answered = scheduler.answer(
                        self.store, card_id, outcome.rating, now=clock.now(),
                        duration_ms=int((time.monotonic() - tick) * 1000), mode=self.mode,
                        answer_text=outcome.answer_text, correct=outcome.correct, seed=outcome.seed,
                    )
                    self._count(answered, outcome)
                    self.console.print(f"[dim]saved {card_id} → {RATING_NAMES[outcome.rating]}[/dim]")
                    position += 1
                    if self.pause_after_feedback and outcome.correct is not None:
                        # let the learner read the verdict and explanation; u undoes this answer
                        key = self.prompter.key("[space/Enter] next · u undo · q quit")
                        if key in ("u", "q"):
                            position = self.command(key, card_id, position)
                except Command as command:
                    position = self.command(command.key, card_id, position)
        except Quit:
            pass
        finally:
            self.summary.seconds = time.monotonic() - started
        return self.summary

    def requeue_learning(self, position: int) -> bool:
        """At the end of the queue, bring back cards in learning that are due within LEARN_AHEAD."""
        from quizzer import scheduler

        due = scheduler.learning_due(self.store, clock.now() + LEARN_AHEAD, **self.filters)
        self.queue[position:] = [c for c in due if c in self.cards and (self.scope is None or c in self.scope)]
        return position < len(self.queue)

    def _count(self, answered, outcome: Outcome) -> None:
        self.history.append((answered, outcome))
        self.summary.reviewed += 1
        self.summary.correct += outcome.rating > AGAIN
        self.summary.ratings[outcome.rating] = self.summary.ratings.get(outcome.rating, 0) + 1
        if answered.became_leech:
            self.summary.leeches.append(answered.card_id)

    def command(self, key: str, card_id: str, position: int) -> int:
        """Carry out a command key; returns the queue position to continue at."""
        from quizzer import scheduler

        if key == "q":
            raise Quit
        if key == "u":
            if not self.history:
                self.console.print("[yellow]Nothing to undo.[/yellow]")
                return position
            answered, outcome = self.history.pop()
            scheduler.undo(self.store, answered)
            self.summary.reviewed -= 1
            self.summary.correct -= outcome.rating > AGAIN
            self.summary.ratings[outcome.rating] -= 1
            if answered.became_leech:
                self.summary.leeches.remove(answered.card_id)
            self.console.print(f"[yellow]Undone: {answered.card_id}[/yellow]")
            # the undone card was answered earlier in this queue: show it again, next
            earlier = max(i for i in range(position) if self.queue[i] == answered.card_id)
            self.queue.insert(position - 1, self.queue.pop(earlier))
            return position - 1
        if key == "b":
            scheduler.bury(self.store, card_id, clock.next_day_start(clock.now()))
            self.console.print(f"[yellow]Buried until tomorrow: {card_id}[/yellow]")
            del self.queue[position]
            return position
        if key == "s":
            scheduler.suspend(self.store, card_id)
            self.console.print(f"[yellow]Suspended: {card_id} (`quiz card {card_id} --unsuspend` brings it back)[/yellow]")
            del self.queue[position]
            return position
        if key == "e":
            return self.edit(card_id, position)
        return position

    def edit(self, card_id: str, position: int) -> int:
        """Open the card in the editor, reload the decks; returns where the session goes on."""
        deck, line = self.where[card_id]
        editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
        try:
            subprocess.call([*shlex.split(editor), f"+{line}", str(deck.path)])
        except OSError as err:
            self.console.print(f"[red]Could not start the editor '{escape(editor)}' ({err.strerror}); set $EDITOR.[/red]")
            return position
        if self.reload is None:
            return position
        try:
            self._index(self.reload())
        except DeckError as err:  # a broken edit must not end the session
            self.console.print(f"[red]The deck has problems now, keeping the old card:[/red]\n{escape(str(err))}")
            return position
        gone = [c for c in self.queue[position:] if c not in self.cards]
        if gone:
            self.console.print(f"[yellow]No longer in the decks, skipped: {', '.join(gone)}[/yellow]")
            self.queue[position:] = [c for c in self.queue[position:] if c in self.cards]
        return position

    # ------------------------------------------------------------ one card

    def header(self, card, done: int, left: int) -> str:
        deck, _ = self.where[card.id]
        return f"{deck.deck.title} · {card.kind} · §{card.source}   [dim]{done} done · {left} left[/dim]"

    def show(self, card, body: str, done: int, left: int) -> None:
        self.console.print()
        self.console.print(Panel(render.markdown(body), title=self.header(card, done, left), title_align="left"))

    def key(self, prompt: str, allowed: tuple[str, ...]) -> str:
        """A key among ``allowed`` or a command; anything else asks again."""
        while True:
            key = self.prompter.key(prompt)
            if key in allowed:
                return key
            if len(key) == 1 and key in COMMANDS:
                raise Command(key)

    def typed(self, prompt: str, is_answer: Callable[[str], bool]) -> str:
        """A typed answer; a bare command letter is a command unless it is a valid answer."""
        text = self.prompter.line(prompt).strip()
        if text.startswith("!") and text[1:].lower() in COMMANDS and len(text) == 2:
            raise Command(text[1:].lower())
        if text.lower() in COMMANDS and len(text) == 1 and not is_answer(text):
            raise Command(text.lower())
        return text

    def ask(self, card, done: int, left: int) -> Outcome:
        if isinstance(card, (QaCard, MistakeCard)):
            return self.ask_self_rated(card, done, left)
        if isinstance(card, ChoiceCard):
            return self.ask_choice(card, done, left)
        return self.ask_numeric(card, done, left)

    def ask_self_rated(self, card: QaCard | MistakeCard, done: int, left: int) -> Outcome:
        front = render.question_text(card)
        if isinstance(card, QaCard):
            back = card.answer + "\n\n**要点**\n\n" + "\n".join(f"- {p}" for p in card.points)
        else:
            back = f"**实际上**：{card.correction}\n\n**为什么**：{card.why}"
        self.show(card, front, done, left)
        self.key("[space/Enter] show answer", ("",))
        self.console.print(Panel(render.markdown(back), border_style="green"))
        rating = self.key("1 Again · 2 Hard · 3 Good · 4 Easy", ("1", "2", "3", "4"))
        return Outcome(int(rating))

    def ask_choice(self, card: ChoiceCard, done: int, left: int) -> Outcome:
        several = len(card.answer) > 1
        self.show(card, render.question_text(card), done, left)
        tick = time.monotonic()
        while True:
            text = self.typed(f"answer ({'letters, e.g. AC' if several else 'a letter'})", lambda t: card.pick(t) is not None)
            picked = card.pick(text)
            if picked is not None:
                break
            self.console.print(f"[yellow]Type {'one or more of' if several else 'one of'} {', '.join(card.letters)}.[/yellow]")
        right = picked == sorted(card.answer)
        rating = auto_rating("choice", right, time.monotonic() - tick)
        verdict = "[green]✓ 正确[/green]" if right else f"[red]✗ 错误[/red]，正确答案 {''.join(card.answer)}"
        self.console.print(verdict, f"[dim]→ {RATING_NAMES[rating]}[/dim]")
        self.console.print(render.markdown(card.explanation))
        return Outcome(rating, "".join(picked), right)

    def ask_numeric(self, card: NumericCard, done: int, left: int) -> Outcome:
        from checkers import registry
        from checkers.grading import grade

        checker = registry.get(card.checker)
        seed = secrets.randbelow(2**31)
        question = checker.generate(seed, checker.Params.model_validate(card.params))
        intro = f"{card.prompt}\n\n" if card.prompt else ""
        self.show(card, intro + question.prompt, done, left)
        tick = time.monotonic()
        while True:
            text = self.typed("answer", lambda t: grade(t, question).outcome != "format")
            result = grade(text, question)
            if result.outcome in ("format", "imprecise"):
                self.console.print(f"[yellow]{result.message}[/yellow]")
                continue
            break
        right = result.outcome == "correct"
        rating = auto_rating("numeric", right, time.monotonic() - tick)
        mark = "[green]✓" if right else "[red]✗"
        self.console.print(f"{mark} {escape(result.message)}[/]", f"[dim]→ {RATING_NAMES[rating]}[/dim]")
        if not right:
            self.console.print(Panel(render.markdown(question.solution), title="解题过程", border_style="red"))
        return Outcome(rating, text, right, seed)


def report(console: Console, summary: Summary, store, now: datetime) -> None:
    """The end of a session: what was done, and what is coming."""
    from rich.table import Table

    from quizzer import scheduler

    minutes, seconds = divmod(int(summary.seconds), 60)
    ratings = " · ".join(f"{RATING_NAMES[r]} {n}" for r, n in sorted(summary.ratings.items()) if n)
    console.print(
        f"\n[bold]Reviewed {summary.reviewed}[/bold], correct {summary.correct}"
        f" in {minutes}m{seconds:02d}s" + (f"  ({ratings})" if ratings else "")
    )
    if summary.leeches:
        console.print(f"[red]Leeches (lapsed 8 times; rewrite or suspend them):[/red] {', '.join(summary.leeches)}")
    forecast = scheduler.due_forecast(store, now)
    if forecast:
        table = Table("day", "due", title="Coming up")
        for day, count in forecast:
            table.add_row(day.isoformat(), str(count))
        console.print(table)
