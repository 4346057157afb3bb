"""Wall clock and study days.

Kept free of heavy imports: the CLI imports this at start-up.

``QUIZ_NOW`` lets tests and demos move time: when set, ``now()`` returns that
ISO-8601 datetime instead of the real time.  A value with an offset
("2025-03-01T09:00:00+00:00", "...Z") is taken as is; a naive value
("2025-03-01T09:00") is read as *local* time, like a wall clock, then
converted to UTC.

A study day starts at ``rollover_hour`` (04:00 by default) local time, as in
Anki, so a late-night session still counts for the day it began in. The
``day_start_hour`` setting (``quizzer.settings``) moves it: callers pass it in.
"""

from __future__ import annotations

import os
from datetime import date, datetime, time, timedelta, timezone

ROLLOVER_HOUR = 4
DAY_SECONDS = 86400  # a day's length in seconds, as FSRS and Anki count days
FIRST_YEAR, LAST_YEAR = 1970, 9000  # the years quizzer works in: no review log is older, and intervals run a century on
LAST_PINNED_YEAR = LAST_YEAR - 100  # QUIZ_NOW's last: a card due a century (the longest interval) later still fits


def now() -> datetime:
    """UTC now, or the time pinned by ``QUIZ_NOW``."""
    pinned = os.environ.get("QUIZ_NOW")
    if not pinned:
        return wall()
    return to_utc(parse_pinned(pinned))


def wall() -> datetime:
    """The real UTC time, whatever ``QUIZ_NOW`` says: what backups are named, thinned and found
    by. They are files among the learner's real ones: a pinned clock a year ahead made a backup
    "newest" for good and thinned the real ones away as a year old."""
    return datetime.now(timezone.utc)


def parse_pinned(text: str) -> datetime:
    """A ``QUIZ_NOW`` value as written (naive: local time); ValueError if it is no date-time."""
    return datetime.fromisoformat(text.strip().replace("Z", "+00:00"))


def to_utc(dt: datetime) -> datetime:
    """Aware UTC datetime; a naive input is taken as local time."""
    return dt.astimezone(timezone.utc)


def study_day(dt: datetime, rollover_hour: int = ROLLOVER_HOUR) -> date:
    """The local study day ``dt`` belongs to (before the rollover hour → previous day)."""
    return (dt.astimezone() - timedelta(hours=rollover_hour)).date()


def day_start(day: date | datetime, rollover_hour: int = ROLLOVER_HOUR) -> datetime:
    """UTC instant a study day begins; a datetime stands for the study day it falls in."""
    if isinstance(day, datetime):
        day = study_day(day, rollover_hour)
    return datetime.combine(day, time(rollover_hour)).astimezone(timezone.utc)


def next_day_start(dt: datetime, rollover_hour: int = ROLLOVER_HOUR) -> datetime:
    """UTC instant the study day after the one containing ``dt`` begins (e.g. for bury)."""
    return day_start(study_day(dt, rollover_hour) + timedelta(days=1), rollover_hour)


def when(moment: datetime) -> str:
    """A stored UTC time as the learner's local time, to the minute (as every listing shows one)."""
    return f"{moment.astimezone():%Y-%m-%d %H:%M}"


def later_when(moment: datetime, now: datetime) -> str:
    """A time to come, in local time: its hour and minute if it is today, else with its date (an
    exam of a day's length resumable "until 10:00" read as already over)."""
    local = moment.astimezone()
    return f"{local:%H:%M}" if local.date() == now.astimezone().date() else when(moment)
