"""Deck files as a hostile pull request could write them: every one is a positioned problem
(`path:line:column: message`, exit 1), never a crash, a hang or runaway memory, in `quiz lint`
and in loading for study (`quiz decks`, `quiz study`: the problems, then `Error:` last)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from quizzer.cli import app

runner = CliRunner()

DECK = """\
id: hostile
title: 测试
language: zh
source:
  file: course.txt
  sections: "1"
cards:
  - id: qa-one
    kind: qa
    source: "1.1"
    question: 什么是 BERT？
    answer: 一个 Encoder-only 模型。
    points: [Encoder-only]
"""
QUESTION_LINE = 11


def folder_with(tmp_path: Path, text: str | None = DECK, name: str = "deck.yaml") -> Path:
    folder = tmp_path / "decks"
    folder.mkdir(exist_ok=True)
    if text is not None:
        (folder / name).write_text(text, "utf-8")
    return folder


def cli(*args: str) -> tuple[int, list[str], list[str]]:
    """Exit code, stdout lines and stderr lines of `quiz ARGS`, which must not have crashed."""
    result = runner.invoke(app, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert "Traceback" not in result.output
    return result.exit_code, result.stdout.splitlines(), result.stderr.splitlines()


def process(*args: str, timeout: float, memory: int | None = None) -> tuple[int, list[str], list[str]]:
    """`python -m quizzer ARGS` in a child process, under a timeout and an address-space limit."""

    def limit() -> None:
        if memory is not None:
            import resource  # POSIX, as are the files these tests make

            resource.setrlimit(resource.RLIMIT_AS, (memory, memory))

    try:
        done = subprocess.run([sys.executable, "-m", "quizzer", *args], check=False, capture_output=True, text=True,
                              timeout=timeout, preexec_fn=limit, env={**os.environ, "COLUMNS": "200"})
    except subprocess.TimeoutExpired:
        pytest.fail(f"`quiz {' '.join(args)}` still running after {timeout} s")
    assert "Traceback" not in done.stdout + done.stderr, done.stderr[-3000:]
    return done.returncode, done.stdout.splitlines(), done.stderr.splitlines()


def assert_lint_reports(result: tuple[int, list[str], list[str]], *expected: str) -> None:
    """`quiz lint` exited 1 and printed each expected `path:line:column: message` (by its ending)."""
    code, out, _ = result
    assert code == 1, out
    for row in expected:
        assert any(line == row or line.endswith(os.sep + row) for line in out), (row, out)


def assert_load_refuses(result: tuple[int, list[str], list[str]], *expected: str) -> None:
    """`quiz decks` / `quiz study` exited 1: the problems on stderr, then `Error:` last."""
    code, _, err = result
    assert code == 1, err
    assert err and err[-1].startswith("Error: the decks have"), err
    for row in expected:
        assert any(row in line for line in err[:-1]), (row, err)


def assert_left_out(result: tuple[int, list[str], list[str]], first: str, *others: str) -> None:
    """A command on the collection went on without the broken files: for each, its first problem
    and a warning on stderr."""
    code, _, err = result
    assert code == 0, err
    assert any(line.endswith(first) for line in err), err
    for name in (first.split(":")[0], *others):
        assert any(line.startswith("Warning: ") and f"{name} has " in line and "left out" in line for line in err), (name, err)


# ---------------------------------------------------------------- 1. special files


@pytest.mark.slow
def test_symlink_to_dev_zero_is_refused_without_reading_it(tmp_path):
    """Today lint and study read /dev/zero until memory runs out (23 GB); git stores the symlink."""
    folder = folder_with(tmp_path)
    (folder / "zero.yaml").symlink_to("/dev/zero")
    for command in (["lint", str(folder)], ["decks", "--decks", str(folder)]):
        result = process(*command, timeout=60, memory=1 << 30)
        expected = "zero.yaml:1:1: not a regular file (a symlink to a character device); a deck is a plain file"
        if command[0] == "lint":
            assert_lint_reports(result, expected)
            assert len(result[1]) == 1  # the good deck next to it has nothing to report
        else:  # left out, unread: the good deck beside it is used
            assert_left_out(result, expected)


@pytest.mark.slow
@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
def test_named_pipe_is_refused_without_opening_it(tmp_path):
    """Today opening `p.yaml` waits forever for a writer."""
    folder = folder_with(tmp_path)
    os.mkfifo(folder / "p.yaml")
    expected = "p.yaml:1:1: not a regular file (a named pipe); a deck is a plain file"
    assert_lint_reports(process("lint", str(folder), timeout=20), expected)
    assert_lint_reports(process("lint", str(folder / "p.yaml"), timeout=20), expected)
    assert_left_out(process("decks", "--decks", str(folder), timeout=20), expected)


@pytest.mark.slow
@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
def test_named_pipe_does_not_hang_the_choice_of_language(tmp_path):
    """With no language asked for, the decks' own is read from their first lines: that read
    opened `p.yaml` and waited for a writer forever, `--help` too, and Ctrl-C did not stop it."""
    folder = folder_with(tmp_path)
    os.mkfifo(folder / "p.yaml")
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("QUIZ_LANG", "LANG", "LC_"))}
    try:
        done = subprocess.run([sys.executable, "-m", "quizzer", "--decks", str(folder), "--help"], env=environ,
                              capture_output=True, text=True, timeout=20, check=False)
    except subprocess.TimeoutExpired:
        pytest.fail("`quiz --help` still running after 20 s")
    assert done.returncode == 0 and "study" in done.stdout


def test_folder_named_like_a_deck_is_not_a_deck(tmp_path):
    folder = folder_with(tmp_path)
    (folder / "sub.yaml").mkdir()
    assert_lint_reports(cli("lint", str(folder)), "sub.yaml:1:1: not a regular file (a folder); a deck is a plain file")


# ---------------------------------------------------------------- 2. symlinks


def test_symlink_loop_is_a_problem_not_a_crash(tmp_path):
    """Today `Path.resolve()` raises RuntimeError before any error handling, in lint and in study."""
    folder = folder_with(tmp_path)
    (folder / "loop.yaml").symlink_to("loop.yaml")
    (folder / "ping.yaml").symlink_to("pong.yaml")
    (folder / "pong.yaml").symlink_to("ping.yaml")
    result = cli("lint", str(folder))
    assert_lint_reports(result, "loop.yaml:1:1: symlink loop", "ping.yaml:1:1: symlink loop", "pong.yaml:1:1: symlink loop")
    assert len(result[1]) == 3
    assert_lint_reports(cli("lint", str(folder / "loop.yaml")), "loop.yaml:1:1: symlink loop")
    for command in ("decks", "study"):
        assert_left_out(cli(command, "--decks", str(folder)), "loop.yaml:1:1: symlink loop", "ping.yaml", "pong.yaml")


def test_symlink_to_a_regular_file_in_its_folder_is_read(tmp_path):
    folder = folder_with(tmp_path, None)
    (folder / "drafts").mkdir()
    (folder / "drafts" / "real.txt").write_text(DECK.replace("question: 什么是 BERT？", "question: linked"), "utf-8")
    (folder / "link.yaml").symlink_to(folder / "drafts" / "real.txt")
    assert cli("lint", str(folder))[0] == 0
    code, out, _ = cli("decks", "--decks", str(folder))
    assert code == 0 and any("hostile" in line for line in out)
    (folder / "dangling.yaml").symlink_to(folder / "missing.txt")
    assert_lint_reports(cli("lint", str(folder)), "dangling.yaml:1:1: symlink to a file that does not exist")


def test_symlink_out_of_its_folder_is_refused_unread(tmp_path):
    """A pull request's deck linking to a file of the machine that lints it (a key, a password
    file): lint must not read it, or its problems would quote the file's lines."""
    secret = tmp_path / "secret.yaml"
    secret.write_text("password: hunter2\n", "utf-8")
    folder = folder_with(tmp_path, None)
    (folder / "leak.yaml").symlink_to(secret)
    (folder / "up.yaml").symlink_to("../secret.yaml")
    expected = ": a symlink to a file outside its folder; a deck file stays in the deck folder (copy it in)"
    result = cli("lint", str(folder))
    assert_lint_reports(result, "leak.yaml:1:1" + expected, "up.yaml:1:1" + expected)
    assert "hunter2" not in "".join(result[1] + result[2])
    assert_load_refuses(cli("study", "--decks", str(folder)), "leak.yaml:1:1" + expected)


def repository_beside(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """A git work tree (a ``.git`` entry is all it takes) as the working directory, and a folder
    ``out`` beside it holding a secret in a deck's name: what a pull request's symlink reaches for."""
    repo, out = tmp_path / "repo", tmp_path / "out"
    (repo / ".git").mkdir(parents=True)
    out.mkdir()
    (out / "secret-name.yaml").write_text("id: SECRET VALUE\n", "utf-8")
    monkeypatch.chdir(repo)
    return repo, out


LEAVES = "leads outside the git work tree {tree} (a symlink); decks are read only inside it"


def assert_nothing_from_out(result: tuple[int, list[str], list[str]]) -> None:
    shown = "\n".join(result[1] + result[2])
    assert "SECRET" not in shown and "secret-name" not in shown, shown


def test_a_deck_folder_that_links_out_of_the_repository_is_refused_unopened(tmp_path, monkeypatch):
    """``decks -> ../out``: lint quoted the YAML it found outside the repository in its
    annotations. The folder is refused by name; nothing in it is listed, read or quoted."""
    repo, _out = repository_beside(tmp_path, monkeypatch)
    (repo / "decks").symlink_to("../out")
    result = cli("lint", "--format", "github", "decks")
    assert result[0] == 1
    message = LEAVES.format(tree=repo).replace(",", "%2C")
    assert result[1] == [f"::error file=decks,line=1,col=1::{message}"], result
    assert_nothing_from_out(result)
    plain = cli("lint", "decks")
    assert plain[1] == [f"decks:1:1: {LEAVES.format(tree=repo)}"]
    loading = cli("decks", "--decks", "decks")
    assert_load_refuses(loading, f"decks:1:1: {LEAVES.format(tree=repo)}")
    assert_nothing_from_out(loading)


def test_a_deck_reached_through_a_folder_that_links_out_is_refused_unread(tmp_path, monkeypatch):
    repo, out = repository_beside(tmp_path, monkeypatch)
    (repo / "decks").mkdir()
    (repo / "decks" / "shelf").symlink_to(out)
    result = cli("lint", "decks/shelf/secret-name.yaml")
    assert result[0] == 1 and result[1] == [f"decks/shelf/secret-name.yaml:1:1: {LEAVES.format(tree=repo)}"], result
    assert "SECRET" not in "\n".join(result[1] + result[2])


def test_a_deck_file_that_links_out_of_the_repository_is_refused_unread(tmp_path, monkeypatch):
    repo, out = repository_beside(tmp_path, monkeypatch)
    folder = folder_with(repo)
    (folder / "leak.yaml").symlink_to(out / "secret-name.yaml")
    result = cli("lint", "decks")
    assert_lint_reports(result, f"decks/leak.yaml:1:1: {LEAVES.format(tree=repo)}")
    assert_nothing_from_out(result)
    assert_left_out(cli("decks", "--decks", "decks"), f"leak.yaml:1:1: {LEAVES.format(tree=repo)}")


def test_links_that_stay_inside_the_repository_are_followed(tmp_path, monkeypatch):
    """The boundary is the work tree, found from a ``.git`` file too (a git worktree or submodule)."""
    repo = tmp_path / "repo"
    repo.mkdir()
    folder_with(repo)
    (repo / ".git").write_text("gitdir: /elsewhere/.git/worktrees/repo\n", "utf-8")
    (repo / "current").symlink_to("decks")
    monkeypatch.chdir(repo / "decks")
    assert cli("lint", "../current")[0] == 0
    code, out, _ = cli("decks", "--decks", "../current")
    assert code == 0 and any("hostile" in line for line in out), out


def test_outside_a_repository_the_folder_given_is_the_boundary(tmp_path, monkeypatch):
    """No ``.git`` above: a deck folder named through a symlink is read (the learner chose it),
    while a deck file in it still may not link out of it."""
    (tmp_path / "elsewhere").mkdir()
    real = folder_with(tmp_path / "elsewhere")
    (tmp_path / "linked").symlink_to(real)
    (tmp_path / "secret.yaml").write_text("id: SECRET VALUE\n", "utf-8")
    monkeypatch.chdir(tmp_path)
    code, out, _ = cli("decks", "--decks", "linked")
    assert code == 0 and any("hostile" in line for line in out), out
    (real / "leak.yaml").symlink_to(tmp_path / "secret.yaml")
    result = cli("lint", "linked")
    assert_lint_reports(result, "leak.yaml:1:1: a symlink to a file outside its folder; a deck file stays in the deck "
                        "folder (copy it in)")
    assert "SECRET" not in "\n".join(result[1] + result[2])


# ---------------------------------------------------------------- 3. sizes


def test_file_over_the_size_limit_is_refused_before_reading(tmp_path):
    """A valid deck padded past 8 MB with a comment: today it passes lint (slowly)."""
    folder = folder_with(tmp_path, DECK + "# " + "x" * 8_100_000 + "\n")
    expected = "deck.yaml:1:1: the file is 8.1 MB, larger than the 8 MB a deck may be; split it"
    assert_lint_reports(cli("lint", str(folder)), expected)
    assert_load_refuses(cli("decks", "--decks", str(folder)), expected)


def test_text_over_the_length_limit_is_a_problem_at_its_line(tmp_path):
    """Today a 50 MB question passes lint and study spends minutes rendering it."""
    folder = folder_with(tmp_path, DECK.replace("question: 什么是 BERT？", "question: " + "长" * 20_000))
    assert cli("lint", str(folder))[0] == 0  # the limit itself is allowed
    folder = folder_with(tmp_path, DECK.replace("question: 什么是 BERT？", "question: " + "长" * 20_001))
    expected = f"deck.yaml:{QUESTION_LINE}:15: question: text is 20,001 characters long; the limit is 20,000"
    result = cli("lint", str(folder))
    assert_lint_reports(result, expected)
    assert len(result[1]) == 1
    assert_load_refuses(cli("decks", "--decks", str(folder)), expected)
    assert_load_refuses(cli("study", "--decks", str(folder)), expected)


def test_a_formula_nested_past_the_readers_depth_is_a_problem_at_its_line(tmp_path):
    """300 braces one inside another in `$...$` passed lint, then `quiz show`, `cards`, `study`
    and `exam` failed with "unexpected RecursionError" (the LaTeX reader recurses per brace)."""
    from quizzer.kinds.fields import MATH_DEPTH

    def nested(depth: int) -> str:
        return "question: '$" + "{" * depth + "x" + "}" * depth + "$'"

    assert cli("lint", str(folder_with(tmp_path, DECK.replace("question: 什么是 BERT？", nested(MATH_DEPTH)))))[0] == 0
    folder = folder_with(tmp_path, DECK.replace("question: 什么是 BERT？", nested(300)))
    expected = f"deck.yaml:{QUESTION_LINE}:15: question: a formula nests braces more than {MATH_DEPTH} deep"
    assert_lint_reports(cli("lint", str(folder)), expected)
    assert_load_refuses(cli("show", "qa-one", "--decks", str(folder)), expected)


def numeric(fields: str) -> str:
    """The hostile deck with its card made a numeric one of these fields (YAML flow mapping text)."""
    return DECK.split("  - id: qa-one")[0] + f"  - {{id: nu-one, kind: numeric, source: '1.1', {fields}}}\n"


@pytest.mark.parametrize("fields, expected", [
    # drawn at every showing: passed lint, then show, study and exam failed with "unexpected OverflowError"
    ("checker: masking_budget, params: {seq_lens: [1" + "0" * 400 + "]}", "seq_lens: larger than 1,000,000,000,000"),
    ("checker: lora_params, params: {ranks: [1" + "0" * 400 + "]}", "ranks: larger than 1,000,000,000,000"),
    # an example lint recomputes: "unexpected OverflowError" from lint itself
    ("checker: lora_params, example: {inputs: {layers: 1" + "0" * 400 + ", d_model: 2, rank: 1, targets: [q]}, answer: 1}",
     "layers: Input should be less than or equal to 1000"),
])
def test_a_number_past_what_the_reference_holds_is_a_problem_at_the_card(tmp_path, fields, expected):
    folder = folder_with(tmp_path, numeric(fields))
    code, out, _ = cli("lint", str(folder))
    assert code == 1 and any(line.endswith(expected) for line in out), out
    assert_load_refuses(cli("show", "nu-one", "--decks", str(folder)), expected)


@pytest.mark.slow
@pytest.mark.parametrize("inputs", ["checker: kv_cache, example: {inputs: {layers: 10000000, heads: 2, kv_heads: 2, "
                                    "head_dim: 2}, answer: 1}",
                                    "checker: param_count, example: {inputs: {family: bert, layers: 1000000, "
                                    "hidden: 64, vocab: 1}, answer: 1}"])
def test_an_example_s_layers_are_bounded_before_the_reference_builds_them(tmp_path, inputs):
    """10 million layers took lint past 3 GB (a tensor pair per layer); a million, past 5 minutes
    (a module per layer): a pull request could hold CI's lint for as long as it runs."""
    code, out, _ = process("lint", str(folder_with(tmp_path, numeric(inputs))), timeout=60, memory=2 * 2**30)
    assert code == 1 and any(line.endswith("layers: Input should be less than or equal to 1000") for line in out), out


def test_a_cloze_number_too_long_to_read_is_a_problem_at_its_line(tmp_path):
    """`{{c999…9::b}}` with 5,000 nines: "unexpected ValueError: Exceeds the limit (4300 digits)"."""
    card = "  - {id: cz-one, kind: cloze, source: '1.1', text: 'a {{c" + "9" * 5000 + "::b}}'}\n"
    code, out, _ = cli("lint", str(folder_with(tmp_path, DECK.split("  - id: qa-one")[0] + card)))
    assert code == 1 and any("cloze: '{{' does not start a blank" in line for line in out), out


def test_an_id_or_tag_longer_than_its_database_column_is_a_problem(tmp_path):
    """Lint passed a 250-character id: SQLite stored it, and its history export then did not import
    ("card_id is longer than 200 characters"); a server refuses it outright."""
    long_id, long_tag = "a" * 201, "t" * 101
    folder = folder_with(tmp_path, DECK.replace("id: qa-one", f"id: {long_id}").replace(
        "points: [Encoder-only]", f"points: [Encoder-only]\n    tags: [{long_tag}]"))
    code, out, _ = cli("lint", str(folder))
    assert code == 1
    assert any(line.endswith("deck.yaml:8:9: id: longer than 200 characters") for line in out), out
    assert any(line.endswith("deck.yaml:14:12: tags: longer than 100 characters") for line in out), out
    assert cli("lint", str(folder_with(tmp_path, DECK.replace("id: qa-one", f"id: {'a' * 200}"))))[0] == 0


def test_a_deck_title_longer_than_a_table_cell_is_a_problem(tmp_path):
    """A 4,000-character title passed lint, and `quiz` printed 200 lines of it at 80 columns."""
    folder = folder_with(tmp_path, DECK.replace("title: 测试", "title: " + "长" * 81))
    code, out, _ = cli("lint", str(folder))
    assert code == 1 and out[0].endswith("deck.yaml:2:8: title: longer than 80 characters"), out
    assert cli("lint", str(folder_with(tmp_path, DECK.replace("title: 测试", "title: " + "长" * 80))))[0] == 0


# ---------------------------------------------------------------- 4. control characters


@pytest.mark.parametrize("char, described", [
    ("\x00", "control character U+0000 (NUL)"),
    ("\x07", "control character U+0007 (BEL)"),
    ("\x1b", "control character U+001B (ESC)"),
    ("\x7f", "control character U+007F (DEL)"),
    ("\x9b", "control character U+009B (CSI)"),
    ("\u202e", "bidi control U+202E"),
    ("\u200f", "bidi control U+200F"),  # RLM: invisible, and it turns the text around it
])
def test_control_character_in_the_file_is_a_positioned_problem(tmp_path, char, described):
    """Even in a comment: today the C loader raises ReaderError (not a MarkedYAMLError), a traceback."""
    folder = folder_with(tmp_path, DECK.replace("  - id: qa-one\n", f"  # a comment with {char}[31m in it\n  - id: qa-one\n"))
    expected = f"deck.yaml:8:20: {described} is not allowed in a deck file, not even in a comment; delete it"
    result = cli("lint", str(folder))
    assert_lint_reports(result, expected)
    assert len(result[1]) == 1
    assert_load_refuses(cli("decks", "--decks", str(folder)), expected)
    assert_load_refuses(cli("study", "--decks", str(folder)), expected)


@pytest.mark.parametrize("escape, described", [
    ("\\e[2J", "control character U+001B (ESC)"),
    ("\\a", "control character U+0007 (BEL)"),
    ("\\0", "control character U+0000 (NUL)"),
    ("\\r", "control character U+000D (CR)"),
    ("\\x9b", "control character U+009B (CSI)"),
    ("\\u2066", "bidi control U+2066"),
    ("\\u200e", "bidi control U+200E"),
])
def test_control_character_written_as_an_escape_is_refused_in_a_text(tmp_path, escape, described):
    """A double-quoted escape puts the character in the value although the file holds none."""
    folder = folder_with(tmp_path, DECK.replace("question: 什么是 BERT？", f'question: "什么是 {escape}BERT？"'))
    expected = f"deck.yaml:{QUESTION_LINE}:15: question: {described} is not allowed in a text (a terminal would obey it); remove it"
    assert_lint_reports(cli("lint", str(folder)), expected)
    assert_load_refuses(cli("decks", "--decks", str(folder)), expected)


@pytest.mark.parametrize("reference, described", [
    ("&#x202e;", "bidi control U+202E"), ("&#8297;", "bidi control U+2069"), ("&#x1B;", "control character U+001B (ESC)"),
])
def test_a_control_written_as_a_character_reference_is_refused_in_a_text(tmp_path, reference, described):
    """Markdown turns `&#x202e;` into the character when the card is shown: lint passed it."""
    folder = folder_with(tmp_path, DECK.replace("question: 什么是 BERT？", f'question: "什么是 {reference}BERT？"'))
    expected = (f"deck.yaml:{QUESTION_LINE}:15: question: {described}, written as {reference}, is not allowed in a "
                "text (a terminal would obey it); remove it")
    assert_lint_reports(cli("lint", str(folder)), expected)


def test_a_problem_never_prints_the_control_characters_it_quotes(tmp_path):
    folder = folder_with(tmp_path, DECK + '    "\\e]0;pwned\\a\\e[2J": x\n')
    code, out, _ = cli("lint", str(folder))
    assert code == 1 and out
    assert not any(c in "\n".join(out) for c in "\x1b\x07")
    assert any("unknown field '\\x1b]0;pwned\\x07\\x1b[2J'" in line for line in out), out


def test_every_yaml_reader_error_is_positioned(tmp_path):
    """U+FFFE passes the deck's own character check; the YAML reader refuses it: still file:line."""
    folder = folder_with(tmp_path, DECK.replace("什么是 BERT？", "什么是 \ufffe？"))
    expected = f"deck.yaml:{QUESTION_LINE}:19: YAML syntax error: character U+FFFE: control characters are not allowed"
    assert_lint_reports(cli("lint", str(folder)), expected)
    assert_load_refuses(cli("decks", "--decks", str(folder)), expected)


# ---------------------------------------------------------------- 5. nesting


def test_deep_nesting_is_a_problem_not_a_recursion_error(tmp_path):
    """500 nested mappings: today a RecursionError in lint and in study."""
    nested = "{a: " * 500 + "b" + "}" * 500
    folder = folder_with(tmp_path, DECK + f"    example: {nested}\n")
    # deck, cards, card, then example's '{' at column 14 is level 4: level 21 is the 18th '{a: '
    expected = f"deck.yaml:14:{14 + 4 * 17}: nested deeper than 20 levels (a deck needs 7); this part is not read"
    assert_lint_reports(cli("lint", str(folder)), expected,
                        f"deck.yaml:14:{14 + 4 * 37}: nested deeper than 40 levels; the rest of the file is not read")
    assert_load_refuses(cli("decks", "--decks", str(folder)), expected)
    assert_load_refuses(cli("study", "--decks", str(folder)), expected)


@pytest.mark.slow
def test_a_million_levels_stop_the_reading_quickly(tmp_path):
    """The YAML parser slows down with every open level: reading stops at twice the limit."""
    folder = folder_with(tmp_path, DECK + "    example: " + "[" * 1_000_000 + "]" * 1_000_000 + "\n")
    result = process("lint", str(folder), timeout=60, memory=1 << 30)
    if any("maximum nesting depth" in line for line in result[1]):  # PyYAML >= 6.0.4 caps nesting in its scanner
        assert_lint_reports(result, "deck.yaml:14:1011: YAML syntax error: exceeded maximum nesting depth")
        return
    assert_lint_reports(result, f"deck.yaml:14:{14 + 17}: nested deeper than 20 levels (a deck needs 7); this part is not read",
                        f"deck.yaml:14:{14 + 37}: nested deeper than 40 levels; the rest of the file is not read")


# ---------------------------------------------------------------- 6. deck ids


@pytest.mark.parametrize("cards", [100, 101, 500])
def test_past_the_listed_problems_the_count_says_more_than(tmp_path, cards):
    """Cards each missing a field: a hundred problems are listed, and the count no longer says
    "100 problems" of a file with 500 (the list stopped there without a word)."""
    body = "".join(f"  - id: qa-{i}\n    kind: qa\n    source: \"1.1\"\n    question: 问题 {i}？\n    points: [x]\n"
                   for i in range(cards))
    folder = folder_with(tmp_path, DECK.split("cards:")[0] + "cards:\n" + body)
    code, out, err = cli("lint", str(folder))
    missing = [line for line in out if line.endswith("missing field 'answer'")]
    assert code == 1 and len(missing) == min(cards, 100)
    if cards == 100:
        assert err == ["100 problems"] and not any("not listed" in line for line in out)
    else:
        assert err == ["more than 100 problems"] and out[-1].endswith("more problems in this file are not listed; fix these first")
    if cards == 500:  # the line says so last in Chinese too, which sorted its message before others at its place
        from quizzer.base import i18n

        i18n.use("zh")
        try:
            out = cli("lint", str(folder))[1]
        finally:
            i18n.use("en")
        assert out[-1].endswith("此文件还有更多问题未列出；请先修正以上问题"), out[-3:]
    code, _, err = cli("decks", "--decks", str(folder))
    assert code == 1 and err[-1].startswith("Error: the decks have " + (
        "100 problems, listed above" if cards == 100 else "more than 100 problems; the first are listed above"))


def test_a_broken_deck_is_left_out_and_its_cards_come_back_with_their_history(tmp_path):
    """One broken file stopped every command on the collection, even `history export`: now the
    others are used, every command warns, and the file's cards wait, inactive, with their reviews."""
    import json

    folder = folder_with(tmp_path)
    other = DECK.replace("id: hostile", "id: other").replace("qa-one", "qa-two")
    (folder / "other.yaml").write_text(other, "utf-8")
    env = {"QUIZ_NOW": "2026-01-05T10:00:00+00:00"}
    studied = runner.invoke(app, ["study", "--decks", str(folder), "--deck", "other"], input="\n3\n", env=env)
    assert studied.exit_code == 0, studied.output
    (folder / "other.yaml").write_text(other.replace("    points: [Encoder-only]\n", ""), "utf-8")

    code, out, err = cli("cards", "--decks", str(folder), "--json")
    assert code == 0 and [row["id"] for row in json.loads("\n".join(out))] == ["qa-one"], err
    assert err[0].endswith("other.yaml:8:5: missing field 'points'") and err[1].startswith("Warning: ")
    assert "other.yaml has 1 problem and is left out until it is fixed" in err[1]
    code, out, _ = cli("show", "qa-two", "--decks", str(folder))  # "not in any deck now" alone misled too
    assert code == 0 and "not in the decks in use: a deck file is left out" in out[0], out[:2]
    code, _, err = cli("cards", "--decks", str(folder), "--deck", "other")  # "no deck 'other'" alone misled
    assert code == 2 and err[-1].startswith("Error: no deck 'other' among the decks in use (a deck file with problems")
    exported = runner.invoke(app, ["history", "export", "-", "--decks", str(folder)], env=env)
    assert exported.exit_code == 0 and any(line.startswith("qa-two,3,") for line in exported.stdout.splitlines())

    (folder / "other.yaml").write_text(other, "utf-8")
    code, out, err = cli("card", "qa-two", "--decks", str(folder), "--json")
    shown = json.loads("\n".join(out))
    assert code == 0 and not err and [r["rating"] for r in shown["reviews"]] == [3] and shown["state"] != "new"


def test_an_edit_during_study_is_judged_by_the_file_edited_not_one_already_left_out(tmp_path):
    """Study's reload after `e`: a file left out from the start refused every edit of another
    (the session kept the old cards and blamed the edit); a file the edit breaks is still refused."""
    from quizzer.app.collection import open_collection
    from quizzer.base.errors import DeckProblems

    folder = folder_with(tmp_path)
    (folder / "broken.yaml").write_text(DECK.replace("id: hostile", "id: broken").replace("qa-one", "qa-b")
                                        .replace("title: 测试\n", ""), "utf-8")
    (folder / "third.yaml").write_text(DECK.replace("id: hostile", "id: third").replace("qa-one", "qa-3"), "utf-8")
    opened = open_collection(folder, tmp_path / "q.db")
    try:
        assert sorted(opened.cards) == ["qa-3", "qa-one"] and {p.file.rsplit("/", 1)[-1] for p in opened.left_out} == {"broken.yaml"}
        added = DECK + DECK[DECK.index("  - id: qa-one"):].replace("qa-one", "qa-new")
        (folder / "deck.yaml").write_text(added, "utf-8")
        opened.reload()
        assert sorted(opened.cards) == ["qa-3", "qa-new", "qa-one"]
        (folder / "deck.yaml").write_text(added.replace("kind: qa\n", "kind: nope\n", 1), "utf-8")
        with pytest.raises(DeckProblems) as refused:
            opened.reload()
        assert {p.file.rsplit("/", 1)[-1] for p in refused.value.problems} == {"deck.yaml"}
        assert sorted(opened.cards) == ["qa-3", "qa-new", "qa-one"]
    finally:
        opened.store.close()


def test_deck_ids_are_unique_across_the_folder(tmp_path):
    """Today two files with one deck id pass lint and `quiz decks` shows two rows."""
    folder = folder_with(tmp_path, DECK, "a.yaml")
    folder_with(tmp_path, DECK.replace("qa-one", "qa-two"), "b.yaml")
    expected = f"b.yaml:1:1: duplicate deck id 'hostile' (also at {folder / 'a.yaml'}:1)"
    result = cli("lint", str(folder))
    assert_lint_reports(result, expected)
    assert len(result[1]) == 1
    assert_load_refuses(cli("decks", "--decks", str(folder)), expected)


def test_linting_one_file_checks_its_ids_against_the_other_decks_in_its_folder(tmp_path):
    """CONTRIBUTING says `quiz lint decks/FILE`: the clash is reported in the file linted, naming the
    other place; the other deck's own problems are not (they are not what was asked)."""
    folder = folder_with(tmp_path, DECK + "    extra: 1\n", "a.yaml")  # a's own problem: an unknown field
    folder_with(tmp_path, DECK.replace("title: 测试", "title: 另一个"), "b.yaml")
    a, b = folder / "a.yaml", folder / "b.yaml"
    code, out, _ = cli("lint", str(b))
    assert code == 1
    assert out == [f"{b}:1:1: duplicate deck id 'hostile' (also at {a}:1)",
                   f"{b}:8:1: duplicate card id 'qa-one' (also at {a}:8)"]
    code, out, _ = cli("lint", str(a))
    assert code == 1
    assert out == [f"{a}:1:1: duplicate deck id 'hostile' (also at {b}:1)",
                   f"{a}:8:1: duplicate card id 'qa-one' (also at {b}:8)",
                   f"{a}:14:5: unknown field 'extra'"]
