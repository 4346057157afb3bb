"""``--json`` for every listing: one way to print it (UTF-8, unescaped, dates as ISO 8601)."""

from __future__ import annotations

import dataclasses
import json
import sys
from datetime import date, datetime
from typing import Any


def _plain(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, date):
        return value.isoformat()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {k: _plain(v) for k, v in dataclasses.asdict(value).items()}
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set)):
        return [_plain(v) for v in value]
    return value


def emit_json(data: Any) -> None:
    """Print ``data`` (dataclasses, dicts, lists, dates) as indented JSON on stdout."""
    sys.stdout.write(json.dumps(_plain(data), ensure_ascii=False, indent=2) + "\n")
