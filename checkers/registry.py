"""Checker names -> checker instances. Importing this (or any checker module) never imports torch.

A checker's module is imported when the checker is first asked for, so a numeric card pays for
its own family's classes only, not for all of them; the table below is checked against each
class's ``name`` in the tests.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from checkers.base import BaseChecker

WHERE: dict[str, tuple[str, str]] = {  # name -> (module, class)
    "activation_memory": ("checkers.activations", "ActivationMemory"),
    "albert_embedding": ("checkers.budgets", "AlbertEmbedding"),
    "attention_shapes": ("checkers.multihead", "AttentionShapes"),
    "beam_search": ("checkers.search", "BeamSearch"),
    "bpe_tokens": ("checkers.tokenization", "BpeTokens"),
    "compute_budget": ("checkers.budgets", "ComputeBudget"),
    "distillation": ("checkers.recipes", "Distillation"),
    "embedding_sum": ("checkers.embedding", "EmbeddingSum"),
    "flops_per_token": ("checkers.costs", "Flops"),
    "kv_cache": ("checkers.costs", "KvCache"),
    "layer_norm": ("checkers.layers", "LayerNorm"),
    "llama_params": ("checkers.llama", "LlamaParams"),
    "lora_params": ("checkers.adapters", "LoraParams"),
    "lr_schedule": ("checkers.recipes", "LrSchedule"),
    "mask_matrix": ("checkers.multihead", "MaskMatrix"),
    "masked_softmax": ("checkers.attention", "MaskedSoftmax"),
    "masking_budget": ("checkers.pretraining", "MaskingBudget"),
    "mlm_loss": ("checkers.pretraining", "MlmLoss"),
    "nsp_loss": ("checkers.pretraining", "NspLoss"),
    "param_count": ("checkers.parameters", "ParamCount"),
    "perplexity": ("checkers.decoding", "Perplexity"),
    "rope": ("checkers.rotary", "Rope"),
    "sampling": ("checkers.decoding", "Sampling"),
    "scaled_scores": ("checkers.attention", "ScaledScores"),
    "sinusoidal_pe": ("checkers.layers", "PositionalEncoding"),
    "training_memory": ("checkers.costs", "TrainingMemory"),
    "weight_memory": ("checkers.budgets", "WeightMemory"),
    "wordpiece_tokens": ("checkers.tokenization", "WordPieceTokens"),
}
_made: dict[str, BaseChecker[Any, Any, Any]] = {}


class UnknownChecker(LookupError):
    """No checker has this name; the message lists the known ones."""

    def __init__(self, name: str) -> None:
        super().__init__(f"unknown checker '{name}'; known: {', '.join(names())}")
        self.name = name


def names() -> list[str]:
    return sorted(WHERE)


def get(name: str) -> BaseChecker[Any, Any, Any]:
    """The checker called `name`; UnknownChecker (a LookupError, not a KeyError) lists the known names."""
    if name not in _made:
        if name not in WHERE:
            raise UnknownChecker(name)
        module, cls = WHERE[name]
        _made[name] = getattr(importlib.import_module(module), cls)()
    return _made[name]
