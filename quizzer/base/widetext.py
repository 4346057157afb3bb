"""Deck Markdown's soft line breaks between Chinese lines, dropped before the Markdown is read:
Markdown makes such a break a space, which Chinese text does not have. The terminal and the Anki
export read deck text the same way, so both take it from here."""

from __future__ import annotations

import re
import unicodedata


def is_wide(char: str) -> bool:
    """An East Asian wide or fullwidth character (ideographs, kana, fullwidth punctuation)."""
    return unicodedata.east_asian_width(char) in "WF"


_BLOCK_START = re.compile(r"\s*([-*+>#|]|\d+[.)]\s|```|~~~|$)")


def join_wide_lines(markdown: str) -> str:
    """Soft line breaks (a ``|`` block's newlines inside a paragraph) dropped where either side
    is Chinese, so Markdown does not turn them into a space between two Chinese sentences.
    Lines that start a block (a list item, a table row, a heading, a fence, a blank) stay, and so
    do hard breaks (two trailing spaces, a trailing backslash) and indented code."""
    lines = markdown.split("\n")
    out = [lines[0]]
    fenced = lines[0].lstrip().startswith(("```", "~~~"))
    for line in lines[1:]:
        previous = out[-1]
        starts_block = _BLOCK_START.match(line) is not None
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
        hard_break = previous.endswith(("  ", "\\"))
        indented = line.startswith(("    ", "\t")) or previous.startswith(("    ", "\t"))
        joinable = (not fenced and not starts_block and not hard_break and not indented and previous.strip()
                    and not previous.lstrip().startswith("|")
                    and (is_wide(previous.rstrip()[-1]) or is_wide(line.lstrip()[0])))
        if joinable:
            out[-1] = previous.rstrip() + line.lstrip()
        else:
            out.append(line)
    return "\n".join(out)
