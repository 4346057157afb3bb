"""What ``quiz config`` reports beyond the settings themselves: whose collection an empty ``user``
setting opens, the new-card limit in force when the interview plan raises it, and what a new
desired retention does to the reviews due."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from quizzer.base import clock
from quizzer.scheduling.queue import DueCounts
from quizzer.settings import Settings
from quizzer.store.engine import Store

__all__ = ["DueCounts", "default_learner", "due_change", "new_per_day_in_force"]


def default_learner(location: str | Path | None) -> tuple[str, str]:
    """The learner when the ``user`` setting is empty, and where the name comes from: ``url`` (the
    user name in the server's URL), ``PGUSER`` or ``login``."""
    from quizzer.store import default_learner as named
    from quizzer.store.urls import resolve

    return named(resolve(location)[0])


def new_per_day_in_force(location: str | Path | None, settings: Settings, now: datetime) -> int | None:
    """Today's new-card limit where the interview plan raises it above ``new_per_day`` (what study
    introduces today), None where the setting holds. Read from a database file that exists only:
    showing the settings neither creates a collection nor waits for a server."""
    from quizzer.app.collection import open_database
    from quizzer.scheduling.learner import schedule_of
    from quizzer.scheduling.queue import new_per_day_today
    from quizzer.store.urls import resolve

    path = resolve(location)[1]
    if path is None or not path.is_file():
        return None
    store = open_database(path, settings.learner)
    try:
        pace = new_per_day_today(store, now, settings.new_per_day, schedule_of(store, settings).interview)
    finally:
        store.close()
    return pace if pace > settings.new_per_day else None


def due_change(store: Store, after: Settings) -> tuple[DueCounts, DueCounts]:
    """The reviews due today and within 7 study days: as they are, and as ``after``'s retention (with
    the parameters ``quiz optimize`` fitted, if any) would schedule them."""
    from quizzer.scheduling.memory import scheduler_for
    from quizzer.scheduling.queue import due_change as rescheduled
    from quizzer.store import learner

    parameters = learner.load(store).parameters
    return rescheduled(store, clock.now(), scheduler_for(after, parameters), after.day_start_hour)
