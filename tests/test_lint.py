"""`quiz lint` on broken decks: one deck per error class, checked for message, line and exit code."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from quizzer.cli import app

runner = CliRunner()

HEADER = """\
id: test-deck
title: 测试
language: zh
source:
  file: course.txt
  sections: "1"
cards:
"""
QA = """\
  - id: qa-one
    kind: qa
    source: "1.1"
    question: 什么是 BERT？
    answer: 一个 Encoder-only 模型。
    points: [Encoder-only]
"""
CHOICE = """\
  - id: choice-one
    kind: choice
    source: "1.2"
    question: 选一个
    options: [甲, 乙, 丙]
    answer: B
    explanation: 因为乙。
"""


def write(tmp_path: Path, cards: str, name: str = "deck.yaml", header: str = HEADER) -> Path:
    path = tmp_path / name
    path.write_text(header + cards, "utf-8")
    return path


def lint(*paths: Path, fmt: str = "text"):
    return runner.invoke(app, ["lint", "--format", fmt, *map(str, paths)])


def problems(result) -> list[tuple[int, int, str]]:
    """(line, column, message) of each `path:line:column: message` row."""
    rows = re.findall(r"^.+?:(\d+):(\d+): (.+)$", result.stdout, re.M)
    return [(int(line), int(col), msg) for line, col, msg in rows]


def test_valid_deck_passes(tmp_path):
    result = lint(write(tmp_path, QA + CHOICE))
    assert result.exit_code == 0, result.stdout
    assert result.stdout == "1 deck, 2 cards: no problems\n"


def test_shipped_decks_pass():
    result = runner.invoke(app, ["lint"])
    assert result.exit_code == 0, result.stdout


def test_yaml_syntax_error_names_line(tmp_path):
    path = write(tmp_path, QA + "  - id: [unclosed\n")
    result = lint(path)
    assert result.exit_code == 1
    [(line, _, message)] = problems(result)
    assert line == 15 and "YAML syntax error" in message
    assert str(path.name) in result.stdout


def test_unknown_field_points_at_the_key(tmp_path):
    result = lint(write(tmp_path, QA + "    hint: 多余\n"))
    assert result.exit_code == 1
    assert problems(result) == [(14, 5, "unknown field 'hint'")]


def test_missing_field(tmp_path):
    result = lint(write(tmp_path, QA.replace("    points: [Encoder-only]\n", "")))
    assert result.exit_code == 1
    assert problems(result) == [(8, 5, "missing field 'points'")]


def test_wrong_type(tmp_path):
    result = lint(write(tmp_path, QA.replace("points: [Encoder-only]", "points: {a: b}")))
    assert result.exit_code == 1
    [(line, _, message)] = problems(result)
    assert line == 13 and message.startswith("points: expected a list")


@pytest.mark.parametrize("written, said", [("tags: 5", "tags: expected a list, not '5'"),
                                            ("tags: " + "x" * 30, "tags: expected a list, not '" + "x" * 19 + "…'")])
def test_a_scalar_where_a_list_belongs_is_named_as_written(tmp_path, written, said):
    """`tags: 5` said "expected a list, got str": YAML scalars stay text, so the type named none the author wrote."""
    result = lint(write(tmp_path, QA + "    " + written + "\n"))
    assert problems(result) == [(14, 11, said)]


@pytest.mark.parametrize("blank", ['"  "', '"\\u200b"', '"\\u3164"', '"\\u200b \\u3000"'])
def test_empty_text(tmp_path, blank):
    """A zero-width space or a Hangul filler alone passed as a text: a card showing nothing."""
    result = lint(write(tmp_path, QA.replace("answer: 一个 Encoder-only 模型。", f"answer: {blank}")))
    assert problems(result) == [(12, 13, "answer: text is empty")]
    assert result.exit_code == 1


def test_missing_value_is_empty_text(tmp_path):
    result = lint(write(tmp_path, QA.replace("answer: 一个 Encoder-only 模型。", "answer:")))
    assert problems(result)[0][2] == "answer: text is empty"


def test_choice_answer_must_be_an_option(tmp_path):
    result = lint(write(tmp_path, CHOICE.replace("answer: B", "answer: D")))
    assert result.exit_code == 1
    assert problems(result) == [(13, 13, "answer: answer D is not one of the options A, B, C")]


def test_several_correct_answers(tmp_path):
    assert lint(write(tmp_path, CHOICE.replace("answer: B", "answer: [A, C]"))).exit_code == 0
    result = lint(write(tmp_path, CHOICE.replace("answer: B", "answer: [A, E]")))
    assert "answer E is not one of the options" in result.stdout


def test_duplicate_ids_across_files_name_both_places(tmp_path):
    first = write(tmp_path, QA, "a.yaml")
    second = write(tmp_path, CHOICE + QA, "b.yaml", header=HEADER.replace("test-deck", "other-deck"))
    result = lint(first, second)
    assert result.exit_code == 1
    [row] = [r for r in result.stdout.splitlines() if "duplicate card id" in r]
    assert row.endswith(f"b.yaml:15:1: duplicate card id 'qa-one' (also at {first}:8)"), row
    assert row.split(":")[0].endswith("b.yaml") and ":15:" in row


def test_duplicate_ids_in_one_file(tmp_path):
    result = lint(write(tmp_path, QA + QA))
    assert [p for p in problems(result) if "duplicate card id" in p[2]] == [(14, 1, f"duplicate card id 'qa-one' (also at {tmp_path / 'deck.yaml'}:8)")]


def test_duplicate_key_in_one_mapping(tmp_path):
    result = lint(write(tmp_path, QA + "    question: 又一个问题\n"))
    assert result.exit_code == 1
    assert problems(result) == [(14, 5, "duplicate key 'question' (first at line 11); YAML would keep only the last")]


def test_anchors_and_aliases_are_forbidden(tmp_path):
    cards = QA.replace("answer: 一个", "answer: &a 一个") + QA.replace("qa-one", "qa-two").replace("answer: 一个 Encoder-only 模型。", "answer: *a")
    result = lint(write(tmp_path, cards))
    assert result.exit_code == 1
    messages = [p[2] for p in problems(result)]
    assert any(m.startswith("anchors (&a) are not allowed") for m in messages)
    assert any(m.startswith("aliases (*a) are not allowed") for m in messages)


def test_python_object_tag_is_an_error_and_runs_nothing(tmp_path):
    marker = tmp_path / "pwned"
    cards = QA.replace("answer: 一个 Encoder-only 模型。", f"answer: !!python/object/apply:os.system ['touch {marker}']")
    result = lint(write(tmp_path, cards))
    assert result.exit_code == 1
    [(line, _, message)] = [p for p in problems(result) if "tags" in p[2]]
    assert line == 12 and "!!python/object/apply:os.system" in message
    assert not marker.exists()
    # loading for study refuses it the same way
    result = runner.invoke(app, ["decks", "--decks", str(tmp_path)])
    assert result.exit_code == 1 and not marker.exists()


@pytest.mark.parametrize("written", ["no", "on", "1.10", "12:30", "0x1F", "1e3", "null"])
def test_yaml_11_surprises_stay_text(tmp_path, written):
    from quizzer.decks import lint as lint_paths, validate_text

    path = write(tmp_path, QA.replace("question: 什么是 BERT？", f"question: {written}").replace("points: [Encoder-only]", f"points: [{written}]"))
    checked = validate_text(path.read_text("utf-8"), path)
    if written == "null":  # a YAML null is an empty field, and says so
        assert "question: text is empty" in [p.message for p in checked.problems]
        return
    assert checked.problems == []
    card = checked.deck.cards[0]
    assert card.question == written and card.points == [written]
    assert lint_paths([path]) == []


def test_section_number_keeps_its_zero(tmp_path):
    from quizzer.decks import validate_text

    path = write(tmp_path, QA.replace('source: "1.1"', "source: 8.10"))
    assert validate_text(path.read_text("utf-8"), path).deck.cards[0].source == "8.10"


def test_unknown_kind(tmp_path):
    result = lint(write(tmp_path, QA.replace("kind: qa", "kind: essay")))
    assert problems(result) == [(9, 11, "kind must be one of qa, choice, mistake, numeric, cloze, not 'essay'")]


def test_bad_id(tmp_path):
    result = lint(write(tmp_path, QA.replace("id: qa-one", "id: QA One")))
    assert problems(result) == [(8, 9, "id: use lowercase a-z, 0-9 and '-' (got 'QA One')")]


def test_unknown_checker(tmp_path):
    card = """\
  - id: num-one
    kind: numeric
    source: "2"
    checker: no_such_checker
"""
    result = lint(write(tmp_path, card))
    assert result.exit_code == 1
    [(line, col, message)] = problems(result)
    assert (line, col) == (11, 14) and message.startswith("checker: unknown checker 'no_such_checker'; known: ")
    assert "masked_softmax" in message


def test_bad_checker_params(tmp_path):
    card = """\
  - id: num-one
    kind: numeric
    source: "2"
    checker: masked_softmax
    params:
      variant: sideways
"""
    result = lint(write(tmp_path, card))
    assert result.exit_code == 1
    [(line, col, message)] = problems(result)
    assert (line, col) == (13, 16) and message.startswith("variant:")


def test_reports_all_problems_in_all_files(tmp_path):
    write(tmp_path, QA.replace("kind: qa", "kind: essay") + CHOICE.replace("answer: B", "answer: Z"), "a.yaml")
    write(tmp_path, QA.replace("qa-one", "qa-b") + "    extra: 1\n", "b.yaml", header=HEADER.replace("test-deck", "deck-b"))
    result = lint(tmp_path)
    assert result.exit_code == 1
    files = [row.split(":")[0] for row in result.stdout.splitlines()]
    assert len(files) == 3 and sum(f.endswith("a.yaml") for f in files) == 2 and files[-1].endswith("b.yaml")


def test_github_annotations(tmp_path):
    path = write(tmp_path, QA + "    hint: 多余\n")
    result = lint(path, fmt="github")
    assert result.exit_code == 1
    assert result.stdout.strip() == f"::error file={path},line=14,col=5::unknown field 'hint'"


def test_not_utf8(tmp_path):
    path = tmp_path / "deck.yaml"
    path.write_bytes((HEADER + QA).encode("utf-8") + b"  - id: \xff\n")
    result = lint(path)
    assert result.exit_code == 1 and problems(result) == [(14, 1, "the file is not UTF-8")]


def test_a_folder_without_decks_is_an_error_not_a_silent_pass(tmp_path):
    result = lint(tmp_path)
    assert result.exit_code == 1 and "no deck files" in result.stdout


def test_worked_examples_are_checked_even_when_another_card_is_broken(tmp_path):
    numeric = """\
  - id: num-one
    kind: numeric
    source: "2"
    checker: mlm_loss
    example:
      inputs: {probs: [0.62]}
      answer: 0.512
"""
    result = lint(write(tmp_path, CHOICE.replace("answer: B", "answer: Z") + numeric))
    messages = [m for _, _, m in problems(result)]
    assert any(m.startswith("answer: 'Z'") for m in messages)
    assert any(m.startswith("example answer:") for m in messages)


@pytest.mark.parametrize("sizes, expected", [
    ("batch: 99999999999999999999999999, q_len: 8, kv_len: 20", "batch: larger than 1,000,000,000,000"),
    ("batch: 9223372036854775807, q_len: 8, kv_len: 20", "batch: larger than 1,000,000,000,000"),
    ("batch: 1000000000000, q_len: 1000000000000, kv_len: 20",  # each within bounds, their product not
     "example answer: the reference cannot compute these inputs ("),
])
def test_example_inputs_the_reference_cannot_hold_are_a_problem_at_their_card(tmp_path, sizes, expected):
    """Lint ended with "unexpected TypeError: ... Overflow when unpacking long long" and a C++
    stack dump, no line, and no other problem of the folder listed."""
    numeric = f"""\
  - id: num-shapes
    kind: numeric
    source: "2"
    checker: attention_shapes
    example:
      inputs: {{{sizes}, d_model: 512, heads: 8, stage: scores}}
      answer: [4, 8, 8, 20]
"""
    result = lint(write(tmp_path, CHOICE.replace("answer: B", "answer: Z") + numeric))
    assert result.exit_code == 1 and "unexpected" not in result.output
    messages = [m for _, _, m in problems(result)]
    assert any(m.startswith("answer: 'Z'") for m in messages)  # the other card's problem is listed too
    assert any(expected in m for m in messages), messages


def test_the_archive_decks_id_is_refused(tmp_path):
    """A deck with the id `archived` mixed its cards with the history import's archived ones
    (`history export --deck archived` gave both)."""
    result = lint(write(tmp_path, CHOICE, header=HEADER.replace("id: test-deck", "id: archived")))
    assert result.exit_code == 1
    assert (1, 5, "the deck id 'archived' is taken: `quiz history import` keeps there the cards no deck has") in problems(result)
    chapter = Path(__file__).resolve().parent / "fixtures" / "chapter-small.md"
    refused = runner.invoke(app, ["import", "chapter", str(chapter), "--deck", "archived"])
    assert refused.exit_code == 2 and "the deck id 'archived' is taken" in refused.stderr


CLOZE = """\
  - id: cloze-one
    kind: cloze
    source: "1.3"
    text: |
      BERT 随机选 {{c1::15%}} 的 token，
      其中 {{c2:80%}} 换成 [MASK]。
"""


def test_broken_cloze_is_reported_at_its_line(tmp_path):
    """A malformed blank on the second line of a block text: the problem names that line (19)."""
    result = lint(write(tmp_path, QA + CLOZE))
    assert result.exit_code == 1
    assert problems(result) == [(19, 1, "cloze: '{{' does not start a blank like {{c1::answer}} or {{c1::answer::hint}}"),
                                (19, 1, "cloze: '}}' closes no blank")]


@pytest.mark.parametrize("text, accept, message", [
    ("没有空", "", "cloze: no blank; mark one as {{c1::answer}}"),
    ("{{c1::15%}} 和 {{c1::20%}}", "", "cloze: c1 is used twice with different answers ('15%', '20%')"),
    ("{{c1::15%}}", "\n    accept: {c2: [x]}", "accept: the text has no blank c2"),
    ("{{c1:: }}", "", "cloze: blank c1 has no answer"),
    ("{{c1::a;b}} 和 {{c2::c}}", "", "cloze: blank c1's answer 'a;b' holds ';', which separates the answers of several "
                                   "blanks"),  # such a card could never be answered
    ("{{c1::a}} 和 {{c2::c}}", "\n    accept: {c2: [d；e]}", "accept: 'd；e' holds ';', which separates the answers of "
                                                         "several blanks"),
])
def test_cloze_syntax_problems(tmp_path, text, accept, message):
    card = f'  - id: cloze-two\n    kind: cloze\n    source: "1.3"\n    text: "{text}"{accept}\n'
    result = lint(write(tmp_path, card))
    assert [p[2] for p in problems(result)] == [message]
    assert problems(result)[0][0] == (12 if "accept" in message else 11)  # the text's line, or accept's key


@pytest.mark.parametrize("text", [
    "a:\n  b: 1\n\tc: 2\n",  # a tab in the indentation
    "? a\nb\n",  # a key without its colon
    "a: &\n",  # an anchor without a name
    "- ]\n",  # no value where one belongs
    "a: - b\n",  # a list item on the key's line
    "cards:\n\t- a\n", "a: b: c\n", "{a: 1\n", "a:\n  - b\n - c\n", 'a: "x\n', "'a' b\n",
    "a: " + "[" * 2000 + "]" * 2000 + "\n",  # past libyaml's own depth, before the reader's
])
def test_yaml_slips_are_described_in_the_interface_language(text):
    """`quiz lint` on a deck indented with a tab said `YAML 语法错误：found a tab character that
    violates indentation`: PyYAML's English, where the usual slips are translated."""
    from quizzer.base import i18n
    from quizzer.decks.yamlsource import parse

    i18n.use("zh")
    try:
        [problem] = parse(text).problems[:1]
    finally:
        i18n.use("en")
    assert problem.message.startswith("YAML 语法错误：")
    assert not re.search(r"[A-Za-z]{3,}", problem.message.replace("YAML", "")), problem.message


@pytest.mark.parametrize("card, english, chinese", [
    ('  - id: num-stage\n    kind: numeric\n    source: "1.1"\n    checker: attention_shapes\n    params: {stages: [nope]}\n',
     "stages: must be one of 'q', 'q_split', 'q_heads', 'k_heads', 'scores', 'context', 'merged', 'output'",
     "stages：应为以下之一：'q'、'q_split'、'q_heads'、'k_heads'、'scores'、'context'、'merged'、'output'"),
    ('  - id: num-model\n    kind: numeric\n    source: "1.1"\n    checker: param_count\n    params: {models: [nope, gpt2]}\n',
     "params: unknown model(s) nope; known: bert-base-uncased, bert-large-uncased, bert-base-chinese, "
     "distilbert-base-uncased, openai-gpt, gpt2, gpt2-medium, gpt2-large, gpt2-xl",
     "params：未知模型 nope；已有：bert-base-uncased、bert-large-uncased、bert-base-chinese、distilbert-base-uncased、"
     "openai-gpt、gpt2、gpt2-medium、gpt2-large、gpt2-xl"),  # a checker's rule (English before), named by its field
    ('  - id: num-list\n    kind: numeric\n    source: "1.1"\n    checker: param_count\n    params: [1, 2]\n',
     "params: expected a mapping, got list", "params：应为映射（key: value），实际是列表"),
    ('  - id: cz-open\n    kind: cloze\n    source: "1.1"\n    text: "{{c1::a}} 和 {{b"\n',
     "cloze: '{{' does not start a blank like {{c1::answer}} or {{c1::answer::hint}}",
     "填空：'{{' 不是一个空的开头（空的写法是 {{c1::答案}} 或 {{c1::答案::提示}}）"),
])
def test_a_choice_of_values_and_a_stray_cloze_opening_are_in_the_interface_language(tmp_path, card, english, chinese):
    """Both were English in the Chinese interface (pydantic's `Input should be 'q', ... or 'output'`)."""
    from quizzer.base import i18n

    path = write(tmp_path, card)
    assert [message for _, _, message in problems(lint(path))] == [english]
    i18n.use("zh")
    try:
        assert [message for _, _, message in problems(lint(path))] == [chinese]
    finally:
        i18n.use("en")


def test_a_list_too_short_or_too_long_is_counted_in_words():
    """It said `points: needs at least 1 item(s)`."""
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        short = lint(write(Path(folder), QA.replace("points: [Encoder-only]", "points: []")))
        long = lint(write(Path(folder), CHOICE.replace("options: [甲, 乙, 丙]", f"options: [{', '.join('甲' * 30)}]"), "b.yaml"))
    assert [message for _, _, message in problems(short)] == ["points: needs at least 1 item"]
    assert any(re.fullmatch(r"options: needs at most \d+ items", message) for _, _, message in problems(long)), long.stdout
