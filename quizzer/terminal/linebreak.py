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

import atexit
import contextlib
import json
import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import rich.text
from rich import _wrap
from rich.cells import cell_len, chop_cells
from rich.console import Console, ConsoleOptions
from rich.measure import Measurement

from quizzer.base.i18n import IDEOGRAPHS
from quizzer.base.widetext import join_wide_lines

_RICH_DIVIDE: Callable[[str, int, bool], list[int]] = _wrap.divide_line


def divide_line(text: str, width: int, fold: bool = True) -> list[int]:
    """Offsets (in characters) where ``text`` breaks to fit ``width`` cells."""
    if cell_len(text) <= width:  # fits: no break, and no Unicode tables to load
        return []
    if _ITEM_END in text and (between := _between_items(text, width)) is not None:
        return between
    if text.isascii() and "`" not in text and not text[:1].isspace():  # rich would glue leading spaces to the first word
        if all(len(word) <= width for word in text.split()):
            return _RICH_DIVIDE(text, width, fold)
        units = _AFTER_SPACE_OR_HYPHEN.split(text)  # a card id longer than its column breaks after a hyphen,
        if any(len(unit.rstrip()) > width for unit in units):  # unless a part between hyphens is folded anyway
            return _RICH_DIVIDE(text, width, fold)
    else:
        units = break_units(text)
    breaks: list[int] = []
    used = 0  # cells on the current line, trailing spaces included
    start = 0
    starts = []  # where each unit begins
    for unit in units:
        starts.append(start)
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
    return _no_lone_ideograph(text, width, breaks, starts)


def _no_lone_ideograph(text: str, width: int, breaks: list[int], starts: list[int]) -> list[int]:
    """``breaks`` with the last one moved back a unit where the last line would hold a single
    ideograph, closing punctuation aside, and the unit before ends in one (``BERT 架`` / ``构``: a
    word torn, its last character alone), if the two fit a line and the line before keeps a unit."""
    if not breaks or len(starts) < 2 or starts[-1] != breaks[-1]:
        return breaks
    last, before = text[breaks[-1]:].rstrip(), text[starts[-2]:breaks[-1]]
    earlier = breaks[-2] if len(breaks) > 1 else 0
    lone = bool(_ONE_IDEOGRAPH.fullmatch(last[:1])) and all(c in _NO_LINE_START for c in last[1:])
    if lone and _ONE_IDEOGRAPH.fullmatch(before[-1:]) and starts[-2] > earlier and cell_len(before + last) <= width:
        return [*breaks[:-1], starts[-2]]
    return breaks


_AFTER_SPACE_OR_HYPHEN = re.compile(r"(?<=\s)(?=\S)|(?<=[A-Za-z0-9]-)(?=[A-Za-z0-9])")  # UAX #14's, for ASCII

# never at the start of a line, even after a space (UAX #14 allows a break after any space)
_NO_LINE_START = frozenset("。，、；：？！）」』】〕〉》…‥·・ー々〻〜～．，；：！？）］｝,.;:!?)]}%")


# UAX #14 always allows a break between two CJK ideographs (class ID on both sides, and no rule
# looks across an ideograph), so a text is cut there first and uniseg, which takes about 0.1 ms a
# character, sees only the runs between: a table of 400 Chinese questions measured in 1 s otherwise.
_IDEOGRAPH = f"[{IDEOGRAPHS}]"
_BETWEEN_IDEOGRAPHS = re.compile(f"(?<={_IDEOGRAPH})(?={_IDEOGRAPH})")


_ITEM_END = " · "  # what ends an item of a list on one line: ``due 3d · stability 2.12 days · lapses 0``


def _between_items(text: str, width: int) -> list[int] | None:
    """Breaks only after a `` · ``, each item whole on its line (``difficulty`` / ``2.12`` and
    ``遗忘 0`` / ``次`` split an item); None when an item is longer than a line."""
    breaks: list[int] = []
    used = start = 0
    for item in text.split(_ITEM_END):
        piece = item if start + len(item) == len(text) else item + _ITEM_END
        length = cell_len(piece.rstrip())
        if length > width:
            return None
        if used and used + length > width:
            breaks.append(start)
            used = 0
        used += cell_len(piece)
        start += len(piece)
    return breaks


def break_units(text: str) -> list[str]:
    """The pieces a line never breaks inside: UAX #14's (``joined``, below), and a command in
    backticks whole (``quiz optimize --reset``: typed as one, read as one); a piece longer than the
    line is folded."""
    units = joined(unit for run in _BETWEEN_IDEOGRAPHS.split(text) for unit in _units_of(run))
    units = in_brackets_whole(units) if "［" in text else units
    return in_code_whole(units) if text.count("`") % 2 == 0 else units


def _units_of(run: str) -> list[str]:
    """UAX #14's units of a run between ideographs: uniseg's, or the memo's from an earlier use."""
    if len(run) == 1:
        return [run]
    memo = _memo()
    lengths = memo.lengths.get(run)
    if lengths is None or not _cuts(lengths, run):
        from uniseg.linebreak import line_break_units

        units = list(line_break_units(run))
        memo.lengths[run] = [len(unit) for unit in units]
        memo.added += 1
        return units
    units, start = [], 0
    for length in lengths:
        units.append(run[start:start + length])
        start += length
    return units


def _cuts(lengths: object, run: str) -> bool:
    """Whether ``lengths`` (from the memo file, which anything may have written) cut ``run`` whole."""
    return (isinstance(lengths, list) and all(type(n) is int and n > 0 for n in lengths)
            and sum(lengths) == len(run))


@dataclass
class _Memo:
    """UAX #14's units of the runs met, kept in the cache folder from one run of quiz to the next:
    uniseg takes about 0.1 ms a character, so a table of 229 Chinese questions spent 0.8 s of its
    1.8 s on line breaking each time it was shown. The file is uniseg's version's, and only a
    cache: unreadable, it is started afresh; unwritable, it is not kept."""

    path: Path | None
    lengths: dict[str, Any]
    added: int = 0

    def save(self) -> None:
        if not self.added or self.path is None:
            return
        valid = [(run, lengths) for run, lengths in self.lengths.items()
                 if _cuts(lengths, run) and not _SURROGATE.search(run)]  # a file name's undecodable bytes: not UTF-8
        newest = dict(valid[-MEMO_KEPT:])  # runs met in this process come last
        tmp = self.path.with_name(f"{self.path.stem}-{os.getpid()}.tmp")
        try:  # a full disk, a folder gone: not kept, said nowhere
            tmp.write_text(json.dumps(newest, ensure_ascii=False, separators=(",", ":")), "utf-8")
            tmp.replace(self.path)
        except (OSError, ValueError):
            with contextlib.suppress(OSError):
                tmp.unlink()
        self.added = 0


_SURROGATE = re.compile("[\ud800-\udfff]")
MEMO_KEPT = 20_000  # runs, the newest: about 1 MB
MEMO_LARGEST = 4 << 20  # bytes: a larger file is not this memo's (it is started afresh)


def memo_path() -> Path:
    import uniseg

    from quizzer.base.locations import cache_dir

    return cache_dir() / f"linebreaks-uniseg-{uniseg.__version__}.json"


_MEMO: _Memo | None = None


def _memo() -> _Memo:
    global _MEMO
    if _MEMO is None:
        path = memo_path()
        try:
            lengths = json.loads(path.read_text("utf-8")) if path.stat().st_size <= MEMO_LARGEST else {}
        except (OSError, ValueError, RecursionError):  # none yet, or unreadable
            lengths = {}
        _MEMO = _Memo(path if path.parent.is_dir() else None, lengths if isinstance(lengths, dict) else {})
        atexit.register(_MEMO.save)
    return _MEMO


def in_brackets_whole(units: list[str], longest: int = 16) -> list[str]:
    """``units`` with each short full-width bracket span joined into one: a cloze blank's hint
    (``［2：遮 PAD］``) broke as ``［2：遮`` / ``PAD］``. A span longer than ``longest`` columns breaks
    as any text does."""
    pieces: list[str] = []
    start = None  # the index in pieces of an open span's first unit
    for unit in units:
        pieces.append(unit)
        if "［" in unit and "］" not in unit[unit.rindex("［"):]:
            start = len(pieces) - 1
        elif start is not None and "］" in unit:
            span = "".join(pieces[start:])
            if cell_len(span.rstrip()) <= longest:
                pieces[start:] = [span]
            start = None
    return pieces


def in_code_whole(units: list[str]) -> list[str]:
    """``units`` with each backtick span's pieces joined into one."""
    pieces: list[str] = []
    inside = False
    for unit in units:
        if inside and pieces:
            pieces[-1] += unit
        else:
            pieces.append(unit)
        if unit.count("`") % 2:
            inside = not inside
    return pieces


_ONE_IDEOGRAPH = re.compile(_IDEOGRAPH)
_NUMBER_END = re.compile(r"\d ?$")  # a piece ending in a number, or in a number and its space


# an option being written, up to a hyphen: ``--``, ``--new-``, ``，-`` (its name goes with it: ``--json``,
# ``--new-per-day``, ``-h`` never break after a hyphen, as UAX #14 allows)
_OPTION_SO_FAR = re.compile(r"(?:^|[\s（(：:，,、])--?[A-Za-z0-9-]*$")
_KEY = re.compile(r"!?[A-Za-z0-9] +")  # a key in a list of keys: ``q 退出``, ``!u undo``, ``3 良好``
_ARROW = "→ "  # before what a verdict gave: ``→ 重来``, its name whole and the arrow with it
_INTERVAL = re.compile(r"\d+(?:\.\d+)?(?:s|m|h|d|mo|y) *")  # after a rating's name: ``2 Hard 6m``


def joined(units: Iterable[str]) -> list[str]:
    """UAX #14's pieces with rules of Chinese typesetting on top: a piece that begins with
    closing punctuation stays on the line before it, and a number stays with the Chinese word
    after it, beside it or a space away (``8天后到期`` never breaks as ``8`` / ``天后到期``, nor
    ``遗忘 0 次`` as ``遗忘 0`` / ``次``: the interface puts a space around numbers). And a
    key opening an item of a prompt (after ``·``, ``]`` or a colon, or first) stays with its name:
    ``· q 退出`` never breaks as ``· q`` / ``退出``, nor ``4 简单`` as ``4 简`` / ``单``, nor ``→ 重来`` (a name of
    up to NAME_LONGEST ideographs, then a space or the end: a card's ``3 层自注意力…`` is text),
    and with the interval after the name (``2 Hard 6m`` never breaks as ``2 Hard`` / ``6m``). A
    command-line option is whole (``--json``, ``--new-per-day``, ``-h``)."""
    units = list(units)
    pieces: list[str] = []
    name_left = 0  # units still to join to a key's name
    named_last = False  # the unit before ended a key's name
    for i, unit in enumerate(units):
        command = bool(pieces) and pieces[-1][-1] == "!" and pieces[-1][-2:-1] in ("", " ") and bool(_KEY.fullmatch("!" + unit))
        if command:  # a command's ! goes with its letter (UAX #14 ties it to the word before)
            pieces[-1], unit = pieces[-1][:-1], "!" + unit
            if not pieces[-1]:
                pieces.pop()
        keyed = bool(pieces) and (pieces[-1] == _ARROW or bool(_KEY.fullmatch(pieces[-1]))
                                  and (len(pieces) == 1 or pieces[-2].rstrip()[-1:] in "·]:："))
        named = name_left > 0
        timed = named_last and bool(_INTERVAL.fullmatch(unit))
        option = bool(pieces) and pieces[-1].endswith("-") and unit[:1].isalnum() and bool(_OPTION_SO_FAR.search(pieces[-1]))
        if pieces and ((unit[0] in _NO_LINE_START and not command) or (_NUMBER_END.search(pieces[-1]) and _ONE_IDEOGRAPH.match(unit))
                       or keyed or named or timed or option):
            pieces[-1] += unit
        else:
            pieces.append(unit)
        name_left = _name_length(units, i) - 1 if keyed else name_left - 1 if named else 0
        named_last = (keyed or named) and name_left == 0
    return pieces


NAME_LONGEST = 4  # ideographs: 简单, 撤销, 显示答案


def _name_length(units: list[str], start: int) -> int:
    """How many units from ``start`` a key's name is: single ideographs, the last followed by a
    space or the end, at most NAME_LONGEST of them; 1 (the first alone) when they are not a name."""
    for count, unit in enumerate(units[start:start + NAME_LONGEST], 1):
        if not _ONE_IDEOGRAPH.fullmatch(unit.rstrip(" ")):
            return 1
        if unit.endswith(" ") or start + count == len(units):
            return count
    return 1


def install() -> None:
    """Make every rich wrap in this process use :func:`divide_line`, and measure a text's
    narrowest width by the same break opportunities (rich takes a run of Chinese as one word,
    so a table would not let a Chinese column give way)."""
    rich.text.divide_line = divide_line
    rich.text.Text.__rich_measure__ = _measure  # type: ignore[method-assign]
    rich.text.Text.rstrip_end = _rstrip_end  # type: ignore[method-assign]


def _rstrip_end(self: rich.text.Text, size: int) -> None:
    """rich's, counting cells, not characters: a wrapped line of Chinese ending in the space before
    the next word kept the space, and a column's "…" then took the word's last character in its
    place (`每个头一个 S_…` for `S_q`)."""
    trailing = len(self.plain) - len(self.plain.rstrip())
    excess = cell_len(self.plain) - size
    if trailing and excess > 0:
        self.right_crop(min(trailing, excess))


_RICH_MEASURE = rich.text.Text.__rich_measure__


def _measure(self: rich.text.Text, console: Console, options: ConsoleOptions) -> Measurement:
    measured = _RICH_MEASURE(self, console, options)
    text = self.plain
    if text.isascii():
        return measured
    narrowest = max((cell_len(unit.rstrip()) for line in text.splitlines() for unit in break_units(line)), default=0)
    return Measurement(min(measured.minimum, max(narrowest, 1)), measured.maximum)


def wrap(text: str, width: int, initial_indent: str = "", subsequent_indent: str = "") -> str:
    """Paragraphs (split at blank lines) re-wrapped to ``width`` cells with the rules above:
    what click's help formatter does with ``textwrap``, which counts a Chinese character as
    one column and breaks only at spaces."""
    paragraphs = []
    for paragraph in text.split("\n\n"):
        joined = join_wide_lines(paragraph.strip()).replace("\n", " ")
        lines, indent = [], initial_indent
        while joined:
            room = max(1, width - cell_len(indent))
            cut = next(iter(divide_line(joined, room)), len(joined))
            lines.append(indent + joined[:cut].rstrip())
            joined, indent = joined[cut:].lstrip(), subsequent_indent
        paragraphs.append("\n".join(lines))
    return "\n\n".join(paragraphs)


def summary(text: str) -> str:
    """The first sentence of ``text``'s first paragraph, whole: a command's line in the help
    listing, which wraps it in its column (click cut it at the column's edge with ``...``)."""
    first = " ".join(text.split("\n\n")[0].split())
    ends = [end + 1 for end in (first.find("。"), first.find(". ")) if end != -1]
    return first[:min(ends)] if ends else first


def first_line(text: str, cells: int) -> str:
    """What of ``text`` fits ``cells`` cells, cut where a line would break (not inside a word,
    unless the first word alone is longer)."""
    return text[:next(iter(divide_line(text, cells)), len(text))].rstrip()
