"""LaTeX math read aloud in plain Unicode, for a terminal that cannot typeset it.

pylatexenc does the macros (``\\sqrt``, Greek letters, ``\\mathcal``); two things it gets wrong
are fixed around it. A sub- or superscript of more than one symbol loses its grouping
(``u_{i-k}`` came out as ``u_i-k``, "u_i minus k"), so a group keeps it: Unicode script
characters where every symbol has one (``10^{-4}`` → ``10⁻⁴``), parentheses otherwise
(``u_(i−k)``). And operators lose the space after them (``C \\times 768`` → ``C ×768``), so
operators and relations written as macros are spaced the same on both sides.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from quizzer.app.kind_names import MATH

_SUPER = dict(zip("0123456789+-−=()n", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁻⁼⁽⁾ⁿ"))
_SUB = dict(zip("0123456789+-−=()", "₀₁₂₃₄₅₆₇₈₉₊₋₋₌₍₎"))
_OPERATORS = {
    "times": "×", "cdot": "·", "in": "∈", "notin": "∉", "le": "≤", "leq": "≤", "ge": "≥", "geq": "≥",
    "approx": "≈", "neq": "≠", "ne": "≠", "to": "→", "rightarrow": "→", "mapsto": "↦", "pm": "±",
    "sim": "∼", "mid": "|", "propto": "∝", "subset": "⊂", "subseteq": "⊆", "equiv": "≡", "div": "÷",
}
_OPERATOR = re.compile(r"\\(" + "|".join(sorted(_OPERATORS, key=len, reverse=True)) + r")(?![A-Za-z])")
_FUNCTIONS = re.compile(r"\\(log|ln|exp|max|min|sin|cos|tan|arg|det|dim)(?![A-Za-z])\s*")
_SPACES = re.compile(r"[ \t]{2,}")


def math_to_unicode(text: str) -> str:
    """Replace every ``$...$`` / ``$$...$$`` by its Unicode reading (``\\sqrt{d_k}`` -> ``√(d_k)``).
    Here, not beside the renderer, so a listing printed as JSON does not load rich."""
    if "$" not in text:
        return text

    def convert(match: re.Match[str]) -> str:
        block, inline = match.groups()
        rendered = to_text(block or inline)
        return f"\n\n{rendered}\n\n" if block else f"`{rendered}`"

    return MATH.sub(convert, text)


@lru_cache(maxsize=1)
def _converter() -> Any:
    from pylatexenc.latex2text import LatexNodes2Text

    return LatexNodes2Text(math_mode="text")


def _group_end(text: str, start: int) -> int:
    """Index after the ``}`` that closes the ``{`` at ``start`` (len(text) when unclosed)."""
    depth = 0
    for index in range(start, len(text)):
        if text[index] == "{" and (index == 0 or text[index - 1] != "\\"):
            depth += 1
        elif text[index] == "}" and text[index - 1] != "\\":
            depth -= 1
            if depth == 0:
                return index + 1
    return len(text)


def _script(marker: str, inner: str) -> str:
    """One converted sub/superscript: as is for one symbol, script characters, or parentheses."""
    shown = to_text(inner).strip()
    if len(shown) <= 1:
        return marker + shown
    table = _SUPER if marker == "^" else _SUB
    if all(char in table for char in shown):
        return "".join(table[char] for char in shown)
    return f"{marker}({shown})"


# a script's place, for pylatexenc to pass through: its number in private-use digits between two marks
_MARK_DIGITS = {0xE010 + d: str(d) for d in range(10)}
_MARK = re.compile("\ue000([\ue010-\ue019]+)\ue001")


def _mark(number: int) -> str:
    return "\ue000" + "".join(chr(0xE010 + int(d)) for d in str(number)) + "\ue001"


def to_text(latex: str) -> str:
    """The Unicode reading of one formula (the text between ``$`` signs)."""
    scripts: list[str] = []
    rewritten: list[str] = []
    index = 0
    while index < len(latex):
        char = latex[index]
        if char in "_^" and latex[index + 1:index + 2] == "{" and (index == 0 or latex[index - 1] != "\\"):
            end = _group_end(latex, index + 1)
            rewritten.append(_mark(len(scripts)))
            scripts.append(_script(char, latex[index + 2:end - 1]))
            index = end
            continue
        rewritten.append(char)
        index += 1
    text = _convert("".join(rewritten))
    text = _MARK.sub(lambda match: scripts[int(match.group(1).translate(_MARK_DIGITS))], text)
    return _SPACES.sub(" ", text).strip()


def _convert(latex: str) -> str:
    if not latex:
        return ""
    spaced = _OPERATOR.sub(lambda match: f" {_OPERATORS[match.group(1)]} ", latex)
    spaced = _FUNCTIONS.sub(  # as plain words: pylatexenc drops the space after \log
        lambda match: match.group(1) + ("" if match.string[match.end():match.end() + 1] in ("(", "_", "^", "\ue000") else " "), spaced)
    text = _converter().latex_to_text(spaced)
    return text.replace("-", "−")  # a hyphen in math is a minus sign
