"""Views both state machines return."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from quizzer.base.i18n import N_, _


@dataclass(frozen=True)
class Retry:
    """The answer could not be read (or is less precise than asked): type it again."""

    message: str


UNITS = {"s": N_("{amount}s"), "m": N_("{amount}m"), "h": N_("{amount}h"), "d": N_("{amount}d"),
         "mo": N_("{amount}mo"), "y": N_("{amount}y")}  # Anki's button units; Chinese: 10分钟, 3天


def interval(span: timedelta, translated: bool = True) -> str:
    """An interval as Anki's answer buttons show it: seconds under a minute, minutes under an
    hour, hours under a day, days under 30 days, then months (30 days) and years (365 days)
    to one decimal: ``45s``, ``10m``, ``3h``, ``8d``, ``1.5mo``, ``2y`` (in the UI language
    unless ``translated`` is off, as the line protocol's machine lines are)."""
    seconds = max(0.0, span.total_seconds())
    unit, amount = "", ""
    for unit, size, limit in (("s", 1, 60), ("m", 60, 3600), ("h", 3600, 86400), ("d", 86400, 30 * 86400)):
        if seconds < limit:
            amount = str(round(seconds / size))
            break
    else:
        days = seconds / 86400
        value, unit = (days / 30, "mo") if days < 365 else (days / 365, "y")
        amount = f"{value:.1f}".removesuffix(".0")
    return (_(UNITS[unit]) if translated else UNITS[unit]).format(amount=amount)
