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

QUESTION_AT_LEAST = 20  # columns a question column keeps: its first words, whatever the terminal
QUESTION_AT_MOST = 40  # a listing shows a question's first 40 columns (… marks a cut; --json has it whole)


def ident(header: str) -> Column:
    return Column(header, no_wrap=True, overflow="fold")


def number(header: str) -> Column:
    return Column(header, justify="right", no_wrap=True)


def text(header: str, **options: Any) -> Column:
    return Column(header, overflow="fold", **options)


def listing(*columns: Column | str, **options: Any) -> Table:
    """A table of these columns (a plain string is a text column), in the project's style."""
    for name, value in (("box", box.SIMPLE_HEAD), ("show_edge", False), ("pad_edge", False), ("collapse_padding", True)):
        options.setdefault(name, value)
    return Table(*(text(c) if isinstance(c, str) else c for c in columns), **options)


class _Question(Text):
    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        width = max(map(cell_len, self.plain.splitlines()), default=0)
        return Measurement(min(width, QUESTION_AT_LEAST), width)


def question(plain: str) -> Text:
    """A card's front on one line (``app.browse.front_line``) as a table cell, cut to
    QUESTION_AT_MOST columns. Its narrowest width is taken as QUESTION_AT_LEAST columns, not found
    from its line-break opportunities: UAX #14 costs about 0.1 ms a character through uniseg (a
    browser of 400 Chinese questions spent 1 s measuring them), and only a table nested in another
    renderable uses a cell's narrowest width."""
    if cell_len(plain) > QUESTION_AT_MOST:
        plain = set_cell_size(plain, QUESTION_AT_MOST - 1).rstrip() + "…"
    return _Question(clean(plain))
