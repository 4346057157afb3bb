"""One UI language at a time: the catalogue covers every marked string, the compiled file is
current, translations keep their placeholders, and the language is chosen as documented. Each
run chooses its language (``quizzer.cli.context``), so runs in one process switch it."""

from __future__ import annotations

import importlib.util
import os
import re
import string
import subprocess
import sys
from pathlib import Path

import pytest

from typer.testing import CliRunner

from quizzer.base import i18n
from quizzer.cli import app
from quizzer.cli.context import Locations, RunContext

ROOT = Path(__file__).resolve().parents[1]


def catalogue_tool():
    spec = importlib.util.spec_from_file_location("catalogue", ROOT / "tools" / "catalogue.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("domain", ["quizzer", "checkers"])
def test_every_marked_string_has_a_chinese_translation_and_the_mo_is_current(domain):
    tool = catalogue_tool()
    chosen = next(d for d in tool.DOMAINS if d.name == domain)
    catalogue = tool.merged(chosen)
    assert tool.untranslated(catalogue) == []
    assert chosen.po.read_bytes() == tool.po_bytes(catalogue), "run python tools/catalogue.py"
    assert chosen.mo.read_bytes() == tool.mo_bytes(catalogue), "run python tools/catalogue.py"


def test_a_checkers_id_without_chinese_is_reported_untranslated(tmp_path):
    """A checker's new words are extracted into the checkers' own catalogue, where ``--check``
    names each one still without its Chinese."""
    tool = catalogue_tool()
    (tmp_path / "new_checker.py").write_text(
        'from checkers.said import Said, _\n_("Find the new number.")\nSaid("too big: {n}", n=1)\n', "utf-8")
    (tmp_path / "spaced.py").write_text('from checkers.said import C_\nC_("between equations", "; ")\n', "utf-8")
    domain = tool.Domain("checkers", tool.CHECKERS.po, ((tmp_path, "*.py", tool.CHECKERS.sources[0][2], "python"),))
    catalogue = tool.merged(domain)
    assert set(tool.untranslated(catalogue)) == {"Find the new number.", "too big: {n}"}  # the C_ one is translated
    assert catalogue.get("; ", context="between equations").string == "，"


def fields(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}


@pytest.mark.parametrize("domain", ["quizzer", "checkers"])
def test_translations_keep_every_placeholder(domain):
    tool = catalogue_tool()
    for message in tool.merged(next(d for d in tool.DOMAINS if d.name == domain)):
        if not message.id:
            continue
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        wanted = set().union(*map(fields, ids))
        for translated in strings:
            assert fields(translated) == wanted, (message.id, translated)


class Ran:
    """A run's outcome, as a process's reads: exit code, standard output and error."""

    def __init__(self, returncode: int, stdout: str, stderr: str) -> None:
        self.returncode, self.stdout, self.stderr = returncode, stdout, stderr


def quiz(*args: str, input: str | None = None, **env: str) -> Ran:
    """``quiz ARGS`` run in this process with no language but the one ``env`` gives."""
    unset = {k: None for k in os.environ if k.startswith(("QUIZ_LANG", "LC_", "LANG"))}
    try:
        result = CliRunner().invoke(app, list(args), input=input, env={**unset, "COLUMNS": "100", **env})
    finally:
        i18n.use()  # chosen again, by the next run too
    return Ran(result.exit_code, result.stdout, result.stderr)


def quiz_process(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """``quiz ARGS`` in a process of its own, for what a process decides once (its first language)."""
    environment = {k: v for k, v in os.environ.items() if not k.startswith(("QUIZ_LANG", "LC_", "LANG"))}
    return subprocess.run([sys.executable, "-m", "quizzer", *args], capture_output=True, text=True,
                          env={**environment, "COLUMNS": "100", **env}, timeout=120)


def language_of(environ: dict[str, str], decks: Path | None = None) -> str:
    """The language a run given ``environ`` (and ``--decks``) chooses."""
    try:
        return RunContext.build(Locations(decks), environ).language
    finally:
        i18n.use()


CJK = re.compile(r"[\u4e00-\u9fff]")


@pytest.mark.parametrize("args", [("--help",), ("study", "--help"), ("config", "set", "--help")])
def test_help_is_in_each_run_s_language_whichever_loaded_the_command(args):
    """Help texts are ids translated as they are drawn: one process draws a command's help in
    English, then in Chinese, then in English again (its module loaded by the first)."""
    english = quiz(*args, QUIZ_LANG="en").stdout
    chinese = quiz(*args, QUIZ_LANG="zh").stdout
    assert english.startswith("Usage:") and not CJK.search(english)
    assert chinese.startswith("用法：") and "\n选项：\n" in chinese and "Usage:" not in chinese
    assert not re.search(r"\b(the|a|an|this|of)\b", chinese), chinese  # no English sentence left
    assert quiz(*args, QUIZ_LANG="en").stdout == english


def test_every_command_has_a_marked_help_text_not_its_docstring():
    """`quiz import chapter --help` was English in the Chinese interface: typer took the docstring,
    which the catalogue never sees."""
    from quizzer.cli.base import COMMANDS

    for module in set(COMMANDS.values()):  # each is loaded when its command runs
        importlib.import_module(module)

    def commands(group, path):
        for command in group.registered_commands:
            yield " ".join([*path, command.name or command.callback.__name__]), command.help
        for sub in group.registered_groups:
            yield from commands(sub.typer_instance, [*path, sub.name])

    assert [name for name, text in commands(app, []) if not text] == []


def test_every_help_text_is_an_id_translated_when_drawn():
    """A help text made with ``_()`` is translated once, in the language of the run that loads its
    module: every ``help=`` and every group's help in quizzer/cli is an ``N_()`` id (or made by
    ``help_with``), which the help formatter translates."""
    import ast

    made_at_load = []
    for path in sorted((ROOT / "quizzer" / "cli").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            given = [keyword.value for keyword in node.keywords if keyword.arg == "help"]
            if isinstance(node.func, ast.Name) and node.func.id == "group" and node.args:
                given.append(node.args[0])
            made_at_load += [f"{path.name}:{value.lineno}" for value in given
                             if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Name)
                                     and value.func.id in ("N_", "help_with"))]
    assert len(list((ROOT / "quizzer" / "cli").glob("*.py"))) > 20 and made_at_load == []


@pytest.mark.parametrize("env, expected", [
    ({"QUIZ_LANG": "zh", "LANG": "en_US.UTF-8"}, "zh"),  # the variable wins over the locale
    ({"LANG": "zh_CN.UTF-8"}, "zh"),
    ({"LANG": "en_GB.UTF-8"}, "en"),
    ({"LC_ALL": "en_US.UTF-8", "LANG": "zh_CN.UTF-8"}, "en"),  # LC_ALL over LANG, as POSIX has it
    ({"LANG": "C.UTF-8"}, "zh"),  # no locale: the language the (bundled, Chinese) decks are written in
])
def test_the_language_comes_from_the_variable_then_the_locale_then_the_decks(env, expected):
    assert language_of({"QUIZ_CONFIG": "/nonexistent/config.toml", **env}) == expected


def test_the_setting_chooses_before_the_locale(tmp_path):
    config = tmp_path / "config.toml"
    config.write_text('language = "en"\n', "utf-8")
    assert language_of({"QUIZ_CONFIG": str(config), "LANG": "zh_CN.UTF-8"}) == "en"
    assert language_of({"QUIZ_CONFIG": str(config), "QUIZ_LANG": "zh"}) == "zh"  # the variable over the setting


def test_english_decks_give_an_english_interface_without_a_locale(tmp_path, monkeypatch):
    (tmp_path / "d.yaml").write_text("id: d\ntitle: D\nlanguage: en\n", "utf-8")
    no_locale = {"QUIZ_CONFIG": str(tmp_path / "none.toml"), "LANG": "C"}
    monkeypatch.delenv("QUIZ_DECKS", raising=False)
    assert language_of(no_locale) == "zh"  # the bundled decks
    assert language_of(no_locale, tmp_path) == "en"  # --decks chooses as QUIZ_DECKS does
    with_decks = {**no_locale, "QUIZ_DECKS": str(tmp_path)}  # the environment given, not the process's
    assert language_of(with_decks) == "en"
    bundled = Path(i18n.__file__).parents[1] / "decks"
    assert language_of(with_decks, bundled) == "zh"  # the option over the variable
    (tmp_path / "d.yaml").write_text("id: d\ntitle: D\nlanguage: en\nsource: {file: c.txt, sections: '1'}\ncards:\n"
                                     "  - {id: q-one, kind: qa, source: '1.1', question: Q, answer: A, points: [p]}\n")
    for args in (["--decks", str(tmp_path), "decks"], ["decks", f"--decks={tmp_path}"]):  # a command's own too
        shown = quiz(*args, QUIZ_CONFIG=str(tmp_path / "none.toml"), LANG="C")
        assert shown.returncode == 0 and shown.stdout.startswith("deck "), shown.stdout


@pytest.mark.slow
def test_errors_and_ratings_follow_the_language():
    chinese = quiz("show", "no-such-card", QUIZ_LANG="zh")
    assert chinese.returncode == 1 and chinese.stderr.startswith("错误") and "no-such-card" in chinese.stderr
    english = quiz("show", "no-such-card", QUIZ_LANG="en")
    assert english.returncode == 1 and english.stderr.startswith("Error: no card 'no-such-card'")
    from quizzer.base.defaults import Rating

    i18n.use("zh")
    try:
        assert [rating.shown for rating in Rating] == ["重来", "困难", "良好", "简单"]
        assert [rating.label for rating in Rating] == ["Again", "Hard", "Good", "Easy"]  # machine lines keep these
    finally:
        i18n.use("en")


BAD_DECK = ("id: Bad Deck\ntitle: x\nlanguage: zh\nsource: {file: c.txt, sections: '1'}\ncards:\n"
            "  - {id: a, kind: qa, source: '1', question: q, answer: '', points: []}\n"
            "  - {id: b, kind: choice, source: '1', question: q, options: [x, y], answer: Z, extra: 1}\n"
            "  - {id: c, kind: nope}\n"
            "  - {id: a, kind: qa, source: '1', question: &x q, answer: a, points: [p]}\n")


@pytest.mark.slow
def test_lint_problems_are_in_the_chosen_language_in_the_same_places(tmp_path):
    deck = tmp_path / "d.yaml"
    deck.write_text(BAD_DECK, "utf-8")
    chinese, english = (quiz("lint", str(deck), QUIZ_LANG=language) for language in ("zh", "en"))
    assert chinese.returncode == english.returncode == 1
    place = re.compile(r"^(.+:\d+:\d+): (.+)$")
    zh_lines = [place.match(line) for line in chinese.stdout.splitlines()]
    en_lines = [place.match(line) for line in english.stdout.splitlines()]
    assert all(zh_lines) and all(en_lines) and len(zh_lines) == len(en_lines) == 9
    assert [m.group(1) for m in zh_lines] == [m.group(1) for m in en_lines]  # FILE:LINE:COL kept
    zh_messages = [m.group(2) for m in zh_lines]
    # the field's name stays as written in the deck; the words around it are Chinese
    assert "缺少字段 'explanation'" in zh_messages and "未知字段 'extra'" in zh_messages
    assert any(m.startswith("kind 必须是 qa、choice、mistake、numeric、cloze 之一，而不是 '") for m in zh_messages)
    assert "points：至少需要 1 项" in zh_messages
    for message in zh_messages:
        assert CJK.search(message), message
        words = set(re.findall(r"[A-Za-z]{3,}", re.sub(r"'[^']*'|/\S+", "", message)))
        assert words <= {"kind", "choice", "mistake", "numeric", "cloze", "points", "answer"}, message
    en_messages = [m.group(2) for m in en_lines]
    assert "missing field 'explanation'" in en_messages and not CJK.search(english.stdout)


@pytest.mark.slow
@pytest.mark.parametrize("args, english", [
    (("study", "--nope"), "Error: No such option: --nope"),
    (("exam", "--minutes", "x"), "Error: Invalid value for '--minutes': Input should be a valid number"),
    (("exam", "--count", "0"), "Error: Invalid value for '--count': Input should be greater than or equal to 1"),
    (("show",), "Error: Missing argument 'ID'."),
    (("show", "a", "b"), "Error: Got unexpected extra argument(s) (b)"),
    (("study", "--new"), "Error: Option '--new' requires an argument."),
    (("no-such-command",), "Error: No such command 'no-such-command'."),
])
def test_usage_errors_are_in_the_chosen_language(args, english):
    shown = quiz(*args, QUIZ_LANG="en")
    assert shown.returncode == 2 and english in shown.stderr
    chinese = quiz(*args, QUIZ_LANG="zh")
    assert chinese.returncode == 2 and "错误：" in chinese.stderr and CJK.search(chinese.stderr.splitlines()[-1])
    # only option names, what the learner typed and the usage line's placeholders are left in Latin letters
    typed = set(re.findall(r"[A-Za-z]+", " ".join(args))) | {"python", "quizzer", "quiz", "OPTIONS", "COMMAND", "ARGS", "ID"}
    assert set(re.findall(r"[A-Za-z]{2,}", re.sub(r"--[a-z-]+", "", chinese.stderr))) <= typed, chinese.stderr


@pytest.mark.slow
def test_a_mistyped_command_s_suggestion_is_in_the_chosen_language():
    """`quiz stat` said `错误：没有命令 'stat'。. Did you mean 'stats'?`: typer's English added to the
    translated message, after its full stop."""
    assert "Error: No such command 'stat'. Did you mean 'stats'?" in quiz("stat", QUIZ_LANG="en").stderr
    chinese = quiz("stat", QUIZ_LANG="zh")
    assert chinese.returncode == 2 and "没有命令 'stat'。是不是想输入 'stats'？" in chinese.stderr
    assert "Did you mean" not in chinese.stderr and "。." not in chinese.stderr


def test_lists_are_joined_as_the_language_writes_them():
    try:
        i18n.use("zh")
        assert i18n.join(["A", "B", "C"]) == "A、B、C"
        i18n.use("en")
        assert i18n.join(["A", "B", "C"]) == "A, B, C"
    finally:
        i18n.use("en")
    english = quiz("study", "--help", QUIZ_LANG="en").stdout  # a list in a help text too, as it is drawn
    chinese = quiz("study", "--help", QUIZ_LANG="zh").stdout
    assert "qa, choice, mistake" in english and "qa、choice、mistake" in chinese and "qa, choice" not in chinese


def test_numeric_verdicts_follow_the_interface_language():
    from checkers.base import Question, Tolerance
    from checkers.grading import grade

    question = Question("test", 0, "", {}, [0.5, 0.25, 0.125], Tolerance("decimals", 3), "", "[0.500, 0.250, 0.125]")
    wrong, unreadable = grade("0.5 0.9 0.9", question).message, grade("x", question).message
    imprecise = grade("0.51", Question("test", 0, "", {}, 0.5123, Tolerance("decimals", 3), "", "0.512")).message
    assert wrong == "Wrong at position(s) 2, 3. The answer is [0.500, 0.250, 0.125]"  # checkers write English
    try:
        i18n.use("zh")
        assert i18n.translate_checker_message(wrong) == "不对。第 2、3 个数不对。答案 [0.500, 0.250, 0.125]"
        assert i18n.translate_checker_message(unreadable).startswith("无法识别 'x'。数字可写 0.478")  # the nested hint translated too
        assert i18n.translate_checker_message(imprecise) == "精度不够：题目要求保留 3 位小数，再算精确些。"
        assert i18n.translate_checker_message("卡片内容") == "卡片内容"  # any other text is shown as it is
        i18n.use("en")
        assert i18n.translate_checker_message(wrong) == wrong and i18n.translate_checker_message(imprecise) == str(imprecise)
    finally:
        i18n.use("en")


def test_our_pydantic_templates_are_pydantics_own_wording():
    from pydantic_core import PydanticKnownError

    from quizzer.kinds.messages import PYDANTIC_MESSAGES

    context = {"ge": 1, "le": 1, "gt": 1, "lt": 1}
    for kind, template in PYDANTIC_MESSAGES.items():
        assert PydanticKnownError(kind, context).message_template == template  # English output is pydantic's


@pytest.mark.slow
def test_the_session_summary_reads_as_one_language(tmp_path):
    (tmp_path / "d.yaml").write_text(
        "id: d\ntitle: 牌组\nlanguage: zh\nsource: {file: c.txt, sections: '1'}\ncards:\n"
        "  - {id: q-one, kind: qa, source: '1.1', question: 问题, answer: 答案, points: [要点]}\n", "utf-8")
    env = {"QUIZ_DECKS": str(tmp_path), "QUIZ_DB": str(tmp_path / "q.db"), "QUIZ_NOW": "2026-01-05T10:00"}
    chinese = quiz("study", input="\n3\n", **env, QUIZ_LANG="zh").stdout
    assert re.search(r"已复习 1 次，答对 \d+ 次，用时 \d+分\d\d秒（良好 1）", chinese), chinese
    (tmp_path / "q.db").unlink()
    english = quiz("study", input="\n3\n", **env, QUIZ_LANG="en").stdout
    assert re.search(r"Reviewed 1, correct \d+ in \d+m\d\ds \(Good 1\)", english), english


@pytest.mark.parametrize("typed", ["", "abc", "1/0", "1/2/3", "1e999", "①", "[]", "0.1 0.2", "1" * 400, "[" + "1," * 70 + "1]"])
def test_every_format_error_of_a_numeric_answer_is_chinese_in_the_chinese_interface(typed):
    from checkers.base import Question, Tolerance
    from checkers.grading import grade

    message = grade(typed, Question("test", 0, "", {}, 0.5, Tolerance("decimals", 2), "", "0.50")).message
    assert message and not CJK.search(message)  # English from checkers
    try:
        i18n.use("zh")
        shown = i18n.translate_checker_message(message)
    finally:
        i18n.use("en")
    assert CJK.search(shown) and not re.search(r"[A-Za-z]{3,}", shown.replace(typed, "")), shown


@pytest.mark.slow
def test_a_cards_kind_is_named_in_the_interface_language_where_it_is_shown():
    """The Chinese headers said `· choice ·` and `· qa ·`; `--kind` and the listings keep the ids
    (what is typed back)."""
    env = {"QUIZ_NOW": "2026-01-05T10:00", "QUIZ_DB": os.environ["QUIZ_DB"]}
    chinese = quiz("study", "--kind", "choice", "--limit", "1", input="!q\n", **env, QUIZ_LANG="zh", COLUMNS="120").stdout
    header = next(line for line in chinese.splitlines() if line.startswith("╭"))
    assert " · 选择题 · " in header and "choice" not in header, header
    english = quiz("study", "--kind", "qa", "--limit", "1", QUIZ_LANG="en", **env)
    assert " · Q&A · " in next(line for line in english.stdout.splitlines() if line.startswith("╭"))


@pytest.mark.slow
def test_config_set_speaks_with_chinese_punctuation(tmp_path):
    """`config set` said `(已保存到 …)` with ASCII brackets, and a bad value `desired_retention: 应为…`
    beside `foo：不是设置项`."""
    config = str(tmp_path / "config.toml")
    saved = quiz("config", "set", "new_per_day", "21", QUIZ_LANG="zh", QUIZ_CONFIG=config)
    assert saved.returncode == 0 and saved.stdout.startswith(f"new_per_day: 20 → 21（已保存到 {config}）"), saved.stdout
    bad = quiz("config", "set", "desired_retention", "2", QUIZ_LANG="zh", QUIZ_CONFIG=config)
    assert bad.returncode == 2 and bad.stderr.startswith("错误：desired_retention：应为"), bad.stderr


@pytest.mark.slow
@pytest.mark.parametrize("asked, heading", [(None, "deck "), ("zh", "\\u724c\\u7ec4")])
def test_a_terminal_that_cannot_write_chinese_gets_english_or_escapes_not_a_crash(tmp_path, asked, heading):
    """PYTHONIOENCODING=latin-1 made every command "unexpected UnicodeEncodeError"."""
    env = {key: value for key, value in os.environ.items() if not key.startswith(("LC_", "LANG", "QUIZ_LANG"))}
    env.update(PYTHONIOENCODING="latin-1", QUIZ_CONFIG=str(tmp_path / "c.toml"), QUIZ_DB=str(tmp_path / "q.db"))
    if asked:
        env["QUIZ_LANG"] = asked  # asked for: kept, written as escapes
    done = subprocess.run([sys.executable, "-m", "quizzer", "decks"], capture_output=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.decode("latin-1").startswith(heading)


@pytest.mark.slow
def test_the_c_locale_writes_chinese_as_utf8(tmp_path):
    """Python writes UTF-8 under `LC_ALL=C` (PEP 538, 540): the README had it give English."""
    env = {key: value for key, value in os.environ.items()
           if not key.startswith(("LC_", "LANG", "QUIZ_LANG", "PYTHONIOENCODING", "PYTHONUTF8"))}
    env.update(LC_ALL="C", QUIZ_CONFIG=str(tmp_path / "c.toml"), QUIZ_DB=str(tmp_path / "q.db"))
    done = subprocess.run([sys.executable, "-m", "quizzer", "decks"], capture_output=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.decode("utf-8").startswith("牌组")


def test_a_cloze_verdict_lists_its_blanks_as_the_language_does_and_no_steps_is_translated(tmp_path):
    """The English verdict said `blank 1、2 wrong` (the Chinese comma), and the Chinese config
    screen showed empty learning steps as `(none)`."""
    from quizzer import settings
    from quizzer.kinds import cloze

    card = cloze.ClozeCard(id="c", kind="cloze", source="1", text="{{c1::15%}} 与 {{c2::80%}}")
    asked = cloze.KIND.ask(card, 0)
    i18n.use("en")
    try:
        verdict = cloze.KIND.score(asked, cloze.KIND.read(asked, "1; 2").answer)
        assert "✗ blank 1, 2 wrong" in verdict.message
        i18n.use("zh")
        assert settings.KEYS["learning_steps"].show(()) == "（无）"
    finally:
        i18n.use("en")
