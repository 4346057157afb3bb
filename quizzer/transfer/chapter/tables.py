"""A chapter's tables as cards: each row of a table outside the card blocks becomes a ``cloze``
card where its cells are short (the cells blanked, each without its parenthetical remark), else
a ``qa`` card asking for the row's cells by their column names."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from quizzer.transfer.chapter.markup import Line

CLOZE_CELL = 16  # longest cell (without its remark) a learner is asked to type in a blank
_REMARK = re.compile(r"^(.*?)\s*([（(].*[)）])\s*$")
_MARKS = {"✅": "是", "❌": "否", "✔": "是", "✗": "否"}
_SEPARATOR = re.compile(r"^:?-{3,}:?$")


@dataclass(frozen=True)
class Table:
    header: list[str]
    rows: list[tuple[int, list[str]]]  # (line number, cells)


@dataclass(frozen=True)
class RowCard:
    line: int
    stable: str  # what the card's id hashes: the table's columns and the row's label
    kind: str  # cloze or qa
    fields: dict[str, Any]


def plain(cell: str) -> str:
    """A cell as text: bold and check marks read as words (``✅`` is 是)."""
    text = cell.replace("**", "").strip()
    for mark, word in _MARKS.items():
        text = text.replace(mark, word)
    return text.strip()


def read_table(lines: list[Line]) -> Table | None:
    """A markdown table (header, separator, body rows), or None for fewer rows."""
    rows = [(line.number, [cell.strip() for cell in line.text.strip().strip("|").split("|")]) for line in lines]
    if len(rows) < 3 or not all(_SEPARATOR.match(cell.replace(" ", "")) for cell in rows[1][1] if cell):
        return None
    return Table([plain(cell) for cell in rows[0][1]], [(number, [plain(c) for c in cells]) for number, cells in rows[2:]])


def _split(cell: str) -> tuple[str, str]:
    """A cell's core and its trailing remark: ``双向（全句可见）`` is ``双向`` and ``（全句可见）``."""
    found = _REMARK.match(cell)
    return (found.group(1), found.group(2)) if found and found.group(1) else (cell, "")


def row_cards(table: Table, topic: str) -> list[RowCard]:
    """One card per row with a label and at least one answer cell."""
    cards: list[RowCard] = []
    for number, cells in table.rows:
        label = cells[0] if cells else ""
        answers = [(name, cell) for name, cell in zip(table.header[1:], cells[1:]) if cell]
        if not label or not answers:
            continue
        stable = f"{topic} {' '.join(table.header)} {label}"
        cores = [_split(cell.replace("`", "")) for _name, cell in answers]
        if len(answers) >= 2 and all(core and len(core) <= CLOZE_CELL and not re.search(r"[;；{}]|::", core)
                                     for core, _remark in cores):
            parts = [f"{name} {'约 ' if core.startswith('约') else ''}{{{{c{i}::{core.removeprefix('约').strip()}}}}}{remark}".strip()
                     for i, ((name, _cell), (core, remark)) in enumerate(zip(answers, cores), 1)]
            cards.append(RowCard(number, stable, "cloze", {"tags": ["table"], "text": f"【{topic}】{label}：" + "，".join(parts) + "。"}))
            continue
        names = "、".join(name for name, _cell in answers if name)
        asks = names.endswith(("什么", "为什么", "吗", "哪个", "多少", "怎么", "如何"))  # a column named by a question
        asked = f"：{names}" if asks else f"：{names}分别是什么" if len(answers) > 1 else f"：{names}是什么" if names else "是什么"
        answer = answers[0][1] if len(answers) == 1 else "\n".join(f"{name}：{cell}" for name, cell in answers)
        cards.append(RowCard(number, stable, "qa", {
            "tags": ["table"], "question": f"【{topic}】「{label}」{asked}？", "answer": answer,
            "points": [cell for _name, cell in answers]}))
    return cards
