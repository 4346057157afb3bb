"""FSRS-6's forgetting curve: the recall a card has some days after its last review. The
scheduler (``memory``), the interview plan (``plan``) and the fit (``fit``) all read it, so it
sits below them."""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    import fsrs
    import numpy as np

DECAY_INDEX = 20  # the forgetting curve's decay among the 21 FSRS-6 parameters (w20)
Days = TypeVar("Days", float, "np.ndarray")  # the forgetting curve's time and stability: one card, or many


def forgetting_curve(elapsed_days: Days, stability: Days, decay: float) -> Days:
    """FSRS-6's recall ``elapsed_days`` after the last review: R = (1 + f·t/S)^-d, f = 0.9^(-1/d) - 1,
    so R = 0.9 at t = S. ``decay`` is FSRS-6's last parameter (w20, positive; py-fsrs keeps it
    negated). Floats or numpy arrays alike: the fit scores thousands of reviews at once, the plan
    one card at a time."""
    return (1 + curve_factor(decay) * elapsed_days / stability) ** -decay


def curve_factor(decay: float) -> float:
    """The forgetting curve's f, chosen so that recall is 0.9 after one stability."""
    return float(0.9 ** (-1 / decay) - 1)


def decay(scheduler: fsrs.Scheduler) -> float:
    """The scheduler's forgetting-curve decay (FSRS-6's w20), as :func:`forgetting_curve` takes it."""
    return float(scheduler.parameters[DECAY_INDEX])
