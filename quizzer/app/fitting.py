"""``quiz optimize``: FSRS parameters fitted to the learner's review history, kept when they
predict the later reviews better than those in use and the defaults. Whenever the parameters
change (a fit kept, a reset), every card's memory is recomputed from its reviews with them, as
Anki does, so that the queue, stats and the plan read memory the parameters in use made."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from quizzer.base import clock
from quizzer.app.collection import Collection
from quizzer.scheduling import fit as fitting
from quizzer.scheduling.fit import Fit, default_parameters
from quizzer.settings import DEFAULTS, Settings
from quizzer.store import learner

__all__ = ["Fit", "Fitted", "default_parameters", "fit", "reset"]


def reset(collection: Collection, settings: Settings = DEFAULTS) -> bool:
    """Go back to FSRS's default parameters; whether fitted ones were in use."""
    fitted = learner.load(collection.store).parameters is not None
    learner.save_parameters(collection.store, None, None)
    if fitted:
        _recompute_memories(collection, settings)
    return fitted


@dataclass(frozen=True)
class Fitted:
    """The fit and its scores; ``earlier_fitted_at``: when the parameters in use before were fitted
    (None: the defaults were in use)."""

    fit: Fit
    earlier_fitted_at: datetime | None


def fit(collection: Collection, settings: Settings) -> Fitted:
    """Fit the parameters to every review (the learner's own and imported) and keep them when they
    predict the later reviews better."""
    from quizzer.store import history

    earlier = learner.load(collection.store)
    result = fitting.optimize(history.review_log(collection.store), settings.day_start_hour, earlier.parameters)
    if result.kept:
        learner.save_parameters(collection.store, result.parameters, clock.now())
        _recompute_memories(collection, settings)
    return Fitted(result, earlier.fitted_at)


def _recompute_memories(collection: Collection, settings: Settings) -> None:
    """Every reviewed card's stability and difficulty replayed from its reviews with the stored
    parameters, under the same rules as a history import (``scheduling.answer.replaying``)."""
    from quizzer.scheduling.answer import replaying
    from quizzer.scheduling.learner import schedule_of
    from quizzer.store import history

    store = collection.store
    schedule = schedule_of(store, settings)
    history.recompute_memories(store, replaying(store, schedule.scheduler, settings.day_start_hour, schedule.interview))
