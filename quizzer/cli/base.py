"""The root command: the table of commands, loaded as they are run, and the group class every
group of commands is (the error boundary around it, the run's context built at the root).

Heavy modules (pydantic, SQLAlchemy, torch) are imported inside the commands that need them,
so ``quiz --help`` and shell completion start instantly.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Sequence
from difflib import get_close_matches
from typing import Any

import typer
from typer.core import TyperGroup

from quizzer.cli.boundary import click_error, guarded
from quizzer.cli.context import Locations, RunContext, interface_language
from quizzer.cli.typer_compat import (ClickAbort, ClickCommand, ClickContext, ClickException, QuizClickContext,
                                      QuizTyper, UnknownCommand, adapt_typer, parsed_in_context)
from quizzer.base import i18n
from quizzer.base.i18n import N_

COMMANDS = {  # each command's module, in the order --help lists them: the daily ones first
    "study": "quizzer.cli.study",
    "exam": "quizzer.cli.exam",
    "mistakes": "quizzer.cli.mistakes",
    "stats": "quizzer.cli.stats",
    "cards": "quizzer.cli.cards",
    "show": "quizzer.cli.card",
    "edit": "quizzer.cli.edit",
    "plan": "quizzer.cli.plan",
    "serve": "quizzer.cli.serve",
    "config": "quizzer.cli.config",
    "check": "quizzer.cli.backup",
    "card": "quizzer.cli.card",
    "checkers": "quizzer.cli.checkers",
    "generate": "quizzer.cli.checkers",
    "decks": "quizzer.cli.decks",
    "lint": "quizzer.cli.lint",
    "schema": "quizzer.cli.lint",
    "optimize": "quizzer.cli.optimize",
    "backup": "quizzer.cli.backup",
    "class": "quizzer.cli.classroom",
    "db": "quizzer.cli.db",
    "export": "quizzer.cli.export",
    "history": "quizzer.cli.history",
    "import": "quizzer.cli.importing",
}
ROOT = "quizzer.cli.overview"  # `quiz` itself: today's numbers, and the root's options

adapt_typer()


class QuizGroup(TyperGroup):
    """A group of commands whose errors go through the one error boundary, its help drawn in the
    interface language (``QuizClickContext``)."""

    context_class = QuizClickContext

    def invoke(self, ctx: ClickContext) -> Any:
        return guarded(ctx, super().invoke)

    def parse_args(self, ctx: ClickContext, args: list[str]) -> list[str]:
        return parsed_in_context(lambda: super(QuizGroup, self).parse_args(ctx, args), ctx)

    def resolve_command(self, ctx: ClickContext, args: list[str]) -> tuple[str | None, ClickCommand | None, list[str]]:
        """A name that is no command raises ``UnknownCommand`` with the commands near it (a name
        that looks like an option is left to click, which says there is no such option)."""
        name = args[0] if args else ""
        if name and not name.startswith("-") and not ctx.resilient_parsing and self.get_command(ctx, name) is None:
            raise UnknownCommand(name, get_close_matches(name, self.list_commands(ctx)), ctx)
        return super().resolve_command(ctx, args)


class RootGroup(QuizGroup):
    """``quiz``: builds the run's context from the root options click parsed (before the command
    is loaded, so that its help is in the run's language), and loads a command when it is run or
    listed (``COMMANDS``)."""

    def list_commands(self, ctx: ClickContext) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: ClickContext, cmd_name: str) -> ClickCommand | None:
        if cmd_name not in self.commands and cmd_name in COMMANDS:
            importlib.import_module(COMMANDS[cmd_name])
            self.add_command(_converted(cmd_name), cmd_name)
        found = self.commands.get(cmd_name)  # converted here, or by typer with the app (its module loaded before)
        return None if found is None else _drawn_in_language(found)

    def main(self, args: Sequence[str] | None = None, prog_name: str | None = None, complete_var: str | None = None,
             standalone_mode: bool = True, windows_expand_args: bool = True, **options: Any) -> Any:
        """click's ``main``, whose errors the boundary says (``click_error``) where click's
        ``standalone_mode`` would print them itself; then the process exits with the command's
        code, as in click's standalone mode."""
        def run() -> Any:  # click's main without its standalone mode: an exit's code, or the command's result
            return super(RootGroup, self).main(args, prog_name, complete_var, False, windows_expand_args, **options)

        if not standalone_mode:
            return run()
        try:
            code = run()
        except (ClickException, ClickAbort) as err:
            code = click_error(err)
        sys.exit(code if isinstance(code, int) else 0)

    def invoke(self, ctx: ClickContext) -> Any:
        if isinstance(ctx.obj, RunContext):  # a context handed in (tests): its owner closes it
            return super().invoke(ctx)
        ctx.obj = run = RunContext.build(Locations(ctx.params.get("decks_dir"), ctx.params.get("db")))
        try:
            return super().invoke(ctx)
        finally:
            run.close()

    def get_help(self, ctx: ClickContext) -> str:
        if not isinstance(ctx.obj, RunContext):  # `quiz --help`, answered as it is parsed, before any context
            i18n.follow(interface_language())
        return super().get_help(ctx)


def _converted(name: str) -> ClickCommand:
    """The command ``name`` registered on ``app``, as typer makes it into click's form."""
    from typer.main import get_command, get_command_name

    one = typer.Typer(add_completion=False, rich_markup_mode=None, pretty_exceptions_enable=False)
    one.registered_commands = [c for c in app.registered_commands
                               if (c.name or get_command_name(c.callback.__name__ if c.callback else "")) == name]
    one.registered_groups = [g for g in app.registered_groups if g.name == name]
    converted = get_command(one)  # one command is itself; a group under one is within a group
    return converted.commands[name] if isinstance(converted, TyperGroup) else converted


def _drawn_in_language(command: ClickCommand) -> ClickCommand:
    """``command`` and the commands under it, their help drawn as a QuizGroup's is."""
    command.context_class = QuizClickContext
    for sub in getattr(command, "commands", {}).values():
        _drawn_in_language(sub)
    return command


def group(help: str, **options: Any) -> typer.Typer:
    """A group of commands under ``quiz`` (``quiz config``): its own errors go through the boundary
    with the whole command named in their hint (``quiz config set -h``)."""
    return QuizTyper(**{"cls": QuizGroup, "help": help, "no_args_is_help": True,
                        "context_settings": {"help_option_names": ["-h", "--help"]}, **options})


app = QuizTyper(
    cls=RootGroup,
    help=N_("Flashcards, numeric drills and mock interviews for BERT / GPT / Transformer interviews."),
    invoke_without_command=True,
    add_completion=True,
    rich_markup_mode=None,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)
importlib.import_module(ROOT)  # registers the root callback before typer converts the app
