"""The rating a typed answer earns by itself, and the answers the learner rates instead."""

from __future__ import annotations

from dataclasses import dataclass

from quizzer.base.defaults import Rating


def auto_rating(speed: tuple[float, float], right: bool, seconds: float, first_sight: bool) -> int:
    """The rating a graded card earns from being right and how long it took (``speed``: the
    kind's seconds for Easy and for Hard). A card's first sight is Good at most: a quick right
    answer to a card never seen may be a guess, and Easy would send it 6-10 days away."""
    if not right:
        return Rating.AGAIN
    fast, slow = speed
    if seconds > slow:
        return Rating.HARD
    return Rating.EASY if seconds <= fast and not first_sight else Rating.GOOD


@dataclass(frozen=True)
class Unrated:
    """A graded answer the learner rates, as a self-rated card's back is rated: the answer to a
    card whose earlier answer was undone (it has seen the right one, so speed says nothing)."""

    answer_text: str
    correct: bool
