"""Card Markdown as HTML, for the pages that show cards (the Anki export, the web drill).

Raw HTML in a deck is text: markdown-it runs with ``html`` off, so ``<script>`` and
``onerror=`` show as written. Math (``$...$``, ``$$...$$``) is cut out before the Markdown is
read, so ``_`` and ``*`` inside it stay TeX, and put back as the caller renders it (MathJax
delimiters for Anki, MathML for the browser); whatever it returns is inserted as HTML. Lines
are joined as the terminal joins them (a ``|`` block's line breaks are not the author's).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from quizzer.base.widetext import join_wide_lines

# TeX in a card's text: ``$$display$$`` (group 1) or ``$inline$`` (group 2)
MATH = re.compile(r"\$\$(.+?)\$\$|\$(.+?)\$", re.DOTALL)

_HOLE = "\ue000{}\ue001"  # a private-use placeholder Markdown leaves alone
_HOLES = re.compile("\ue000(\\d+)\ue001")

MathRenderer = Callable[[str, bool], str]  # (TeX, display) -> HTML


def to_html(text: str, math: MathRenderer) -> str:
    """``text``'s Markdown as HTML, each formula as ``math`` renders it."""
    from markdown_it import MarkdownIt

    maths: list[str] = []

    def hole(match: re.Match[str]) -> str:
        display = match[1] is not None
        maths.append(math(match[1] if display else match[2], display))
        return _HOLE.format(len(maths) - 1)

    parser = MarkdownIt("commonmark", {"html": False}).enable("table")  # a soft break is a space
    rendered = parser.render(join_wide_lines(MATH.sub(hole, text))).strip()
    return _HOLES.sub(lambda m: maths[int(m[1])], rendered)
