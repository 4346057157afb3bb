"""Tables that give way in the right order on a narrow terminal.

An id (a deck or card id) is what the learner types back (``--deck``, ``quiz show``), so it is
never wrapped or cut; counts are never wrapped either; free text (titles, fronts, answers)
wraps, with Chinese line breaking (``quizzer.terminal.linebreak``), and is what gives way.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from rich import box
from rich.cells import cell_len, set_cell_size
from rich.console import Console, ConsoleOptions
from rich.measure import Measurement
from rich.segment import Segment
from rich.table import Column, Table
from rich.text import Text

from quizzer.base.i18n import IDEOGRAPHS
from quizzer.terminal.linebreak import break_units, divide_line, first_line
from quizzer.terminal.render import clean

PREVIEW_AT_LEAST = 20  # columns a question or answer column keeps: its first words, whatever the terminal
PREVIEW_LINES = 2  # and shows on two lines at most, the cut marked with "…": a row stays a row, not a paragraph


def ident(header: str) -> Column:
    return Column(header, no_wrap=True, overflow="fold")


def number(header: str, header_wraps: bool = False) -> Column:
    """A column of numbers; ``header_wraps``: a long header may take two lines, so that it does not
    hold the table's width from a text column (a number never wraps: it is one word)."""
    return Column(header, justify="right", no_wrap=not header_wraps)


def text(header: str, **options: Any) -> Column:
    return Column(header, overflow="fold", **options)


def two_lines(header: str) -> int:
    """The narrowest width at which ``header`` wraps onto two lines at most without tearing a word:
    an English word stays whole (``wr…``), a Chinese one of four characters or more may break in
    its middle (``答对`` / ``天数``; ``答`` / ``错`` would not read)."""

    def narrowest(word: str) -> int:
        chinese = len(word) >= 4 and re.fullmatch(f"[{IDEOGRAPHS}]+", word) is not None
        return cell_len(word[:(len(word) + 1) // 2]) if chinese else cell_len(word)

    return next(width for width in range(max(map(narrowest, header.split())), cell_len(header) + 1)
                if len(divide_line(header, width)) <= 1)


def room_beside(width: int, others: list[int], previews: int = 1) -> int:
    """What a table ``width`` wide leaves its id column beside columns of ``others`` widths (kept
    whole) and ``previews`` preview columns of PREVIEW_AT_LEAST, two spaces between columns."""
    return width - sum(others) - previews * PREVIEW_AT_LEAST - 2 * (len(others) + previews)


def listing(*columns: Column | str, **options: Any) -> Table:
    """A table of these columns (a plain string is a text column), in the project's style."""
    for name, value in (("box", box.SIMPLE_HEAD), ("show_edge", False), ("pad_edge", False), ("collapse_padding", True)):
        options.setdefault(name, value)
    return Table(*(text(c) if isinstance(c, str) else c for c in columns), **options)


def fit(console: Console, table: Table, rows: list[list[str]], gives_way: int = 0, words: bool = False) -> Table:
    """``table`` with ``rows`` added and each column's width set for ``console``: the cells of every
    column but ``gives_way`` are never cut or folded (a figure, a date; a cell with a space may wrap
    there). Column ``gives_way`` (names, folded where need be) has up to a quarter of the width,
    what is left then unfolds the other columns' headers, and what is left after that the names.
    Rich's own fitting shrank every column alike once the widest had given way: a date came out as
    ``2027-01-1``, a header as ``int``. ``words``: the other columns keep their words whole (see
    :func:`_longest_word`), not only their figures."""
    sizes = _Sizes.of(console, table, rows)
    narrow, whole = sizes.words() if words else sizes.narrow, sizes.whole
    others = [index for index in range(len(narrow)) if index != gives_way]
    room = sizes.room_beside(console.width, gives_way, narrow)
    widths = {gives_way: max(1, min(whole[gives_way], console.width // 4, room))}  # names' share, first
    room -= widths[gives_way]
    for index in others:  # then the headers, left to right, each up to its whole width
        widths[index] = narrow[index] + max(0, min(whole[index] - narrow[index], room))
        room -= widths[index] - narrow[index]
    widths[gives_way] += max(0, min(whole[gives_way] - widths[gives_way], room))  # then the names, whole if they fit
    for index, column in enumerate(table.columns):
        column.width, column.no_wrap, column.overflow = widths[index], False, "fold"
    for shown in zip(*(column[1:] for column in sizes.cells)):
        table.add_row(*shown)
    return table


@dataclass
class _Sizes:
    """A table's cells (the header first in each column), each column's narrowest width (its
    longest word) and whole width, and the columns' padding and rules."""

    cells: list[list[Text]]
    narrow: list[int]
    whole: list[int]
    overhead: int

    @classmethod
    def of(cls, console: Console, table: Table, rows: list[list[str]]) -> _Sizes:
        cells = [[Text(header)] for header in (str(column.header) for column in table.columns)]
        for row in rows:
            for index, cell in enumerate(row):
                cells[index].append(Text(cell))
        for column in table.columns:
            column.width = 1
        overhead = console.measure(table).maximum - len(table.columns)  # padding and rules between the columns
        measured = [[Measurement.get(console, console.options, cell) for cell in column] for column in cells]
        return cls(cells, [max(size.minimum for size in column) for column in measured],
                   [max(size.maximum for size in column) for column in measured], overhead)

    def words(self) -> list[int]:
        """Each column's longest word (:func:`_longest_word`)."""
        return [max(map(_longest_word, column)) for column in self.cells]

    def room_beside(self, width: int, gives_way: int, narrow: list[int] | None = None) -> int:
        """What a table ``width`` wide leaves column ``gives_way`` beside the others at their
        narrowest (or at the ``narrow`` widths given)."""
        return width - self.overhead - sum(size for index, size in enumerate(narrow or self.narrow) if index != gives_way)


def _longest_word(cell: Text) -> int:
    """The cells of ``cell``'s longest word: between spaces (``模式``, ``考试``: a Chinese word is
    whole in a narrow column, where UAX #14 would break it between its characters), and never
    less than its longest unit of line breaking (``1 重来``, a rating's key and name)."""
    plain = cell.plain
    words = [cell_len(word) for word in plain.split()]
    if not plain.isascii():
        words += [cell_len(unit.rstrip()) for line in plain.splitlines() for unit in break_units(line)]
    return max(words, default=0)


def dropping(console: Console, headers: list[str], rows: list[list[str]], gives_way: int, optional: list[int],
             **options: Any) -> Table:
    """A table of ``headers`` and ``rows`` fitted as :func:`fit` fits one, without as many of the
    ``optional`` columns (in their order) as it takes for column ``gives_way`` to keep
    PREVIEW_AT_LEAST columns, or its whole width when narrower, beside the others' longest words
    whole: a column squeezed to a few columns broke its words (``bidirec`` / ``tional``), and the
    others then their dates."""
    kept = list(range(len(headers)))
    for dropped in [None, *optional]:
        if dropped is not None:
            kept.remove(dropped)
        table = Table(*(headers[index] for index in kept), **options)
        shown = [[row[index] for index in kept] for row in rows]
        sizes = _Sizes.of(console, table, shown)
        at = kept.index(gives_way)
        if sizes.room_beside(console.width, at, sizes.words()) >= min(PREVIEW_AT_LEAST, sizes.whole[at]):
            break
    return fit(console, table, shown, kept.index(gives_way), words=True)


class _Preview(Text):
    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        width = max(map(cell_len, self.plain.splitlines()), default=0)
        return Measurement(min(width, PREVIEW_AT_LEAST), width)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> Iterable[Segment]:
        width = options.max_width
        # what the lines shown can hold and a line more: a word that starts on them is whole, and a
        # longer text still wraps past them, so its cut is seen. Line breaking costs 0.1 ms a character.
        room = (PREVIEW_LINES + 1) * width + 1
        shown = Text(set_cell_size(self.plain, room)) if cell_len(self.plain) > room else self
        lines = [line.plain.rstrip() for line in shown.wrap(console, width, justify="default", overflow="fold")]
        if len(lines) > PREVIEW_LINES:
            lines[PREVIEW_LINES - 1] = first_line(lines[PREVIEW_LINES - 1], max(1, width - 1)) + "…"  # a column of 1 too
        yield from Text("\n".join(lines[:PREVIEW_LINES])).__rich_console__(console, options)


def preview(plain: str) -> Text:
    """A text shown in part as a table cell (a card's front on one line, ``app.browse.front_line``;
    an answer), after ``clean``: the first PREVIEW_LINES lines of its column, the cut marked with
    "…" where a line would break (--json has it whole). Its narrowest width is taken as
    PREVIEW_AT_LEAST columns, not found from its line-break opportunities: UAX #14 costs about
    0.1 ms a character through uniseg (a browser of 400 Chinese questions spent 1 s measuring
    them), and only a table nested in another renderable uses a cell's narrowest width."""
    return _Preview(clean(plain))
