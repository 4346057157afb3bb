"""The CLI surface: global options, --version and -h, unknown names, exit codes, the boundary."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from importlib.metadata import version

import pytest
from typer.testing import CliRunner

from quizzer.base import i18n
from quizzer.cli import app, main

runner = CliRunner()

DECK = """\
id: tiny
title: Tiny
language: zh
source: {file: course.txt, sections: "1"}
cards:
  - {id: t-one, kind: qa, source: "1.1", tags: [basics], question: 问题, answer: 答案, points: [要点]}
"""


def test_version_and_short_help():
    assert runner.invoke(app, ["--version"]).stdout.strip() == f"quiz {version('quizzer')}"
    for args in (["-h"], ["study", "-h"], ["backup", "-h"]):
        result = runner.invoke(app, args)
        assert result.exit_code == 0 and "Usage:" in result.stdout, args


def test_help_lists_the_daily_commands_first_and_every_command_once():
    text = runner.invoke(app, ["--help"], env={"COLUMNS": "200"}).stdout
    # a command's name at the margin; a summary wrapped in its column goes on under it
    listed = [line.split()[0] for line in text.split("Commands:")[1].splitlines() if re.match(r"  \S", line)]
    assert listed[:4] == ["study", "exam", "mistakes", "stats"]  # study came 14th, after check and lint
    assert sorted(listed) == sorted(set(listed)) and {"lint", "check", "history", "backup"} <= set(listed)


def test_help_metavars_read_as_words():
    text = runner.invoke(app, ["study", "--help"], env={"COLUMNS": "200"}).stdout
    assert "--kind KIND" in text and "qa, choice, mistake, numeric, cloze" in text and "<list" not in text


def test_help_states_ranges_and_defaults_as_a_person_writes_them():
    """`-h` printed `[0<=x<=9223372036854775807]` under --seed and `[default: 30.0]` minutes."""
    for args in (["exam", "-h"], ["show", "-h"], ["generate", "-h"]):
        text = " ".join(runner.invoke(app, args, env={"COLUMNS": "200"}).stdout.split())  # as one line
        assert "--seed N" in text and "at least 0]" in text and "x>=" not in text, args
        assert "9223372036854775807" not in text and "<int range>" not in text, args
    text = " ".join(runner.invoke(app, ["exam", "-h"], env={"COLUMNS": "200"}).stdout.split())
    assert "[default: 30]" in text and "30.0" not in text and "[default: 15; at least 1]" in text
    assert "[0 to 9999]" in " ".join(runner.invoke(app, ["study", "-h"], env={"COLUMNS": "200"}).stdout.split())


@pytest.mark.parametrize("args", [["show", "-h"], ["generate", "-h"], ["lint", "-h"], ["history", "import", "-h"],
                                  ["import", "chapter", "-h"], ["backup", "restore", "-h"], ["config", "set", "-h"]])
def test_arguments_are_named_as_click_names_them(args):
    """typer wrote `quiz show [OPTIONS] {ID}`, `[[CHECKER]]`, `[[PATH]...]...`, and each
    argument's Python type after its name (`ID <str>`, `FILE <Path>`)."""
    text = runner.invoke(app, args, env={"COLUMNS": "200"}).stdout
    assert text.startswith("Usage: root ") and not re.search(r"[{}]|<(str|Path|list)|\[\[|\]\.\.\.\]", text), text


def test_help_notes_are_in_chinese_in_the_chinese_interface():
    """The notes after an option's help read `[默认：15; x>=1]`: typer's range and separator."""
    try:
        exam = "".join(runner.invoke(app, ["exam", "-h"], env={"COLUMNS": "200", "QUIZ_LANG": "zh"}).stdout.split())
        study = "".join(runner.invoke(app, ["study", "-h"], env={"COLUMNS": "200", "QUIZ_LANG": "zh"}).stdout.split())
    finally:
        i18n.use("en")
    assert "[默认：15；至少1]" in exam and "[至少0]" in exam and "[0到9999]" in study
    assert not re.search(r"x[<>]=|;", exam + study)


@pytest.mark.parametrize("args", [["exam", "--seed", "9223372036854775808"], ["show", "x", "--seed", "9223372036854775808"],
                                  ["generate", "attention_flops", "--seed", "9223372036854775808"]])
def test_a_seed_past_what_the_database_holds_is_a_usage_error_naming_the_bound(args, tmp_path):
    result = runner.invoke(app, [*args, "--db", str(tmp_path / "q.db")] if args[0] != "generate" else args)
    assert result.exit_code == 2, result.output
    assert "Invalid value for '--seed'" in result.stderr and "9223372036854775807" in result.stderr


@pytest.mark.parametrize("typed", ["tiny\u200b", "tiny\u200e", "tiny\ufeff", "ti\u2028ny", "tiny\u2060"])
def test_an_unknown_name_with_an_invisible_character_shows_it(typed, deck_folder):
    """`--deck 'tiny<U+200B>'` said "no deck 'tiny' (known: tiny)": the name the learner pasted
    looked like the known one, on one line or broken by a line separator."""
    result = runner.invoke(app, ["study", "--decks", str(deck_folder(DECK)), "--deck", typed])
    assert result.exit_code == 2
    shown = result.stderr.split("Error: no deck ")[1].split(" (known")[0]
    assert shown == "'" + typed.encode("unicode_escape").decode("ascii") + "'", shown


def test_global_decks_and_db_options_reach_every_command(deck_folder, tmp_path):
    folder = deck_folder(DECK)
    listed = runner.invoke(app, ["--decks", str(folder), "decks"], env={"COLUMNS": "120"})
    assert listed.exit_code == 0 and "tiny" in listed.stdout and "ch08-bert" not in listed.stdout
    db = tmp_path / "other.db"
    studied = runner.invoke(app, ["--decks", str(folder), "--db", str(db), "study"], input="\n3\nq\n")
    assert studied.exit_code == 0 and "saved t-one" in studied.stdout and db.exists()
    assert runner.invoke(app, ["--db", str(db), "check"]).stdout.strip() == "ok"
    # a command's own option wins over the global one
    own = runner.invoke(app, ["--decks", str(tmp_path / "nowhere"), "decks", "--decks", str(folder)])
    assert own.exit_code == 0 and "tiny" in own.stdout


def test_unknown_deck_tag_or_kind_is_an_error_naming_the_known_ones(deck_folder):
    folder = deck_folder(DECK)
    deck = runner.invoke(app, ["study", "--decks", str(folder), "--deck", "nope"])
    assert deck.exit_code == 2 and "Error: no deck 'nope' (known: tiny)" in deck.stderr
    tag = runner.invoke(app, ["exam", "--decks", str(folder), "--tag", "nope"])
    assert tag.exit_code == 2 and "Error: no tag 'nope'" in tag.stderr and "basics" in tag.stderr
    kind = runner.invoke(app, ["study", "--decks", str(folder), "--kind", "essay"])
    assert kind.exit_code == 2 and "Invalid value" in kind.output


def test_an_unknown_card_is_one_line_and_exit_1(deck_folder):
    result = runner.invoke(app, ["card", "nope", "--decks", str(deck_folder(DECK))])
    assert result.exit_code == 1 and result.stderr.strip().splitlines() == [
        "Error: no card 'nope' (`quiz cards` lists the cards; card ids are in the deck files)"]


def test_deck_problems_list_every_problem_then_one_error_line(deck_folder):
    folder = deck_folder(DECK.replace("kind: qa", "kind: essay"))
    result = runner.invoke(app, ["study", "--decks", str(folder)])
    lines = result.stderr.strip().splitlines()
    assert result.exit_code == 1 and lines[0].endswith("kind must be one of qa, choice, mistake, numeric, cloze, not 'essay'")
    assert lines[-1].startswith("Error: the decks have 1 problem, listed above") and "quiz lint" in lines[-1]


@pytest.mark.slow
def test_quiz_debug_lets_the_traceback_through(deck_folder):
    env = {**os.environ, "QUIZ_DEBUG": "1", "QUIZ_DECKS": str(deck_folder(DECK))}
    result = subprocess.run([sys.executable, "-m", "quizzer", "card", "nope"], capture_output=True, text=True, env=env)
    assert result.returncode == 1 and "Traceback" in result.stderr and "CardNotFound" in result.stderr


@pytest.mark.slow
def test_ctrl_c_in_study_shows_the_summary_and_exits_130(deck_folder):
    env = {**os.environ, "QUIZ_DECKS": str(deck_folder(DECK))}
    proc = subprocess.Popen([sys.executable, "-m", "quizzer", "study"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))  # a runner started with & ignores Ctrl-C
    assert proc.stdout is not None
    for line in proc.stdout:
        if "show answer" in line:
            break
    time.sleep(0.2)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130 and "Reviewed 0" in out
    assert "Interrupted: every answer so far is saved, nothing half-written." in err and "Traceback" not in err


@pytest.mark.slow
def test_a_run_loads_only_the_command_it_calls():
    """The root group imports a command's module when that command runs (``COMMANDS``), not every
    command's: ``quiz decks`` loads the decks command and not study's."""
    probe = ("import sys; from quizzer.cli import main; sys.argv = ['quiz', 'decks', '--json']\n"
             "try:\n    main()\nexcept SystemExit:\n    pass\n"
             "print(' '.join(m for m in sys.modules if m.startswith('quizzer.cli.')), file=sys.stderr)")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "QUIZ_LANG": "en"})
    loaded = set(done.stderr.split())
    assert "quizzer.cli.decks" in loaded and not loaded & {"quizzer.cli.study", "quizzer.cli.exam", "quizzer.cli.config"}


@pytest.mark.slow
@pytest.mark.parametrize("args", [["history", "export", "-"], ["cards", "--json"], []])
def test_a_closed_standard_output_is_a_usage_error(args, tmp_path):
    """`quiz history export - >&-` was a TypeError traceback, and `quiz cards --json >&-` an AttributeError."""
    result = subprocess.run([sys.executable, "-m", "quizzer", *args], stderr=subprocess.PIPE, text=True, timeout=120,
                            preexec_fn=lambda: os.close(1), env={**os.environ, "QUIZ_DB": str(tmp_path / "q.db"),
                                                                 "QUIZ_CONFIG": str(tmp_path / "c.toml"), "QUIZ_LANG": "en"})
    assert (result.returncode, result.stderr) == (2, "Error: standard output is closed: there is nowhere to write\n")
    assert not (tmp_path / "q.db").exists()  # refused before anything is made


@pytest.mark.slow
@pytest.mark.parametrize("args", [["cards"], ["cards", "--json"], ["history", "export", "-"], ["--help"], ["--version"]])
def test_a_reader_that_went_away_ends_the_command_quietly_with_the_sigpipe_code(args, tmp_path):
    """`quiz history export - | head -1` said "unexpected BrokenPipeError ... `quiz check` finds a
    damaged database", and rich's tables ended with a silent exit 1."""
    env = {**os.environ, "QUIZ_DB": str(tmp_path / "q.db"), "QUIZ_CONFIG": str(tmp_path / "c.toml"), "QUIZ_LANG": "en"}
    proc = subprocess.Popen([sys.executable, "-m", "quizzer", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # before the program writes its first line
    err = proc.stderr.read()
    assert (proc.wait(timeout=120), err) == (141, "")


@pytest.mark.slow
@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full on this system")
@pytest.mark.parametrize("args", [["decks"], ["cards"], ["cards", "--json"], ["schema"], ["export", "markdown"],
                                  ["history", "export", "-"], ["--help"], ["study", "-h"], ["--version"]])
def test_standard_output_on_a_full_disk_is_one_error_line(args, tmp_path):
    """`quiz decks >/dev/full` said "unexpected OSError ... this is a bug" and Python's "Exception
    ignored" lines, exit 120; `quiz --help >/dev/full` was a traceback."""
    env = {**os.environ, "QUIZ_DB": str(tmp_path / "q.db"), "QUIZ_CONFIG": str(tmp_path / "c.toml"), "QUIZ_LANG": "en"}
    with open("/dev/full", "w") as full:
        result = subprocess.run([sys.executable, "-m", "quizzer", *args], stdout=full, stderr=subprocess.PIPE,
                                text=True, timeout=120, env=env)
    assert (result.returncode, result.stderr) == (1, "Error: cannot write standard output: no space left on the disk\n")


@pytest.mark.slow
@pytest.mark.parametrize("unbuffered, out", [("1", []), (None, []), (None, ["--out", "/dev/stdout"])])
def test_a_reader_that_leaves_after_the_first_bytes_of_a_long_output_gives_the_sigpipe_code(tmp_path, unbuffered, out):
    """`quiz export markdown | (sleep 2; head -c 10)` ended 0 under PYTHONUNBUFFERED: the rest of
    the sheet was dropped after a short write, and scripts could not tell the output was cut."""
    env = {**os.environ, "QUIZ_DB": str(tmp_path / "q.db"), "QUIZ_CONFIG": str(tmp_path / "c.toml"), "QUIZ_LANG": "en"}
    env.pop("PYTHONUNBUFFERED", None)
    if unbuffered:
        env["PYTHONUNBUFFERED"] = unbuffered
    proc = subprocess.Popen([sys.executable, "-m", "quizzer", "export", "markdown", *out], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env)  # the bundled decks' sheet: more than a pipe holds
    assert proc.stdout is not None and proc.stderr is not None
    assert len(proc.stdout.read(10)) == 10
    proc.stdout.close()
    err = proc.stderr.read()
    assert (proc.wait(timeout=120), err) == (141, b"")


@pytest.mark.slow
def test_the_program_exits_with_every_line_written_and_its_own_exit_code(tmp_path):
    """``run`` skips the interpreter's teardown: what the command wrote must still all arrive, the
    database be closed, and each way out keep its code."""
    env = {**os.environ, "QUIZ_DB": str(tmp_path / "q.db"), "QUIZ_CONFIG": str(tmp_path / "c.toml"), "QUIZ_LANG": "en"}

    def quiz(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "quizzer", *args], capture_output=True, text=True, env=env, timeout=120)

    listed = quiz("cards", "--json")  # the bundled decks: far more than a pipe's buffer
    assert listed.returncode == 0 and len(listed.stdout) > 65536
    # the database was closed: its -wal folded back, so a copy of q.db alone holds everything
    assert (tmp_path / "q.db").exists() and not (tmp_path / "q.db-wal").exists()
    assert len(json.loads(listed.stdout)) == sum(deck["total"] for deck in json.loads(quiz("decks", "--json").stdout))
    assert (quiz("card", "nope").returncode, quiz("--nope").returncode, quiz("--version").returncode) == (1, 2, 0)


def test_main_lists_and_suggests_every_command(monkeypatch, capsys):
    for args, code in ((["--help"], 0), (["stat"], 2), (["decks", "--json"], 0)):
        monkeypatch.setattr(sys, "argv", ["quiz", *args])
        try:
            main()
        except SystemExit as done:
            assert done.code == code, args
    out, err = capsys.readouterr()
    assert all(f"  {name} " in out for name in ("study", "stats", "history", "config", "class"))
    assert "No such command 'stat'. Did you mean 'stats'?" in err


@pytest.mark.parametrize("args", [["show", "\x1b[31mx\a\ry"], ["config", "set", "k\a\r", "5"]])
def test_an_error_quoting_what_was_typed_writes_its_control_characters_as_escapes(args, tmp_path):
    """The bell and carriage return reached the terminal raw, and click dropped the escape sequence,
    so the message named another id than the one given."""
    result = runner.invoke(app, args, env={"QUIZ_CONFIG": str(tmp_path / "config.toml")})
    assert result.exit_code in (1, 2) and result.stderr.startswith("Error: ")
    assert not any(char in result.stderr for char in "\x1b\a\r") and "\\x07\\r" in result.stderr


@pytest.mark.slow
@pytest.mark.parametrize("args, message", [
    (["exam", "--minutes", "x"], "Error: Invalid value for '--minutes': "),
    (["exam", "--nope"], "Error: No such option: --nope"),
    (["nosuch"], "Error: No such command 'nosuch'."),
    (["history", "import"], "Error: Missing argument 'FILE'."),
    (["cards", "--state", "bogus"], "Error: Invalid value for '--state': 'bogus' is not one of 'new', "),
    # the parser's own errors named `quiz -h`, not the command whose option it was
    (["history", "export", "--since"], "Error: Option '--since' requires an argument."),
    (["study", "--limit"], "Error: Option '--limit' requires an argument."),
])
def test_a_usage_error_is_one_line_naming_the_help_to_read(args, message, tmp_path):
    """click printed four lines (the usage, "Try 'quiz exam -h' for help.", a blank, the error);
    the README promises one line on stderr, as every other error."""
    result = subprocess.run([sys.executable, "-m", "quizzer", *args], capture_output=True, text=True,
                            env={**os.environ, "QUIZ_DB": str(tmp_path / "q.db"), "QUIZ_LANG": "en"})
    assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
    command = "quiz" if args == ["nosuch"] else " ".join(["quiz", *[arg for arg in args[:2] if arg.isalpha()]])
    assert result.stderr.startswith(message) and result.stderr.endswith(f" (`{command} -h` for help)\n"), result.stderr


@pytest.mark.slow
def test_tab_completion_offers_commands_and_an_option_s_choices(tmp_path):
    """The README's `quiz --install-completion`: what the shell asks, quiz answers."""
    def complete(words: str, index: int) -> list[str]:
        env = {**{k: v for k, v in os.environ.items() if k != "QUIZ_DECKS"}, "_QUIZ_COMPLETE": "complete_bash",
               "COMP_WORDS": words, "COMP_CWORD": str(index), "QUIZ_DB": str(tmp_path / "q.db")}
        program = "import sys; sys.argv[0] = 'quiz'; from quizzer.cli import run; run()"  # as the script runs
        done = subprocess.run([sys.executable, "-c", program], env=env, capture_output=True, text=True, timeout=120)
        return done.stdout.split()

    assert complete("quiz st", 1) == ["study", "stats"]
    assert complete("quiz cards --state ", 3) == ["new", "learning", "review", "due", "suspended", "buried", "leech", "mistake"]
    assert complete("quiz study --deck ", 3) == ["ch08-bert", "day12-bert-gpt", "interview-numbers"]  # the bundled decks
    assert complete("quiz stats --deck da", 3) == ["day12-bert-gpt"]
    folder = tmp_path / "decks"  # a broken deck beside a good one: the good one is still offered
    folder.mkdir()
    (folder / "good.yaml").write_text(DECK, "utf-8")
    (folder / "broken.yaml").write_text("id: broken\n", "utf-8")
    assert complete(f"quiz study --decks {folder} --deck ", 5) == ["tiny"]


def test_a_huge_terminal_width_is_capped():
    """COLUMNS=99999999 made `quiz show ID` 2 MB of padding a card, and took minutes."""
    from quizzer.terminal.render import WIDEST

    result = runner.invoke(app, ["show", "bert-vs-gpt-core"], env={"COLUMNS": "99999999"})
    assert result.exit_code == 0, result.output
    assert max(len(line) for line in result.stdout.splitlines()) == WIDEST  # the panel takes the whole width


@pytest.mark.parametrize("columns, width", [("0", 80), ("-5", 80), ("3", 20)])
def test_a_width_too_small_to_draw_in_is_taken_as_one_that_draws(columns, width):
    """COLUMNS=0 printed nothing, exit 0: `quiz cards`, `decks`, `show`, and on a pipe even the
    `saved ID → RATING` line a script reads, while the review was saved."""
    result = runner.invoke(app, ["cards", "-n", "3"], env={"COLUMNS": columns})
    assert result.exit_code == 0 and max(map(len, result.stdout.splitlines())) == width, result.stdout
    studied = runner.invoke(app, ["study", "--kind", "qa"], input="\n3\nq\n", env={"COLUMNS": columns})
    assert any(line.startswith("saved ") for line in studied.stdout.splitlines()), studied.stdout


@pytest.mark.slow
def test_messages_and_errors_wrap_at_words_on_a_terminal(tmp_path):
    """On a terminal of 80 columns the terminal's own wrap cut `0.8` / `5`, `quiz bac` / `kup
    restore` and `'re` / `view'`: messages and error lines wrap as the screen does. On a pipe they
    stay one line each (a script reads them)."""
    from conftest import run_in_terminal

    from quizzer.base import i18n

    env = {"COLUMNS": "60", "QUIZ_LANG": "zh", "QUIZ_NOW": "2026-01-05T10:00"}
    assert run_in_terminal(["stats"], env, [])[0] == 0  # a database with the bundled decks
    code, screen = run_in_terminal(["config", "set", "desired_retention", "0.85"], env, [])
    lines = [line.rstrip() for line in screen.splitlines()]
    assert code == 0 and all(len(line) <= 60 for line in lines) and "0.85" in screen, screen
    assert any(line.startswith("今天到期") for line in lines) and not any(line.endswith("0.8") for line in lines)
    code, screen = run_in_terminal(["cards", "--state", "bogus"], {**env, "QUIZ_LANG": "en"}, [])
    error = [line.rstrip() for line in screen.splitlines() if line.strip()]
    assert code == 2 and len(error) > 1 and all(len(line) <= 60 for line in error), screen
    assert "'review'" in screen and "`quiz cards -h`" in screen  # words and commands whole
    i18n.use("en")
    piped = runner.invoke(app, ["cards", "--state", "bogus"], env={"COLUMNS": "60"})
    assert piped.exit_code == 2 and piped.stderr.count("\n") == 1  # one line


@pytest.mark.slow
def test_a_time_zone_python_cannot_use_is_a_usage_error():
    """TZ='XXX+99:99' (99 hours off UTC) failed every command with "unexpected ValueError"; with
    QUIZ_NOW set, it said QUIZ_NOW was not between 1970 and 8900."""
    import os
    import subprocess
    import sys

    for pinned in ({}, {"QUIZ_NOW": "2026-01-06T10:00"}):
        done = subprocess.run([sys.executable, "-m", "quizzer", "stats"], capture_output=True, text=True,
                              env={**os.environ, "TZ": "XXX+99:99", "QUIZ_LANG": "en", **pinned})
        assert done.returncode == 2 and done.stderr.startswith("Error: TZ='XXX+99:99' is not a time zone"), done.stderr


def test_a_usage_error_of_a_command_in_a_group_points_at_that_command_s_help(tmp_path):
    """`quiz config set new_per_day -1` pointed at `quiz config -h`, where click's own errors for the
    same command point at `quiz config set -h`."""
    ours = runner.invoke(app, ["config", "set", "new_per_day", "-1"], env={"QUIZ_CONFIG": str(tmp_path / "c.toml")})
    clicks = runner.invoke(app, ["config", "set", "new_per_day"], env={"QUIZ_CONFIG": str(tmp_path / "c.toml")})
    assert ours.exit_code == clicks.exit_code == 2
    assert ours.stderr.endswith("(`quiz config set -h` for help)\n") and clicks.stderr.endswith("(`quiz config set -h` for help)\n")


def test_json_before_a_command_says_where_it_goes():
    """`quiz --json cards` said `--json before a command is the overview's`, while `--help` listed
    --json as if for every command."""
    result = runner.invoke(app, ["--json", "cards"])
    assert result.exit_code == 2 and result.stderr.startswith("Error: --json goes after the command: quiz cards --json")
    help_text = " ".join(runner.invoke(app, ["--help"], env={"COLUMNS": "200"}).stdout.split())
    assert "--json Print today's numbers as JSON (a command's own --json goes after it" in help_text
