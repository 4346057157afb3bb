"""Charts as SVG geometry, drawn by the templates: bars over days, and a calendar of days.
Numbers only; the pages put them in ``<svg viewBox>`` elements that scale to the screen."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, timedelta

HEIGHT = 120  # the bar chart's drawing height, in viewBox units
CELL = 12  # a calendar day's square, gap included
LEVELS = 4  # the calendar's shades above "no review"


@dataclass(frozen=True)
class Bar:
    x: float
    y: float
    width: float
    height: float
    label: str  # the day, and the value: the bar's tooltip


@dataclass(frozen=True)
class BarChart:
    width: float
    height: float
    bars: list[Bar]
    highest: int


def bars(values: Sequence[tuple[date, int]], width: float = 300.0) -> BarChart:
    """One bar per (day, value), as high as the value against the highest."""
    highest = max((value for _, value in values), default=0)
    step = width / max(1, len(values))
    drawn = []
    for i, (day, value) in enumerate(values):
        height = HEIGHT * value / highest if highest else 0.0
        drawn.append(Bar(i * step + step * 0.1, HEIGHT - height, step * 0.8, height, f"{day.isoformat()}: {value}"))
    return BarChart(width, HEIGHT, drawn, highest)


@dataclass(frozen=True)
class Day:
    x: int
    y: int
    level: int  # 0: no review; 1..LEVELS by the share of the busiest day
    label: str


def calendar(counts: dict[date, int], today: date, weeks: int = 26) -> list[Day]:
    """The last ``weeks`` weeks to ``today``, a column a week (Monday on top), each day shaded by
    its reviews."""
    start = today - timedelta(days=today.weekday() + 7 * (weeks - 1))
    busiest = max((counts.get(start + timedelta(days=n), 0) for n in range((today - start).days + 1)), default=0)
    days = []
    for n in range((today - start).days + 1):
        day = start + timedelta(days=n)
        count = counts.get(day, 0)
        level = 0 if not count else max(1, -(-LEVELS * count // busiest))
        days.append(Day((n // 7) * CELL, day.weekday() * CELL, level, f"{day.isoformat()}: {count}"))
    return days
