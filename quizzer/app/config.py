"""What ``quiz config`` reports beyond the settings themselves: whose collection an empty ``user``
setting opens, and what a new desired retention does to the reviews due."""

from __future__ import annotations

from pathlib import Path

from quizzer import clock
from quizzer.scheduling.queue import DueCounts
from quizzer.settings import Settings
from quizzer.store.engine import Store

__all__ = ["DueCounts", "default_learner", "due_change"]


def default_learner(location: str | Path | None) -> tuple[str, str]:
    """The learner when the ``user`` setting is empty, and where the name comes from: ``url`` (the
    user name in the server's URL), ``PGUSER`` or ``login``."""
    from quizzer.store import default_learner as named
    from quizzer.store.urls import resolve

    return named(resolve(location)[0])


def due_change(store: Store, after: Settings) -> tuple[DueCounts, DueCounts]:
    """The reviews due today and within 7 study days: as they are, and as ``after``'s retention (with
    the parameters ``quiz optimize`` fitted, if any) would schedule them."""
    from quizzer.scheduling.memory import scheduler_for
    from quizzer.scheduling.queue import due_change as rescheduled
    from quizzer.store import learner

    parameters = learner.load(store).parameters
    return rescheduled(store, clock.now(), scheduler_for(after, parameters), after.day_start_hour)
