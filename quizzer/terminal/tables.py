"""Tables that give way in the right order on a narrow terminal.

An id (a deck or card id) is what the learner types back (``--deck``, ``quiz show``), so it is
never wrapped or cut; counts are never wrapped either; free text (titles, fronts, answers)
wraps, with Chinese line breaking (``quizzer.terminal.linebreak``), and is what gives way.
"""

from __future__ import annotations

from typing import Any

from rich import box
from rich.table import Column, Table


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
