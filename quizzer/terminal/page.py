"""A session's screen: the views drawn since the current card came, drawn again when the
terminal changes size or comes back from Ctrl-Z."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Generic, TypeVar

from rich.console import Console

from quizzer.terminal.prompter import Prompter

ViewT = TypeVar("ViewT")


class Page(Generic[ViewT]):
    """What a session's screen shows of its views: cleared for each new card or question where
    ``clear`` is on (not for the first, which keeps what the command printed above it), and drawn
    anew when the terminal changes size there (the prompter calls :meth:`redraw`, and keeps the
    text being typed). After Ctrl-Z and ``fg`` the card and what followed it are drawn again
    (cleared first where ``clear`` is on, else below the shell's lines, as a log goes on): the
    shell's ``Stopped`` and whatever was typed to it stood where the card was."""

    def __init__(self, console: Console, draw: Callable[[ViewT], None], clear: bool, prompter: Prompter) -> None:
        self.console, self.draw, self.clear, self.prompter = console, draw, clear, prompter
        self.shown: list[ViewT] = []  # drawn since the current card or question came
        self.started = False
        if clear:
            prompter.redraw = self.redraw
        prompter.resumed = self.redraw  # only a terminal's prompter calls it

    def show(self, views: Sequence[ViewT], new_card: bool) -> None:
        """Draws ``views``, on a cleared screen if they bring a new card; why an answer is asked
        again goes under the question drawn again, next to the prompt."""
        from quizzer.app.views import Retry

        self.prompter.discard_typed_ahead()  # what is typed next answers what is drawn now
        if new_card:
            if self.clear and self.started:
                self.console.clear()
            self.shown = []
            self.started = True
        for view in [v for v in views if not isinstance(v, Retry)] + [v for v in views if isinstance(v, Retry)]:
            self.draw(view)
            self.shown.append(view)

    def redraw(self) -> None:
        """The current card and what followed it drawn again: on a cleared screen where ``clear``
        is on (at a new size, or after ``fg``), else under what is there."""
        if self.clear:
            self.console.clear()
        for view in self.shown:
            self.draw(view)
