"""Every adaptation of typer's (and its vendored click's) internals, in one place: only this
module imports ``typer._click`` or ``typer._coercion`` (ruff's TID251 bans them elsewhere).

Each adaptation is a named function whose docstring says which upstream behaviour it adapts;
checked against typer 0.29.2 (the range pyproject declares), each has a test in
``tests/test_typer_compat.py`` that fails when the hook it needs changes.
"""

from __future__ import annotations

import enum
import re
import typing
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import typer
from typer._click import core as _click_core
from typer._click import exceptions as _click_exceptions
from typer._click import formatting as _click_formatting
from typer.core import TyperCommand

from quizzer.cli.help_text import drawn_help
from quizzer.base.i18n import N_, _


ClickContext = _click_core.Context  # click's types, for the groups' overrides (typer has loaded them)
ClickCommand = _click_core.Command
ClickException = _click_exceptions.ClickException  # click's errors, which the boundary words by their type
ClickUsageError = _click_exceptions.UsageError
ClickNoArgsIsHelp = _click_exceptions.NoArgsIsHelpError
ClickNoSuchOption = _click_exceptions.NoSuchOption
ClickMissingParameter = _click_exceptions.MissingParameter
ClickBadParameter = _click_exceptions.BadParameter
ClickBadOptionUsage = _click_exceptions.BadOptionUsage
ClickAbort = typer.Abort  # typer's own, which click's main catches too

TYPER_MESSAGES = (N_("Options"), N_("Commands"), N_("Arguments"), N_("default: {default}"), N_("required"),
                  N_("env var: {var}"), N_("(dynamic)"), N_("Aborted!"), N_("Show this message and exit."),
                  N_("Install completion for the current shell."),
                  N_("Show completion for the current shell, to copy it or customize the installation."),
                  N_("No such command {name!r}."), N_("Missing command."), N_("Value must be an iterable."))
# typer's own ids, for the catalogue (the last three are the messages of usage errors it raises)


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
        super().write_text(drawn_help(text))

    def write_dl(self, rows: Sequence[tuple[str, str]], col_max: int = 30, col_spacing: int = 2) -> None:
        super().write_dl([(term, _drawn_with_notes(text)) for term, text in rows], col_max, col_spacing)


class QuizClickContext(_click_core.Context):
    """click's context with quizzer's help formatter (``Command.context_class`` makes it)."""

    formatter_class = QuizHelpFormatter


class ExtraArguments(_click_exceptions.UsageError):
    """Words left over after a command's arguments: click raises a plain UsageError whose only
    field is its English text, so ``QuizCommand`` raises this one with the words instead."""

    def __init__(self, arguments: Sequence[str], ctx: ClickContext) -> None:
        super().__init__(f"Got unexpected extra argument(s) ({' '.join(arguments)})", ctx)
        self.arguments = list(arguments)


class UnknownCommand(_click_exceptions.UsageError):
    """A command name no group has, with the names near it: typer raises a UsageError whose
    text it extends in English (``. Did you mean 'stats'?``)."""

    def __init__(self, name: str, suggestions: Sequence[str], ctx: ClickContext) -> None:
        super().__init__(f"No such command {name!r}.", ctx)
        self.name, self.suggestions = name, list(suggestions)


def parsed_in_context(parse: Callable[[], list[str]], ctx: ClickContext) -> list[str]:
    """``parse()`` (a command's ``parse_args``) with its usage errors tied to ``ctx``: click's
    parser raises an option without its value (BadOptionUsage) without a context, and the
    boundary names the command's help from the context."""
    try:
        return parse()
    except _click_exceptions.UsageError as err:
        if err.ctx is None:
            err.ctx, err.cmd = ctx, ctx.command
        raise


class QuizCommand(TyperCommand):
    """Every ``quiz`` command (``QuizTyper`` makes them): its usage errors carry their context,
    and words left over raise ``ExtraArguments`` (click's ``parse_args`` fails with a plain
    UsageError unless the context allows extra arguments)."""

    def parse_args(self, ctx: ClickContext, args: list[str]) -> list[str]:
        allowed, ctx.allow_extra_args = ctx.allow_extra_args, True
        try:
            rest = parsed_in_context(lambda: super(QuizCommand, self).parse_args(ctx, args), ctx)
        finally:
            ctx.allow_extra_args = allowed
        if rest and not allowed and not ctx.resilient_parsing:
            raise ExtraArguments(rest, ctx)
        return rest


class QuizTyper(typer.Typer):
    """typer's app whose commands are ``QuizCommand`` unless a command names its own class
    (``Typer.command(cls=...)``, typer's public hook for a command's class)."""

    def command(self, name: str | None = None, *, cls: type[TyperCommand] | None = None,
                **options: Any) -> Callable[[Any], Any]:
        return super().command(name, cls=cls or QuizCommand, **options)


def choices_of(param: Any) -> list[str] | None:
    """The values a choice parameter takes, as typed (an Enum's values), None for any other:
    typer keeps them in its ``type_descriptor``."""
    described = getattr(param, "type_descriptor", None)
    if described is None or not described.is_choice or described.choices is None:
        return None
    return [str(getattr(choice, "value", choice)) for choice in described.choices]


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


_NOTED = re.compile(r"(.*?)(?:  \[(.+)\])?", re.DOTALL)  # an option's help, then typer's notes: [default: 15; at least 1]


def _drawn_with_notes(text: str) -> str:
    """An option's help (an id) in the interface language, then the notes typer adds after it,
    joined as the language writes them (typer joins them with an ASCII ``; ``)."""
    noted = _NOTED.fullmatch(text)
    assert noted is not None  # every text fits: the notes are optional
    drawn, notes = drawn_help(noted.group(1)), noted.group(2)
    return drawn if notes is None else drawn + "  [" + _("; ").join(notes.split("; ")) + "]"


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

        return summary(drawn_help(help))

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


def adapt_typer() -> None:
    """Apply every adaptation (once, when the CLI is imported)."""
    _localize_typer()
    _coerce_given_values_only()
