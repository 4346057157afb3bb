"""A terminal read a key at a time: cbreak mode (kept across Ctrl-Z), the terminal's resizes,
and one whole character from its bytes; what ``prompter.TerminalPrompter.key`` waits with."""

from __future__ import annotations

import codecs
import os
import signal
import sys


class Resizes:
    """Within the block, whether the terminal changed size since last asked (if ``wanted``): the
    signal only marks it, so it never interrupts a read or a drawing half-way."""

    def __init__(self, wanted: bool) -> None:
        self.watched = wanted and hasattr(signal, "SIGWINCH")
        self._seen = False

    def __enter__(self) -> Resizes:
        if self.watched:
            self.saved = signal.signal(signal.SIGWINCH, self._mark)
        return self

    def _mark(self, *_: object) -> None:
        self._seen = True

    def happened(self) -> bool:
        seen, self._seen = self._seen, False
        return seen

    def __exit__(self, *exc: object) -> None:
        if self.watched:
            signal.signal(signal.SIGWINCH, self.saved)


class Cbreak:
    """The terminal in cbreak mode for the duration of a ``with`` block; across Ctrl-Z too: the
    shell gets its own mode back while the program is stopped, and ``fg`` brings cbreak back (it
    came back in line mode: keys echoed, and a Space and an Enter typed to get going revealed an
    answer never drawn and rated it Good). :meth:`continued` says when ``fg`` came, for the screen
    the shell wrote over to be drawn again."""

    def __enter__(self) -> Cbreak:
        import termios

        self.fd = sys.stdin.fileno()
        self.saved = termios.tcgetattr(self.fd)
        self._continued = False
        self._on()
        self.before = {number: signal.signal(number, handler) for number, handler in
                       ((getattr(signal, "SIGTSTP", None), self._stop), (getattr(signal, "SIGCONT", None), self._resume))
                       if number is not None}
        return self

    def _on(self) -> None:
        import termios
        import tty

        tty.setcbreak(self.fd, termios.TCSANOW)  # not the default TCSAFLUSH: a key typed ahead is kept

    def _resume(self, *_: object) -> None:
        """Single keys again, and the screen marked to be drawn again (as a resize marks it: the
        signal never cuts a drawing half-way)."""
        self._on()
        self._continued = True

    def continued(self) -> bool:
        """Whether the program was continued since last asked."""
        continued, self._continued = self._continued, False
        return continued

    def _stop(self, *_: object) -> None:
        import termios

        termios.tcsetattr(self.fd, termios.TCSADRAIN, self.saved)
        signal.signal(signal.SIGTSTP, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGTSTP)  # stopped here until `fg` (SIGCONT sets cbreak again)
        signal.signal(signal.SIGTSTP, self._stop)

    def __exit__(self, *exc: object) -> None:
        import termios

        for number, handler in self.before.items():
            signal.signal(number, handler)
        termios.tcsetattr(self.fd, termios.TCSADRAIN, self.saved)


def read_char(fd: int, decoder: codecs.IncrementalDecoder) -> str:
    """One whole character from the terminal (several bytes for 中文), '' at end of input."""
    while byte := os.read(fd, 1):
        if char := decoder.decode(byte):
            return char
    return ""
