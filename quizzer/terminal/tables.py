"""Tables that give way in the right order on a narrow terminal.

An id (a deck or card id) is what the learner types back (``--deck``, ``quiz show``), so it is
never wrapped or cut; counts are never wrapped either; free text (titles, fronts, answers)
wraps, with Chinese line breaking (``quizzer.terminal.linebreak``), and is what gives way.
"""

from __future__ import annotations

from typing import Any

from rich import box
from rich.cells import cell_len, set_cell_size
from rich.console import Console, ConsoleOptions
from rich.measure import Measurement
from rich.table import Column, Table
from rich.text import Text

from quizzer.terminal.render import clean

PREVIEW_AT_LEAST = 20  # columns a question or answer column keeps: its first words, whatever the terminal
PREVIEW_AT_MOST = 40  # a listing shows a question's or answer's first 40 columns (… marks a cut; --json has it whole)


def ident(header: str) -> Column:
    return Column(header, no_wrap=True, overflow="fold")


def number(header: str, header_wraps: bool = False) -> Column:
    """A column of numbers; ``header_wraps``: a long header may take two lines, so that it does not
    hold the table's width from a text column (a number never wraps: it is one word)."""
    return Column(header, justify="right", no_wrap=not header_wraps)


def text(header: str, **options: Any) -> Column:
    return Column(header, overflow="fold", **options)


def listing(*columns: Column | str, **options: Any) -> Table:
    """A table of these columns (a plain string is a text column), in the project's style."""
    for name, value in (("box", box.SIMPLE_HEAD), ("show_edge", False), ("pad_edge", False), ("collapse_padding", True)):
        options.setdefault(name, value)
    return Table(*(text(c) if isinstance(c, str) else c for c in columns), **options)


class _Preview(Text):
    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        width = max(map(cell_len, self.plain.splitlines()), default=0)
        return Measurement(min(width, PREVIEW_AT_LEAST), width)


def preview(plain: str) -> Text:
    """A text shown in part (a card's front on one line, ``app.browse.front_line``; an answer) as a
    table cell: cut to PREVIEW_AT_MOST columns as shown (after ``clean``), the cut marked with "…".
    Its narrowest width is taken as PREVIEW_AT_LEAST columns, not found from its line-break
    opportunities: UAX #14 costs about 0.1 ms a character through uniseg (a browser of 400 Chinese
    questions spent 1 s measuring them), and only a table nested in another renderable uses a
    cell's narrowest width."""
    shown = clean(plain)
    if cell_len(shown) > PREVIEW_AT_MOST:
        shown = set_cell_size(shown, PREVIEW_AT_MOST - 1).rstrip() + "…"
    return _Preview(shown)
