"""One UI language at a time: the catalogue covers every marked string, the compiled file is
current, translations keep their placeholders, and the language is chosen as documented."""

from __future__ import annotations

import importlib.util
import os
import re
import string
import subprocess
import sys
from pathlib import Path

import pytest

from quizzer import i18n

ROOT = Path(__file__).resolve().parents[1]


def catalogue_tool():
    spec = importlib.util.spec_from_file_location("catalogue", ROOT / "tools" / "catalogue.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_marked_string_has_a_chinese_translation_and_the_mo_is_current():
    tool = catalogue_tool()
    catalogue = tool.merged()
    assert tool.untranslated(catalogue) == []
    assert tool.PO.read_bytes() == tool.po_bytes(catalogue), "run python tools/catalogue.py"
    assert tool.MO.read_bytes() == tool.mo_bytes(catalogue), "run python tools/catalogue.py"


def fields(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}


def test_translations_keep_every_placeholder():
    tool = catalogue_tool()
    for message in tool.merged():
        if not message.id:
            continue
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        wanted = set().union(*map(fields, ids))
        for translated in strings:
            assert fields(translated) == wanted, (message.id, translated)


def quiz(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items() if not k.startswith(("QUIZ_LANG", "LC_", "LANG"))}
    return subprocess.run([sys.executable, "-m", "quizzer", *args], capture_output=True, text=True,
                          env={**environment, "COLUMNS": "100", **env}, timeout=120)


CJK = re.compile(r"[\u4e00-\u9fff]")


def test_help_is_in_the_chosen_language():
    chinese = quiz("--help", QUIZ_LANG="zh").stdout
    assert chinese.startswith("用法：") and "选项" in chinese and "命令" in chinese
    assert "Usage:" not in chinese and "Flashcards" not in chinese
    english = quiz("--help", QUIZ_LANG="en").stdout
    assert english.startswith("Usage:") and not CJK.search(english)


@pytest.mark.parametrize("env, expected", [
    ({"QUIZ_LANG": "zh", "LANG": "en_US.UTF-8"}, "zh"),  # the variable wins over the locale
    ({"LANG": "zh_CN.UTF-8"}, "zh"),
    ({"LANG": "en_GB.UTF-8"}, "en"),
    ({"LC_ALL": "en_US.UTF-8", "LANG": "zh_CN.UTF-8"}, "en"),  # LC_ALL over LANG, as POSIX has it
    ({"LANG": "C.UTF-8"}, "zh"),  # no locale: the language the (bundled, Chinese) decks are written in
])
def test_the_language_comes_from_the_variable_then_the_locale_then_the_decks(env, expected):
    assert i18n.choose({"QUIZ_CONFIG": "/nonexistent/config.toml", **env}) == expected


def test_the_setting_chooses_before_the_locale(tmp_path):
    config = tmp_path / "config.toml"
    config.write_text('language = "en"\n', "utf-8")
    assert i18n.choose({"QUIZ_CONFIG": str(config), "LANG": "zh_CN.UTF-8"}) == "en"


def test_english_decks_give_an_english_interface_without_a_locale(tmp_path, monkeypatch):
    (tmp_path / "d.yaml").write_text("id: d\ntitle: D\nlanguage: en\n", "utf-8")
    monkeypatch.setenv("QUIZ_DECKS", str(tmp_path))
    assert i18n.choose({"QUIZ_CONFIG": str(tmp_path / "none.toml"), "LANG": "C"}) == "en"


def test_errors_and_ratings_follow_the_language():
    chinese = quiz("show", "no-such-card", QUIZ_LANG="zh")
    assert chinese.returncode == 1 and chinese.stderr.startswith("错误") and "no-such-card" in chinese.stderr
    english = quiz("show", "no-such-card", QUIZ_LANG="en")
    assert english.returncode == 1 and english.stderr.startswith("Error: no card 'no-such-card'")
    from quizzer.defaults import Rating

    i18n.use("zh")
    try:
        assert [rating.shown for rating in Rating] == ["重来", "困难", "良好", "简单"]
        assert [rating.label for rating in Rating] == ["Again", "Hard", "Good", "Easy"]  # machine lines keep these
    finally:
        i18n.use("en")
