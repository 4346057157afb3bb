"""Every adaptation of typer's (and its vendored click's) internals, in one place: only this
module imports ``typer._click`` or ``typer._coercion`` (ruff's TID251 bans them elsewhere).

Each adaptation is a named function whose docstring says which upstream behaviour it adapts;
checked against typer 0.29.2 (the range pyproject declares), each has a test in
``tests/test_typer_compat.py`` that fails when the hook it needs changes.
"""

from __future__ import annotations

import enum
import functools
import re
import typing
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from typer._click import core as _click_core
from typer._click import formatting as _click_formatting

from quizzer import i18n
from quizzer.i18n import N_, _


ErrorLine = Callable[[str, str], None]  # boundary.error_line's signature: how click's own errors are said
ClickContext = _click_core.Context  # click's types, for the groups' overrides (typer has loaded them)
ClickCommand = _click_core.Command

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
    """typer writes its help headings (Options, Commands, default:, required) through the name
    ``_`` it imports from gettext into ``typer.core``: routed to our catalogue. Ranges in words
    (``describe_number_range``), arguments named as click names them, wide text wrapped by cells."""
    import typer.core

    typer.core._ = _
    typer.core.describe_number_range = _number_range  # type: ignore[assignment]  # typer passes (min, max) by position
    _plain_arguments(typer.core.TyperArgument)
    _wrap_wide_help()


class QuizHelpFormatter(_click_formatting.HelpFormatter):
    """click's help formatter (set through ``Context.formatter_class``) drawing in the interface
    language: the usage line's prefix and the headings' colon, which click writes as literals;
    help texts given as ids (``N_``), translated as they are drawn; typer's notes after an
    option's help joined as the language joins them."""

    def write_usage(self, prog: str, args: str = "", prefix: str | None = None) -> None:
        super().write_usage(prog, args, _("Usage: ") if prefix is None else prefix)

    def write_heading(self, heading: str) -> None:  # the colon too: 选项：, not 选项:
        self.write(f"{'':>{self.current_indent}}" + _("{heading}:").format(heading=heading) + "\n")

    def write_text(self, text: str) -> None:
        super().write_text(_(text))

    def write_dl(self, rows: Sequence[tuple[str, str]], col_max: int = 30, col_spacing: int = 2) -> None:
        super().write_dl([(term, _notes_joined(_(text))) for term, text in rows], col_max, col_spacing)


class QuizClickContext(_click_core.Context):
    """click's context with quizzer's help formatter (``Command.context_class`` makes it)."""

    formatter_class = QuizHelpFormatter


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
    from quizzer.app.kind_names import pydantic_messages

    patterns = []
    for template in (*CLICK_MESSAGES, *pydantic_messages().values()):
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


def _localize_click_errors(error_line: ErrorLine) -> None:
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
        error_line(_("Error: {message}").format(message=" ".join(lines)),
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
    with wide characters goes through ``quizzer.terminal.linebreak`` instead. A command's line
    in the listing is its first sentence whole, wrapped in its column."""
    import typer._click.core as click_core
    import typer._click.formatting as formatting

    plain_wrap = formatting.wrap_text

    def wrap_text(text: str, width: int = 78, initial_indent: str = "", subsequent_indent: str = "",
                  preserve_paragraphs: bool = False) -> str:
        if text.isascii():
            return plain_wrap(text, width, initial_indent, subsequent_indent, preserve_paragraphs)
        from quizzer.terminal.linebreak import wrap

        return wrap(text, width, initial_indent, subsequent_indent)

    def make_default_short_help(help: str, max_length: int = 45) -> str:  # the listing wraps it: never cut
        from quizzer.terminal.linebreak import summary

        return summary(help)

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


def current_context() -> ClickContext | None:
    """The click context of the command running now (None outside one): typer exports no accessor."""
    from typer._click.globals import get_current_context

    return get_current_context(silent=True)


def typed_options(ctx: ClickContext, names: Sequence[str]) -> list[str]:
    """Which of the options ``names`` the command line gave, as typed (``--count``)."""
    from typer._click.core import ParameterSource

    return [param.opts[0] for param in ctx.command.params if param.name in names
            and ctx.get_parameter_source(param.name) == ParameterSource.COMMANDLINE]


def pacified(stream: Any) -> bool:
    """Whether click wrapped ``stream`` after a closed pipe (its way to end quietly, with exit 1)."""
    from typer._click.utils import PacifyFlushWrapper

    return isinstance(stream, PacifyFlushWrapper)


def adapt_typer(error_line: ErrorLine) -> None:
    """Apply every adaptation (once, when the CLI is imported); ``error_line`` draws click's
    usage errors as every other error is drawn."""
    _localize_typer()
    _localize_click_errors(error_line)
    _coerce_given_values_only()
