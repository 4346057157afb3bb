"""pydantic's validation errors as deck problems a contributor understands, placed on the data."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from pydantic import ValidationError

from quizzer.base.i18n import N_, _, join, ngettext, translate_checker_message
from quizzer.kinds import KINDS
from quizzer.kinds.base import CardPath, Issue
from quizzer.kinds.fields import LETTER_PATTERN

# pydantic's English message templates (its own wording, so English output is pydantic's) by
# error type, as catalogue ids: a message is translated from its type and context, never parsed.
PYDANTIC_MESSAGES = {
    "greater_than_equal": N_("Input should be greater than or equal to {ge}"),
    "less_than_equal": N_("Input should be less than or equal to {le}"),
    "greater_than": N_("Input should be greater than {gt}"),
    "less_than": N_("Input should be less than {lt}"),
    "int_parsing": N_("Input should be a valid integer, unable to parse string as an integer"),
    "int_from_float": N_("Input should be a valid integer, got a number with a fractional part"),
    "int_type": N_("Input should be a valid integer"),
    "float_parsing": N_("Input should be a valid number, unable to parse string as a number"),
    "float_type": N_("Input should be a valid number"),
    "finite_number": N_("Input should be a finite number"),
    "bool_parsing": N_("Input should be a valid boolean, unable to interpret input"),
}
# the fixed texts our own validators raise (kinds/fields.py, kinds/choice.py), translated when shown
VALUE_ERRORS = (N_("text is empty"), N_("answer repeats a letter"), N_("a formula nests braces more than 10 deep"))
_EXPECTED = {"string_type": N_("{field}: expected text, got {got}"), "list_type": N_("{field}: expected a list, got {got}")}
_EXPECTED_VALUE = {"list_type": N_("{field}: expected a list, not {value}")}
# any other type: a mapping (a card's params, an example's inputs); named here, where the catalogue
# finds them (inside _(...get(kind, N_(...))) it did not, and the Chinese interface showed the English)
_EXPECTED_MAPPING, _EXPECTED_MAPPING_VALUE = N_("{field}: expected a mapping, got {got}"), N_("{field}: expected a mapping, not {value}")
_TYPE_NAMES = {"str": N_("str"), "list": N_("list"), "dict": N_("dict"), "int": N_("int"), "float": N_("float"),
               "bool": N_("bool")}  # what a YAML value can be


def pydantic_message(error: Any) -> str:
    """pydantic's message for ``error`` in the interface language; the text of a ValueError one
    of our validators raised; pydantic's own English for a type not listed above."""
    if error["type"] == "value_error":  # ours: a fixed text, or a checker's Said (an English template and its values)
        raised = error.get("ctx", {}).get("error")
        message = raised.args[0] if isinstance(raised, ValueError) and raised.args else \
            str(error["msg"]).removeprefix("Value error, ")
        return translate_checker_message(message) if hasattr(message, "template") else _(str(message))
    if error["type"] == "string_too_long":  # pydantic's plural ending is not in its context: our own words
        return _longer_than(error["ctx"]["max_length"])
    if error["type"] == "literal_error":  # "'q', 'q_split' or 'output'": the values, joined as the language joins
        values = [v for v in re.findall(r"'[^']*'|\"[^\"]*\"|[^\s,]+", error["ctx"]["expected"]) if v != "or"]
        return _("must be one of {values}").format(values=join(values))
    template = PYDANTIC_MESSAGES.get(error["type"])
    return _(template).format(**error.get("ctx", {})) if template else str(error["msg"])


def _longer_than(limit: int) -> str:
    return ngettext("longer than {limit} character", "longer than {limit} characters", limit).format(limit=limit)


def friendly(error: Any, within: str | None = None) -> str:
    """One pydantic error as a short message naming the field (its name kept as written); an error
    of the whole value is named by ``within``, the field it was given in (``params``), if any."""
    kind, loc = error["type"], error["loc"]
    name = next((str(p) for p in reversed(loc) if isinstance(p, str) and p not in KINDS), within or _("value"))
    if kind == "missing":
        return _("missing field '{field}'").format(field=loc[-1])
    if kind == "extra_forbidden":
        return _("unknown field '{field}'").format(field=loc[-1])
    if kind == "union_tag_invalid":  # the value given is named, as every other message names it
        return _("kind must be one of {kinds}, not {value}").format(kinds=join(KINDS), value=repr(error["ctx"]["tag"]))
    if kind == "union_tag_not_found":
        return _("kind must be one of {kinds}").format(kinds=join(KINDS))
    if kind == "string_pattern_mismatch" and name in ("id", "tags"):
        return _("{field}: use lowercase a-z, 0-9 and '-' (got {value})").format(field=name, value=repr(error["input"]))
    if kind == "string_pattern_mismatch" and name == "answer":
        letter = error["ctx"]["pattern"] == LETTER_PATTERN
        message = _("{field}: {value} is not an option letter") if letter else _("{field}: {value} is not a number")
        return message.format(field=name, value=repr(error["input"]))
    if kind == "too_short":
        count = error["ctx"].get("min_length")
        return ngettext("{field}: needs at least {count} item", "{field}: needs at least {count} items", count).format(
            field=name, count=count)
    if kind == "too_long" and isinstance(error["input"], str):  # a text (a deck's title): its characters
        return _("{field}: {message}").format(field=name, message=_longer_than(error["ctx"]["max_length"]))
    if kind == "too_long":
        count = error["ctx"].get("max_length")
        return ngettext("{field}: needs at most {count} item", "{field}: needs at most {count} items", count).format(
            field=name, count=count)
    if kind == "string_type" and error["input"] is None:
        return _("{field}: text is empty").format(field=name)
    if kind in ("string_type", "list_type", "dict_type", "model_type", "model_attributes_type"):
        got = error["input"]
        if isinstance(got, str):  # a YAML scalar stays text: `tags: 5` is named as written, not as "text"
            value = repr(got if len(got) <= 20 else got[:19] + "…")
            return _(_EXPECTED_VALUE.get(kind, _EXPECTED_MAPPING_VALUE)).format(field=name, value=value)
        shown = _("nothing") if got is None else _(_TYPE_NAMES.get(type(got).__name__, type(got).__name__))
        return _(_EXPECTED.get(kind, _EXPECTED_MAPPING)).format(field=name, got=shown)
    return _("{field}: {message}").format(field=name, message=pydantic_message(error))


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
    within = next((str(part) for part in reversed(base) if isinstance(part, str)), None)
    for err in error.errors():
        path = base + data_path(data, err["loc"])
        if err["type"] == "union_tag_invalid":
            path += ("kind",)
        issue = Issue(path, friendly(err, within), prefer_key=err["type"] in ("extra_forbidden", "missing"))
        if issue not in found:
            found.append(issue)
    return found
