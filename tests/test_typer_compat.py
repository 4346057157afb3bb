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

from quizzer.base import i18n
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
    (("study", "--limi"), "错误：没有这个选项：--limi（可能的选项：--limit）（`quiz study -h` 查看帮助）"),
    (("show",), "错误：缺少参数 'ID'。（`quiz show -h` 查看帮助）"),
    (("show", "a", "b"), "错误：多余的参数（b）（`quiz show -h` 查看帮助）"),
    (("history", "export", "--since"), "错误：选项 '--since' 需要一个值。（`quiz history export -h` 查看帮助）"),
    (("stats", "--json=x"), "错误：选项 '--json' 不带值。（`quiz stats -h` 查看帮助）"),
    (("exam", "--count", "0"), "错误：'--count' 的值无效：应不小于 1（`quiz exam -h` 查看帮助）"),
    (("cards", "--state", "x"), "错误：'--state' 的值无效：'x' 不是 'new'、'learning'、'review'、'due'、'suspended'、"
                                "'buried'、'leech'、'mistake' 之一。（`quiz cards -h` 查看帮助）"),
    (("stat",), "错误：没有命令 'stat'。是不是想输入 'stats'？（`quiz -h` 查看帮助）"),
    (("config", "bogus"), "错误：没有命令 'bogus'。（`quiz config -h` 查看帮助）"),
])
def test_click_s_usage_errors_are_one_translated_line_with_the_command_s_help(args, chinese):
    """click_error and QuizCommand: click's exceptions are worded from their fields (the main
    runs in click's non-standalone mode, which raises them); a command's class is typer's public
    ``Typer.command(cls=...)``, its parse_args(ctx, args) reads ``ctx.allow_extra_args``."""
    import typer
    import typer._click.core as click_core

    assert "cls" in parameters(typer.Typer.command) and "standalone_mode" in parameters(click_core.Command.main)
    assert parameters(click_core.Command.parse_args) == ["self", "ctx", "args"]
    assert drawn(*args, columns=300).strip() == chinese


def test_each_click_error_is_worded_from_its_fields_as_click_words_it_in_english():
    """usage_message against click's own format_message, field for field, on the exceptions'
    signatures this typer has."""
    import typer._click.exceptions as exceptions
    from typer.main import get_command

    from quizzer.cli.boundary import usage_message
    from quizzer.cli.typer_compat import ExtraArguments

    root = get_command(app)
    ctx = root.make_context("quiz", ["study"])
    study = root.get_command(ctx, "study")
    assert study is not None
    study_ctx = study.make_context("study", [], parent=ctx)
    new = next(param for param in study.params if "--new" in param.opts)
    errors = [exceptions.NoSuchOption("--nope", possibilities=["--new", "--next"], ctx=study_ctx),
              exceptions.NoSuchOption("-Z", ctx=study_ctx),
              exceptions.MissingParameter(ctx=study_ctx, param=new),
              exceptions.BadParameter("Value must be an iterable.", ctx=study_ctx, param=new),
              exceptions.BadParameter("Value must be an iterable.", ctx=study_ctx, param_hint=["--a", "--b"]),
              exceptions.BadOptionUsage("--new", "Option '--new' requires an argument.", ctx=study_ctx),
              ExtraArguments(["a", "b"], study_ctx)]
    try:
        i18n.use("en")
        assert [usage_message(err) for err in errors] == [err.format_message() for err in errors]
        i18n.use("zh")
        assert [usage_message(err) for err in errors] == [
            "没有这个选项：--nope（可能的选项：--new、--next）", "没有这个选项：-Z", "缺少选项 '--new'。",
            "'--new' 的值无效：值必须是一个列表。", "'--a' / '--b' 的值无效：值必须是一个列表。",
            "选项 '--new' 需要一个值。", "多余的参数（a b）"]
    finally:
        i18n.use("en")


def test_a_bare_group_shows_its_help_on_stderr_and_an_abort_says_so(capsys):
    """click_error for NoArgsIsHelpError (a group run without its command: click's exit 2, the
    help on stderr) and for Abort (Ctrl-D at a prompt: exit 1), as click's standalone mode did."""
    import typer

    from quizzer.cli.boundary import click_error

    bare = CliRunner().invoke(app, ["history"], env={"QUIZ_LANG": "zh", "COLUMNS": "100"})
    i18n.use()
    assert bare.exit_code == 2 and bare.stdout == "" and bare.stderr.startswith("用法：")
    assert "\n命令：\n" in bare.stderr and "  export " in bare.stderr
    try:
        i18n.use("zh")
        assert click_error(typer.Abort()) == 1
    finally:
        i18n.use("en")
    assert capsys.readouterr().err == "已中止！\n"


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
