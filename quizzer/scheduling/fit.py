"""Fitting FSRS-6 parameters to a learner's review history, and scoring parameters on it.

The fitter is fsrs-rs (``fsrs_rs_python``, Rust): on the shared 12,580-review log it fits in
well under a second with a fit as good as py-fsrs's torch optimizer, which takes tens of seconds
(``bench/bench_optimize.py``). Reviews become FSRS items per card: a card's reviews up to one
made on a later study day than the one before it (a long-term review), with the days between
reviews counted in study days; practice reviews that left the schedule alone are left out, as
the scheduler's memory leaves them out. The scores are fsrs-rs's own ``evaluate``: log loss, and
RMSE(bins), which groups reviews by interval, review number and lapse count and weighs each
group's squared gap between mean prediction and mean outcome by its size.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

import fsrs

from quizzer.base.clock import ROLLOVER_HOUR, study_day
from quizzer.base.errors import QuizError
from quizzer.base.i18n import _, ngettext
from quizzer.scheduling.curve import decay
from quizzer.scheduling.simulated import Observed, strength_from
from quizzer.store.records import PRACTICE

NEWEST = 2000  # the learner's strength is read off this many of their newest long-term reviews
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
    @property
    def mode(self) -> str: ...


@dataclass(frozen=True)
class Scores:
    log_loss: float
    rmse_bins: float


@dataclass(frozen=True)
class Fit:
    """What ``optimize`` found: the parameter sets scored on the later reviews (``fitted``: the
    fit on the earlier ones; ``in_use``: an earlier fit the scheduler uses, None with the
    defaults); ``kept`` when that fit scores better on both metrics than each of them (then
    ``parameters`` are fitted again on every review, else those in use stay)."""

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


def items_of(reviews: Sequence[Answered], rollover_hour: int = ROLLOVER_HOUR) -> list[Item]:
    """The long-term reviews of ``reviews`` as items, oldest first. A practice review that left
    the schedule alone (``PRACTICE``) is no review here: the items are the histories the
    scheduler's memory is made of (``scheduling.memory``'s practice rule)."""
    by_card: dict[str, list[Answered]] = defaultdict(list)
    for review in reviews:
        if review.mode != PRACTICE:
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
    """Each item whole, its long-term review last, as fsrs-rs reads it."""
    return [_fsrs_item((*item.history, (item.rating, item.days))) for item in items]


def _fsrs_item(reviews: Sequence[tuple[int, int]]) -> Any:
    """(rating, days since the review before) pairs as one fsrs-rs item."""
    from fsrs_rs_python import FSRSItem, FSRSReview

    return FSRSItem([FSRSReview(rating, days) for rating, days in reviews])


def observed(items: Sequence[Item], parameters: Sequence[float]) -> list[Observed]:
    """Each item's review as the model saw it coming: the days since the card's review before,
    its stability then (fsrs-rs's memory of the history with ``parameters``), and the outcome."""
    if not items:
        return []
    from fsrs_rs_python import FSRS

    states = FSRS(list(parameters)).memory_state_batch([_fsrs_item(item.history) for item in items])
    return [Observed(item.days, float(state.stability), item.rating > 1) for item, state in zip(items, states)]


def strength_of(reviews: Sequence[Answered], scheduler: fsrs.Scheduler, rollover_hour: int = ROLLOVER_HOUR) -> tuple[float, int]:
    """How long the learner's memories last against what ``scheduler``'s parameters say
    (``simulated.strength_from``), read off the newest ``NEWEST`` long-term reviews among
    ``reviews``; and how many that is (1 and 0 with none)."""
    seen = observed(items_of(reviews, rollover_hour)[-NEWEST:], scheduler.parameters)
    return strength_from(seen, decay(scheduler)), len(seen)


def fit(items: Sequence[Item]) -> tuple[float, ...]:
    """FSRS-6 parameters fitted to ``items`` by fsrs-rs."""
    from fsrs_rs_python import DEFAULT_PARAMETERS, FSRS

    return tuple(float(p) for p in FSRS(DEFAULT_PARAMETERS).compute_parameters(_fsrs_items(items)))


def default_parameters() -> tuple[float, ...]:
    """FSRS-6's defaults, as the scheduler (py-fsrs) uses them."""
    from fsrs.scheduler import DEFAULT_PARAMETERS

    return tuple(DEFAULT_PARAMETERS)


def score(items: Sequence[Item], parameters: Sequence[float]) -> Scores:
    """Log loss and RMSE(bins) of ``parameters``' predictions on ``items``, as fsrs-rs's
    ``evaluate`` computes them (the figures Anki and the FSRS benchmark print)."""
    from fsrs_rs_python import FSRS

    evaluated = FSRS(list(parameters)).evaluate(_fsrs_items(items))
    return Scores(float(evaluated.log_loss), float(evaluated.rmse_bins))


def optimize(reviews: Sequence[Answered], rollover_hour: int = ROLLOVER_HOUR,
             in_use: Sequence[float] | None = None) -> Fit:
    """Fit on the earlier long-term reviews, score the defaults, the parameters ``in_use`` (an
    earlier fit) and that fit on the later ones; when the fit is better on both metrics than
    each, the parameters kept are fitted again on every long-term review, as Anki fits on the
    whole history. NotEnoughHistory below MIN_REVIEWS."""
    items = items_of(reviews, rollover_hour)
    if len(items) < MIN_REVIEWS:
        raise NotEnoughHistory(len(items))
    cut = int(len(items) * TRAIN_SHARE)
    earlier, later = items[:cut], items[cut:]
    defaults = default_parameters()
    before, after = score(later, defaults), score(later, fit(earlier))
    current = score(later, in_use) if in_use is not None else None
    kept = all(after.log_loss < other.log_loss and after.rmse_bins < other.rmse_bins
               for other in (before, current) if other is not None)
    return Fit(len(reviews), before, after, fit(items) if kept else tuple(in_use or defaults), kept, current)
