"""``quiz checkers`` and ``quiz generate``: the numeric-question generators."""

from __future__ import annotations

from typing import Annotated

import typer

from quizzer.cli.base import JsonOption, app, console
from quizzer.errors import UsageError


@app.command("checkers")
def checkers_command(as_json: JsonOption = False) -> None:
    """List the numeric-question checkers."""
    from rich.table import Table

    from checkers import registry

    if as_json:
        from quizzer.cli.output import emit_json

        emit_json([{"name": name, "description": registry.get(name).description} for name in registry.names()])
        return
    table = Table("checker", "what it asks")
    for name in registry.names():
        table.add_row(name, registry.get(name).description)
    console().print(table, markup=False)


@app.command()
def generate(
    name: Annotated[str, typer.Argument(metavar="CHECKER", help="Checker name (see `quiz checkers`).")],
    seed: Annotated[int, typer.Option(help="Same seed, same question.")] = 0,
    as_json: JsonOption = False,
) -> None:
    """Generate one numeric question with its answer and worked solution."""
    from checkers import registry
    from quizzer.terminal.render import markdown

    try:
        checker = registry.get(name)
    except registry.UnknownChecker as err:
        raise UsageError(str(err), "`quiz checkers` lists them") from None
    question = checker.generate(seed)
    if as_json:
        from quizzer.cli.output import emit_json

        emit_json(question.to_dict())
        return
    out = console()
    out.print(markdown(question.prompt))
    out.print(f"\n答案 {question.answer_text}\n", markup=False)
    out.print(markdown(question.solution))
