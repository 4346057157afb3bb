"""Deck text in the terminal: LaTeX math becomes readable Unicode, the rest stays Markdown."""

from quizzer.terminal.render import math_to_unicode


def test_inline_math_becomes_unicode():
    assert math_to_unicode(r"缩放因子是 $\sqrt{d_k}$。") == "缩放因子是 `√(d_k)`。"
    assert "ℝ^768" in math_to_unicode(r"$h_{CLS} \in \mathbb R^{768}$")
    assert "≈" in math_to_unicode(r"$-\ln(0.62) \approx 0.478$")


def test_display_math_stands_on_its_own_lines():
    rendered = math_to_unicode("公式：$$\\text{softmax}(QK^T/\\sqrt{d_k})V$$结束")
    assert "\n\nsoftmax(QK^T/√(d_k))V\n\n" in rendered and rendered.startswith("公式：")


def test_text_without_math_is_untouched():
    text = "价格 5 元，[CLS] 位置 *强调*"
    assert math_to_unicode(text) == text
