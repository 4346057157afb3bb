"""The root command, its one error boundary and the options commands share.

Heavy modules (pydantic, SQLAlchemy, torch) are imported inside the commands that need them,
so ``quiz --help`` and shell completion start instantly.
"""

from __future__ import annotations

import enum
import errno
import functools
import os
import re
import sys
import typing
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, BinaryIO, Optional

import typer
from typer.core import TyperGroup
from typer.exceptions import TyperException

from quizzer import clock
from quizzer.errors import ExitCode, QuizError, UsageError, os_reason, printable
from quizzer import i18n
from quizzer.i18n import N_, _, ngettext
from quizzer.defaults import SEED_MAX
from quizzer.kinds import KINDS

if TYPE_CHECKING:
    from rich.console import Console
    from typer._click.core import Context as ClickContext  # typer carries its own click

    from quizzer.app.collection import Collection
    from quizzer.decks import LoadedDeck, Problem
    from quizzer.settings import Settings
    from quizzer.store import Store


def _command_path(ctx: ClickContext) -> str:
    """``quiz config set``: the command a group's context ran, as typed (``python -m quizzer`` too)."""
    names = [ctx.invoked_subcommand or ""]
    while ctx.parent is not None:  # a group under the top one (config, history, ...)
        names.insert(0, ctx.info_name or "")
        ctx = ctx.parent
    return " ".join(["quiz", *names])


class QuizGroup(TyperGroup):
    """The one error boundary: a QuizError becomes ``Error: ...`` on stderr and its exit code;
    Ctrl-C exits 130. ``QUIZ_DEBUG=1`` lets the traceback through for bug reports."""

    DAILY = ("study", "exam", "mistakes", "stats", "cards", "show", "plan", "config")  # --help lists these first

    def list_commands(self, ctx: ClickContext) -> list[str]:
        order = {name: i for i, name in enumerate(self.DAILY)}
        return sorted(super().list_commands(ctx), key=lambda name: order.get(name, len(order)))  # the rest as made

    def invoke(self, ctx: ClickContext) -> Any:
        try:
            return super().invoke(ctx)
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
            typer.echo("\n" + stopped, err=True)
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
    _error_line(_("Error: unexpected {kind}: {message}").format(kind=type(err).__name__, message=err),
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
    _error_line(_("Error: cannot write standard output: {reason}").format(reason=os_reason(err)), "")
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
    _error_line(_("Error: {message}").format(message=err.message), err.shown_hint if err.hint else "")


def _error_line(text: str, hint: str) -> None:
    """An error's one line on stderr, its hint in brackets, nothing a terminal would obey; on a
    terminal wrapped as the screen is (the terminal's own wrap cut words and commands apart)."""
    line = printable(text + (_(" ({hint})").format(hint=hint) if hint else ""))
    typer.echo(_wrapped(line, sys.stderr), err=True)


_DAY = re.compile(r"(\d{4})\s*[-/.年]\s*(\d{1,2})\s*[-/.月]\s*(\d{1,2})\s*日?")


def calendar_day(text: str) -> date:
    """A day as a learner writes it: 2026-12-20, 2026/12/20, 2026.12.20 or 2026年12月20日 (only
    the first was read); ValueError otherwise."""
    found = _DAY.fullmatch(text.strip())
    if found is None:
        raise ValueError(text)
    return date(*map(int, found.groups()))


def say(text: str) -> None:
    """A message on standard output: on a terminal wrapped as the screen is (Chinese line
    breaking, a number kept with its word, a command in backticks whole); elsewhere one line,
    as a script reads it."""
    typer.echo(_wrapped(text, sys.stdout))


def _wrapped(text: str, stream: Any) -> str:
    if stream is None or not stream.isatty():
        return text
    from quizzer.terminal.linebreak import wrap

    return "\n".join(wrap(line, console().width) for line in text.split("\n"))


TYPER_MESSAGES = (N_("Options"), N_("Commands"), N_("Arguments"), N_("default: {default}"), N_("required"),
                  N_("env var: {var}"), N_("(dynamic)"), N_("Aborted!"), N_("Show this message and exit."),
                  N_("Install completion for the current shell."),
                  N_("Show completion for the current shell, to copy it or customize the installation."),
                  N_("No such command {name!r}."), N_("Missing command."))
# typer's own ids, for the catalogue
CLICK_MESSAGES = (
    N_("Error: {message}"), N_("Try '{command}' for help."), N_("{message} (Possible options: {options})"),
    N_("Invalid value for {name}: {message}"), N_("Invalid value: {message}"), N_("Value error, {message}"),
    N_("Missing argument {name}. Choose from:"), N_("Missing option {name}. Choose from:"),
    N_("Missing argument {name}."), N_("Missing option {name}."), N_("Missing parameter {name}."),
    N_("No such option: {name}"), N_("Got unexpected extra argument(s) ({arguments})"),
    N_("Option {name} requires an argument."), N_("Option {name} requires {count} arguments."),
    N_("Option {name} does not take a value."), N_("Argument {name} takes {count} values."),
    N_("{value} is not one of {choices}."), N_("Value must be an iterable."), N_("Value {value} is not a valid {type}."),
    N_("{message}. Did you mean {suggestions}?"))
# typer's vendored click writes its usage errors as English literals, not through gettext: each
# line it prints is matched against these templates (its own wording, so English output is
# unchanged) and rebuilt from the catalogue; a ``{message}`` part is itself such a message.


def _localize_typer() -> None:
    """typer writes its help headings (Options, Commands, default:, required) through gettext's
    global domain, and the usage line's prefix and the headings' colon as literals; all are routed
    to our catalogue."""
    import typer.core
    from typer._click.formatting import HelpFormatter

    typer.core._ = _
    plain = HelpFormatter.write_usage

    def write_usage(self: HelpFormatter, prog: str, args: str = "", prefix: str | None = None) -> None:
        plain(self, prog, args, _("Usage: ") if prefix is None else prefix)

    HelpFormatter.write_usage = write_usage  # type: ignore[method-assign]
    plain_rows = HelpFormatter.write_dl

    def write_dl(self: HelpFormatter, rows: Sequence[tuple[str, str]], col_max: int = 30, col_spacing: int = 2) -> None:
        plain_rows(self, [(term, _notes_joined(_(text))) for term, text in rows], col_max, col_spacing)  # typer's own option help

    HelpFormatter.write_dl = write_dl  # type: ignore[method-assign]

    def write_heading(self: HelpFormatter, heading: str) -> None:  # the colon too: 选项：, not 选项:
        self.write(f"{'':>{self.current_indent}}" + _("{heading}:").format(heading=heading) + "\n")

    HelpFormatter.write_heading = write_heading  # type: ignore[method-assign]
    typer.core.describe_number_range = _number_range  # type: ignore[assignment]  # typer passes (min, max) by position
    _plain_arguments(typer.core.TyperArgument)
    _wrap_wide_help()
    _localize_click_errors()


def _plain_arguments(argument: Any) -> None:
    """Arguments named as click names them: typer (0.2x) writes a required one as ``{ID}`` in the
    usage line, wraps an optional one's metavar in brackets again (``[[CHECKER]]``) and puts its
    Python type after its name (``ID <str>``, ``FILE <Path>``). Older typers have neither hook."""
    if not hasattr(argument, "_usage_display_name") or not hasattr(argument, "display_type_rich"):
        return

    def usage_name(self: Any) -> str:
        name = str(self.display_name_raw)
        if self.nargs != 1 and not name.endswith("..."):
            name += "..."
        return name if self.required or name.startswith("[") else f"[{name}]"

    argument._usage_display_name = usage_name
    argument.display_type_rich = lambda self, ctx: None


def _number_range(least: float | None, most: float | None) -> str | None:
    """An option's range in its help, in words: typer writes ``x>=1`` and ``0<=x<=9999``."""
    if least is None and most is None:
        return None
    if most is None:
        return _("at least {least}").format(least=least)
    if least is None:
        return _("at most {most}").format(most=most)
    return _("{least} to {most}").format(least=least, most=most)


_NOTES = re.compile(r"(?<=  \[)(.+)(?=\]$)")  # what typer adds after an option's help: [default: 15; at least 1]


def _notes_joined(text: str) -> str:
    """The notes typer adds after an option's help, joined as the language writes them (typer
    joins them with an ASCII ``; ``)."""
    return _NOTES.sub(lambda notes: _("; ").join(notes.group(1).split("; ")), text)


@functools.cache
def _click_patterns() -> list[tuple[str, re.Pattern[str]]]:
    """Each message template as a pattern whose groups are its fields; pydantic's messages for
    a bad option value (``Input should be a valid integer``) come last."""
    from quizzer.kinds.messages import PYDANTIC_MESSAGES

    patterns = []
    for template in (*CLICK_MESSAGES, *PYDANTIC_MESSAGES.values()):
        parts = re.split(r"\{(\w+)\}", template)  # literal, field, literal, field, ..., literal
        regex = "".join(re.escape(part) if i % 2 == 0 else f"(?P<{part}>.+?)" for i, part in enumerate(parts))
        patterns.append((template, re.compile(regex, re.DOTALL)))
    return patterns


def click_message(text: str) -> str:
    """One line of click's English in the interface language (itself if no template fits)."""
    for template, pattern in _click_patterns():
        match = pattern.fullmatch(text)
        if match:
            fields = match.groupdict()
            if "message" in fields:
                fields["message"] = click_message(fields["message"])
            for listed in ("options", "choices", "suggestions"):  # click joins these with ", "
                if listed in fields:
                    fields[listed] = i18n.join(fields[listed].split(", "))
            return _(template).format(**fields)
    return text


def _localize_click_errors() -> None:
    """click's exceptions print through their module's ``echo``: the lines are translated there."""
    import typer._click.exceptions as exceptions

    plain_echo = exceptions.echo

    def echo(message: Any = None, *args: Any, **kwargs: Any) -> None:
        if isinstance(message, str) and i18n.current() != "en":
            message = "\n".join(click_message(line) for line in message.split("\n"))
        plain_echo(message, *args, **kwargs)

    exceptions.echo = echo

    def show(self: exceptions.UsageError, file: Any = None) -> None:  # one line, as every error: no usage block
        lines = [click_message(line.strip()).replace("Value error, ", "")  # pydantic's prefix to a validator's words
                 for line in self.format_message().splitlines() if line.strip()]
        names: list[str] = []
        ctx = self.ctx  # the subcommands' names under the program's, which is `quiz` however run
        while ctx is not None and ctx.parent is not None:
            names.insert(0, ctx.info_name or "")
            ctx = ctx.parent
        command = " ".join(["quiz", *names])
        _error_line(_("Error: {message}").format(message=" ".join(lines)),
                    _("`{command} -h` for help").format(command=command))

    exceptions.UsageError.show = show  # type: ignore[method-assign]
    import typer._click.core as click_core

    plain_parse = click_core.Command.parse_args

    def parse_args(self: click_core.Command, ctx: ClickContext, args: list[str]) -> list[str]:
        """The parser's own errors (an option without its value) carry no context, so their hint
        named `quiz -h`: they are given the command's, whose help they need."""
        try:
            return plain_parse(self, ctx, args)
        except exceptions.UsageError as err:
            if err.ctx is None:
                err.ctx, err.cmd = ctx, self
            raise

    click_core.Command.parse_args = parse_args  # type: ignore[method-assign]


def _wrap_wide_help() -> None:
    """click wraps help with ``textwrap`` and shortens it by characters: Chinese help would run
    past the terminal's edge (a Chinese character is two cells) and break before ``、``. Text
    with wide characters goes through ``quizzer.terminal.linebreak`` instead."""
    import typer._click.core as click_core
    import typer._click.formatting as formatting

    plain_wrap, plain_short = formatting.wrap_text, click_core.make_default_short_help

    def wrap_text(text: str, width: int = 78, initial_indent: str = "", subsequent_indent: str = "",
                  preserve_paragraphs: bool = False) -> str:
        if text.isascii():
            return plain_wrap(text, width, initial_indent, subsequent_indent, preserve_paragraphs)
        from quizzer.terminal.linebreak import wrap

        return wrap(text, width, initial_indent, subsequent_indent)

    def make_default_short_help(help: str, max_length: int = 45) -> str:
        if help.isascii():
            return plain_short(help, max_length)
        from quizzer.terminal.linebreak import shorten

        return shorten(help, max_length)

    formatting.wrap_text = wrap_text
    click_core.make_default_short_help = make_default_short_help


NOT_PLAIN = object()


def plain_value(annotation: Any, value: Any) -> Any:
    """What typer's pydantic coercion makes of a value given as text, for the types whose result
    is plain (a string, a whole number, a choice of an Enum, a list of them), without importing
    pydantic (a third of a first card's start-up). NOT_PLAIN for anything else, including a
    value that does not fit: typer then coerces it, or words the error, as always."""
    if typing.get_origin(annotation) is list and isinstance(value, (list, tuple)):
        (item,) = typing.get_args(annotation) or (Any,)
        items = [plain_value(item, v) for v in value]
        return NOT_PLAIN if any(i is NOT_PLAIN for i in items) else items
    if annotation in (str, int, float, bool) and type(value) is annotation:  # click made it already
        return value
    if not isinstance(value, str):
        return NOT_PLAIN
    if annotation is str:
        return value
    if annotation is int and re.fullmatch(r"[+-]?[0-9]{1,18}", value):
        return int(value)
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        try:
            return annotation(value)
        except ValueError:
            return NOT_PLAIN
    return NOT_PLAIN


def _coerce_given_values_only() -> None:
    """typer builds a pydantic TypeAdapter for every parameter of the command that runs, given
    or not: pydantic's import (about half a minimal typer app's start-up) for commands that need
    no pydantic (``quiz decks``), and a dozen adapters for ``quiz study``. A parameter left out
    (None) is coerced without one (``RuntimeParam.coerce``), so the adapter is built when a value
    arrives; what a value becomes, and every error message, stay typer's."""
    from typer._coercion import RuntimeParam, TypeDescriptor, build_runtime_param
    from typer.core import _TyperParameter

    @dataclass(frozen=True)
    class WhenGiven(RuntimeParam):
        descriptor: TypeDescriptor

        def _in_range(self, number: Any) -> bool:
            info = self.descriptor.parameter_info
            return (not getattr(info, "clamp", False) and (info.min is None or number >= info.min)
                    and (info.max is None or number <= info.max))

        def _coerce_value(self, value: Any, param: Any, ctx: Any) -> Any:
            plain = plain_value(self.descriptor.annotation, value)
            if plain is not NOT_PLAIN and (not self.descriptor.is_ranged or self._in_range(plain)):
                return plain
            # else typer's coercion (pydantic) gives the value or words the error
            return build_runtime_param(self.descriptor)._coerce_value(value, param=param, ctx=ctx)

    def get_runtime_param(self: _TyperParameter) -> RuntimeParam:
        if self._runtime_param is None:
            described = self.type_descriptor
            self._runtime_param = WhenGiven(described.parameter_info, described.annotation, described)
        return self._runtime_param

    _TyperParameter.get_runtime_param = get_runtime_param  # type: ignore[method-assign]


_localize_typer()
_coerce_given_values_only()
def group(help: str, **options: Any) -> typer.Typer:
    """A group of commands under ``quiz`` (``quiz config``): its own errors go through the boundary
    with the whole command named in their hint (``quiz config set -h``)."""
    return typer.Typer(**{"cls": QuizGroup, "help": help, "no_args_is_help": True,
                          "context_settings": {"help_option_names": ["-h", "--help"]}, **options})


app = typer.Typer(
    cls=QuizGroup,
    help=_("Flashcards, numeric drills and mock interviews for BERT / GPT / Transformer interviews."),
    invoke_without_command=True,
    add_completion=True,
    rich_markup_mode=None,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


@dataclass(frozen=True)
class Where:
    """The root options, which every command inherits unless it gives its own."""

    decks: Path | None = None
    db: Path | None = None


STANDARD = Path("-")  # the argument `-` itself: standard input or output (`./-` names a file called -)


def path_or_standard(text: str) -> Path:
    """A FILE argument where ``-`` means standard input or output: ``-`` is STANDARD, to compare
    with ``is``, since ``Path("./-") == Path("-")``; anything else is a path, but not an empty one
    (``Path("")`` is ``.``: a command named the working folder, not what was given)."""
    if not text:
        raise typer.BadParameter(_("the name is empty: name a file"))
    return STANDARD if text == "-" else Path(text)


def standard_input(file: Path, what: str, example: str) -> BinaryIO | None:
    """Standard input's bytes when ``file`` is STANDARD, else None (the file is read). A terminal
    there is a UsageError: a command would wait on it with no prompt. ``what`` and ``example``
    word the error: the kind of file, and a command that pipes one in."""
    if file is not STANDARD:
        return None
    if sys.stdin is None or sys.stdin.isatty():
        raise UsageError(_("- reads the {what} from standard input, which is the terminal here").format(what=what),
                         _("pipe it in ({example}) or name the file").format(example=example))
    return sys.stdin.buffer


DecksOption = Annotated[
    Optional[Path],
    typer.Option("--decks", metavar="DIR", show_default=False,
                 help=_("Deck folder to use instead of the bundled decks (or set QUIZ_DECKS).")),
]
DbOption = Annotated[
    Optional[Path],
    typer.Option("--db", metavar="FILE|URL", show_default=False,
                 help=_("Database file or postgresql:// URL (or set QUIZ_DB; default: a file in the user data "
                        "directory); on a server, QUIZ_USER picks the learner.")),
]
def _deck_ids(ctx: typer.Context, incomplete: str) -> list[str]:
    """The deck ids Tab completes --deck with: those of the command's --decks, QUIZ_DECKS or the
    bundled decks (from the deck cache, as any command reads them), those with problems left out
    as every command leaves them out; none if no deck can be used."""
    from quizzer.decks import load_usable
    from quizzer.locations import deck_dirs

    try:
        loaded, _left_out = load_usable(deck_dirs(ctx.params.get("decks_dir")))
    except QuizError:  # completion prints nothing into the shell's line
        return []
    return [deck.id for deck in loaded if deck.id.startswith(incomplete)]


DeckFilter = Annotated[Optional[list[str]], typer.Option("--deck", metavar="DECK", show_default=False,
                                                         autocompletion=_deck_ids,
                                                         help=_("Only this deck (repeatable)."))]
TagFilter = Annotated[Optional[list[str]], typer.Option("--tag", metavar="TAG", show_default=False,
                                                        help=_("Only cards with this tag (repeatable)."))]
Kind = enum.Enum("Kind", {kind: kind for kind in KINDS}, type=str)  # type: ignore[misc]  # built from the registry; typer validates the choice
KindFilter = Annotated[Optional[list[Kind]], typer.Option(
    "--kind", metavar="KIND", show_default=False,
    help=_("Only this kind: {kinds} (repeatable).").format(kinds=i18n.join(KINDS)))]
JsonOption = Annotated[bool, typer.Option("--json", help=_("Print JSON instead of a table."))]


def seed_in_range(value: int | None) -> int | None:
    """A seed's upper bound (what the database's integer columns hold), checked here rather
    than by ``max=``, which would print all nineteen digits in every ``-h``."""
    if value is not None and value > SEED_MAX:
        raise typer.BadParameter(_("Input should be less than or equal to {le}").format(le=SEED_MAX))
    return value


def given(ctx: typer.Context, *names: str) -> list[str]:
    """Which of the options ``names`` the command line gave, as typed (``--count``), for one that
    another option makes pointless: said, not passed over in silence."""
    from typer._click.core import ParameterSource

    return [param.opts[0] for param in ctx.command.params if param.name in names
            and ctx.get_parameter_source(param.name) == ParameterSource.COMMANDLINE]


def kind_values(chosen: list[Any] | None) -> list[str] | None:
    return [k.value for k in chosen] if chosen else None


def where(ctx: typer.Context, decks: Path | None = None, db: Path | None = None) -> Where:
    """A command's own --decks / --db, else the ones given before the command."""
    root: Where = ctx.find_root().obj or Where()
    return Where(decks if decks is not None else root.decks, db if db is not None else root.db)


def output_file(ctx: typer.Context, path: Path, db: Path | None = None, decks: Path | None = None, *,
                deck_file: bool = False) -> Path:
    """``path`` if a command may write it: a file name, not a folder, and none of the learner's own
    files that a write would destroy: the database or its journal files, a file in the deck folder
    in use (each .yaml there is read as a deck), the settings file in use, a file in the backups
    folder. ``deck_file``: writing a deck there is the command's purpose (``import chapter --out``
    adds to one). Every command that writes a file the learner names asks here first."""
    from quizzer.backup import backup_dir
    from quizzer.decks import DECK_SUFFIXES
    from quizzer.locations import deck_dirs
    from quizzer.settings import config_path
    from quizzer.store.urls import resolve

    if not path.name or path.is_dir():
        raise UsageError(_("{file} is not a file name").format(file=repr(str(path))), _("name the file to write"))
    chosen = where(ctx, decks, db)
    target, database = _real(path), resolve(chosen.db)[1]
    if database is not None and any(_same(target, database.with_name(database.name + suffix))
                                    for suffix in ("", "-wal", "-shm", "-journal")):
        raise UsageError(_("{file} is your database: writing it would destroy the collection").format(file=path),
                         _("name another file"))
    if database is not None and _same(target.parent, _real(backup_dir(database))):
        raise UsageError(_("{file} is in {folder}, the backups of your database: writing there could destroy a "
                           "backup").format(file=path, folder=backup_dir(database)), _("name a file outside that folder"))
    settings_file = config_path()
    if _same(target, _real(settings_file)) and not _same(target, Path(os.devnull)):
        raise UsageError(_("{file} is your settings file: writing it would lose your settings").format(file=path),
                         _("name another file"))
    for named in [] if deck_file else deck_dirs(chosen.decks):  # a folder of decks, or one deck file
        folder = named if named.is_dir() else named.parent
        if _same(target, _real(named)) or (named.is_dir() and target.suffix in DECK_SUFFIXES
                                           and _same(target.parent, _real(named))):
            raise UsageError(_("{file} is in {folder}, the deck folder in use, where every .yaml or .yml file is read as "
                               "a deck").format(file=path, folder=folder), _("name a file outside that folder"))
    return path


def _real(path: Path) -> Path:
    return Path(os.path.realpath(path))


def _same(one: Path, other: Path) -> bool:
    """The same file or folder: by its real name, or by the file itself where both exist (a hard
    link, a name in another case on a disk that ignores case)."""
    if one == other:
        return True
    try:
        return os.path.samefile(one, other)
    except OSError:
        return False


def counted_cards(count: int) -> str:
    """``1 card``, ``1,205 cards``: the one wording of a count of cards in every message."""
    return ngettext("{count} card", "{count} cards", count).format(count=f"{count:,}")


def counted_reviews(count: int) -> str:
    return ngettext("{count} review", "{count} reviews", count).format(count=f"{count:,}")


def console() -> Console:
    from quizzer.terminal.render import console

    return console()


NO_DECKS = N_("No decks: the deck folders hold no deck files (*.yaml, *.yml).")  # a listing's or a session's word


def load(ctx: typer.Context, decks: Path | None) -> list[LoadedDeck]:
    """The decks to use (no database needed), those with problems left out with a warning, as
    ``collection`` leaves them out; DeckProblems if none can be used."""
    from quizzer.decks import deck_dirs, load_usable

    usable, left_out = load_usable(deck_dirs(where(ctx, decks).decks))
    _warn_left_out(left_out)
    return usable


def collection(ctx: typer.Context, decks: Path | None, db: Path | None) -> Collection:
    """The decks joined to the database."""
    from quizzer.app.collection import open_collection

    chosen, mine = where(ctx, decks, db), settings()
    opened = open_collection(chosen.decks, chosen.db, mine.learner, mine.day_start_hour)
    _say_if_new(opened.store)
    _warn_left_out(opened.left_out)
    if not opened.left_out:  # a deck's limit in the file for a deck no file has: set refuses it, a hand edit did nothing
        from quizzer.settings import DECK_KEY, config_path

        ids = {loaded.id for loaded in opened.decks}
        for key in mine.deck_limits:
            found = DECK_KEY.match(key)
            if found and found.group(1) not in ids:
                _error_line(_("Warning: {file}: {key} names no deck in use, so it changes nothing").format(
                    file=printable(config_path()), key=key), _("`quiz decks` lists the deck ids"))
    if opened.backup_failed is not None:  # said at every command until a backup is taken again
        _error_line(_("Warning: {problem}; the work goes on without it").format(problem=opened.backup_failed.message),
                    opened.backup_failed.shown_hint)
    return opened


def opened_store(db: str | Path | None, learner: str | None) -> Store:
    """The database without the decks (``quizzer.store.open_store``), for a command that needs no
    deck; a collection it starts is said as ``collection`` says it."""
    from quizzer.store import open_store

    opened = open_store(db, learner)
    _say_if_new(opened)
    return opened


def _say_if_new(store: Store) -> None:
    """A collection this opening started on a server, said on stderr: a mistyped name starts one,
    and is seen."""
    if store.created:
        _error_line(_("New collection for learner {learner} on {where}").format(learner=store.learner, where=store.display_name),
                    _("another name: QUIZ_USER=NAME, or `quiz config set user NAME`"))


def _warn_left_out(problems: list[Problem]) -> None:
    """Per deck file left out, on stderr: its first problem, then what that means. Every command
    says it, so the file is fixed; `quiz lint` lists the rest."""
    from quizzer.errors import problems_counted

    for file in dict.fromkeys(problem.file for problem in problems):
        own = [problem for problem in problems if problem.file == file]
        typer.echo(_wrapped(printable(str(own[0])), sys.stderr), err=True)  # a terminal's own wrap left a "）" alone
        _error_line(_("Warning: {file} has {problems} and is left out until it is fixed; its cards keep "
                      "their history").format(file=file, problems=problems_counted(own)),
                    _("`quiz lint` lists its problems"))


def learner() -> str | None:
    """Whose collection to open on a shared server: ``QUIZ_USER`` / the ``user`` setting; None
    leaves it to the database (``quizzer.store.default_learner``)."""
    return settings().learner


def settings(**options: Any) -> Settings:
    """The learner's settings (defaults, config file, environment) with the options given for
    this run (None: not given); a bad value anywhere is a UsageError naming its key."""
    from quizzer.settings import load

    return load().with_options(**options)


def check_clock() -> None:
    """The local zone must be one Python can use (TZ='XXX+99:99' is 99 hours off UTC; study days
    are local), and QUIZ_NOW, if set, a date-time from 1970 to 8900 in UTC (a review is stored in
    UTC, and a card may fall due a century on, within what `quiz check` takes for a time): every
    command reads the clock."""
    try:
        clock.wall().astimezone()
    except (OverflowError, ValueError):
        raise UsageError(_("TZ={value} is not a time zone quizzer can use").format(value=repr(os.environ.get("TZ", ""))),
                         _("name a zone, e.g. TZ=Asia/Shanghai, or unset TZ")) from None
    pinned = os.environ.get("QUIZ_NOW")
    if not pinned:
        return
    value, example = repr(pinned), _("e.g. QUIZ_NOW=2026-01-05T10:00")
    try:
        parsed = clock.parse_pinned(pinned)
    except ValueError:
        raise UsageError(_("QUIZ_NOW={value} is not an ISO date-time").format(value=value), example) from None
    try:
        year = clock.to_utc(parsed).year
    except (OverflowError, ValueError):  # year 1: out of range once moved to UTC
        year = clock.FIRST_YEAR - 1
    if not clock.FIRST_YEAR <= year <= clock.LAST_PINNED_YEAR:
        raise UsageError(_("QUIZ_NOW={value} is not between {first} and {last} in UTC").format(
            value=value, first=clock.FIRST_YEAR, last=clock.LAST_PINNED_YEAR), example)
