"""The ``quiz`` command line: one module per command (or group) in this package, each a few
lines over the application layer (``quizzer.app``) and the terminal front end
(``quizzer.terminal``). Every module here is imported to register its commands; they import
nothing heavy at module level, so ``quiz --help`` stays instant."""

from __future__ import annotations

import atexit
import contextlib
import gc
import importlib
import io
import os
import pkgutil
import sys
from typing import Any, NoReturn

# A command is a short process that builds tens of thousands of objects (modules, a large deck's
# index, store records) and frees them at exit: the collector's default of a pass every 700 new
# objects spends 40-60 ms per command walking them, to find cycles that do not matter here.
gc.set_threshold(50_000)

from quizzer.cli.base import app, output_failed, report  # after the threshold: the imports make most of those objects
from quizzer.errors import ExitCode, UsageError
from quizzer.i18n import _

for _module in pkgutil.iter_modules(__path__):
    importlib.import_module(f"{__name__}.{_module.name}")


_VALUED = ("--decks", "--db")  # the root options that take a value
_EVERY_COMMAND = ("-h", "--help", "--install-completion", "--show-completion")  # these list or complete them all


def invoked(args: list[str]) -> str | None:
    """The command ``args`` run ("" for the overview), or None where every command must be
    there: help, shell completion, or a name that is no command (click suggests the nearest)."""
    if "_QUIZ_COMPLETE" in os.environ:
        return None
    rest = iter(args)
    for arg in rest:
        if arg in _VALUED:
            next(rest, None)
        elif arg in _EVERY_COMMAND:
            return None
        elif arg == "--":
            return _known(next(rest, ""))
        elif not arg.startswith("-"):
            return _known(arg)
    return ""


def _names() -> dict[str, Any]:
    """Each command and group by the name it is called by."""
    from typer.main import get_command_name

    commands = {c.name or get_command_name(c.callback.__name__): c for c in app.registered_commands if c.callback}
    return {**commands, **{g.name: g for g in app.registered_groups if g.name}}


def _known(name: str) -> str | None:
    return name if name in _names() else None


def _buffer_output() -> None:
    """Standard output through a buffered layer even under PYTHONUNBUFFERED (common in containers).
    Unbuffered, each write is one system call whose shortfall CPython drops: when the reader went
    away mid-write, the rest of the output vanished and the command still ended 0. A buffered
    writer writes the rest, and so meets the closed pipe (exit 141). Line-buffered, as on a terminal."""
    stream = sys.stdout
    if isinstance(stream, io.TextIOWrapper) and isinstance(stream.buffer, io.RawIOBase):
        sys.stdout = io.TextIOWrapper(io.BufferedWriter(stream.buffer), encoding=stream.encoding,  # sys.__stdout__
                                      errors=stream.errors, line_buffering=True)  # keeps the old one, and its file


def main() -> None:
    """Run ``quiz``. typer turns every command's signature into click's form on each run (30-50 ms
    for all of them); a run that calls one command is given only that one."""
    if sys.stdout is None:  # `>&-`: every command writes there, and would fail half-way through
        closed = UsageError(_("standard output is closed: there is nowhere to write"))
        report(closed)
        raise SystemExit(int(closed.exit_code))
    _buffer_output()
    if isinstance(sys.stdout, io.TextIOWrapper):  # an ASCII or Latin-1 output (not LC_ALL=C: UTF-8) cannot write
        sys.stdout.reconfigure(errors="backslashreplace")  # Chinese: escapes, as stderr has, not a crash
    only = invoked(sys.argv[1:])
    commands, groups = app.registered_commands, app.registered_groups
    if only is not None:
        chosen = _names().get(only)  # None for the overview: no command at all
        app.registered_commands = [c for c in commands if c is chosen]
        app.registered_groups = [g for g in groups if g is chosen]
    try:
        app()
    finally:
        app.registered_commands, app.registered_groups = commands, groups


def run() -> NoReturn:
    """The ``quiz`` program: ``main``, then a quick exit. Tearing the interpreter down frees every
    module and object one by one, 50-70 ms after a command on 50,000 cards, for a process that ends
    anyway; the exit handlers still run and the streams are flushed first. Where a stream cannot be
    flushed, the interpreter's own exit reports it as before, but a reader that went away is the
    exit code a shell gives SIGPIPE, as when it goes away mid-command."""
    try:
        main()
        code: Any = 0
    except SystemExit as done:
        code = done.code
        if code == 1 and _pacified(sys.stdout):  # click's own output (--help) met a closed pipe: it exits 1
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


def _pacified(stream: Any) -> bool:
    """Whether click wrapped ``stream`` after a closed pipe (its way to end quietly, with exit 1)."""
    from typer._click.utils import PacifyFlushWrapper

    return isinstance(stream, PacifyFlushWrapper)


__all__ = ["app", "main", "run"]
