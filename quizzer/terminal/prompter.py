"""How a session reads the learner: single keys and a line editor on a terminal, one line per
prompt otherwise.

The line protocol makes every session scriptable (``printf '\\n3\\n' | quiz study``): each
prompt consumes exactly one line, and the end of input means quit. A prompt with a deadline
(the exam clock) gives up when time runs out, even in the middle of a line, and hands over
what was typed so far.
"""

from __future__ import annotations

import codecs
import io
import os
import re
import select
import signal
import sys
import time
import unicodedata
from collections.abc import Callable, Container
from typing import Any, Protocol, TextIO

from quizzer.base.i18n import _
from quizzer.terminal.keys import Cbreak, Resizes, read_char

END = "!q"  # what a typed-answer prompt returns at the end of input (Ctrl-D on a terminal)
TAKEN = "!taken"  # what a key prompt returns when ``taken`` says its screen's card went elsewhere
_COMMAND = re.compile(r"![A-Za-z]+")
Status = Callable[[], str]  # a status line drawn below a typed-answer prompt, redrawn while it waits


class TimeUp(Exception):
    """The clock ran out while waiting for an answer; ``typed`` is the text typed so far."""

    def __init__(self, typed: str = "") -> None:
        super().__init__(typed)
        self.typed = typed


class Taken(Exception):
    """The card on screen went elsewhere (``taken``) while its typed answer was awaited: the prompt
    ended, ``typed`` (the text typed so far, left on screen) answers nothing."""

    def __init__(self, typed: str = "") -> None:
        super().__init__(typed)
        self.typed = typed


class _Redraw(Exception):
    """The screen is to be drawn anew while a typed-answer prompt waited; ``typed`` is the text typed so far."""

    def __init__(self, typed: str = "") -> None:
        super().__init__(typed)
        self.typed = typed


class _Resized(_Redraw):
    """The terminal changed size."""


class _Continued(_Redraw):
    """The program was stopped (Ctrl-Z) and continued (``fg``): the shell wrote over the screen meanwhile."""


class Prompter(Protocol):
    interactive: bool  # a person at a terminal (the editor can run), not a pipe
    redraw: Callable[[], None] | None  # draws the screen anew at the terminal's new size (its owner sets it)
    resumed: Callable[[], None] | None  # draws the screen again after Ctrl-Z and `fg` (its owner sets it)
    taken: Callable[[], bool] | None  # a prompt's screen is out of date (asked while it waits; its owner sets it)

    def key(self, prompt: str, allowed: Container[str] | None = None) -> str:
        """One keypress (terminal) or one line (pipe), lower-cased; '' for Enter/space; 'q' at end of
        input. On a terminal, keys not ``allowed`` are passed over (the prompt is not printed again
        for each); on a pipe the caller asks again, so a transcript shows the line refused."""

    def discard_typed_ahead(self) -> None:
        """Forget the keys typed before the screen about to be drawn (a script's lines are kept)."""

    def line(self, prompt: str, *, status: Status | None = None, seconds: float | None = None) -> str:
        """A typed answer; END at the end of input. ``status``: a line under the prompt on a
        terminal (not on a pipe). ``seconds``: the time allowed, else :class:`TimeUp`. On a
        terminal, :class:`Taken` when ``taken`` says the screen's card went elsewhere meanwhile."""


def command(text: str) -> str | None:
    """The command a typed answer is (``!b``, lower-cased), or None: at a typed-answer prompt
    only a ``!``-word is a command, so ``b`` (option B) or ``q`` is always an answer. Full-width
    ``！ｆ``, as a Chinese input method types it, is the same command."""
    text = unicodedata.normalize("NFKC", text.strip())
    return text.lower() if _COMMAND.fullmatch(text) else None


def _fileno(stream: TextIO) -> int | None:
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
    taken: Callable[[], bool] | None = None  # never asked: a script's lines answer the screens as drawn

    def __init__(self, stream: TextIO, echo: TextIO) -> None:
        self.stream = stream
        self.echo = echo
        self.redraw: Callable[[], None] | None = None  # never called: a pipe has no size to change
        self.resumed: Callable[[], None] | None = None  # nor a screen to draw again
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
            self.echo.write(_("{problem}; the line is ignored").format(problem=problem) + f"\n{prompt}\n")
            self.echo.flush()

    def _raw_line(self, until: float | None) -> bytes | None:
        """The next line's bytes (cut at MAX_LINE + 1), None at the end of input; TimeUp with
        the unfinished line's text when ``until`` passes first."""
        if self.fd is None:
            text = self.stream.readline()
            return text.rstrip("\r\n").encode("utf-8", "surrogateescape") if text else None
        while b"\n" not in self.pending:
            wait = None if until is None else max(0.0, until - time.monotonic())
            if not select.select([self.fd], [], [], wait)[0]:
                typed, self.pending = self.pending, b""
                raise TimeUp("" if _unusable(typed) else typed.decode("utf-8").rstrip("\r"))
            chunk = os.read(self.fd, 4096)
            if not chunk:
                break
            self.pending += chunk
            if len(self.pending) > MAX_LINE and b"\n" not in self.pending:
                self.pending = self.pending[: MAX_LINE + 1]  # too long already: drop the rest of the line
        if not self.pending:
            return None
        line, _newline, self.pending = self.pending.partition(b"\n")
        return line

    def discard_typed_ahead(self) -> None:
        pass  # a script types every line ahead, by design

    def key(self, prompt: str, allowed: Container[str] | None = None) -> str:
        text = self._readline(prompt, None)
        return "q" if text is None else unicodedata.normalize("NFKC", text).strip().lower()

    def line(self, prompt: str, *, status: Status | None = None, seconds: float | None = None) -> str:
        text = self._readline(prompt, seconds)
        return END if text is None else text


def _unusable(raw: bytes) -> str | None:
    """Why a line cannot be an answer, or None."""
    if len(raw) > MAX_LINE:
        return _("line longer than {limit} bytes").format(limit=MAX_LINE)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return _("line is not UTF-8 text")
    return _("line holds binary data (NUL)") if "\x00" in text else None


class TerminalPrompter:
    """Single keys in cbreak mode (Ctrl-C still interrupts); typed answers in prompt_toolkit's
    line editor: cursor keys, history of this session's answers, wide characters, bracketed
    paste, and a status line (the exam's countdown) redrawn in place below the prompt."""

    interactive = True
    taken: Callable[[], bool] | None = None

    def __init__(self, console: Any) -> None:  # a rich Console
        self.console = console
        self._session: Any = None  # the PromptSession, made at the first typed answer
        self.redraw: Callable[[], None] | None = None
        self.resumed: Callable[[], None] | None = None

    def discard_typed_ahead(self) -> None:
        """Keys pressed while the program started or drew the last screen answered and rated what
        the learner never saw (Space 4 Space 4 at start-up saved two cards Easy; a digit typed at
        a verdict re-rated the card). Keys typed once the screen is drawn, before its prompt, stay:
        the first typed answer's editor takes a moment to load."""
        import termios

        termios.tcflush(sys.stdin.fileno(), termios.TCIFLUSH)

    def key(self, prompt: str, allowed: Container[str] | None = None) -> str:
        # a resize or an `fg` seen from the prompt on
        with Cbreak() as terminal, Resizes(self.redraw is not None) as resizes:
            self.console.print(prompt, end=" ", style="dim", markup=False, highlight=False)
            while True:
                resized, continued = resizes.happened(), terminal.continued()
                if resized or continued:  # the card drawn again (at the new width), then the prompt under it
                    draw = self.resumed if continued else self.redraw
                    if draw is not None:
                        draw()
                    self.console.print(prompt, end=" ", style="dim", markup=False, highlight=False)
                if not select.select([terminal.fd], [], [], 0.1)[0]:  # a key is read only once it is there,
                    if self.taken is not None and self.taken():  # so a resize, an `fg` or a card gone is seen
                        key = TAKEN
                        break
                    continue
                char = read_char(terminal.fd, codecs.getincrementaldecoder("utf-8")(errors="replace"))  # GBK: no key
                if char == "\x1b":  # an arrow or function key: its sequence is one key, not several
                    while select.select([terminal.fd], [], [], 0.05)[0]:
                        os.read(terminal.fd, 64)
                char = unicodedata.normalize("NFKC", char)  # full-width ３ ｕ　as a Chinese input method types them
                key = "q" if char in ("", "\x04") else "" if char in " \r\n" else char.lower()
                if allowed is None or key in allowed or key == "q":
                    break
        self.console.print()
        return key

    def line(self, prompt: str, *, status: Status | None = None, seconds: float | None = None) -> str:
        from prompt_toolkit import PromptSession
        from prompt_toolkit.history import InMemoryHistory
        from prompt_toolkit.styles import Style

        from quizzer.terminal.render import clean

        if seconds is not None and seconds <= 0:
            raise TimeUp()
        if self._session is None:
            self._session = PromptSession(history=InMemoryHistory(), style=Style.from_dict({"prompt": "dim"}),
                                          enable_suspend=True)  # Ctrl-Z stops, as at a key prompt (it typed ^Z)
        session = self._session

        ends = None if seconds is None else time.monotonic() + seconds

        def watch() -> None:
            """Ends the prompt when the time is up, keeping what was typed; and, where the screen
            can be drawn anew, when the terminal changes size (the card above was drawn for the
            old width: the terminal's own reflow breaks its box into pieces) or the program is
            continued after Ctrl-Z (the shell's lines stood where the card was; the editor drew
            only its own line again); and when ``taken`` says the card went elsewhere (asked every
            0.1 s, as the key prompt asks it), leaving what was typed on screen."""
            import asyncio

            async def ring() -> None:
                await asyncio.sleep(max(0.0, (ends or 0.0) - time.monotonic()))
                session.app.exit(exception=TimeUp(clean(session.app.current_buffer.text)))

            def leave(why: type[_Redraw]) -> None:
                app = session.app
                if app.future is not None and not app.future.done():  # a drag sends many resizes
                    app.erase_when_done = True  # the prompt is drawn again under the screen, not left above it
                    app.exit(exception=why(app.current_buffer.text))

            async def looks(taken: Callable[[], bool]) -> None:
                while not taken():
                    await asyncio.sleep(0.1)
                app = session.app
                if app.future is not None and not app.future.done():  # not when Enter came first
                    app.exit(exception=Taken(clean(app.current_buffer.text)))

            async def redraws() -> None:  # runs once the prompt has taken SIGWINCH for itself
                loop = asyncio.get_running_loop()
                if self.redraw is not None and hasattr(signal, "SIGWINCH"):
                    loop.add_signal_handler(signal.SIGWINCH, leave, _Resized)
                if self.resumed is not None and hasattr(signal, "SIGCONT"):
                    loop.add_signal_handler(signal.SIGCONT, leave, _Continued)

            session.app.erase_when_done = False  # an answer given stays on screen above its verdict
            if ends is not None:
                session.app.create_background_task(ring())
            if self.redraw is not None or self.resumed is not None:
                session.app.create_background_task(redraws())
            if self.taken is not None:
                session.app.create_background_task(looks(self.taken))

        # set, not passed: a None argument would keep the last prompt's
        session.bottom_toolbar = None if status is None else lambda: fold_status(status(), session.app.output.get_size().columns)
        typed = ""
        while True:
            try:
                shown = prompt_lines(prompt, session.app.output.get_size().columns)
                text = session.prompt([("class:prompt", shown + " ")], default=typed,
                                      refresh_interval=0.5 if status else 0, pre_run=watch)
            except EOFError:
                return END
            except _Redraw as cut:
                typed = cut.typed
                draw = self.resumed if isinstance(cut, _Continued) else self.redraw
                assert draw is not None
                draw()
                continue
            return clean(text)  # a paste can hold escapes


def prompt_lines(prompt: str, width: int) -> str:
    """``prompt`` broken into lines of ``width`` cells as the screen's text is (words whole, Chinese
    by its rules), a cell left on the last for the cursor: the line editor breaks at the edge,
    inside a word, and starts the next line with the space it broke at."""
    from quizzer.terminal.linebreak import wrap

    return wrap(prompt, max(1, width - 1))


def fold_status(status: str, width: int) -> str:
    """A status line on as many lines as ``width`` needs, broken after a `` · `` so that the
    terminal never cuts one at its edge."""
    from rich.cells import cell_len

    lines = [""]
    for part in status.split(" · "):
        joined = f"{lines[-1]} · {part}" if lines[-1] else part
        lines[-1:] = [lines[-1], part] if lines[-1] and cell_len(joined) > width else [joined]
    return "\n".join(lines)


def for_stdin(console: Any) -> Prompter:
    """Keys on a terminal, lines on a pipe; a closed standard input (``<&-``) reads as one that
    ended at once, so the session quits with its summary."""
    if sys.stdin is None:
        return LinePrompter(io.StringIO(), sys.stdout)
    return TerminalPrompter(console) if sys.stdin.isatty() else LinePrompter(sys.stdin, sys.stdout)
