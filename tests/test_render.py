"""Deck text in the terminal: LaTeX math becomes readable Unicode, Chinese wraps between
characters and never before closing punctuation, tables never cut an id."""

import re

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from rich.cells import cell_len
from rich.console import Console
from uniseg.linebreak import line_break_units

from quizzer.terminal.linebreak import divide_line, join_wide_lines
from quizzer.terminal.mathtext import to_text
from quizzer.terminal.render import console, markdown, math_to_unicode


def test_inline_math_becomes_unicode():
    assert math_to_unicode(r"缩放因子是 $\sqrt{d_k}$。") == "缩放因子是 `√(d_k)`。"
    assert "∈ ℝ⁷⁶⁸" in math_to_unicode(r"$h_{CLS} \in \mathbb R^{768}$")
    assert "≈" in math_to_unicode(r"$-\ln(0.62) \approx 0.478$")


def test_display_math_stands_on_its_own_lines():
    rendered = math_to_unicode("公式：$$\\text{softmax}(QK^T/\\sqrt{d_k})V$$结束")
    assert "\n\nsoftmax(QK^T/√(d_k))V\n\n" in rendered and rendered.startswith("公式：")


def test_text_without_math_is_untouched():
    text = "价格 5 元，[CLS] 位置 *强调*"
    assert math_to_unicode(text) == text


@pytest.mark.parametrize("latex, shown", [
    (r"u_{i-k}", "u_(i−k)"),  # not u_i-k, "u_i minus k"
    (r"\sum_{i \in \mathcal M} x_i", "∑_(i ∈ ℳ) x_i"),
    (r"e^{-\infty}", "e^(−∞)"),
    (r"C \times 768", "C × 768"),
    (r"\tilde{x}", "x̃"),
    (r"10^{-4}", "10⁻⁴"),  # every symbol has a superscript form
    (r"y^{10} + x^2", "y¹⁰ + x^2"),
    (r"-\log_{10}(0.62)", "−log₁₀(0.62)"),
    (r"-\log P(y \mid h_{CLS})", "−log P(y | h_(CLS))"),
    (r"\frac{a_{ij}}{b}", "a_(ij)/b"),  # a group inside another macro's argument
    (r"d_k", "d_k"),
])
def test_latex_keeps_grouping_and_spacing(latex, shown):
    assert to_text(latex) == shown


CLOSING = "。，、；：？！）」』"
OPENING = "（「『"


def lines_of(text: str, width: int) -> list[str]:
    console = Console(width=width, force_terminal=False, color_system=None)
    with console.capture() as captured:
        console.print(text, markup=False, highlight=False)
    return [line.rstrip() for line in captured.get().splitlines()]


def test_rich_wraps_chinese_between_characters_once_installed():
    console()  # the terminal's console installs the line breaking
    text = "BERT 的预训练有两个任务：MLM（掩码语言模型）随机选 15% 的 token，NSP 判断两句是否相邻。" * 2
    lines = lines_of(text, 24)
    assert all(cell_len(line) <= 24 for line in lines)
    assert all(cell_len(line) >= 20 for line in lines[:-1])  # filled, not ended early at a space
    assert not any(line[0] in CLOSING for line in lines)
    assert "".join(lines).replace(" ", "") == text.replace(" ", "")


words = st.sampled_from(["模型", "的", "注意力", "BERT", "token", "15%", "768", "。", "，", "（", "）", "「", "」", "：", " "])


@settings(max_examples=200, deadline=None)
@given(st.lists(words, min_size=1, max_size=60), st.integers(min_value=8, max_value=40))
def test_line_breaks_follow_the_chinese_rules(parts, width):
    text = "".join(parts)
    assume(all(cell_len(unit.rstrip()) <= width for unit in line_break_units(text)))  # else it is folded
    offsets = divide_line(text, width)
    pieces = [text[a:b] for a, b in zip([0, *offsets], [*offsets, len(text)])]
    assert "".join(pieces) == text and all(pieces)
    for before, after in zip(pieces, pieces[1:]):
        assert after.lstrip()[:1] not in CLOSING or not after.lstrip()  # never a line starting with 。
        assert before.rstrip()[-1:] not in OPENING  # never a line ending with （
        assert not (re.search(r"[A-Za-z0-9%]$", before) and re.match(r"[A-Za-z0-9%]", after))  # words whole
    for piece in pieces:
        assert cell_len(piece.rstrip()) <= width


def test_a_word_longer_than_the_line_is_folded():
    text = "注意" + "x" * 30 + "力"
    offsets = divide_line(text, 10)
    pieces = [text[a:b] for a, b in zip([0, *offsets], [*offsets, len(text)])]
    assert "".join(pieces) == text and all(cell_len(piece) <= 10 for piece in pieces)


def test_ascii_lines_wrap_as_rich_always_did():
    from rich._wrap import divide_line as riches

    text = "the quick brown fox jumps over the lazy dog " * 3
    assert divide_line(text, 17) == riches(text, 17)


def test_lines_of_a_block_join_without_a_space_between_chinese():
    assert join_wide_lines("第一句话。\n第二句话，\nBERT 不能直接生成。") == "第一句话。第二句话，BERT 不能直接生成。"
    assert join_wide_lines("English line\nnext line") == "English line\nnext line"  # Markdown makes it a space
    for block in ["说明：\n- 列表项", "标题\n\n段落", "表格前\n| a | b |", "代码\n```\n甲\n乙\n```", "一\n# 标题"]:
        assert join_wide_lines(block) == block


def test_a_yaml_block_renders_as_one_chinese_paragraph():
    out = Console(width=200, color_system=None)
    with out.capture() as captured:
        out.print(markdown("不能直接生成；\nGPT：能生成。"))
    assert "不能直接生成；GPT：能生成。" in captured.get()


@pytest.mark.parametrize("columns", [60, 70, 80, 120])
def test_deck_tables_never_cut_an_id(columns, monkeypatch):
    from typer.testing import CliRunner

    from quizzer.cli import app

    monkeypatch.setenv("COLUMNS", str(columns))
    for command in (["decks"], []):
        result = CliRunner().invoke(app, command)
        assert result.exit_code == 0, result.output
        lines = result.output.splitlines()
        assert all(cell_len(line.rstrip()) <= columns for line in lines)
        for deck in ("ch08-bert", "day12-bert-gpt"):
            assert any(re.match(rf"\s*{deck}\s", line) for line in lines), (command, columns, result.output)
