"""The learner the plan's forecast answers as.

FSRS's parameters describe a learner's median card; real cards vary around it, and a card
weaker than the model lapses, relearns and costs reviews the model never planned. The forecast
therefore replays the plan with a learner whose memory follows FSRS's rules but whose cards each
have a strength: the card's true stability is the model's times ``strength ·
exp(spread · z)``, z standard normal (``SPREAD``: the spread the plan benchmark's learners have).
A card's first sight is answered Again (``first_sight_fails``: the forecast does not count on
knowing a card before seeing it); after it a review is recalled (Good) with the card's true
recall at that moment, else forgotten (Again).

The draws are fixed by the card ids: a card's strength is the quantile of the distribution its
id's SHA-1 picks, and its answers use a generator seeded by its id. Every replay of one forecast therefore meets
the same learner, so a replay with more reviews a day differs only by what those reviews change,
and ``quiz plan`` says the same thing every time it is asked.

``strength_from`` reads the median strength off the learner's own answers: the strength whose
forgetting curve makes their recalls and lapses likeliest, with a prior that keeps it near the
model's until the answers say otherwise. A learner whose memories last 40% less than the model
says is then forecast as one, from their first days of reviews, long before ``quiz optimize``
has the history to fit them.
"""

from __future__ import annotations

import hashlib
import math
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from statistics import NormalDist

from quizzer.base.defaults import Rating
from quizzer.scheduling.curve import forgetting_curve

SPREAD = 0.35  # the spread of the cards' log strengths (bench/bench_plan.py's learners have it)
PRIOR = 0.5  # the spread of learners' log median strengths around the model's, before their answers
BOUND = 2.5  # the median strength is searched between exp(-BOUND) and exp(BOUND) times the model's


@dataclass(frozen=True)
class Learner:
    """How the forecast's learner answers: the median card's strength against the model's, the
    spread of the cards' log strengths, whether first sights fail, whether reviews can lapse."""

    strength: float = 1.0
    spread: float = SPREAD
    first_sight_fails: bool = True
    lapses: bool = True


@dataclass
class Answers:
    """A ``Learner``'s cards: each card's strength, and the draws its answers take in turn."""

    learner: Learner
    strengths: dict[str, float]
    _draws: dict[str, list[float]] = field(default_factory=dict)
    _streams: dict[str, random.Random] = field(default_factory=dict)

    def strength(self, card_id: str) -> float:
        return self.strengths.get(card_id, self.learner.strength)

    def rating(self, card_id: str, nth: int, true_recall: float | None) -> Rating:
        """The rating of ``card_id``'s ``nth`` answer (0: its first sight, when ``true_recall`` is
        None), recalled with chance ``true_recall``."""
        if true_recall is None:
            return Rating.AGAIN if self.learner.first_sight_fails else Rating.GOOD
        if not self.learner.lapses:
            return Rating.GOOD
        return Rating.GOOD if self._draw(card_id, nth) < true_recall else Rating.AGAIN

    def _draw(self, card_id: str, nth: int) -> float:
        draws = self._draws.setdefault(card_id, [])
        while len(draws) <= nth:
            stream = self._streams.setdefault(card_id, random.Random(card_id))
            draws.append(stream.random())
        return draws[nth]


def answers_of(learner: Learner, card_ids: Iterable[str]) -> Answers:
    """``learner``'s cards among ``card_ids``: each card's strength is the quantile of the
    strength distribution that its id's SHA-1 picks (the same whatever cards are beside it)."""
    normal = NormalDist()
    return Answers(learner, {card_id: learner.strength * math.exp(learner.spread * normal.inv_cdf(_uniform(card_id)))
                             for card_id in card_ids})


def _uniform(card_id: str) -> float:
    """A number in (0, 1) fixed by ``card_id``, spread evenly over ids."""
    return (int.from_bytes(hashlib.sha1(card_id.encode()).digest()[:8], "big") + 0.5) / 2 ** 64


@dataclass(frozen=True)
class Observed:
    """A review on a later day than the card's one before: the days since, the model's
    stability then, and whether it was recalled (any rating but Again)."""

    days: float
    stability: float
    recalled: bool


def strength_from(observed: Sequence[Observed], decay: float) -> float:
    """The median strength that makes ``observed`` likeliest (FSRS-6's curve with ``decay``,
    each stability times the strength), its logarithm drawn from N(0, ``PRIOR``): 1 with no
    answers, and near what the answers say once there are dozens."""

    usable = [seen for seen in observed if math.isfinite(seen.stability) and seen.stability > 0
              and math.isfinite(seen.days)]
    if not usable:
        return 1.0

    def cost(log_strength: float) -> float:
        strength, total = math.exp(log_strength), log_strength ** 2 / (2 * PRIOR ** 2)
        for seen in usable:
            recall = min(max(forgetting_curve(seen.days, seen.stability * strength, decay), 1e-9), 1 - 1e-9)
            total -= math.log(recall if seen.recalled else 1 - recall)
        return total

    ratio = (math.sqrt(5) - 1) / 2  # the cost is convex in the log strength: a golden-section search
    low, high = -BOUND, BOUND
    left, right = high - ratio * (high - low), low + ratio * (high - low)
    at_left, at_right = cost(left), cost(right)
    while high - low > 1e-4:
        if at_left <= at_right:
            high, right, at_right = right, left, at_left
            left = high - ratio * (high - low)
            at_left = cost(left)
        else:
            low, left, at_left = left, right, at_right
            right = low + ratio * (high - low)
            at_right = cost(right)
    return math.exp((low + high) / 2)
