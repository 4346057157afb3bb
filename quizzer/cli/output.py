"""``--json`` for every listing: one way to print it (UTF-8, unescaped, dates as ISO 8601)."""

from __future__ import annotations

import dataclasses
import functools
import json
import re
import sys
from datetime import date
from itertools import repeat
from typing import Any


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
