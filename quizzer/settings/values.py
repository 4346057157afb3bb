"""The settings' values: each parser turns what a file, a variable or a command line holds into
a typed value, or says what the value may be (BadValue; the caller names the key)."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from quizzer.base.i18n import LANGUAGES, _


class BadValue(ValueError):
    """What a value may be, said to the learner (the caller adds the key)."""


def _shown(raw: Any) -> str:
    if type(raw) is int and raw.bit_length() > 64:  # too long to print whole (Python refuses past 4,300 digits)
        return f"{'-' if raw < 0 else ''}1e{round(raw.bit_length() * math.log10(2))}"
    return repr(raw) if isinstance(raw, str) else json.dumps(raw, ensure_ascii=False, default=str)


def _number(raw: Any, what: str) -> float:
    if isinstance(raw, bool):
        raise BadValue(_("must be {what}, not {value}").format(what=what, value=_shown(raw)))
    if isinstance(raw, int) and raw.bit_length() > 64:  # past any range here; float() would overflow
        raise BadValue(_("must be {what}, not {value}").format(what=what, value=_shown(raw)))
    if isinstance(raw, (int, float)):
        return float(raw)
    if isinstance(raw, str):
        try:
            return float(raw.strip())
        except ValueError:
            pass
    raise BadValue(_("must be {what}, not {value}").format(what=what, value=_shown(raw)))


def retention(raw: Any) -> float:
    what = _("a number from 0.70 to 0.99")
    value = _number(raw, what)
    if not 0.70 <= round(value, 6) <= 0.99:
        raise BadValue(_("must be {what}, not {value}").format(what=what, value=_shown(raw)))
    return value


def whole(low: int, high: int) -> Callable[[Any], int]:
    def parse(raw: Any) -> int:
        what = _("a whole number from {low} to {high}").format(low=low, high=high)
        value = _number(raw, what)
        if not value.is_integer() or not low <= value <= high:
            raise BadValue(_("must be {what}, not {value}").format(what=what, value=_shown(raw)))
        return int(value)

    return parse


STEP = re.compile(r"^(\d{1,9}(?:\.\d{1,9})?)([smhd]?)$")  # digits enough for 30 days in seconds, no more
UNIT_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "": 60}  # a bare number is minutes, as in Anki
MAX_STEPS = 10
MAX_STEP = timedelta(days=30)


def steps(raw: Any) -> tuple[timedelta, ...]:
    """Learning steps: "1m 10m" (or a TOML list of such strings); "" for none."""
    what = _('durations like "1m 10m" (units s, m, h, d; each from 1s to 30d; at most {count}; "" for none)').format(
        count=MAX_STEPS)
    if isinstance(raw, list) and all(isinstance(item, str) for item in raw):
        raw = " ".join(raw)
    if not isinstance(raw, str):
        raise BadValue(_("must be {what}, not {value}").format(what=what, value=_shown(raw)))
    words = raw.replace(",", " ").split()
    parsed = []
    for word in words:
        match = STEP.match(word.lower())
        seconds = round(float(match.group(1)) * UNIT_SECONDS[match.group(2)]) if match else 0
        if not match or not 1 <= seconds <= MAX_STEP.total_seconds():
            raise BadValue(_("must be {what}; {word} is not").format(what=what, word=repr(word if len(word) <= 30 else word[:29] + "…")))
        parsed.append(timedelta(seconds=seconds))
    if len(parsed) > MAX_STEPS:
        raise BadValue(_("must be {what}, not {count} steps").format(what=what, count=len(parsed)))
    return tuple(parsed)


MAX_SPEED_SECONDS = 3600


def speed(raw: Any) -> tuple[float, float]:
    """A graded kind's answer times: "8 45" (seconds; or a TOML list of two numbers), the first
    under the second: a right answer within the first is Easy, after the second Hard."""
    what = _('two numbers of seconds, the first under the second, e.g. "8 45" (0 to {most})').format(
        most=MAX_SPEED_SECONDS)
    words = raw if isinstance(raw, list) else raw.replace(",", " ").split() if isinstance(raw, str) else None
    try:
        fast, slow = (_number(word.removesuffix("s") if isinstance(word, str) else word, what) for word in words or ())
    except ValueError:  # not two words, or BadValue
        raise BadValue(_("must be {what}, not {value}").format(what=what, value=_shown(raw))) from None
    if not 0 <= fast < slow <= MAX_SPEED_SECONDS:
        raise BadValue(_("must be {what}, not {value}").format(what=what, value=_shown(raw)))
    return fast, slow


def format_speed(value: tuple[float, float]) -> str:
    return " ".join(f"{seconds:g}" for seconds in value)


def switch(raw: Any) -> bool:
    if isinstance(raw, bool):
        return raw
    if isinstance(raw, str) and raw.strip().lower() in ("on", "true", "yes", "1"):
        return True
    if isinstance(raw, str) and raw.strip().lower() in ("off", "false", "no", "0"):
        return False
    raise BadValue(_("must be {what}, not {value}").format(what=_("on or off"), value=_shown(raw)))



def language(raw: Any) -> str:
    if isinstance(raw, str) and raw.strip().lower() in LANGUAGES:
        return raw.strip().lower()
    raise BadValue(_("must be {what}, not {value}").format(what=" / ".join(LANGUAGES), value=_shown(raw)))


def learner_name(raw: Any) -> str:
    from quizzer.base.learners import BadName, check

    try:
        return check(raw if isinstance(raw, str) else _shown(raw))
    except BadName as problem:
        raise BadValue(str(problem)) from None


def format_duration(span: timedelta) -> str:
    """A step as typed: the largest unit that divides it (90s → "90s", 600s → "10m")."""
    seconds = round(span.total_seconds())
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds % size == 0:
            return f"{seconds // size}{unit}"
    return f"{seconds}s"


def format_steps(value: tuple[timedelta, ...]) -> str:
    return " ".join(format_duration(step) for step in value)


