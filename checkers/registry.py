"""Checker names -> checker instances. Importing this (or any checker module) never imports torch."""

from __future__ import annotations

from checkers.attention import MaskedSoftmax, ScaledScores
from checkers.base import Checker
from checkers.embedding import EmbeddingSum
from checkers.parameters import ParamCount
from checkers.pretraining import MaskingBudget, MlmLoss, NspLoss

_CHECKERS: dict[str, Checker] = {
    c.name: c
    for c in (MaskedSoftmax(), ScaledScores(), EmbeddingSum(), ParamCount(), MlmLoss(), NspLoss(), MaskingBudget())
}


def names() -> list[str]:
    return sorted(_CHECKERS)


def get(name: str) -> Checker:
    """The checker called `name`; KeyError lists the known names."""
    try:
        return _CHECKERS[name]
    except KeyError:
        raise KeyError(f"unknown checker '{name}'; known: {', '.join(names())}") from None
