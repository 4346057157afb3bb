"""The one error boundary: every error a command raises ends here as one line on stderr and an
exit code (the README's table); standard output that cannot be written, too."""

from __future__ import annotations

import errno
import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import typer
from typer.exceptions import TyperException

from quizzer.errors import ExitCode, QuizError, UsageError, os_reason, printable
from quizzer.i18n import _, ngettext

if TYPE_CHECKING:
    from rich.console import Console

    from quizzer.cli.typer_compat import ClickContext



def _command_path(ctx: ClickContext) -> str:
    """``quiz config set``: the command a group's context ran, as typed (``python -m quizzer`` too)."""
    names = [ctx.invoked_subcommand or ""]
    while ctx.parent is not None:  # a group under the top one (config, history, ...)
        names.insert(0, ctx.info_name or "")
        ctx = ctx.parent
    return " ".join(["quiz", *names])


def guarded(ctx: ClickContext, invoke: Callable[[ClickContext], Any]) -> Any:
    """``invoke(ctx)`` (a group's) through the boundary: a QuizError becomes ``Error: ...`` on
    stderr and its exit code; Ctrl-C exits 130. ``QUIZ_DEBUG=1`` lets the traceback through for
    bug reports."""
    try:
        return invoke(ctx)
    except QuizError as err:
        if os.environ.get("QUIZ_DEBUG"):
            raise
        if isinstance(err.__context__, BrokenPipeError):  # "cannot be written" to a pipe whose reader went
            _discard_output()  # away (`--out /dev/stdout | head`): the closed pipe's exit, as below
            raise typer.Exit(int(ExitCode.PIPE_CLOSED)) from None
        if isinstance(err, UsageError) and not err.hint and ctx.invoked_subcommand:  # as click's own say
            err.hint = _("`{command} -h` for help").format(command=_command_path(ctx))
        report(err)
        raise typer.Exit(int(err.exit_code)) from None
    except KeyboardInterrupt:
        if os.environ.get("QUIZ_DEBUG"):
            raise
        stopped = _("Interrupted: every answer so far is saved, nothing half-written.")
        typer.echo("\n" + wrapped(stopped, sys.stderr), err=True)
        raise typer.Exit(int(ExitCode.INTERRUPTED)) from None
    except BrokenPipeError:  # the reader went away (`quiz cards | head`): what it took was written
        _discard_output()
        raise typer.Exit(int(ExitCode.PIPE_CLOSED)) from None
    except (typer.Exit, typer.Abort, TyperException):  # click's own ways out: usage errors, --help, exit codes
        raise
    except OSError as err:  # standard output that cannot be written, or as below
        if os.environ.get("QUIZ_DEBUG"):
            raise
        code = output_failed(err)
        raise (_unexpected(err) if code is None else typer.Exit(code)) from None
    except Exception as err:  # a bug, or a database another tool left in a state quizzer cannot read
        if os.environ.get("QUIZ_DEBUG"):
            raise
        raise _unexpected(err) from None


def _unexpected(err: Exception) -> typer.Exit:
    """The one line of an error nobody foresaw (the exit to raise after it)."""
    error_line(_("Error: unexpected {kind}: {message}").format(kind=type(err).__name__, message=err),
               _("`quiz check` finds a damaged database; if it finds nothing, this is a bug: run the "
                 "command again with QUIZ_DEBUG=1 for the traceback to report"))
    return typer.Exit(int(ExitCode.ERROR))


_WRITE_ERRNOS = {errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO}  # a write that found no room


def output_failed(err: OSError) -> int | None:
    """The exit code when ``err`` came from standard output: a full disk (``>/dev/full``) is said
    in one line (exit 1), a reader gone away is 141, and the rest of the output is dropped, as it
    would fail again at exit. Standard output is the culprit when it cannot flush either, or when
    a write found no room and names no file (a large write goes past the buffer, which then
    flushes; quizzer's own files are named in their errors). None otherwise."""
    if sys.stdout is None:
        return None
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        _discard_output()
        return int(ExitCode.PIPE_CLOSED)
    except OSError as again:
        err = again
    else:
        if err.filename is not None or err.errno not in _WRITE_ERRNOS:
            return None
    _discard_output()
    error_line(_("Error: cannot write standard output: {reason}").format(reason=os_reason(err)), "")
    return int(ExitCode.ERROR)


def _discard_output() -> None:
    """Standard output into /dev/null from here on: what is still buffered for a closed pipe
    would fail again at exit (Python's advice for SIGPIPE)."""
    if sys.stdout is not None:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def report(err: QuizError) -> None:
    """A QuizError as the user sees it on stderr: its details, then its one line."""
    for line in err.details:
        typer.echo(printable(line), err=True)
    error_line(_("Error: {message}").format(message=err.message), err.shown_hint if err.hint else "")


def error_line(text: str, hint: str) -> None:
    """An error's one line on stderr, its hint in brackets, nothing a terminal would obey; on a
    terminal wrapped as the screen is (the terminal's own wrap cut words and commands apart)."""
    line = printable(text + (_(" ({hint})").format(hint=hint) if hint else ""))
    typer.echo(wrapped(line, sys.stderr), err=True)


def say(text: str) -> None:
    """A message on standard output: on a terminal wrapped as the screen is (Chinese line
    breaking, a number kept with its word, a command in backticks whole); elsewhere one line,
    as a script reads it."""
    typer.echo(wrapped(text, sys.stdout))


def wrapped(text: str, stream: Any) -> str:
    if stream is None or not stream.isatty():
        return text
    from quizzer.terminal.linebreak import wrap

    return "\n".join(wrap(line, console().width) for line in text.split("\n"))


def console() -> Console:
    from quizzer.terminal.render import console

    return console()


def counted_cards(count: int) -> str:
    """``1 card``, ``1,205 cards``: the one wording of a count of cards in every message."""
    return ngettext("{count} card", "{count} cards", count).format(count=f"{count:,}")


def counted_reviews(count: int) -> str:
    return ngettext("{count} review", "{count} reviews", count).format(count=f"{count:,}")
