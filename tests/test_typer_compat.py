"""Each adaptation of typer's internals (``quizzer.cli.typer_compat``): the upstream hook it needs
is there with the signature it expects, and what it adapts comes out right. A typer upgrade that
moves a hook fails the test named after it. CI runs this file on the lowest typer pyproject allows
too (``pip install "typer==0.29.2" && python -m pytest tests/test_typer_compat.py``)."""

from __future__ import annotations

import inspect
import re
import textwrap
from pathlib import Path

import pytest
from typer.testing import CliRunner

from quizzer import i18n
from quizzer.cli import app

ROOT = Path(__file__).resolve().parents[1]


def drawn(*args: str, language: str = "zh", columns: int = 100) -> str:
    """``quiz ARGS`` in this process, standard output and error together."""
    try:
        result = CliRunner().invoke(app, list(args), env={"QUIZ_LANG": language, "COLUMNS": str(columns)})
    finally:
        i18n.use()  # chosen again, by the next run too
    return result.stdout + result.stderr


def parameters(function: object) -> list[str]:
    return list(inspect.signature(function).parameters)  # type: ignore[arg-type]


def test_typer_writes_its_help_words_through_the_gettext_name_it_imports():
    """_localize_typer: typer.core calls its module-level ``_`` for Options, Commands, default:."""
    import typer.core

    assert callable(typer.core._) and "_(" in inspect.getsource(typer.core)
    shown = drawn("decks", "-h")
    assert shown.startswith("用法：") and "\n选项：\n" in shown and "显示此帮助并退出。" in shown


def test_the_help_formatter_hooks_keep_their_signatures():
    """_localize_typer wraps write_usage, write_dl, write_heading and write_text, passing on the
    arguments as click names them."""
    from typer._click.formatting import HelpFormatter

    assert parameters(HelpFormatter.write_usage) == ["self", "prog", "args", "prefix"]
    assert parameters(HelpFormatter.write_dl) == ["self", "rows", "col_max", "col_spacing"]
    assert parameters(HelpFormatter.write_heading) == ["self", "heading"]
    assert parameters(HelpFormatter.write_text) == ["self", "text"]


def test_option_notes_and_ranges_read_as_the_language_writes_them():
    """_number_range and _notes_joined: typer's ``[default: 15; x>=1]`` becomes words, joined with
    the language's separator; typer still calls describe_number_range(min, max)."""
    import typer.core

    assert len(inspect.signature(typer.core.describe_number_range).parameters) == 2
    exam = "".join(drawn("exam", "-h", columns=200).split())
    assert "[默认：15；至少1]" in exam
    assert "[default:15;atleast1]" in "".join(drawn("exam", "-h", language="en", columns=200).split())


def test_arguments_are_named_without_typer_s_braces_and_types():
    """_plain_arguments: typer 0.2x's TyperArgument hooks for the usage name and the type."""
    import typer.core

    assert hasattr(typer.core.TyperArgument, "_usage_display_name")
    assert hasattr(typer.core.TyperArgument, "display_type_rich")
    usage = drawn("show", "-h", language="en").splitlines()[0]
    assert usage.endswith(" show [OPTIONS] ID") and "{" not in usage and "<str>" not in drawn("show", "-h", language="en")


def test_wide_help_is_wrapped_by_terminal_cells():
    """_wrap_wide_help: click's wrap_text and make_default_short_help, called with these arguments,
    wrap Chinese by the cells it takes (two a character), ASCII as click does; a command's summary is
    its first sentence."""
    import typer._click.core as click_core
    import typer._click.formatting as formatting
    from rich.cells import cell_len

    assert parameters(formatting.wrap_text)[:5] == ["text", "width", "initial_indent", "subsequent_indent",
                                                    "preserve_paragraphs"]
    assert parameters(click_core.make_default_short_help)[:2] == ["help", "max_length"]
    help_text = "只用这种题型：qa、choice、mistake、numeric、cloze（可重复）。" * 2
    formatter = formatting.HelpFormatter(width=60)
    formatter.write_dl([("--kind KIND", help_text)])
    lines = formatter.getvalue().splitlines()
    assert len(lines) > 2 and all(cell_len(line) <= 60 for line in lines), lines
    # a command's line in the listing: its first sentence whole (the listing wraps it), never cut with "..."
    assert click_core.make_default_short_help(help_text, 45) == "只用这种题型：qa、choice、mistake、numeric、cloze（可重复）。"
    assert click_core.make_default_short_help("Check deck files. Then more.\n\nDetails.", 10) == "Check deck files."
    assert formatting.wrap_text("plain words " * 10, 30) == "\n".join(textwrap.wrap("plain words " * 10, 30))


@pytest.mark.parametrize("args, chinese", [
    (("study", "--bogus"), "错误：没有这个选项：--bogus（`quiz study -h` 查看帮助）"),
    (("show",), "错误：缺少参数 'ID'。（`quiz show -h` 查看帮助）"),
])
def test_click_s_usage_errors_are_one_translated_line_with_the_command_s_help(args, chinese):
    """_localize_click_errors: click's exceptions print through their module's ``echo`` and
    UsageError.show(file); the parser's own errors are given the command's context."""
    import typer._click.core as click_core
    import typer._click.exceptions as exceptions

    assert callable(exceptions.echo) and parameters(exceptions.UsageError.show) == ["self", "file"]
    assert parameters(click_core.Command.parse_args) == ["self", "ctx", "args"]
    assert drawn(*args).strip() == chinese


def test_click_messages_are_matched_by_their_templates():
    """click_message: a message of click's (here with a pydantic one inside) rebuilt in Chinese."""
    from quizzer.cli.typer_compat import click_message

    try:
        i18n.use("zh")
        assert click_message("Invalid value for '--count': Input should be a valid integer") == \
            i18n._("Invalid value for {name}: {message}").format(name="'--count'", message=i18n._(
                "Input should be a valid integer"))
        assert click_message("something click never says") == "something click never says"
    finally:
        i18n.use("en")


@pytest.mark.parametrize("annotation, given", [
    (str, "abc"), (str, "中文"), (int, "12"), (int, "-3"), (int, "+7"), (int, "007"), (int, "1_000"), (int, "12.0"),
    (int, "٣"), (int, "9" * 40), (list[str], ("a", "b")), (list[int], ("1", "2")), ("Kind", "cloze"),
    ("list[Kind]", ("qa", "numeric")), ("Kind", "nope"), (float, "0.5"), (Path, "x.db"), (int, 5), (bool, True),
    (int, True)])
def test_options_read_without_pydantic_become_what_typer_makes_of_them(annotation, given):
    """_coerce_given_values_only: plain_value against typer's own (pydantic) coercion of the same
    value: equal in value and type where it answers; anything else is left to typer (NOT_PLAIN)."""
    from typer._coercion import build_runtime_param, resolve_type_descriptor
    from typer.models import OptionInfo

    from quizzer.cli.options import Kind
    from quizzer.cli.typer_compat import NOT_PLAIN, plain_value

    annotation = {"Kind": Kind, "list[Kind]": list[Kind]}.get(annotation, annotation)  # type: ignore[call-overload]
    described = resolve_type_descriptor(annotation, OptionInfo(default=None))
    try:
        typers = build_runtime_param(described)._coerce_value(given, param=None, ctx=None)
    except Exception as error:  # noqa: BLE001 - an error is typer's to word
        typers = error
    ours = plain_value(described.annotation, given)
    if ours is not NOT_PLAIN:
        assert ours == typers and type(ours) is type(typers)
    if isinstance(typers, Exception):
        assert ours is NOT_PLAIN


def test_the_coercion_hook_is_where_typer_asks_for_it():
    """_coerce_given_values_only replaces _TyperParameter.get_runtime_param and subclasses
    RuntimeParam, whose _coerce_value(value, param, ctx) typer calls."""
    from typer._coercion import RuntimeParam
    from typer.core import _TyperParameter

    assert parameters(_TyperParameter.get_runtime_param) == ["self"]
    assert parameters(RuntimeParam._coerce_value) == ["self", "value", "param", "ctx"]
    shown = drawn("exam", "--count", "x", language="en")
    assert "Invalid value for '--count': Input should be a valid integer" in shown  # typer's check, as before


def test_only_the_compat_module_imports_typer_s_internals():
    """Every other module goes through quizzer.cli.typer_compat (ruff's TID251 says the same)."""
    internal = re.compile(r"^\s*(from|import) typer\.(_click|_coercion)\b", re.MULTILINE)
    offenders = [str(path.relative_to(ROOT)) for folder in ("quizzer", "checkers") for path in (ROOT / folder).rglob("*.py")
                 if internal.search(path.read_text("utf-8")) and path.name != "typer_compat.py"]
    assert offenders == []


def test_pyproject_declares_the_typer_range_these_tests_ran_on():
    from importlib.metadata import version

    declared = re.search(r'"typer>=([\d.]+),<([\d.]+)"', (ROOT / "pyproject.toml").read_text("utf-8"))
    assert declared, "pyproject names a typer range"
    floor, ceiling = (tuple(map(int, v.split("."))) for v in declared.groups())
    installed = tuple(map(int, version("typer").split(".")[:3]))
    assert floor <= installed < ceiling
