"""Line breaking for Chinese and mixed Chinese-Latin text, in everything rich wraps.

rich breaks lines only at spaces, so a run of Chinese is one "word": lines end early with big
gaps, and a line can start with ``。``. The Unicode line-breaking algorithm (UAX #14, through
uniseg) knows better: a break between any two ideographs, never before closing punctuation or
after opening punctuation, Latin words and numbers kept whole. rich has no hook for break
opportunities, so ``install`` replaces the one function its ``Text.wrap`` calls,
``rich.text.divide_line`` (same arguments, same result: the offsets to break at; unchanged since
rich 10). Pure ASCII lines keep rich's own rule, which is UAX #14's for them and faster.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable

import rich.text
from rich import _wrap
from rich.cells import cell_len, chop_cells

_RICH_DIVIDE: Callable[[str, int, bool], list[int]] = _wrap.divide_line


def divide_line(text: str, width: int, fold: bool = True) -> list[int]:
    """Offsets (in characters) where ``text`` breaks to fit ``width`` cells."""
    if text.isascii():
        return _RICH_DIVIDE(text, width, fold)
    from uniseg.linebreak import line_break_units

    breaks: list[int] = []
    used = 0  # cells on the current line, trailing spaces included
    start = 0
    for unit in line_break_units(text):
        length = cell_len(unit.rstrip())
        if used + length <= width:
            used += cell_len(unit)
        elif length > width and fold:  # longer than a line: fold it into line-wide pieces
            pieces = chop_cells(unit, width)
            for piece in pieces:
                if start:
                    breaks.append(start)
                start += len(piece)
                used = cell_len(piece)
            continue
        elif start:  # fits on a line of its own (or is cropped there when folding is off)
            breaks.append(start)
            used = cell_len(unit)
        else:
            used = cell_len(unit)
        start += len(unit)
    return breaks


def install() -> None:
    """Make every rich wrap in this process use :func:`divide_line`."""
    rich.text.divide_line = divide_line


def is_wide(char: str) -> bool:
    """An East Asian wide or fullwidth character (ideographs, kana, fullwidth punctuation)."""
    return unicodedata.east_asian_width(char) in "WF"


_BLOCK_START = re.compile(r"\s*([-*+>#|]|\d+[.)]\s|```|~~~|$)")


def join_wide_lines(markdown: str) -> str:
    """Soft line breaks (a ``|`` block's newlines inside a paragraph) dropped where either side
    is Chinese, so Markdown does not turn them into a space between two Chinese sentences.
    Lines that start a block (a list item, a table row, a heading, a fence, a blank) stay."""
    lines = markdown.split("\n")
    out = [lines[0]]
    fenced = lines[0].lstrip().startswith(("```", "~~~"))
    for line in lines[1:]:
        previous = out[-1]
        starts_block = _BLOCK_START.match(line) is not None
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
        joinable = (not fenced and not starts_block and previous.strip() and not previous.lstrip().startswith("|")
                    and (is_wide(previous.rstrip()[-1]) or is_wide(line.lstrip()[0])))
        if joinable:
            out[-1] = previous.rstrip() + line.lstrip()
        else:
            out.append(line)
    return "\n".join(out)
