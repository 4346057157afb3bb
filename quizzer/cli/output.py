"""``--json`` for every listing: one way to print it (UTF-8, unescaped, dates as ISO 8601); and the
pager long output goes through on a terminal (``paged``)."""

from __future__ import annotations

import dataclasses
import functools
import json
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date
from itertools import repeat
from typing import TYPE_CHECKING, Any

from rich.pager import Pager

if TYPE_CHECKING:
    from rich.console import Console


@functools.cache
def _fields(kind: type) -> tuple[str, ...]:
    """A dataclass's field names, looked up once per class (a listing has thousands of rows)."""
    return tuple(f.name for f in dataclasses.fields(kind))


def _plain(value: Any) -> Any:
    """What the JSON encoder cannot write itself; it asks only for those values, so thousands
    of rows are written by its C code, not walked here value by value."""
    if isinstance(value, date):  # datetimes too
        return value.isoformat()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        names = _fields(type(value))
        return dict(zip(names, map(getattr, repeat(value), names)))
    if isinstance(value, (set, frozenset)):
        return sorted(value)
    raise TypeError(f"{type(value).__name__} is not JSON")


# what the encoder leaves unescaped that a terminal obeys: DEL, the C1 controls (\x9b starts a
# sequence as ESC [ does) and the bidi overrides; written as \uXXXX, the same JSON string
_OBEYED = re.compile("[\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def emit_json(data: Any) -> None:
    """Print ``data`` (dataclasses, dicts, lists, dates) as JSON on stdout: indented for a person
    at a terminal, on one line for a program reading a pipe or file (as ``gh`` does), since only
    the unindented form is written by the encoder's C code (three times faster on 3,000 cards).
    A typed answer holding a control character reaches the terminal escaped."""
    indent = 2 if sys.stdout.isatty() else None
    text = json.dumps(data, ensure_ascii=False, indent=indent, default=_plain)
    sys.stdout.write(_OBEYED.sub(lambda match: f"\\u{ord(match.group()):04x}", text) + "\n")


DEFAULT_PAGER = "less -FRX"  # as git's: quits when the text fits a screen, keeps colours, leaves it on screen


def pager_command() -> str | None:
    """The pager long output goes through: QUIZ_PAGER, else PAGER, else DEFAULT_PAGER; None where
    the one in force is set empty (``QUIZ_PAGER=``: print plainly)."""
    import os

    for name in ("QUIZ_PAGER", "PAGER"):
        if name in os.environ:
            return os.environ[name].strip() or None
    return DEFAULT_PAGER


@contextmanager
def paged(out: Console, wanted: bool = True) -> Iterator[None]:
    """What ``out`` prints inside goes through the pager, as git's long output does: on a terminal,
    when longer than the screen, unless ``wanted`` is False (``--no-pager``) or the pager is set
    empty. Printed plainly otherwise, and if the pager cannot start; an error inside is printed
    after what was drawn, with no pager."""
    command = pager_command() if wanted else None
    if command is None or not out.is_terminal:
        yield
        return
    with out.pager(_CommandPager(command, out), styles=True, links=True):
        yield


class _CommandPager(Pager):
    """rich's Pager (``show``) as a command line; a text that fits the screen is printed as is."""

    def __init__(self, command: str, out: Console) -> None:
        self.command, self.out = command, out

    def show(self, content: str) -> None:
        import shlex
        import signal
        import subprocess

        if content.count("\n") < self.out.height:
            self._plainly(content)
            return
        interrupt = signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the pager's, as under git
        try:
            subprocess.run(shlex.split(self.command), input=content.encode("utf-8", "replace"), check=False)
        except (OSError, ValueError):  # no such program, or a command line shlex cannot read
            self._plainly(content)
        finally:
            signal.signal(signal.SIGINT, interrupt)

    def _plainly(self, content: str) -> None:
        self.out.file.write(content)
        self.out.file.flush()
