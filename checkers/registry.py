"""Checker names -> checker instances. Importing this (or any checker module) never imports torch."""

from __future__ import annotations

from typing import Any

from checkers.attention import MaskedSoftmax, ScaledScores
from checkers.base import BaseChecker
from checkers.costs import Flops, KvCache, LoraParams, TrainingMemory
from checkers.decoding import Perplexity, Sampling
from checkers.embedding import EmbeddingSum
from checkers.layers import LayerNorm, PositionalEncoding
from checkers.multihead import AttentionShapes, MaskMatrix
from checkers.parameters import ParamCount
from checkers.pretraining import MaskingBudget, MlmLoss, NspLoss

_CHECKERS: dict[str, BaseChecker[Any, Any, Any]] = {
    c.name: c
    for c in (MaskedSoftmax(), ScaledScores(), EmbeddingSum(), ParamCount(), MlmLoss(), NspLoss(), MaskingBudget())
    + (AttentionShapes(), MaskMatrix(), KvCache(), TrainingMemory(), Flops(), LoraParams())
    + (PositionalEncoding(), LayerNorm(), Perplexity(), Sampling())
}


class UnknownChecker(LookupError):
    """No checker has this name; the message lists the known ones."""

    def __init__(self, name: str) -> None:
        super().__init__(f"unknown checker '{name}'; known: {', '.join(names())}")
        self.name = name


def names() -> list[str]:
    return sorted(_CHECKERS)


def get(name: str) -> BaseChecker[Any, Any, Any]:
    """The checker called `name`; UnknownChecker (a LookupError, not a KeyError) lists the known names."""
    try:
        return _CHECKERS[name]
    except KeyError:
        raise UnknownChecker(name) from None
