"""Turning deck text (Markdown with $LaTeX$) into something a terminal shows well."""

from __future__ import annotations

import re
from functools import lru_cache

from rich.markdown import Markdown

_MATH = re.compile(r"\$\$(.+?)\$\$|\$(.+?)\$", re.DOTALL)


@lru_cache(maxsize=1)
def _latex():
    from pylatexenc.latex2text import LatexNodes2Text

    return LatexNodes2Text(math_mode="text")


def math_to_unicode(text: str) -> str:
    """Replace every ``$...$`` / ``$$...$$`` by its Unicode reading (``\\sqrt{d_k}`` -> ``√(d_k)``)."""
    if "$" not in text:
        return text

    def convert(match: re.Match[str]) -> str:
        block, inline = match.groups()
        rendered = _latex().latex_to_text(block or inline).strip()
        return f"\n\n{rendered}\n\n" if block else f"`{rendered}`"

    return _MATH.sub(convert, text)


def question_text(card, asked=None) -> str:
    """The front of any card (``asked``: the question generated for a numeric card)."""
    from quizzer.model import ChoiceCard, MistakeCard, NumericCard

    if isinstance(card, ChoiceCard):
        return choice_text(card)
    if isinstance(card, MistakeCard):
        return f"**常见说法**：{card.claim}\n\n这句话错在哪里？为什么？"
    if isinstance(card, NumericCard):
        return (f"{card.prompt}\n\n" if card.prompt else "") + (asked.prompt if asked else f"（由 `{card.checker}` 每次生成）")
    return card.question


def choice_text(card) -> str:
    """A choice card's question with its lettered options (and a note when several are right)."""
    options = "\n".join(f"- **{letter}.** {text}" for letter, text in zip(card.letters, card.options))
    several = "（多选）" if len(card.answer) > 1 and "多选" not in card.question else ""
    return f"{card.question}{several}\n\n{options}"


def markdown(text: str) -> Markdown:
    return Markdown(math_to_unicode(text))
