"""How a session reads the learner: single keys on a terminal, one line per prompt otherwise.

The line protocol makes every session scriptable (``printf '\\n3\\n' | quiz study``): each
prompt consumes exactly one line, and the end of input means quit. Timed prompts (the exam
clock) give up when time runs out, even in the middle of a line.
"""

from __future__ import annotations

import codecs
import io
import os
import select
import sys
import time
from typing import Protocol, TextIO


class TimeUp(Exception):
    """The clock ran out while waiting for an answer."""


class Prompter(Protocol):
    interactive: bool  # a person at a terminal (the editor can run), not a pipe

    def key(self, prompt: str) -> str:
        """One keypress (terminal) or one line (pipe), lower-cased; '' for Enter/space; 'q' at end of input."""

    def line(self, prompt: str) -> str:
        """A typed answer; 'q' at end of input."""

    def timed_line(self, prompt: str, seconds: float) -> str:
        """A typed answer within ``seconds``, else :class:`TimeUp`; '!q' at end of input."""


def _fileno(stream) -> int | None:
    try:
        return stream.fileno()
    except (AttributeError, OSError, io.UnsupportedOperation):
        return None


MAX_LINE = 4096  # bytes: an answer is never longer; a longer line is refused, not parsed


class LinePrompter:
    """Reads one line per prompt, echoing the prompt so a transcript reads like a session.

    On a real pipe it reads the file descriptor itself, so a timed prompt can wait on it
    with select(); a stream without one (a test's StringIO) is read line by line. A line
    longer than MAX_LINE bytes, or one that is not UTF-8 text, is refused with a message and
    the next line is read; memory stays bounded however long the line.
    """

    interactive = False

    def __init__(self, stream: TextIO, echo: TextIO) -> None:
        self.stream = stream
        self.echo = echo
        self.fd = _fileno(stream)
        self.pending = b""

    def _readline(self, prompt: str, seconds: float | None) -> str | None:
        self.echo.write(prompt + "\n")
        self.echo.flush()
        until = None if seconds is None else time.monotonic() + seconds
        while True:
            raw = self._raw_line(until)
            if raw is None:
                return None
            problem = _unusable(raw)
            if problem is None:
                return raw.decode("utf-8").rstrip("\r")
            self.echo.write(f"{problem}; the line is ignored\n{prompt}\n")
            self.echo.flush()

    def _raw_line(self, until: float | None) -> bytes | None:
        """The next line's bytes (cut at MAX_LINE + 1), None at the end of input."""
        if self.fd is None:
            text = self.stream.readline()
            return text.rstrip("\r\n").encode("utf-8", "surrogateescape") if text else None
        while b"\n" not in self.pending:
            wait = None if until is None else max(0.0, until - time.monotonic())
            if not select.select([self.fd], [], [], wait)[0]:
                raise TimeUp
            chunk = os.read(self.fd, 4096)
            if not chunk:
                break
            self.pending += chunk
            if len(self.pending) > MAX_LINE and b"\n" not in self.pending:
                self.pending = self.pending[: MAX_LINE + 1]  # too long already: drop the rest of the line
        if not self.pending:
            return None
        line, _, self.pending = self.pending.partition(b"\n")
        return line

    def line(self, prompt: str) -> str:
        text = self._readline(prompt, None)
        return "q" if text is None else text

    def key(self, prompt: str) -> str:
        return self.line(prompt).strip().lower()

    def timed_line(self, prompt: str, seconds: float) -> str:
        text = self._readline(prompt, seconds)
        return "!q" if text is None else text


def _unusable(raw: bytes) -> str | None:
    """Why a line cannot be an answer, or None."""
    if len(raw) > MAX_LINE:
        return f"line longer than {MAX_LINE} bytes"
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return "line is not UTF-8 text"
    if "\x00" in text:
        return "line holds binary data (NUL)"
    return None


class TerminalPrompter:
    """Single keys in cbreak mode (Ctrl-C still interrupts); typed answers with line editing."""

    interactive = True

    def __init__(self, console) -> None:  # a rich Console
        self.console = console

    def key(self, prompt: str) -> str:
        self.console.print(prompt, end=" ", style="dim", markup=False)
        with _cbreak() as fd:
            char = _read_char(fd, codecs.getincrementaldecoder("utf-8")())
        self.console.print()
        if char in ("", "\x04"):
            return "q"
        return "" if char in " \r\n" else char.lower()

    def line(self, prompt: str) -> str:
        from quizzer.terminal.render import clean, safe

        try:
            return clean(self.console.input(f"[dim]{safe(prompt)}[/dim] "))  # a paste can hold escapes
        except EOFError:
            return "q"

    def timed_line(self, prompt: str, seconds: float) -> str:
        """A small line editor that redraws a countdown every second while the learner types."""
        out = self.console.file
        until = time.monotonic() + seconds
        typed = ""
        decoder = codecs.getincrementaldecoder("utf-8")()
        with _cbreak() as fd:
            while True:
                left = until - time.monotonic()
                if left <= 0:
                    out.write("\n")
                    raise TimeUp
                minutes, secs = divmod(int(left + 0.999), 60)
                out.write(f"\r\x1b[K[{minutes:02d}:{secs:02d}] {prompt} {typed}")
                out.flush()
                if not select.select([fd], [], [], min(1.0, left))[0]:
                    continue
                char = _read_char(fd, decoder)
                if char in ("\r", "\n"):
                    out.write("\n")
                    return typed
                if char in ("\x7f", "\x08"):
                    typed = typed[:-1]
                elif char == "\x04" and not typed:
                    out.write("\n")
                    return "!q"
                elif char.isprintable():
                    typed += char


class _cbreak:
    """The terminal in cbreak mode for the duration of a ``with`` block."""

    def __enter__(self) -> int:
        import termios
        import tty

        self.fd = sys.stdin.fileno()
        self.saved = termios.tcgetattr(self.fd)
        tty.setcbreak(self.fd)
        return self.fd

    def __exit__(self, *exc) -> None:
        import termios

        termios.tcsetattr(self.fd, termios.TCSADRAIN, self.saved)


def _read_char(fd: int, decoder) -> str:
    """One whole character from the terminal (several bytes for 中文), '' at end of input."""
    while True:
        byte = os.read(fd, 1)
        if not byte:
            return ""
        char = decoder.decode(byte)
        if char:
            return char


def for_stdin(console) -> Prompter:
    return TerminalPrompter(console) if sys.stdin.isatty() else LinePrompter(sys.stdin, sys.stdout)
