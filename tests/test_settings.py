"""Settings that stay (``quiz config``, config.toml, QUIZ_<KEY>, options for one run), the
scheduler they build, and the rating buttons' intervals. Every test has its own database
(conftest) and its own config file (QUIZ_CONFIG, below)."""

from __future__ import annotations

import json
import re
from datetime import datetime, timedelta, timezone
from pathlib import Path

import fsrs
import pytest
from conftest import fsrs_by_study_days
from rich.cells import cell_len
from typer.testing import CliRunner

from quizzer import settings as config_file
from quizzer.app import study
from quizzer.app.collection import open_collection
from quizzer.cli import app
from quizzer.scheduling.memory import scheduler_for
from quizzer.scheduling.queue import build_queue
from quizzer.scheduling.summary import card_info
from quizzer.store import open_store
from quizzer.terminal.study import interval, rate_prompt

runner = CliRunner()
T0 = datetime(2026, 1, 5, 10, 0, tzinfo=timezone.utc)

HEADER = 'id: {deck}\ntitle: {deck}\nlanguage: zh\nsource: {{file: c.txt, sections: "1"}}\ncards:\n'


def deck(name: str, ids: list[str]) -> str:
    return HEADER.format(deck=name) + "".join(
        f'  - {{id: {i}, kind: qa, source: "1.{n}", question: 问{n}, answer: 答{n}, points: [点]}}\n'
        for n, i in enumerate(ids, 1))


CHOICE = '  - {id: c-one, kind: choice, source: "1.9", question: 选, options: [甲, 乙], answer: B, explanation: 乙}\n'


@pytest.fixture(autouse=True)
def config(tmp_path, monkeypatch):
    """This test's own config file, and no QUIZ_<KEY> from the developer's shell."""
    path = tmp_path / "cfg" / "config.toml"
    path.parent.mkdir()
    monkeypatch.setenv("QUIZ_CONFIG", str(path))
    for key in config_file.KEYS.values():
        monkeypatch.delenv(key.env, raising=False)
    return path


@pytest.fixture
def decks(deck_folder):
    return deck_folder(deck("mini", ["q-one", "q-two", "q-three"]))


def quiz(*args: str, input: str = "", now: datetime = T0, **env: str):
    return runner.invoke(app, list(args), input=input, env={"QUIZ_NOW": now.isoformat(), "COLUMNS": "200", **env})


def saved_lines(output: str) -> list[str]:
    return [line for line in output.splitlines() if line.startswith("saved ")]


def rows(output: str) -> dict[str, tuple[str, str]]:
    """`quiz config`'s table as {key: (value, source)}."""
    found = {}
    for line in output.splitlines():
        cells = re.split(r" {2,}", line.strip())
        if len(cells) in (4, 5) and (cells[0] in config_file.KEYS or cells[0].startswith("deck.")):  # 5: with what it does
            found[cells[0]] = (cells[1], cells[2])
    return found


# -- quiz config ---------------------------------------------------------------


def test_show_set_unset_with_sources(config):
    shown = quiz("config")
    assert shown.exit_code == 0, shown.output
    table = rows(shown.stdout)
    assert table["desired_retention"] == ("0.9", "default") and table["learning_steps"] == ("1m 10m", "default")
    assert table["day_start_hour"] == ("4", "default") and table["fuzz"] == ("on", "default")
    assert set(config_file.KEYS) <= set(table) and "(not written yet)" in shown.stdout

    said = {}
    for key, value in [("desired_retention", "0.85"), ("learning_steps", "30s, 5m 1h"), ("fuzz", "off"),
                       ("deck.ch08-bert.new_per_day", "5"), ("language", "EN")]:
        result = quiz("config", "set", key, value)
        assert result.exit_code == 0, result.output
        said[key] = result.stdout
    assert said["learning_steps"].startswith(f"learning_steps: 1m 10m → 30s 5m 1h (saved in {config})")
    assert said["deck.ch08-bert.new_per_day"].startswith("deck.ch08-bert.new_per_day: (not set) → 5 (saved in")
    assert config.read_text().splitlines() == [  # in the order they were set, under the header a new file gets
        f"# {config_file.HEADER}", "desired_retention = 0.85", 'learning_steps = "30s 5m 1h"', "fuzz = false",
        "deck.ch08-bert.new_per_day = 5", 'language = "en"']

    table = rows(quiz("config").stdout)
    assert table["desired_retention"] == ("0.85", "file") and table["fuzz"] == ("off", "file")
    assert table["deck.ch08-bert.new_per_day"] == ("5", "file") and table["new_per_day"] == ("20", "default")

    from_env = quiz("config", QUIZ_NEW_PER_DAY="7", QUIZ_DESIRED_RETENTION="0.8")
    table = rows(from_env.stdout)
    assert table["new_per_day"] == ("7", "environment") and table["desired_retention"] == ("0.8", "environment")
    narrow = quiz("config", QUIZ_NEW_PER_DAY="7", COLUMNS="60").stdout  # the source whole, not "environme…"
    assert rows(narrow)["new_per_day"] == ("7", "environment") and max(map(len, narrow.splitlines())) <= 60
    assert "the longest interval" not in narrow  # what each key does, only where it fits
    wide = quiz("config", COLUMNS="140").stdout
    assert "the longest interval, in days" in wide and "new cards per study day in this deck" in wide
    assert max(map(len, wide.splitlines())) <= 140

    as_json = quiz("config", "--json")
    import json

    data = json.loads(as_json.stdout)
    assert data["path"] == str(config) and data["exists"]
    assert data["settings"]["learning_steps"] == {"value": "30s 5m 1h", "source": "file", "allowed": 'durations, e.g. "1m 10m"'}
    assert data["settings"]["fuzz"]["value"] is False and data["settings"]["reviews_per_day"]["value"] == 200

    unset = quiz("config", "unset", "desired_retention")
    assert unset.exit_code == 0 and "desired_retention: 0.85 → 0.9 (the default; removed from" in unset.stdout
    assert rows(quiz("config").stdout)["desired_retention"] == ("0.9", "default")
    again = quiz("config", "unset", "desired_retention")
    assert again.exit_code == 0 and "is not set" in again.stdout
    assert "desired_retention" not in config.read_text() and "fuzz = false" in config.read_text()


def test_the_language_shown_is_the_one_in_use_and_where_it_comes_from(config):
    """QUIZ_LANG (the interface's own variable) shows as the environment; unset everywhere, the
    language shown is the one the interface chooses by itself (the locale's), not a fixed default."""
    def language(**env: str) -> tuple[str, str]:
        return rows(quiz("config", **env).stdout)["language"]

    assert language(QUIZ_LANG="zh") == ("zh", "环境变量")  # the run speaks the language it chose
    assert language(QUIZ_LANG="", LC_ALL="", LC_MESSAGES="", LANG="en_US.UTF-8") == ("en", "default")
    assert language(QUIZ_LANG="", LC_ALL="", LC_MESSAGES="", LANG="zh_CN.UTF-8") == ("zh", "默认")
    quiz("config", "set", "language", "zh")
    assert language(QUIZ_LANG="") == ("zh", "文件") and language(QUIZ_LANG="en") == ("en", "environment")
    assert language(QUIZ_LANG="zh_CN.UTF-8") == ("zh", "环境变量")  # a locale's name reads as its language
    wrong = quiz("config", QUIZ_LANG="fr")  # passed over in silence, where QUIZ_LANGUAGE=fr was an error
    assert wrong.exit_code == 2 and wrong.stderr.startswith("错误：QUIZ_LANG：应为 zh / en，而不是 'fr'")  # the file's zh


def test_setting_the_language_under_quiz_lang_says_what_the_file_now_holds_and_that_the_variable_wins(config):
    """Under QUIZ_LANG=zh, `config set language en` said `language: zh → zh`, and under QUIZ_LANG=en
    `config unset language` called en the default: both showed the variable's language, not the
    file's, and neither said that the variable wins."""
    locale = {"LC_ALL": "", "LC_MESSAGES": "", "LANG": "zh_CN.UTF-8"}  # the default: the locale's
    set_en = quiz("config", "set", "language", "en", QUIZ_LANG="zh", **locale)  # said in the language in use: zh
    assert set_en.exit_code == 0 and "language: zh → en（已保存到" in set_en.stdout
    assert "环境变量中设置了 QUIZ_LANG=zh：只要它还在，就优先于文件。" in set_en.stdout
    unset = quiz("config", "unset", "language", QUIZ_LANG="en", **locale)
    assert unset.exit_code == 0 and "language: en → zh (the default; removed from" in unset.stdout
    assert "QUIZ_LANG=en is set in the environment" in unset.stdout
    plain = quiz("config", "set", "language", "en", QUIZ_LANG="", **locale)
    assert "language: zh → en (saved in" in plain.stdout and "environment" not in plain.stdout


def test_a_new_language_is_confirmed_in_that_language(config):
    """`config set language en` said so in Chinese, the language it had just left, and `unset`
    back to Chinese said so in English."""
    locale = {"QUIZ_LANG": "", "LC_ALL": "", "LC_MESSAGES": "", "LANG": "zh_CN.UTF-8"}
    quiz("config", "set", "language", "zh", **locale)
    assert "language: zh → en (saved in" in quiz("config", "set", "language", "en", **locale).stdout
    assert "language: en → zh（默认值；已从" in quiz("config", "unset", "language", **locale).stdout


def test_the_library_reads_the_same_file(config):
    quiz("config", "set", "relearning_steps", "")
    quiz("config", "set", "maximum_interval", "365")
    loaded = config_file.load()
    assert loaded.relearning_steps == () and loaded.maximum_interval == 365
    assert loaded.source("maximum_interval") == "file" and loaded.source("fuzz") == "default"
    once = loaded.with_options(new_per_day=3, reviews_per_day=None)
    assert once.new_per_day == 3 and once.source("new_per_day") == "option"
    assert once.source("reviews_per_day") == "default" and config_file.load().new_per_day == 20
    scheduler = scheduler_for(loaded)
    assert scheduler.relearning_steps == () and scheduler.maximum_interval == 365 and scheduler.enable_fuzzing
    assert rows(quiz("config").stdout)["relearning_steps"] == ("(none)", "file")


def test_an_option_overrides_the_file_for_one_run(decks, config):
    quiz("config", "set", "new_per_day", "1")
    first = quiz("study", "--decks", str(decks), "--new-per-day", "2", input="\n4\n\n4\nq\n")
    assert first.exit_code == 0 and "0 done · 2 new · 0 learning · 0 due" in first.stdout and len(saved_lines(first.stdout)) == 2
    # the same study day, without the option: the file's 1 is used up (2 done), nothing new
    later = quiz("study", "--decks", str(decks), input="q\n", now=T0 + timedelta(hours=1))
    assert later.exit_code == 0 and later.stdout.startswith("Today's new cards are done (1 a day), and 1 more wait.")
    assert "new_per_day = 1" in config.read_text()
    # the next day: the file's one new card
    tomorrow = quiz("study", "--decks", str(decks), input="q\n", now=T0 + timedelta(days=1))
    assert "0 done · 1 new · 0 learning · 0 due" in tomorrow.stdout


def test_new_cards_held_by_a_decks_own_limit_are_said_to_be(deck_folder, config):
    """A deck's own new_per_day of 0: study said "Today's new cards are done (20 a day)" on a day
    no card was studied, and sent the learner to --new-per-day, which changed nothing."""
    folder = deck_folder(deck("mini", ["q-one", "q-two"]))
    deck_folder(deck("other", ["o-one"]), "other.yaml")
    config.write_text("[deck.mini]\nnew_per_day = 0\n")
    held = quiz("study", "--decks", str(folder), "--deck", "mini", "--new-per-day", "50", input="q\n")
    assert held.exit_code == 0 and held.stdout.startswith(
        "Today's new cards are done, mini by its own limit (0 a day), and 2 more wait."), held.stdout
    assert "`quiz config unset deck.ID.new_per_day` gives it the global one" in " ".join(held.stdout.split())
    other = quiz("study", "--decks", str(folder), input="q\n")  # the other deck's card is still there to study
    assert "0 done · 1 new · 0 learning · 0 due" in other.stdout


def test_a_hand_written_limit_for_a_deck_no_file_has_is_warned_of(decks, config):
    """`config set deck.nosuch.new_per_day 3` is refused, but the same line written by hand (a
    misspelt id) was read in silence and did nothing."""
    config.write_text("[deck.nosuch]\nnew_per_day = 3\n[deck.mini]\nnew_per_day = 1\n")
    result = quiz("stats", "--json", "--decks", str(decks))
    assert result.exit_code == 0
    assert result.stderr == (f"Warning: {config}: deck.nosuch.new_per_day names no deck in use, so it changes nothing "
                             "(`quiz decks` lists the deck ids)\n")


# -- bad values ------------------------------------------------------------------


@pytest.mark.parametrize("key,value,allowed", [
    ("desired_retention", "0.69", "a number from 0.70 to 0.99"),
    ("desired_retention", "1", "a number from 0.70 to 0.99"),
    ("desired_retention", "high", "a number from 0.70 to 0.99"),
    ("new_per_day", "-1", "a whole number from 0 to 9999"),
    ("new_per_day", "2.5", "a whole number from 0 to 9999"),
    ("reviews_per_day", "10000", "a whole number from 0 to 9999"),
    ("learning_steps", "1m 10x", "durations like \"1m 10m\" (units s, m, h, d; each from 1s to 30d"),
    ("learning_steps", "0m", "each from 1s to 30d"),
    ("relearning_steps", "31d", "each from 1s to 30d"),
    ("maximum_interval", "0", "a whole number from 1 to 36500"),
    ("maximum_interval", "36501", "a whole number from 1 to 36500"),
    ("day_start_hour", "24", "a whole number from 0 to 23"),
    ("day_start_hour", "-1", "a whole number from 0 to 23"),
    ("fuzz", "maybe", "on or off"),
    ("language", "fr", "zh / en"),
    ("deck.ch08-bert.reviews_per_day", "-5", "a whole number from 0 to 9999"),
])
def test_a_bad_value_is_refused_naming_the_key_and_its_range(config, key, value, allowed):
    for args in (("--", key, value), (key, value)):  # without --, -1 was "no such option: -1"
        result = quiz("config", "set", *args)
        assert result.exit_code == 2, result.output
        assert result.stderr.startswith(f"Error: {key}: must be ") and allowed in result.stderr
        assert not config.exists()  # nothing written


def test_an_unknown_key_is_refused(config):
    for key in ("colour", "deck.Ch08.new_per_day", "deck.ch08-bert.limit"):
        result = quiz("config", "set", key, "1")
        assert result.exit_code == 2 and result.stderr.startswith(f"Error: {key}: not a setting"), key
    assert "known: desired_retention, new_per_day" in quiz("config", "set", "colour", "1").stderr
    # the id is fine, the setting is not: the hint blamed the id
    assert "(a deck's settings are new_per_day, reviews_per_day)" in quiz("config", "set", "deck.ch08-bert.foo", "1").stderr
    assert "(deck ids are lowercase" in quiz("config", "set", "deck.Ch08.new_per_day", "1").stderr
    assert quiz("config", "unset", "colour").exit_code == 2  # no such setting, and not in the file
    assert not config.exists()


def test_a_deck_key_with_a_line_break_after_it_is_no_key(config):
    """It was taken, and written as `deck.ch08-bert."new_per_day\\n" = 5`, a limit nothing reads."""
    result = quiz("config", "set", "deck.ch08-bert.new_per_day\n", "5")
    assert result.exit_code == 2 and not config.exists(), result.output


def test_a_limit_for_a_deck_the_decks_do_not_have_is_refused(config):
    """`quiz config set deck.ch8-bert.new_per_day 5` (a typo) was saved, a limit nothing reads."""
    result = quiz("config", "set", "deck.ch8-bert.new_per_day", "5")
    assert result.exit_code == 2 and result.stderr.startswith("Error: no deck 'ch8-bert' (known: ch08-bert,")
    assert not config.exists()


@pytest.mark.parametrize("text,error", [
    ("desired_retention = 1.5\n", "Error: config.toml: desired_retention: must be a number from 0.70 to 0.99, not 1.5"),
    ("new_per_day = true\n", "Error: config.toml: new_per_day: must be a whole number from 0 to 9999, not true"),
    ('day_start_hour = "5am"\n', "Error: config.toml: day_start_hour: must be a whole number from 0 to 23"),
    ('[deck.ch08-bert]\nnew_per_day = 99999\n', "Error: config.toml: deck.ch08-bert.new_per_day: must be a whole number"),
    ('colour = "red"\n', "Error: config.toml: colour: not a setting"),
    ("new_per_day = = 3\n", "Error: config.toml:1:15: not valid TOML: Invalid value"),
    ("new_per_day = 3\nnew_per_day = 4\n", "Error: config.toml:2:16: not valid TOML: Cannot overwrite a value"),
    ("learning_steps = [1\n", "Error: config.toml: not valid TOML: Unclosed array at the end of the file"),
    ("new_per_day = 3 # caf\xe9\n", "Error: config.toml: not valid TOML: not UTF-8 text"),  # was exit 1
    ("a = " + "[" * 5000 + "]" * 5000 + "\n", "Error: config.toml: not valid TOML: nested too deeply"),  # was a "bug"
    ("a = " + "{b = " * 3000 + "1" + "}" * 3000 + "\n", "Error: config.toml: not valid TOML: nested too deeply"),
    # numbers past any range were "unexpected OverflowError" (exit 1), and `config unset` failed the same way
    ("new_per_day = " + "9" * 400 + "\n", "Error: config.toml: new_per_day: must be a whole number from 0 to 9999, not 1e400"),
    ('learning_steps = ["' + "9" * 400 + 'm"]\n', "Error: config.toml: learning_steps: must be durations"),
    ("new_per_day = " + "9" * 5000 + "\n", "Error: config.toml: not valid TOML: a number too long to read"),
])
def test_a_hand_edited_bad_file_is_an_error_everywhere_until_fixed(decks, config, text, error):
    config.write_bytes(text.encode("latin-1"))
    for args in (["config"], ["study", "--decks", str(decks)]):
        result = quiz(*args, input="q\n")
        assert result.exit_code == 2 and result.stderr.startswith(error), (args, result.output)
        assert str(config) in result.stderr  # where to correct it
    if "TOML" not in error:  # unsetting the bad key, as the error says, fixes the file
        bad_key = error.split(": ")[2]
        assert f"`quiz config unset {bad_key}`" in result.stderr
        assert quiz("config", "unset", bad_key).exit_code == 0
        assert quiz("config").exit_code == 0


def test_a_toml_error_is_in_the_interface_language_at_its_line_and_column(config):
    """tomllib's message was shown as it is: 不是有效的 TOML：Invalid value (at line 1, column 15)."""
    from quizzer.base import i18n

    config.write_text('new_per_day = = 3\nlanguage = "zh"\n', "utf-8")
    try:
        result = quiz("config", QUIZ_LANG="")  # the file's language, though the file is not TOML
    finally:
        i18n.use("en")
    assert result.exit_code == 2 and result.stderr.startswith("错误：config.toml:1:15：不是有效的 TOML：值无效（"), result.stderr


def test_set_and_unset_change_one_key_and_keep_the_rest_of_the_file(config):
    """They rewrote the file as flat lines: the learner's comments were lost and a table became
    dotted keys. Now the key set or removed is all that changes."""
    mine = ("# 我的设置：每天少一点新卡\nnew_per_day = 10  # 周末再加\n\n"
            "[deck.ch08-bert]\n# 这一章先慢一点\nnew_per_day = 5\nreviews_per_day = 50\n")
    config.write_text(mine, "utf-8")
    assert quiz("config", "set", "desired_retention", "0.85").exit_code == 0
    assert quiz("config", "set", "deck.ch08-bert.new_per_day", "3").exit_code == 0
    assert quiz("config", "unset", "deck.ch08-bert.reviews_per_day").exit_code == 0
    assert config.read_text("utf-8") == ("# 我的设置：每天少一点新卡\nnew_per_day = 10  # 周末再加\ndesired_retention = 0.85\n\n"
                                         "[deck.ch08-bert]\n# 这一章先慢一点\nnew_per_day = 3\n")
    table = rows(quiz("config").stdout)
    assert table["desired_retention"] == ("0.85", "file") and table["deck.ch08-bert.new_per_day"] == ("3", "file")
    assert "deck.ch08-bert.reviews_per_day" not in table  # a deck's own limit shows only while set


def test_a_key_that_cannot_go_beside_the_file_s_own_is_a_usage_error(config):
    """With `deck = 5` in the file, setting a deck's limit was an "unexpected KeyAlreadyPresent"."""
    config.write_text("deck = 5\n", "utf-8")
    result = quiz("config", "set", "deck.ch08-bert.new_per_day", "5")
    assert result.exit_code == 2 and result.stderr.startswith(
        "Error: config.toml: deck.ch08-bert.new_per_day cannot be written beside what the file holds at deck"), result.stderr
    assert "`quiz config unset deck`" in result.stderr and config.read_text("utf-8") == "deck = 5\n"
    assert quiz("config", "unset", "deck").exit_code == 0 and quiz("config", "set", "deck.ch08-bert.new_per_day", "5").exit_code == 0


def test_each_of_two_bad_keys_can_be_fixed_while_the_other_is_bad(config):
    """Setting or unsetting a key checked the file's other keys: with two bad ones, each command
    refused, naming the other. The keys not named are written back as they were."""
    config.write_text('colour = "red"\ndesired_retention = 1.5\nnew_per_day = true\n'
                      'learning_steps = ["2m", "15m"]\n', "utf-8")
    every = quiz("config").stderr.splitlines()  # each bad key at once: they came one fix at a time
    assert every[:3] == ["config.toml: colour: not a setting",
                         "config.toml: desired_retention: must be a number from 0.70 to 0.99, not 1.5",
                         "config.toml: new_per_day: must be a whole number from 0 to 9999, not true"], every
    assert every[3].startswith("Error: config.toml has 3 bad settings, listed above (correct them in "), every
    removed = quiz("config", "unset", "colour")
    assert removed.exit_code == 0 and removed.stdout.startswith("colour: removed from "), removed.output
    assert "(it is not a setting)" in removed.stdout and "colour" not in config.read_text("utf-8")
    changed = quiz("config", "set", "new_per_day", "5")  # its old value as the file held it, not "?"
    assert changed.exit_code == 0 and changed.stdout.startswith("new_per_day: true → 5 (saved in "), changed.output
    assert quiz("config").exit_code == 2  # desired_retention is still bad
    unset = quiz("config", "unset", "desired_retention")
    assert unset.exit_code == 0 and unset.stdout.startswith("desired_retention: 1.5 → 0.9 (the default; removed"), unset.output
    shown = rows(quiz("config").stdout)
    assert shown["new_per_day"] == ("5", "file") and shown["learning_steps"] == ("2m 15m", "file"), shown
    assert quiz("config", "unset", "colour").exit_code == 2  # neither in the file nor a setting


def test_config_set_writes_through_a_symlinked_file(config):
    """A dotfile manager links config.toml to its repository: `config set` replaced the link with a
    file, and the linked file kept the old value."""
    real = config.parent / "dotfiles.toml"
    real.write_text("new_per_day = 7\n", "utf-8")
    config.symlink_to(real.name)
    assert quiz("config", "set", "new_per_day", "9").exit_code == 0
    assert config.is_symlink() and "new_per_day = 9" in real.read_text("utf-8")
    assert rows(quiz("config").stdout)["new_per_day"] == ("9", "file")


def test_config_set_keeps_the_files_permissions(config):
    """A 0600 or 0444 config.toml came back 0644 after `config set`."""
    import stat

    config.write_text("new_per_day = 7\n", "utf-8")
    config.chmod(0o600)
    assert quiz("config", "set", "new_per_day", "9").exit_code == 0
    assert stat.S_IMODE(config.stat().st_mode) == 0o600 and "new_per_day = 9" in config.read_text("utf-8")


def test_a_config_that_is_no_regular_file_is_refused_not_read(config, monkeypatch):
    """A FIFO hung every command, /dev/zero filled the memory, and `config set` into /dev/null
    said "saved in /dev/null"."""
    import os

    fifo = config.parent / "fifo"
    os.mkfifo(fifo)
    for named in (fifo, config.parent, Path("/dev/zero")):
        monkeypatch.setenv("QUIZ_CONFIG", str(named))
        for args in (("config",), ("config", "set", "new_per_day", "7"), ("plan",)):
            result = quiz(*args)
            assert result.exit_code == 2 and f"Error: {named} is not a regular file" in result.stderr, result.output
    monkeypatch.setenv("QUIZ_CONFIG", os.devnull)  # a script's "no settings": the defaults
    assert rows(quiz("config").stdout)["new_per_day"] == ("20", "default")
    refused = quiz("config", "set", "new_per_day", "7")
    assert refused.exit_code == 2 and "/dev/null keeps nothing: the setting would be lost" in refused.stderr
    huge = config.parent / "huge.toml"
    huge.write_text("# " + "x" * 1_000_000 + "\n", "utf-8")
    monkeypatch.setenv("QUIZ_CONFIG", str(huge))
    assert "is larger than 1 MB" in (too_big := quiz("config")).stderr and too_big.exit_code == 2  # as any bad config.toml


def test_a_config_written_with_a_bom_is_read(config):
    config.write_bytes("\ufeffnew_per_day = 5\n".encode())
    assert rows(quiz("config").stdout)["new_per_day"] == ("5", "file")


def test_a_step_too_long_to_be_a_duration_is_refused_in_set_and_in_the_environment(config):
    """`config set learning_steps 999…9m` (400 digits) was "unexpected OverflowError"."""
    steps = "9" * 400 + "m"
    result = quiz("config", "set", "learning_steps", steps)
    assert result.exit_code == 2 and "learning_steps: must be durations" in result.stderr and steps not in result.stderr
    assert not config.exists()
    result = quiz("config", QUIZ_LEARNING_STEPS=steps)
    assert result.exit_code == 2 and result.stderr.startswith("Error: QUIZ_LEARNING_STEPS: learning_steps: must be")


def test_a_bad_environment_value_names_its_variable(config):
    result = quiz("config", QUIZ_DAY_START_HOUR="25")
    assert result.exit_code == 2 and "Error: QUIZ_DAY_START_HOUR: day_start_hour: must be a whole number from 0 to 23" in result.stderr


def test_hand_written_forms_are_read(config):
    config.write_text('fuzz = "off"\nlearning_steps = ["2m", "20m"]\n[deck.ch08-bert]\nreviews_per_day = 50\n', "utf-8")
    loaded = config_file.load()
    assert loaded.fuzz is False and loaded.learning_steps == (timedelta(minutes=2), timedelta(minutes=20))
    assert loaded.deck_reviews_per_day == {"ch08-bert": 50} and loaded.deck_new_per_day == {}


# -- the scheduler the settings build --------------------------------------------


def review_card_fsrs(retention: float) -> tuple[fsrs.Scheduler, fsrs.Card]:
    """A new card answered Easy at T0 (now in review), scheduled by fsrs directly without fuzz."""
    scheduler = fsrs.Scheduler(desired_retention=retention, enable_fuzzing=False)
    card, _ = scheduler.review_card(fsrs.Card(), fsrs.Rating.Easy, T0)
    return scheduler, card


def on_study_day(answered: datetime, fsrs_due: datetime) -> datetime:
    """Where a review interval of py-fsrs lands in quizzer (Anki's rule): the start (04:00, the
    tests' zone is UTC) of the study day that many whole days after the answer's."""
    days = (fsrs_due - answered) // timedelta(days=1)
    return datetime.combine(answered.date() + timedelta(days=days), datetime.min.time(), timezone.utc).replace(hour=4)


@pytest.mark.parametrize("retention", ["0.8", "0.95"])
def test_the_scheduler_uses_desired_retention(deck_folder, config, retention):
    folder = deck_folder(deck("one", ["q-one"]))
    quiz("config", "set", "fuzz", "off")
    quiz("config", "set", "desired_retention", retention)
    scheduler, direct = review_card_fsrs(float(retention))
    first = quiz("study", "--decks", str(folder), input="\n4\nq\n")
    days = (direct.due - T0) // timedelta(days=1)
    assert first.exit_code == 0 and saved_lines(first.stdout) == [f"saved q-one → Easy · due in {interval(timedelta(days=days))}"]
    stored = card_info(open_store(), "q-one", T0).memory
    assert stored.due == on_study_day(T0, direct.due) and stored.stability == pytest.approx(direct.stability)

    when = stored.due  # a Good on the card in review, the day it is due
    after = fsrs_by_study_days(scheduler, direct, fsrs.Rating.Good, when)  # 04:00 after 10:00: study days
    second = quiz("study", "--decks", str(folder), input="\n3\nq\n", now=when)
    days = (after.due - when) // timedelta(days=1)
    assert saved_lines(second.stdout) == [f"saved q-one → Good · due in {interval(timedelta(days=days))}"]
    stored = card_info(open_store(), "q-one", when).memory
    assert stored.due == on_study_day(when, after.due) and stored.stability == pytest.approx(after.stability)
    # and it is not what the default retention gives
    default, _ = fsrs.Scheduler(enable_fuzzing=False).review_card(direct, fsrs.Rating.Good, when)
    assert after.due != default.due


def test_day_start_hour_moves_the_study_day(decks, config):
    quiz("config", "set", "new_per_day", "1")
    first = quiz("study", "--decks", str(decks), input="\n4\nq\n")  # Easy: in review for days, not in learning
    assert len(saved_lines(first.stdout)) == 1
    night = T0.replace(day=6, hour=3)  # 03:00 the next morning
    still = quiz("study", "--decks", str(decks), input="q\n", now=night).stdout  # still the 5th: its one new card done
    assert still.startswith("Today's new cards are done (1 a day)")
    quiz("config", "set", "day_start_hour", "2")
    moved = quiz("study", "--decks", str(decks), input="q\n", now=night)
    assert "0 done · 1 new · 0 learning · 0 due" in moved.stdout  # a new study day began at 02:00: one more new card


def test_day_start_hour_sets_bury_until(decks, config):
    quiz("config", "set", "day_start_hour", "6")
    result = quiz("study", "--decks", str(decks), input="b\nq\n")
    assert result.exit_code == 0
    buried = [card_info(open_store(), cid, T0).buried_until for cid in ("q-one", "q-two", "q-three")]
    assert T0.replace(day=6, hour=6) in buried


def test_per_deck_new_per_day(deck_folder, config):
    deck_folder(deck("alpha", ["a-one", "a-two", "a-three"]), "alpha.yaml")
    folder = deck_folder(deck("beta", ["b-one", "b-two", "b-three"]), "beta.yaml")
    assert quiz("--decks", str(folder), "config", "set", "deck.alpha.new_per_day", "1").exit_code == 0
    quiz("config", "set", "new_per_day", "3")
    overview = json.loads(quiz("--json", "--decks", str(folder)).stdout)  # it said 3 for alpha, against its own 1
    assert {d["deck"]: d["new"] for d in overview["decks"]} == {"alpha": 1, "beta": 3} and overview["total"]["new"] == 3
    shown = quiz("study", "--decks", str(folder), input="\n4\n" * 3 + "q\n")
    assert "0 done · 3 new · 0 learning · 0 due" in shown.stdout
    done = quiz("study", "--decks", str(folder))  # it said only "Nothing is due now"
    assert done.stdout.startswith("Today's new cards are done (3 a day), and 3 more wait.")
    fresh = quiz("study", "--decks", str(folder), "--new", "0", now=T0 + timedelta(days=1))  # said "done (3 a day)"
    assert fresh.stdout.startswith("Nothing is due now, and --new 0 takes no new card (3 wait).")
    assert [line.split()[1] for line in saved_lines(shown.stdout)] == ["a-one", "b-one", "b-two"]  # alpha: one

    collection = open_collection(folder, None)
    loaded = config_file.load()
    later = T0 + timedelta(hours=1)
    assert build_queue(collection.store, later, new_per_day=loaded.new_per_day,
                       deck_new_per_day=loaded.deck_new_per_day) == []  # 3 a day in all, 3 done
    assert build_queue(collection.store, later, new_per_day=5, deck_new_per_day={"alpha": 1}) == ["b-three"]
    assert build_queue(collection.store, later, new_per_day=5) == ["a-two", "a-three"]  # without alpha's limit
    tomorrow = T0 + timedelta(days=1)
    assert build_queue(collection.store, tomorrow, new_per_day=3, deck_new_per_day={"alpha": 1}) == ["a-two", "b-three"]
    assert build_queue(collection.store, tomorrow, new_per_day=1, deck_new_per_day={"alpha": 1}) == ["a-two"]
    assert build_queue(collection.store, tomorrow, new_per_day=9, deck_new_per_day={"alpha": 0},
                       chosen=collection.card_filter(["alpha"])) == []


def test_a_decks_limit_still_counts_a_card_studied_today_then_suspended_or_buried(deck_folder):
    """The count of a deck's day read only the cards still studiable: suspending one of the two
    new cards studied under a limit of 2 let study introduce a third."""
    from quizzer.scheduling.answer import answer
    from quizzer.store.cards import set_flags

    folder = deck_folder(deck("alpha", ["a-one", "a-two", "a-three", "a-four"]), "alpha.yaml")
    collection = open_collection(folder, None)
    for card_id in ("a-one", "a-two"):
        answer(collection.store, card_id, 3, now=T0, duration_ms=None)
    later = T0 + timedelta(minutes=15)
    limits = dict(new_per_day=20, deck_new_per_day={"alpha": 2})
    assert [c for c in build_queue(collection.store, later, **limits) if c in ("a-three", "a-four")] == []
    set_flags(collection.store, "a-one", suspended=True)
    set_flags(collection.store, "a-two", buried_until=T0 + timedelta(days=1))
    assert build_queue(collection.store, later, **limits) == []


@pytest.fixture
def all_due(deck_folder):
    """Decks alpha (3 cards) and beta (2), every card answered Easy at T0: all due 60 days on."""
    from quizzer.scheduling.answer import answer

    deck_folder(deck("alpha", ["a-one", "a-two", "a-three"]), "alpha.yaml")
    folder = deck_folder(deck("beta", ["b-one", "b-two"]), "beta.yaml")
    collection = open_collection(folder, None)
    for card_id in collection.cards:
        answer(collection.store, card_id, 4, now=T0, duration_ms=None)
    return folder, collection, T0 + timedelta(days=60)


def test_a_new_card_set_aside_in_study_makes_room_for_the_next_as_in_anki(deck_folder, config):
    """With 2 new cards a day, burying the first left a session of one card, and `quiz` then
    offered one more new card: a card set aside is not studied, and the next takes its place.
    Undoing the bury takes the replacement back."""
    folder = deck_folder(deck("alpha", ["a-one", "a-two", "a-three", "a-four", "a-five"]), "alpha.yaml")
    quiz("config", "set", "new_per_day", "2")

    def studied(keys: str, now: datetime) -> set[str]:
        result = quiz("study", "--decks", str(folder), input=keys + "\n3\n" * 8 + "q\n", now=now)
        assert result.exit_code == 0, result.output
        return {line.split()[1] for line in saved_lines(result.stdout)}

    assert studied("b\n", T0) == {"a-two", "a-three"}  # a-one buried: a-three in its place
    assert json.loads(quiz("--json", "--decks", str(folder)).stdout)["total"]["new"] == 0  # the day's two, studied
    # the next day: a-one and a-four; suspending a-one brings a-five, undoing it takes a-five back
    assert studied("s\nu\n", T0 + timedelta(days=1)) == {"a-one", "a-four"}


def test_per_deck_reviews_per_day(all_due):
    from quizzer.scheduling.answer import answer

    _folder, collection, later = all_due
    everything = build_queue(collection.store, later, new_per_day=0)
    assert sorted(everything) == sorted(collection.cards)
    limited = build_queue(collection.store, later, new_per_day=0, deck_reviews_per_day={"alpha": 1})
    assert len(limited) == 3 and sum(c.startswith("a-") for c in limited) == 1
    first_alpha = next(c for c in everything if c.startswith("a-"))  # the lowest recall of alpha's
    assert limited == [c for c in everything if c.startswith("b-") or c == first_alpha]  # in the same order
    capped = build_queue(collection.store, later, new_per_day=0, reviews_per_day=2, deck_reviews_per_day={"alpha": 1})
    assert len(capped) == 2
    # a review done in alpha today counts against its limit
    answer(collection.store, first_alpha, 3, now=later, duration_ms=None)
    after = build_queue(collection.store, later, new_per_day=0, deck_reviews_per_day={"alpha": 1})
    assert not any(c.startswith("a-") for c in after) and sorted(after) == ["b-one", "b-two"]


def test_the_overview_counts_the_reviews_study_offers_within_the_limits(all_due, config):
    """`quiz` said 5 due while `quiz study` would review 2 of them (Anki's deck list caps the due
    count by the review limits, as it does the new one)."""
    folder, _collection, later = all_due

    def overview(*settings: tuple[str, str]) -> dict:
        for key, value in settings:
            assert quiz("--decks", str(folder), "config", "set", key, value).exit_code == 0
        return json.loads(quiz("--json", "--decks", str(folder), now=later).stdout)

    unlimited = overview()
    assert {d["deck"]: (d["due"], d["due_waiting"]) for d in unlimited["decks"]} == {"alpha": (3, 3), "beta": (2, 2)}
    assert (unlimited["total"]["due"], unlimited["total"]["due_waiting"]) == (5, 5)
    own = overview(("deck.alpha.reviews_per_day", "1"))
    assert {d["deck"]: d["due"] for d in own["decks"]} == {"alpha": 1, "beta": 2} and own["total"]["due"] == 3
    shown = quiz("--decks", str(folder), now=later).stdout  # the deck's limit caps it, not the global 200
    assert "due: what today's study reviews (200 reviews a day, alpha by its own limit; 5 due)" in shown
    capped = overview(("reviews_per_day", "2"))
    assert {d["deck"]: d["due"] for d in capped["decks"]} == {"alpha": 1, "beta": 2} and capped["total"]["due"] == 2
    studied = quiz("study", "--decks", str(folder), "--new", "0", input="\n3\n" * 5, now=later)
    assert len(saved_lines(studied.stdout)) == capped["total"]["due"]  # what it said study offers
    after = overview()
    assert after["total"]["due"] == 0 and after["total"]["due_waiting"] == 3  # the day's 2 are done
    shown = quiz("--decks", str(folder), now=later).stdout
    assert "due: what today's study reviews (2 reviews a day, alpha by its own limit; 3 due)" in shown
    assert quiz("--decks", str(folder), "config", "set", "deck.alpha.reviews_per_day", "5").exit_code == 0  # above the global 2
    shown = quiz("--decks", str(folder), now=later).stdout
    assert "due: what today's study reviews (2 reviews a day; 3 due)" in shown


# -- the rating buttons' intervals -------------------------------------------------


def fsrs_intervals(card: fsrs.Card, when: datetime, scheduler: fsrs.Scheduler) -> tuple[timedelta, ...]:
    return tuple(scheduler.review_card(card, rating, when)[0].due - when for rating in fsrs.Rating)


def session(collection, now: datetime, **settings) -> study.StudySession:
    queue = build_queue(collection.store, now, ahead=True)
    return study.StudySession(collection, queue, tick=lambda: 0.0,
                              settings=config_file.DEFAULTS.with_options(**settings))


def test_rating_preview_equals_fsrs_for_a_new_and_a_review_card(deck_folder, monkeypatch):
    collection = open_collection(deck_folder(deck("one", ["q-one"])), None)
    plain = fsrs.Scheduler(enable_fuzzing=False)
    monkeypatch.setenv("QUIZ_NOW", T0.isoformat())
    machine = session(collection, T0, fuzz="off")
    machine.start()
    [back] = machine.handle(study.Reveal())
    assert back.intervals == fsrs_intervals(fsrs.Card(), T0, plain)
    assert [interval(i) for i in back.intervals] == ["1m", "6m", "10m", "8d"]
    saved, _ = machine.handle(study.Rate(4))
    assert saved == study.Notice("saved", "q-one", 4) and saved.due_in == timedelta(days=8)

    _, direct = review_card_fsrs(0.9)  # the same card in fsrs, in review now
    when = direct.due + timedelta(days=3)  # overdue: recall has fallen below the retention
    monkeypatch.setenv("QUIZ_NOW", when.isoformat())
    machine = session(collection, when, fuzz="off")
    machine.start()
    [back] = machine.handle(study.Reveal())
    assert back.intervals == fsrs_intervals(direct, when, plain)
    # with other settings the buttons follow them
    steps = session(collection, when, relearning_steps="5m 1h", desired_retention="0.8", fuzz="off")
    steps.start()
    [back] = steps.handle(study.Reveal())
    other = fsrs.Scheduler(desired_retention=0.8, relearning_steps=(timedelta(minutes=5), timedelta(hours=1)),
                           enable_fuzzing=False)
    assert back.intervals == fsrs_intervals(direct, when, other) and back.intervals[0] == timedelta(minutes=5)


def test_a_practice_review_shows_the_unchanged_due(deck_folder, monkeypatch):
    collection = open_collection(deck_folder(deck("one", ["q-one"])), None)
    from quizzer.scheduling.answer import answer

    answer(collection.store, "q-one", 4, now=T0, duration_ms=None)
    due = card_info(collection.store, "q-one", T0).memory.due
    early = T0 + timedelta(days=1)
    monkeypatch.setenv("QUIZ_NOW", early.isoformat())
    machine = session(collection, early)  # --ahead: the card is not due for days
    machine.start()
    [back] = machine.handle(study.Reveal())
    whole_days = timedelta(days=(due.date() - early.date()).days)  # as Anki's buttons count: study days
    # Again relearns (the default relearning step, 10 minutes); the others keep the due
    assert due.hour == 4 and back.intervals == (timedelta(minutes=10),) + (whole_days,) * 3
    # one line says that the schedule stays, not the same wait after three buttons
    assert rate_prompt(back.intervals) == f"1 Again 10m · 2 Hard · 3 Good · 4 Easy · practice: still due in {whole_days.days}d"
    saved, _ = machine.handle(study.Rate(3))
    assert saved.due_in == whole_days and card_info(collection.store, "q-one", early).memory.due == due


def test_graded_feedback_shows_the_interval_its_rating_got(deck_folder, monkeypatch):
    collection = open_collection(deck_folder(deck("one", []) + CHOICE), None)
    monkeypatch.setenv("QUIZ_NOW", T0.isoformat())
    machine = session(collection, T0, fuzz="off")
    machine.start()
    feedback, saved, _ = machine.handle(study.Answer("B"))  # right and fast on a new card: Good, the next step
    assert feedback.rating == 3 and feedback.interval == saved.due_in == timedelta(minutes=10)
    assert card_info(collection.store, "c-one", T0).memory.due == T0 + timedelta(minutes=10)


def test_the_prompt_and_the_saved_line_through_the_cli(decks):
    quiz("config", "set", "fuzz", "off")
    result = quiz("study", "--decks", str(decks), "--limit", "1", input="\n3\nq\n")
    assert result.exit_code == 0
    assert "1 Again 1m · 2 Hard 6m · 3 Good 10m · 4 Easy 8d" in result.stdout.splitlines()
    assert saved_lines(result.stdout) == ["saved q-one → Good · due in 10m"]


def test_intervals_are_written_as_anki_writes_them():
    cases = {timedelta(seconds=30): "30s", timedelta(minutes=1): "1m", timedelta(minutes=5.5): "6m",
             timedelta(minutes=59): "59m", timedelta(minutes=90): "2h", timedelta(hours=23): "23h",
             timedelta(days=1): "1d", timedelta(days=29): "29d", timedelta(days=30): "1mo",
             timedelta(days=45): "1.5mo", timedelta(days=364): "12.1mo", timedelta(days=365): "1y",
             timedelta(days=548): "1.5y"}
    assert {span: interval(span) for span in cases} == cases
    assert rate_prompt() == "1 Again · 2 Hard · 3 Good · 4 Easy"


# -- what a retention change does -------------------------------------------------


def test_changing_desired_retention_says_how_the_due_counts_change(decks, config):
    """Before: the due dates as stored (at 23 due today `quiz` had said 0, from each card's interval
    under the old retention). After: each card rescheduled from its last review by the new one.
    The after counts had been the stored dates moved by the change between the old setting and
    the new, so they hung on what the setting had been, whatever the cards were scheduled with:
    0.7 → 0.95 said 4 due today, 0.9 → 0.95 said 0."""
    quiz("study", "--decks", str(decks), input="\n4\n" * 3 + "q\n")  # three cards in review from T0
    now = T0 + timedelta(days=5)
    end_today, end_week = datetime(2026, 1, 11, 4, tzinfo=timezone.utc), datetime(2026, 1, 17, 4, tzinfo=timezone.utc)
    store = open_store()
    try:
        stored = [card_info(store, card_id, now).memory.due for card_id in ("q-one", "q-two", "q-three")]
    finally:
        store.close()
    assert all(due is not None for due in stored)

    def counts(dues: list) -> tuple[int, int]:
        return sum(due < end_today for due in dues), sum(due < end_week for due in dues)

    def rescheduled(retention: float) -> list:  # every card: Easy at T0 from new, so one interval each
        return [on_study_day(T0, review_card_fsrs(retention)[1].due)] * len(stored)

    for old, new in ((0.9, 0.99), (0.99, 0.9), (0.9, 0.8), (0.8, 0.95)):
        result = quiz("config", "set", "desired_retention", str(new), now=now)
        (a, b), (c, d) = counts(stored), counts(rescheduled(new))
        assert result.exit_code == 0, result.output
        assert f"due today: {a} → {c}; next 7 days: {b} → {d}" in result.stdout
    assert counts(stored) != counts(rescheduled(0.95))  # shown to change
    assert "due today" not in quiz("config", "set", "desired_retention", "0.95", now=now).stdout  # no change


def test_no_due_counts_without_a_database(config, tmp_path):
    result = quiz("--db", str(tmp_path / "none.db"), "config", "set", "desired_retention", "0.85")
    assert result.exit_code == 0 and "due today" not in result.stdout and not (tmp_path / "none.db").exists()


@pytest.mark.parametrize("language", ["en", "zh"])
def test_a_deck_s_key_stays_whole_at_60_columns_and_leaves_room_for_its_value(decks, config, language):
    """`quiz config` at 60 columns kept deck.ID.reviews_per_day whole, and the value and allowed
    columns of every row shrank to nothing; then it folded `deck.ch08-` / `bert.new_per_day`, the
    key a learner types back to `config unset`: the table's borders took the room."""
    from quizzer.base import i18n

    assert quiz("--decks", str(decks), "config", "set", "deck.mini.reviews_per_day", "30").exit_code == 0
    assert quiz("config", "set", "deck.ch08-bert.new_per_day", "30").exit_code == 0  # a bundled deck's
    i18n.use(language)
    try:
        shown = quiz("config", COLUMNS="60", QUIZ_NEW_PER_DAY="7").stdout  # "environment": the widest source
        file, allowed = i18n._("file"), i18n._("0-9999")
    finally:
        i18n.use("en")
    lines = shown.splitlines()
    assert all(cell_len(line) <= 60 for line in lines), shown
    for key in ("deck.mini.reviews_per_day", "deck.ch08-bert.new_per_day"):
        [deck_row] = [line for line in lines if "deck." in line and key in line]
        assert re.search(rf"^{re.escape(key)} +30 +{file} +{allowed}", deck_row), shown
    retention = next(line for line in lines if "desired_retention" in line)  # the other keys stay whole
    assert "0.9 " in retention and "0.70-0.99" in retention, shown


@pytest.mark.parametrize("args", [["study"], ["stats"], ["exam", "--history"], []])
def test_a_command_opens_the_config_file_once(config, decks, monkeypatch, args):
    """The language, the settings and the collection's learner all come from one reading."""
    import builtins

    config.write_text('language = "en"\nnew_per_day = 3\n', "utf-8")
    opened: list[str] = []
    plain_open = builtins.open

    def counting_open(file, *rest, **options):
        if isinstance(file, (str, Path)) and Path(file) == config:
            opened.append(str(file))
        return plain_open(file, *rest, **options)

    monkeypatch.setattr(builtins, "open", counting_open)
    result = quiz("--decks", str(decks), *args, QUIZ_LANG="")
    assert result.exit_code == 0, result.output
    assert len(opened) == 1
