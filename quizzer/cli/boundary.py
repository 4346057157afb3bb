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

from quizzer.cli.typer_compat import (ClickAbort, ClickBadOptionUsage, ClickBadParameter, ClickContext,
                                      ClickException, ClickMissingParameter, ClickNoArgsIsHelp, ClickNoSuchOption,
                                      ClickUsageError, ExtraArguments, UnknownCommand, choices_of)
from quizzer.base.errors import ExitCode, QuizError, UsageError, os_reason, printable
from quizzer.base.i18n import N_, _, join, ngettext

if TYPE_CHECKING:
    from rich.console import Console


def _command_path(ctx: ClickContext | None, *under: str) -> str:
    """``quiz config set``: the command ``ctx`` is (the commands ``under`` it after), as typed;
    the program is ``quiz`` however it was run (``python -m quizzer`` too)."""
    names = list(under)
    while ctx is not None and ctx.parent is not None:  # a group under the top one (config, history, ...)
        names.insert(0, ctx.info_name or "")
        ctx = ctx.parent
    return " ".join(["quiz", *names])


def click_error(err: ClickException | ClickAbort) -> int:
    """click's error ``err`` said as every other error (one line on stderr, a usage error with the
    help to read): click's own ``show`` writes the usage block and English; the exit code click
    gives it (2 for usage, 1 for Ctrl-D at a prompt, which click calls Abort)."""
    if isinstance(err, ClickAbort):
        typer.echo(_("Aborted!"), err=True)
        return 1
    if isinstance(err, ClickNoArgsIsHelp):  # a group run bare: its help, on stderr, as click
        typer.echo(err.format_message(), err=True)
    elif isinstance(err, ClickUsageError):
        error_line(_("Error: {message}").format(message=usage_message(err)),
                   _("`{command} -h` for help").format(command=_command_path(err.ctx)))
    else:
        error_line(_("Error: {message}").format(message=err.format_message()), "")
    return err.exit_code


def usage_message(err: ClickUsageError) -> str:
    """A usage error's words in the interface language, built from the fields of its type (click's
    own text is English, made from the same fields)."""
    if isinstance(err, ExtraArguments):
        return _("Got unexpected extra argument(s) ({arguments})").format(arguments=" ".join(err.arguments))
    if isinstance(err, UnknownCommand):
        if not err.suggestions:
            return _("No such command {name!r}.").format(name=err.name)
        return _("No such command {name!r}. Did you mean {suggestions}?").format(
            name=err.name, suggestions=join(repr(name) for name in err.suggestions))
    if isinstance(err, ClickNoSuchOption):
        unknown = _("No such option: {name}").format(name=err.option_name)
        if not err.possibilities:
            return unknown
        return _("{message} (Possible options: {options})").format(message=unknown, options=join(sorted(err.possibilities)))
    if isinstance(err, ClickMissingParameter):
        return _missing(err)
    if isinstance(err, ClickBadParameter):
        return _invalid(err)
    if isinstance(err, ClickBadOptionUsage):
        return _misused(err)
    return _(err.message) if err.message else err.message  # typer's own ids (``Missing command.``), or as raised


def _param_hint(err: ClickBadParameter) -> str:
    """The parameter an error is about as click names it: ``'--count'``, ``'ID'``."""
    if isinstance(err.param_hint, str):
        return err.param_hint
    if err.param_hint is not None:
        return " / ".join(repr(hint) for hint in err.param_hint)
    return err.param.get_error_hint() if err.param is not None else ""


_MISSING = {"argument": (N_("Missing argument {name}."), N_("Missing argument {name}. Choose from:")),
            "option": (N_("Missing option {name}."), N_("Missing option {name}. Choose from:"))}


def _missing(err: ClickMissingParameter) -> str:
    kind = err.param_type or (err.param.param_type_name if err.param is not None else "parameter")
    plain, with_choices = _MISSING.get(kind, (N_("Missing parameter {name}."), ""))
    choices = choices_of(err.param)
    if choices and with_choices:
        return _(with_choices).format(name=_param_hint(err)) + " " + join(choices)
    return _(plain).format(name=_param_hint(err))


def _invalid(err: ClickBadParameter) -> str:
    """``Invalid value for '--count': ...``: typer coerces a value through pydantic, whose error
    (the exception's cause) is worded by its type; a value not among a choice's is named with them."""
    from quizzer.app.kind_names import pydantic_message

    reason = _(err.message) if err.message else err.message
    errors = getattr(err.__cause__, "errors", None)  # pydantic's ValidationError
    first = errors()[0] if callable(errors) and errors() else None
    if first is not None:
        choices = choices_of(err.param)
        reason = (_("{value} is not one of {choices}.").format(value=repr(first["input"]),
                                                               choices=join(repr(choice) for choice in choices))
                  if choices is not None and first["type"] == "value_error" else pydantic_message(first))
    hint = _param_hint(err)
    if not hint:
        return _("Invalid value: {message}").format(message=reason)
    return _("Invalid value for {name}: {message}").format(name=hint, message=reason)


def _misused(err: ClickBadOptionUsage) -> str:
    """An option given without its value, or a flag given one: which, the option's declaration says."""
    params = err.ctx.command.params if err.ctx is not None else []
    declared = next((p for p in params if err.option_name in (*p.opts, *p.secondary_opts)), None)
    if declared is None:
        return _(err.message)
    name = repr(err.option_name)
    if getattr(declared, "is_flag", False):
        return _("Option {name} does not take a value.").format(name=name)
    if declared.nargs == 1:
        return _("Option {name} requires an argument.").format(name=name)
    return _("Option {name} requires {count} arguments.").format(name=name, count=declared.nargs)


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
            err.hint = _("`{command} -h` for help").format(command=_command_path(ctx, ctx.invoked_subcommand))
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
