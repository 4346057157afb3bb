"""Deck text in the terminal: LaTeX math becomes readable Unicode, Chinese wraps between
characters and never before closing punctuation, tables never cut an id."""

import io
import os
import re

import pytest
from hypothesis import assume, example, given
from hypothesis import strategies as st
from rich.cells import cell_len
from rich.console import Console, RenderableType

from quizzer.terminal.linebreak import break_units, divide_line
from quizzer.terminal.mathtext import math_to_unicode, to_text
from quizzer.terminal.render import console, markdown
from quizzer.base.widetext import join_wide_lines


def test_inline_math_becomes_unicode():
    assert math_to_unicode(r"缩放因子是 $\sqrt{d_k}$。") == "缩放因子是 `√(d_k)`。"
    assert "∈ ℝ⁷⁶⁸" in math_to_unicode(r"$h_{CLS} \in \mathbb R^{768}$")
    assert "≈" in math_to_unicode(r"$-\ln(0.62) \approx 0.478$")


def test_display_math_stands_on_its_own_lines():
    rendered = math_to_unicode("公式：$$\\text{softmax}(QK^T/\\sqrt{d_k})V$$结束")
    assert "\n\nsoftmax(QK^T/√(d_k))V\n\n" in rendered and rendered.startswith("公式：")


def test_every_script_of_a_long_formula_lands_in_its_place():
    """A script's place is marked by its number in digits (it was as many characters as its
    number: a formula of 1,000 scripts took 21 s to show); past a hundred, each still lands."""
    subscript = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")
    latex = " + ".join(f"a_{{{n}}}" for n in range(10, 130))
    assert to_text(latex) == " + ".join("a" + str(n).translate(subscript) for n in range(10, 130))


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


@given(st.lists(words, min_size=1, max_size=60), st.integers(min_value=8, max_value=40))
@example(parts=[" ", "token", "15%", "模型"], width=8)  # a leading space: rich glued it to the word and cut 15%
@example(parts=[" ", "token", "15%"], width=8)
@example(parts=["BERT", " ", "：", "。"], width=8)  # one piece longer than the line: folded, not a rule broken
def test_line_breaks_follow_the_chinese_rules(parts, width):
    text = "".join(parts)
    assume(all(cell_len(unit.rstrip()) <= width for unit in break_units(text)))  # else it is folded
    offsets = divide_line(text, width)
    pieces = [text[a:b] for a, b in zip([0, *offsets], [*offsets, len(text)])]
    assert "".join(pieces) == text and all(pieces)
    for before, after in zip(pieces, pieces[1:]):
        assert after.lstrip()[:1] not in CLOSING or not after.lstrip()  # never a line starting with 。
        assert not before.strip() or before.rstrip()[-1] not in OPENING  # never a line ending with （
        assert not (re.search(r"[A-Za-z0-9%]$", before) and re.match(r"[A-Za-z0-9%]", after))  # words whole
    for piece in pieces:
        assert cell_len(piece.rstrip()) <= width


@given(st.lists(words, min_size=1, max_size=60), st.integers(min_value=8, max_value=40))
@example(parts=["BERT", " ", "模型", "注意力"], width=11)  # `BERT 模型注意` / `力`
@example(parts=["BERT", "768", "模型"], width=10)  # `BERT768模` / `型`: the number goes down with its word
def test_a_last_line_never_holds_one_ideograph_alone_where_the_one_before_can_give_one(parts, width):
    """At 60 columns the overview broke a deck title as `…架` / `构`: a lone last character. The
    unit before it (UAX #14's, as joined) goes down with it, where the two fit and the line before
    keeps a unit."""
    text = "".join(parts)
    units = break_units(text)
    assume(all(cell_len(unit.rstrip()) <= width for unit in units))
    offsets = divide_line(text, width)
    pieces = [text[a:b] for a, b in zip([0, *offsets], [*offsets, len(text)])]
    assert all(cell_len(piece.rstrip()) <= width for piece in pieces) and "".join(pieces) == text
    if len(pieces) > 1:
        last = pieces[-1].rstrip()
        if re.fullmatch(r"[\u4e00-\u9fff][。，）」：]*", last) and len(units) > 1 and units[-1] == pieces[-1]:
            unit_before = units[-2]
            movable = (re.match(r"[\u4e00-\u9fff]", unit_before[-1:]) and unit_before != pieces[-2]
                       and cell_len((unit_before + last).rstrip()) <= width)
            assert not movable, pieces


mixed = st.sampled_from(["模", "型", "注意力", "BERT", "GPT-2", "8", "a/b", "15%", "$", "768", "。", "，", "（", "）", "「",
                         "」", "：", "？", "(", ")", "-", "/", " ", "\u3000", "ー", "々", "一", "…", "'", '"', "\u0301"])


@given(st.lists(mixed, max_size=40))
def test_break_units_cut_between_ideographs_as_uax14_does_on_the_whole_line(parts):
    from uniseg.linebreak import line_break_units

    from quizzer.terminal.linebreak import joined

    text = "".join(parts)
    assert break_units(text) == joined(line_break_units(text))  # the whole line through uniseg, as before the cut


def test_a_number_stays_with_the_chinese_word_after_it():
    """The rating line broke as `→ 简单 · 8` / `天后到期` (UAX #14 allows a break there)."""
    for width in range(4, 24):
        for text in ("→ 简单 · 8天后到期", "→ 重来 · 10分钟后到期", "共 12 张，第3章", "当前回忆概率 100% · 遗忘 0 次"):
            offsets = divide_line(text, width)
            assert not any(text[i - 1].isdigit() and "\u4e00" <= text[i] <= "\u9fff" for i in offsets), (text, width, offsets)
            assert not any(text[i - 2:i] in {f"{d} " for d in "0123456789"} and "\u4e00" <= text[i] <= "\u9fff"
                           for i in offsets if i >= 2) or width < 8, (text, width, offsets)  # `遗忘 0` / `次` neither,
            # where the number, its space and its word fit a line ("12 张，" is 7 columns)


def test_a_list_on_a_line_breaks_between_its_items():
    """`quiz show` broke its memory line as `difficulty` / `2.12` (60 columns) and `遗忘 0` / `次`."""
    for width in range(24, 100):
        for text in ("due 2026-12-02 02:46 · stability 2.31 days · difficulty 2.12 · recall now 100% · lapses 0",
                     "到期 2026-12-02 02:46 · 稳定性 2.31 天 · 难度 2.12 · 当前回忆概率 100% · 遗忘 0 次"):
            starts = {0} | {m.end() for m in re.finditer(" · ", text)}
            offsets = divide_line(text, width)
            lines = [text[a:b] for a, b in zip([0, *offsets], [*offsets, len(text)])]
            assert set(offsets) <= starts and all(cell_len(line.rstrip()) <= width for line in lines), (width, lines)


def test_a_rating_stays_with_its_interval_in_a_prompt():
    """At 60 columns the English prompt broke as `2 Hard` / `6m`."""
    text = "[space/Enter] next · another rating: 1 Again 1m · 2 Hard 6m · 3 Good 10m · 4 Easy 9d · u undo · q quit"
    intervals = {m.start(1) for m in re.finditer(r"\d [A-Z][a-z]+ (\d+[a-z]+)", text)}
    assert len(intervals) == 4
    for width in range(12, 90):
        assert not intervals & set(divide_line(text, width)), width


def test_a_key_stays_with_its_name_in_a_prompt():
    """At 60 columns the prompts broke as `e 编辑 · q` / `退出` and `· 3` / `良好 10分钟`."""
    for width in range(6, 60):
        for text in ("[空格/回车] 显示答案 · u 撤销 · b 搁置 · s 暂停 · e 编辑 · q 退出",
                     "1 重来 10分钟 · 2 困难 1天 · 3 良好 3天 · 4 简单 9天", "!u undo · !b bury · !s suspend · !q quit"):
            offsets = divide_line(text, width)
            keys = [m.end() for m in re.finditer(r"(?:^|[·\]] )!?[a-z0-9] ", text)]  # just after a key and its space
            assert not [i for i in offsets if i in keys and cell_len(text[i - 2:].split(" ·")[0]) + 2 <= width], (text, offsets)
            # nor inside the name (`4 简` / `单` at 80 columns), where the key and its name fit a line
            names = [(m.start(1), m.end(1)) for m in re.finditer(r"(?:^|[·\]] )!?[a-z0-9] ([\u4e00-\u9fff]+)", text)]
            assert not [i for i in offsets for a, b in names if a < i < b and cell_len(text[a - 2:b]) <= width], (text, offsets)


def test_a_command_in_backticks_stays_on_one_line_where_it_fits():
    """At 60 columns `quiz optimize --reset` broke as `quiz optimize -- / reset`, and in Chinese
    `quiz / --help` (both are typed as one)."""
    for width in range(8, 40):
        for text in ("Kept the fitted parameters (`quiz optimize --reset` goes back).",
                     "`quiz study` 每日练习，`quiz exam` 模拟面试，`quiz --help` 查看全部命令。"):
            offsets = divide_line(text, width)
            spans = [(m.start(), m.end()) for m in re.finditer(r"`[^`]*`", text)]
            # (punctuation around a span, as "(`…`", goes with it: room for two more cells)
            assert not [i for i in offsets for a, b in spans if a < i < b and cell_len(text[a:b]) + 2 <= width], (text, offsets)


def test_a_word_longer_than_the_line_is_folded():
    text = "注意" + "x" * 30 + "力"
    offsets = divide_line(text, 10)
    pieces = [text[a:b] for a, b in zip([0, *offsets], [*offsets, len(text)])]
    assert "".join(pieces) == text and all(cell_len(piece) <= 10 for piece in pieces)


def test_an_id_longer_than_its_column_breaks_after_a_hyphen():
    """At 60 columns `quiz cards` showed `bert-vs-gpt-tabl` / `e` (rich folds a long word anywhere)."""
    assert divide_line("bert-vs-gpt-table", 16) == [12]
    assert divide_line("bert-cloze-encoder-only", 16) == [11]
    assert divide_line("see bert-cloze-encoder-only", 16) == [15]
    assert divide_line("x" * 20, 16) == [16]  # no hyphen: folded, as before


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


# -- code spans and bold without rich.markdown, drawn exactly as rich.markdown draws them ----------


def recorded(renderable: RenderableType, width: int) -> tuple[str, str]:
    """What a terminal of ``width`` shows in a panel: the text with its styles, and the raw output."""
    from rich.panel import Panel

    raw = io.StringIO()
    out = Console(width=width, record=True, force_terminal=True, color_system="truecolor", legacy_windows=False, file=raw)
    out.print(Panel(renderable))
    return out.export_text(styles=True), raw.getvalue()


def drawn_alike(text: str, widths: tuple[int, ...] = (12, 40, 100)) -> bool:
    """True when ``markdown(text)`` drew without rich.markdown; asserts it drew as rich.markdown does."""
    from rich.markdown import Markdown

    from quizzer.terminal.render import clean, rich_markdown

    console()  # Chinese line breaking, as the terminal has it
    ours = markdown(text)
    reference = rich_markdown(join_wide_lines(math_to_unicode(clean(text))))
    for width in widths:
        assert recorded(ours, width) == recorded(reference, width), (text, width)
    return not isinstance(ours, Markdown)


def numeric_prompts() -> list[str]:
    """Every bundled numeric card's question as study shows it, for a few seeds."""
    from pathlib import Path

    from quizzer import kinds
    from quizzer.decks import load_decks

    prompts = []
    for loaded in load_decks([Path(__file__).resolve().parent.parent / "decks"]):
        for card in loaded.deck.cards:
            kind = kinds.of(card)
            if kind.generated:
                prompts += [kind.front(kind.ask(card, seed)) for seed in range(3)]
    return prompts


def test_numeric_prompts_draw_without_rich_markdown_as_it_draws_them():
    prompts = numeric_prompts()
    inline = [text for text in prompts if drawn_alike(text)]
    assert len(inline) >= 0.7 * len(prompts) and any("**" in t and "`" in t for t in inline)  # all but tables, lists, code


EDGES = [
    "**粗体**", "但**忘了传 attention_mask**：PAD 也参与", "**a `code` b**", "**`mask`**", "中文`code`中文", "`x`，`y`。",
    "a\\*b", "\\*\\*不是粗体\\*\\*", "\\`not code\\`", "a\\", "attention_mask 和 d_k", "snake_case_name", "a * b", "2 * 3 = 6",
    "x**2**y", "**a**b**c**", "**多行\n粗体**", "`` `a` ``", "` a `", "`a` `b`", "$\\sqrt{d_k}$ 与 `q`", "第一段\n\n**第二段**",
    "mask = `[1, 0]`（1 = 保留）", "[1, 0] 不是链接", "的**「强调」**后", "**a", "`unclosed", "__init__", "*em*", "a  \nb",
]


@pytest.mark.parametrize("text", EDGES)
def test_edge_cases_draw_as_rich_markdown_draws_them(text):
    drawn_alike(text)


def test_the_edge_cases_mostly_take_the_inline_path():
    assert sum(drawn_alike(text, (40,)) for text in EDGES) >= 20


ATOMS = ["**", "*", "`", "``", "_", "\\", "中", "文", "a", "b", " ", "\n", "\n\n", "：", "「", "」", "。", "1", "(", ")",
         "**粗**", "`x`", "x_y", "-", "×", "é", "\\*", "\\`", "[", "]", "$", " \n", "  ", "_a_", "***"]


@given(st.lists(st.sampled_from(ATOMS), min_size=1, max_size=14), st.integers(min_value=6, max_value=40))
def test_any_mix_of_inline_syntax_draws_as_rich_markdown_draws_it(parts, width):
    drawn_alike("".join(parts), (width,))


@pytest.mark.parametrize("text", ["屏蔽 <pad> 位置；只有 BERT 用", "- 屏蔽 batch 里补齐的 <pad> 位置\n- 句首 <s>、句尾 </s>，换行 <br>",
                                  "| 记号 | 含义 |\n| --- | --- |\n| <pad> | 补齐 |"])
def test_tags_in_deck_text_are_shown_as_written(text):
    """Deck text is Markdown without HTML (as the Anki export reads it): rich.markdown dropped
    every tag it does not draw, so `<pad>` vanished from five cards' options."""
    out = Console(width=100, color_system=None)
    with out.capture() as captured:
        out.print(markdown(text))
    for tag in re.findall(r"</?[a-z]+>", text):
        assert tag in captured.get()


def test_a_multiple_choice_card_keeps_its_tokens(tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from quizzer.cli import app

    monkeypatch.setenv("QUIZ_DB", str(tmp_path / "q.db"))
    shown = CliRunner().invoke(app, ["show", "d12-padding-mask-where"], env={"COLUMNS": "200"})
    assert shown.exit_code == 0, shown.output
    assert "屏蔽 batch 里补齐的 <pad> 位置" in shown.stdout and "屏蔽 <pad> 位置；只有 BERT 用" in shown.stdout


def test_a_link_shows_its_address_and_sends_no_terminal_hyperlink():
    """rich.markdown made each link an OSC 8 hyperlink: "bank login" on screen, a hidden address
    behind it, from a deck a pull request can bring."""
    out = Console(width=100, force_terminal=True, color_system="truecolor")
    with out.capture() as captured:
        out.print(markdown("- [bank login](https://evil.example/steal)\n- ![img](http://img.example/x.png) <http://auto.example>"))
    shown = captured.get()
    assert "\x1b]8" not in shown and "https://evil.example/steal" in shown and "http://auto.example" in shown


@pytest.mark.parametrize("reference", ["&#x202e;", "&#8238;", "&#X2066;", "&#x9b;", "&#27;"])
def test_a_character_reference_never_puts_a_control_on_the_terminal(reference):
    """Markdown turns `&#x202e;` into U+202E as it parses: the bidi override reached the terminal."""
    out = Console(width=100, force_terminal=True, color_system="truecolor")
    with out.capture() as captured:
        out.print(markdown(f"- 左 {reference}bidi 右\n- `{reference}`"))
    shown = captured.get()
    assert not re.search("[\u202a-\u202e\u2066-\u2069\x80-\x9f]", shown) and "bidi" in shown
    assert not re.search("\x1b(?!\\[[0-9;]*m)", shown)  # colours only


@pytest.mark.parametrize("width", [40, 60, 80, 120])
def test_a_cards_title_keeps_progress_kind_and_section_and_is_cut_with_an_ellipsis(width):
    """At 60 columns the title lost the kind and section behind a long deck title, and at 80 the
    section was cut mid-word with no mark."""
    from rich.text import Text

    from quizzer.terminal.render import card

    out = Console(file=io.StringIO(), width=width)
    parts = [Text("0 done · 13 left"), Text("面试数字题：Transformer 与大模型"), Text("numeric"), Text("Vaswani2017§3.2.2")]
    card(out, parts, "问题", optional=1)
    top = next(line for line in out.file.getvalue().splitlines() if line.startswith("╭"))
    assert cell_len(top) == width
    whole = "0 done · 13 left · 面试数字题：Transformer 与大模型 · numeric · Vaswani2017§3.2.2"
    if cell_len(whole) + 6 <= width:
        assert whole in top
    elif width >= 60:
        assert "0 done · 13 left · numeric · Vaswani2017§3.2.2" in top and "面试" not in top
    else:
        assert "…" in top and top.startswith("╭─ 0 done · 13 left")


def test_a_table_between_paragraphs_has_one_blank_line_on_each_side():
    """A worked solution's table stood between two blank lines on each side: rich's table box
    draws its top and bottom edges as blank lines, beside the paragraphs' own."""
    from rich.console import Console

    from quizzer.terminal.render import markdown

    console = Console(width=60, record=True)
    console.print(markdown("para one.\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\npara two."))
    lines = [line.rstrip() for line in console.export_text().splitlines()]
    assert lines[:2] == ["para one.", ""] and lines[-2:] == ["", "para two."], lines
    assert lines[2].split() == ["a", "b"] and lines[-3].split() == ["1", "2"], lines


def test_a_cloze_blank_s_hint_stays_on_one_line_where_it_fits():
    """At 60 columns a blank's hint broke as `［2：遮` / `PAD］`."""
    text = "BERT 的结构是 ［1］，注意力是［2：遮 PAD］的（双向）"
    a, b = text.index("［2"), text.index("］的") + 1
    for width in range(12, 40):
        offsets = divide_line(text, width)
        assert not [i for i in offsets if a < i < b] or cell_len(text[a:b]) > width, (width, offsets)
        pieces = [text[x:y] for x, y in zip([0, *offsets], [*offsets, len(text)])]
        assert "".join(pieces) == text


def test_a_number_and_a_space_in_card_text_is_not_a_prompt_key():
    """The rule keeping `4 简单` whole glued a card's `3 层自注意力叠加后…` into one piece up to its
    next space, so the line before it ended early."""
    text = "答案：3 层自注意力叠加后，每一层都会混合信息"
    assert divide_line(text, 30)[0] > len("答案：")  # the first line is filled
    assert not any(unit.startswith("3 层自") for unit in break_units(text))


def test_an_id_whose_parts_are_longer_than_the_column_folds_as_before():
    """Broken after each hyphen and each part then folded, `transformer-attention-mechanism` took
    six lines at 8 columns where folding it whole takes four."""
    assert len(divide_line("transformer-attention-mechanism", 8)) == 3  # four lines


REMEMBERED = "由 8.2 的规格表可推出 BERT Base 每个注意力头的维度是 64 吗？见 Vaswani et al. (2017)。"


def _break_in_child(cache, uniseg_works=True):
    """``break_units(REMEMBERED)`` in a fresh process with this cache folder; without uniseg's
    line breaking when ``uniseg_works`` is False, so only the memo of an earlier process can answer."""
    import json
    import subprocess
    import sys

    script = ("import json, sys\nimport uniseg.linebreak\n"
              + ("" if uniseg_works else "uniseg.linebreak.line_break_units = None\n")
              + "from quizzer.terminal.linebreak import break_units\nprint(json.dumps(break_units(sys.argv[1])))")
    done = subprocess.run([sys.executable, "-c", script, REMEMBERED], env={**os.environ, "QUIZ_CACHE_DIR": str(cache)},
                          capture_output=True, text=True, timeout=60)
    return json.loads(done.stdout) if done.returncode == 0 else None


@pytest.mark.slow
def test_line_breaks_are_remembered_from_one_run_to_the_next(tmp_path):
    """uniseg takes about 0.1 ms a character: `quiz cards` spent 0.8 s of 1.8 s breaking the same
    questions each time. A later process takes the earlier one's units from the cache folder."""
    cache = tmp_path / "cache"
    cache.mkdir()
    expected = break_units(REMEMBERED)
    assert _break_in_child(tmp_path / "elsewhere", uniseg_works=False) is None  # nothing remembered: it needs uniseg
    assert _break_in_child(cache) == expected
    assert _break_in_child(cache, uniseg_works=False) == expected


@pytest.mark.slow
@pytest.mark.parametrize("damage", ["not json", "[1, 2]", '{"由": "x"}', '{"BERT Base ": [0, 10]}',
                                    '{"BERT Base ": [3]}', '{"BERT Base ": [true, 9]}', "[" * 100_000])
def test_a_damaged_line_break_memo_is_remade(tmp_path, damage):
    """The memo is only a cache: a file that is not what quiz wrote gives the same breaks, and is
    written afresh."""
    import json

    import uniseg

    cache = tmp_path / "cache"
    cache.mkdir()
    memo = cache / f"linebreaks-uniseg-{uniseg.__version__}.json"
    memo.write_text(damage, "utf-8")
    assert _break_in_child(cache) == break_units(REMEMBERED)
    remade = json.loads(memo.read_text("utf-8"))
    assert isinstance(remade, dict) and remade
    assert all(sum(lengths) == len(run) and all(n > 0 for n in lengths) for run, lengths in remade.items())


@pytest.mark.slow
def test_a_text_with_a_file_names_undecodable_bytes_neither_breaks_the_memo_nor_prints_a_traceback(tmp_path):
    """A message naming a file whose name is not UTF-8 carries lone surrogates; the memo, written as
    UTF-8 at exit, raised there (a traceback after the command's own output) and kept nothing."""
    import json
    import subprocess
    import sys

    import uniseg

    cache = tmp_path / "cache"
    cache.mkdir()
    script = ("from quizzer.terminal.linebreak import break_units\n"
              "print(len(break_units('文件 /tmp/ab\\udcff.yaml 无法读取')), len(break_units('见 BERT Base 的表')))")
    done = subprocess.run([sys.executable, "-c", script], env={**os.environ, "QUIZ_CACHE_DIR": str(cache)},
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    kept = json.loads((cache / f"linebreaks-uniseg-{uniseg.__version__}.json").read_text("utf-8"))
    assert "见 BERT Base 的" in kept and not any("\udcff" in run for run in kept)


def test_a_command_line_option_is_never_broken_after_a_hyphen():
    """`quiz --help` in Chinese broke `quiz cards --` / `json）` (UAX #14 allows a break after a
    hyphen); `--new-per-day` broke at each hyphen. A word's own hyphen still breaks where it did."""
    text = "命令自己的 --json 写在后面：quiz cards --json，或者用 --new-per-day N 和 -h 看帮助；Encoder-only 模型"
    for width in range(8, 40):
        offsets = divide_line(text, width)
        for option in [o for o in ("--json", "--new-per-day", "-h") if len(o) <= width]:  # a longer one is folded
            for start in [i for i in range(len(text)) if text.startswith(option + " ", i) or text.startswith(option + "，", i)]:
                assert not any(start < cut < start + len(option) for cut in offsets), (width, option, offsets)
    assert break_units("Encoder-only 模型")[:2] == ["Encoder-", "only "]


@pytest.mark.parametrize("columns, words", [(80, "每个头一个 S_q"), (100, "reshape 或")])
def test_a_markdown_table_cell_wraps_and_drops_no_word(tmp_path, monkeypatch, columns, words):
    """A worked solution's table cell lost the last word of a wrapped line to "…": `每个头一个 S_…`
    at 80 columns, `reshape  …` (for `reshape 或`) at 100. The space before the next word was
    counted as a character, not as the cell it is beside two-cell Chinese, so the line seemed too long."""
    from typer.testing import CliRunner

    from quizzer.cli import app

    monkeypatch.setenv("QUIZ_DB", str(tmp_path / "q.db"))
    shown = CliRunner().invoke(app, ["generate", "--card", "num-attention-shapes-split-merge", "--seed", "1"],
                               env={"COLUMNS": str(columns), "QUIZ_LANG": "zh"})  # the solution's Chinese table
    assert shown.exit_code == 0, shown.output
    table = shown.stdout.split("步骤")[1].split("答案")[0]
    assert words in table and "…" not in table, table
