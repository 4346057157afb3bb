"""pydantic's validation errors as deck problems a contributor understands, placed on the data."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pydantic import ValidationError

from quizzer.kinds import KINDS
from quizzer.kinds.base import CardPath, Issue
from quizzer.kinds.fields import LETTER_PATTERN


def friendly(error: Any) -> str:
    """One pydantic error as a short message naming the field."""
    kind, loc = error["type"], error["loc"]
    name = next((str(p) for p in reversed(loc) if isinstance(p, str) and p not in KINDS), "value")
    if kind == "missing":
        return f"missing field '{loc[-1]}'"
    if kind == "extra_forbidden":
        return f"unknown field '{loc[-1]}'"
    if kind in ("union_tag_invalid", "union_tag_not_found"):
        return f"kind must be one of {', '.join(KINDS)}"
    if kind == "string_pattern_mismatch" and name in ("id", "tags"):
        return f"{name}: use lowercase a-z, 0-9 and '-' (got {error['input']!r})"
    if kind == "string_pattern_mismatch" and name == "answer":
        expected = "an option letter" if error["ctx"]["pattern"] == LETTER_PATTERN else "a number"
        return f"{name}: {error['input']!r} is not {expected}"
    if kind in ("too_short", "too_long"):
        bound = error["ctx"].get("min_length" if kind == "too_short" else "max_length")
        return f"{name}: needs {'at least' if kind == 'too_short' else 'at most'} {bound} item(s)"
    if kind == "string_type" and error["input"] is None:
        return f"{name}: text is empty"
    if kind in ("string_type", "list_type", "dict_type", "model_type", "model_attributes_type"):
        expected = {"string_type": "text", "list_type": "a list", "dict_type": "a mapping"}.get(kind, "a mapping")
        got = type(error["input"]).__name__ if error["input"] is not None else "nothing"
        return f"{name}: expected {expected}, got {got}"
    message = str(error["msg"]).removeprefix("Value error, ")
    return f"{name}: {message}"


def data_path(data: Any, loc: Iterable[str | int]) -> CardPath:
    """Map a pydantic error location onto the data, skipping union-branch labels."""
    path: list[str | int] = []
    for part in loc:
        if isinstance(data, dict) and part in data:
            data = data[part]
        elif isinstance(data, list) and isinstance(part, int) and part < len(data):
            data = data[part]
        elif isinstance(data, dict) and not (part in KINDS or "[" in str(part)):
            path.append(part)  # a missing or unknown key: point at the mapping or key
            break
        else:
            continue
        path.append(part)
    return tuple(path)


def issues_from(error: ValidationError, data: Any, base: CardPath = ()) -> list[Issue]:
    """Every error of ``error`` (raised validating ``data``) as an Issue at ``base`` + its place."""
    found: list[Issue] = []
    for err in error.errors():
        path = base + data_path(data, err["loc"])
        if err["type"] == "union_tag_invalid":
            path += ("kind",)
        issue = Issue(path, friendly(err), prefer_key=err["type"] in ("extra_forbidden", "missing"))
        if issue not in found:
            found.append(issue)
    return found
