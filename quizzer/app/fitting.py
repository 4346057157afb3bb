"""``quiz optimize``: FSRS parameters fitted to the learner's review history, kept when they
predict the later reviews better than those in use and the defaults."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from quizzer import clock
from quizzer.app.collection import Collection
from quizzer.scheduling import fit as fitting
from quizzer.scheduling.fit import Fit, default_parameters
from quizzer.settings import Settings
from quizzer.store import learner

__all__ = ["Fit", "Fitted", "default_parameters", "fit", "reset"]


def reset(collection: Collection) -> bool:
    """Go back to FSRS's default parameters; whether fitted ones were in use."""
    fitted = learner.load(collection.store).parameters is not None
    learner.save_parameters(collection.store, None, None)
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
    return Fitted(result, earlier.fitted_at)
