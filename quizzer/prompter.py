"""How a session reads the learner: single keys on a terminal, one line per prompt otherwise.

The line protocol makes every session scriptable (``printf '\\n3\\n' | quiz study``): each
prompt consumes exactly one line, and the end of input means quit.
"""

from __future__ import annotations

import sys
from typing import Protocol, TextIO


class Prompter(Protocol):
    def key(self, prompt: str) -> str:
        """One keypress (terminal) or one line (pipe), lower-cased; '' for Enter/space; 'q' at end of input."""

    def line(self, prompt: str) -> str:
        """A typed answer; 'q' at end of input."""


class LinePrompter:
    """Reads one line per prompt, echoing the prompt so a transcript reads like a session."""

    def __init__(self, stream: TextIO, echo: TextIO) -> None:
        self.stream = stream
        self.echo = echo

    def line(self, prompt: str) -> str:
        self.echo.write(prompt + "\n")
        self.echo.flush()
        text = self.stream.readline()
        return text.rstrip("\r\n") if text else "q"

    def key(self, prompt: str) -> str:
        return self.line(prompt).strip().lower()


class TerminalPrompter:
    """Single keys in cbreak mode (Ctrl-C still interrupts); typed answers with line editing."""

    def __init__(self, console) -> None:  # a rich Console
        self.console = console

    def key(self, prompt: str) -> str:
        import termios
        import tty

        self.console.print(prompt, end=" ", style="dim", markup=False)
        fd = sys.stdin.fileno()
        saved = termios.tcgetattr(fd)
        try:
            tty.setcbreak(fd)
            char = sys.stdin.read(1)
        finally:
            termios.tcsetattr(fd, termios.TCSADRAIN, saved)
        self.console.print()
        if char == "":
            return "q"
        return "" if char in " \r\n" else char.lower()

    def line(self, prompt: str) -> str:
        try:
            from rich.markup import escape

            return self.console.input(f"[dim]{escape(prompt)}[/dim] ")
        except EOFError:
            return "q"


def for_stdin(console) -> Prompter:
    return TerminalPrompter(console) if sys.stdin.isatty() else LinePrompter(sys.stdin, sys.stdout)
