"""Fitting FSRS-6 parameters to a learner's review history, and scoring parameters on it.

The fitter is fsrs-rs (``fsrs_rs_python``, Rust): on the shared 12,580-review log it fits in
well under a second with a fit as good as py-fsrs's torch optimizer, which takes tens of seconds
(``bench/bench_optimize.py``). Reviews become FSRS items per card: a card's reviews up to one
made on a later study day than the one before it (a long-term review), with the days between
reviews counted in study days. The metrics are those of the FSRS benchmark
(open-spaced-repetition/srs-benchmark), computed here in numpy: log loss, and RMSE(bins), which
groups reviews by interval, review number and lapse count and weighs each group's squared gap
between mean prediction and mean outcome by its size.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol

from quizzer.clock import ROLLOVER_HOUR, study_day
from quizzer.errors import QuizError
from quizzer.i18n import _, ngettext

if TYPE_CHECKING:
    import numpy as np

MIN_REVIEWS = 512  # long-term reviews to fit on: below one mini-batch the fitters return the defaults
TRAIN_SHARE = 0.75  # the earlier 3/4 of the long-term reviews fit, the later 1/4 score


class Answered(Protocol):
    """A logged review, as ``quizzer.store.history.LoggedReview`` holds it."""

    @property
    def card_id(self) -> str: ...
    @property
    def rating(self) -> int: ...
    @property
    def reviewed_at(self) -> datetime: ...


@dataclass(frozen=True)
class Scores:
    log_loss: float
    rmse_bins: float


@dataclass(frozen=True)
class Fit:
    """What ``optimize`` found: the parameter sets scored on the later reviews (``in_use``: an
    earlier fit the scheduler uses, None with the defaults); ``kept`` when the new fit scores
    better on both metrics than each of them (then ``parameters`` are the new fit's, else those
    in use stay)."""

    reviews: int
    default: Scores
    fitted: Scores
    parameters: tuple[float, ...]
    kept: bool
    in_use: Scores | None = None


class NotEnoughHistory(QuizError):
    def __init__(self, have: int) -> None:
        if not have:  # "0 reviews ..., 512 short of 512"
            super().__init__(_("no review history to fit yet: it takes {need} reviews made on a later day than the "
                               "card's previous one").format(need=MIN_REVIEWS),
                             _("keep studying, or `quiz history import` your history"))
            return
        super().__init__(
            ngettext("too little review history to fit: {have} review made on a later day than the card's previous "
                     "one, {missing} short of {need}",
                     "too little review history to fit: {have} reviews made on a later day than the card's previous "
                     "one, {missing} short of {need}", have).format(have=have, missing=MIN_REVIEWS - have,
                                                                     need=MIN_REVIEWS),
            _("keep studying, or `quiz history import` your history"))


@dataclass(frozen=True)
class Item:
    """One long-term review with the card's history before it, as (rating, days since the
    previous review) pairs, the first review's days being 0."""

    history: tuple[tuple[int, int], ...]
    rating: int
    days: int
    at: datetime

    @property
    def lapses(self) -> int:
        """Agains in the history after the first review on a later day than the one before."""
        return sum(1 for rating, days in self.history[1:] if rating == 1 and days > 0)


def items_of(reviews: Sequence[Answered], rollover_hour: int = ROLLOVER_HOUR) -> list[Item]:
    """The long-term reviews of ``reviews`` as items, oldest first."""
    by_card: dict[str, list[Answered]] = defaultdict(list)
    for review in reviews:
        by_card[review.card_id].append(review)
    items: list[Item] = []
    for card_reviews in by_card.values():
        card_reviews.sort(key=lambda r: r.reviewed_at)
        days = [study_day(r.reviewed_at, rollover_hour) for r in card_reviews]
        steps = [(card_reviews[0].rating, 0)] + [
            (r.rating, (days[k] - days[k - 1]).days) for k, r in enumerate(card_reviews) if k > 0]
        for k in range(1, len(steps)):
            if steps[k][1] > 0:
                items.append(Item(tuple(steps[:k]), steps[k][0], steps[k][1], card_reviews[k].reviewed_at))
    items.sort(key=lambda item: item.at)
    return items


def _fsrs_items(items: Sequence[Item]) -> list[Any]:
    from fsrs_rs_python import FSRSItem, FSRSReview

    return [FSRSItem([FSRSReview(r, d) for r, d in (*item.history, (item.rating, item.days))]) for item in items]


def fit(items: Sequence[Item]) -> tuple[float, ...]:
    """FSRS-6 parameters fitted to ``items`` by fsrs-rs."""
    from fsrs_rs_python import DEFAULT_PARAMETERS, FSRS

    return tuple(float(p) for p in FSRS(DEFAULT_PARAMETERS).compute_parameters(_fsrs_items(items)))


def default_parameters() -> tuple[float, ...]:
    """FSRS-6's defaults, as the scheduler (py-fsrs) uses them."""
    from fsrs.scheduler import DEFAULT_PARAMETERS

    return tuple(DEFAULT_PARAMETERS)


def predict(items: Sequence[Item], parameters: Sequence[float]) -> np.ndarray:
    """Predicted recall at each item's review: the memory state fsrs-rs computes from the
    history, then FSRS-6's forgetting curve over the days since the review before."""
    import numpy as np
    from fsrs_rs_python import FSRS, FSRSItem, FSRSReview

    from quizzer.scheduling.curve import DECAY_INDEX, forgetting_curve

    model = FSRS(list(parameters))
    states = model.memory_state_batch([FSRSItem([FSRSReview(r, d) for r, d in item.history]) for item in items])
    stability = np.array([state.stability for state in states])
    days = np.array([item.days for item in items], dtype=float)
    return forgetting_curve(days, stability, parameters[DECAY_INDEX])


def log_loss(recalled: np.ndarray, predicted: np.ndarray) -> float:
    """Mean binary cross-entropy of the outcomes (1 recalled, 0 forgotten) under the predictions."""
    import numpy as np

    p = np.clip(predicted, 1e-7, 1 - 1e-7)
    return float(-np.mean(recalled * np.log(p) + (1 - recalled) * np.log(1 - p)))


def _bin(values: np.ndarray, base: float, scale: float, digits: int) -> np.ndarray:
    """The benchmark's geometric bins: scale·base^floor(log_base(x)), rounded; 0 stays 0."""
    import numpy as np

    safe = np.where(values > 0, values, 1)
    binned = np.round(scale * base ** np.floor(np.log(safe) / np.log(base)), digits)
    return np.where(values > 0, binned, 0)


def rmse_bins(recalled: np.ndarray, predicted: np.ndarray, days: np.ndarray, number: np.ndarray,
              lapses: np.ndarray) -> float:
    """RMSE(bins): reviews grouped by interval (days), review number (1 = a card's first review)
    and lapses, each in geometric bins; the root of the count-weighted mean of the squared gap
    between a group's mean outcome and mean prediction."""
    import numpy as np

    keys = np.stack([_bin(days, 3.62, 2.48, 2), _bin(number, 1.89, 1.99, 0), _bin(lapses, 1.73, 1.65, 0)], axis=1)
    _, group = np.unique(keys, axis=0, return_inverse=True)
    group = group.ravel()
    count = np.bincount(group)
    gap = np.bincount(group, recalled) / count - np.bincount(group, predicted) / count
    return float(np.sqrt(np.sum(count * gap ** 2) / np.sum(count)))


def score(items: Sequence[Item], parameters: Sequence[float]) -> Scores:
    """Log loss and RMSE(bins) of ``parameters``' predictions on ``items``."""
    import numpy as np

    predicted = predict(items, parameters)
    recalled = np.array([item.rating > 1 for item in items], dtype=float)
    days = np.array([item.days for item in items], dtype=float)
    number = np.array([len(item.history) + 1 for item in items], dtype=float)
    lapses = np.array([item.lapses for item in items], dtype=float)
    return Scores(log_loss(recalled, predicted), rmse_bins(recalled, predicted, days, number, lapses))


def optimize(reviews: Sequence[Answered], rollover_hour: int = ROLLOVER_HOUR,
             in_use: Sequence[float] | None = None) -> Fit:
    """Fit on the earlier long-term reviews, score the defaults, the parameters ``in_use`` (an
    earlier fit) and the new fit on the later ones; the new fit is kept only when better on both
    metrics than each. NotEnoughHistory below MIN_REVIEWS."""
    items = items_of(reviews, rollover_hour)
    if len(items) < MIN_REVIEWS:
        raise NotEnoughHistory(len(items))
    cut = int(len(items) * TRAIN_SHARE)
    earlier, later = items[:cut], items[cut:]
    defaults = default_parameters()
    fitted = fit(earlier)
    before, after = score(later, defaults), score(later, fitted)
    current = score(later, in_use) if in_use is not None else None
    kept = all(after.log_loss < other.log_loss and after.rmse_bins < other.rmse_bins
               for other in (before, current) if other is not None)
    return Fit(len(reviews), before, after, fitted if kept else tuple(in_use or defaults), kept, current)
