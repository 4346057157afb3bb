"""The ``quiz`` process around the command line: its standard output, the garbage collector,
and a quick exit. Measured choices, each with its reason below."""

from __future__ import annotations

import atexit
import contextlib
import gc
import io
import os
import sys
from collections.abc import Callable
from typing import Any, NoReturn

_SAVED_MODE: list[Any] | None = None  # the terminal's mode when quiz started, echo on


def hide_typed_ahead() -> None:
    """Keys typed while quiz starts are not echoed: a session drops them (its first prompt flushes
    them, so that they answer nothing unseen), and their echo stood above the question, looking like
    an answer. Echo goes off on a terminal as the program starts (the program only: ``quiz`` or
    ``python -m quizzer``, not a test importing the CLI), and comes back at exit or for a line
    typed with the terminal's own echo (``echo_typing``); single keys and the line editor set
    their own modes and put this one back."""
    global _SAVED_MODE
    program = sys.argv[0] if sys.argv else ""
    started = os.path.basename(program) == "quiz" or program.endswith(os.path.join("quizzer", "__main__.py"))
    if not started or sys.stdin is None or not sys.stdin.isatty():
        return
    import termios

    fd = sys.stdin.fileno()
    with contextlib.suppress(termios.error):
        _SAVED_MODE = termios.tcgetattr(fd)
        quiet = list(_SAVED_MODE)
        quiet[3] &= ~termios.ECHO  # the local modes
        termios.tcsetattr(fd, termios.TCSANOW, quiet)  # not TCSAFLUSH: a key typed ahead is the session's to drop
        atexit.register(echo_typing, False)


def echo_typing(flush: bool = True) -> None:
    """The terminal's mode as quiz found it (echo on), the keys typed ahead dropped first when
    ``flush``: before a line the terminal echoes (a yes/no question), and at exit."""
    if _SAVED_MODE is None:
        return
    import termios

    with contextlib.suppress(termios.error, ValueError, OSError):
        fd = sys.stdin.fileno()
        if flush:
            termios.tcflush(fd, termios.TCIFLUSH)
        termios.tcsetattr(fd, termios.TCSADRAIN, _SAVED_MODE)


def collect_rarely() -> None:
    """A command is a short process that builds tens of thousands of objects (modules, a large
    deck's index, store records) and frees them at exit: the collector's default of a pass every
    700 new objects spends 40-60 ms per command walking them, to find cycles that do not matter
    here. Called before the CLI's imports, which make most of those objects."""
    gc.set_threshold(50_000)


def buffer_output() -> None:
    """Standard output through a buffered layer even under PYTHONUNBUFFERED (common in containers).
    Unbuffered, each write is one system call whose shortfall CPython drops: when the reader went
    away mid-write, the rest of the output vanished and the command still ended 0. A buffered
    writer writes the rest, and so meets the closed pipe (exit 141). Line-buffered, as on a terminal.
    An ASCII or Latin-1 output (not LC_ALL=C: UTF-8) writes Chinese as escapes, as stderr does."""
    stream = sys.stdout
    if isinstance(stream, io.TextIOWrapper) and isinstance(stream.buffer, io.RawIOBase):
        sys.stdout = io.TextIOWrapper(io.BufferedWriter(stream.buffer), encoding=stream.encoding,  # sys.__stdout__
                                      errors=stream.errors, line_buffering=True)  # keeps the old one, and its file
    if isinstance(sys.stdout, io.TextIOWrapper):
        sys.stdout.reconfigure(errors="backslashreplace")


def exit_quickly(main: Callable[[], None]) -> NoReturn:
    """Run ``main``, then a quick exit. Tearing the interpreter down frees every module and object
    one by one, 50-70 ms after a command on 50,000 cards, for a process that ends anyway; the exit
    handlers still run and the streams are flushed first. Where a stream cannot be flushed, the
    interpreter's own exit reports it as before, but a reader that went away is the exit code a
    shell gives SIGPIPE, as when it goes away mid-command."""
    from quizzer.cli.boundary import output_failed
    from quizzer.cli.typer_compat import pacified
    from quizzer.base.errors import ExitCode

    try:
        main()
        code: Any = 0
    except SystemExit as done:
        code = done.code
        if code == 1 and pacified(sys.stdout):  # click's own output (--help) met a closed pipe: it exits 1
            code = int(ExitCode.PIPE_CLOSED)
    except OSError as err:  # click's own output (--help, --version) to a full disk or a closed pipe
        failed = output_failed(err)
        if failed is None:
            raise
        code = failed
    if not isinstance(code, int):  # None, or a message for stderr: the interpreter's own handling
        raise SystemExit(code)
    try:
        if sys.stdout is not None:  # None: closed when the program started
            sys.stdout.flush()
    except OSError as err:  # the last of the output: a reader gone away, as mid-command, or a full disk
        code = output_failed(err) or code
    with contextlib.suppress(OSError, ValueError):
        if sys.stderr is not None:
            sys.stderr.flush()
    atexit._run_exitfuncs()
    os._exit(code)
