"""A small, readable PyTorch reference for BERT/GPT parts; every checker answer comes from here.

Only checker `solve` functions import this package (torch is slow to import), and only its
modules import torch: the models and their attention (``models``), parameter counts
(``parameters``), sizes on the meta device (``sizes``) and float64 values (``values``);
``tokens`` (byte-pair encoding) is plain Python. Each
name is taken from here, ``reference.NAME``, whichever module holds it.
"""

from __future__ import annotations

from checkers.reference.models import (
    BertForPreTraining,
    BertModel,
    Block,
    Embeddings,
    FeedForward,
    GPTModel,
    MLMHead,
    MultiHeadAttention,
    Pooler,
    attention_scores,
    causal_mask,
    masked_softmax,
    padding_mask,
    scaled_dot_product_attention,
)
from checkers.reference.parameters import (
    LlamaBlock,
    LoRALinear,
    count_parameters,
    factorised_embedding_parameters,
    llama_parameters,
    lora_trainable_parameters,
    parameter_breakdown,
    textbook,
)
from checkers.reference.sizes import (
    DTYPES,
    WEIGHT_DTYPES,
    FlopCount,
    activation_bytes,
    kaplan_forward_flops,
    kv_cache_bytes,
    multi_head_shapes,
    training_flops_per_parameter_token,
    training_memory_bytes,
    weight_bytes,
)
from checkers.reference.tokens import bpe_apply, bpe_learn
from checkers.reference.values import (
    DTYPE,
    beam_search_probability,
    causal_padding_weights,
    cross_entropy,
    distillation_loss,
    embedding_sum,
    layer_norm,
    masking_budget,
    nll_of_probability,
    perplexity,
    rotary,
    sampling_distribution,
    sinusoidal_table,
    soft_targets,
    warmup_cosine_lr,
)

__all__ = [
    "BertForPreTraining",
    "BertModel",
    "Block",
    "DTYPE",
    "DTYPES",
    "Embeddings",
    "FeedForward",
    "FlopCount",
    "GPTModel",
    "LlamaBlock",
    "LoRALinear",
    "MLMHead",
    "MultiHeadAttention",
    "Pooler",
    "WEIGHT_DTYPES",
    "activation_bytes",
    "attention_scores",
    "beam_search_probability",
    "bpe_apply",
    "bpe_learn",
    "causal_mask",
    "causal_padding_weights",
    "count_parameters",
    "cross_entropy",
    "distillation_loss",
    "embedding_sum",
    "factorised_embedding_parameters",
    "kaplan_forward_flops",
    "kv_cache_bytes",
    "layer_norm",
    "llama_parameters",
    "lora_trainable_parameters",
    "masked_softmax",
    "masking_budget",
    "multi_head_shapes",
    "nll_of_probability",
    "padding_mask",
    "parameter_breakdown",
    "perplexity",
    "rotary",
    "sampling_distribution",
    "scaled_dot_product_attention",
    "sinusoidal_table",
    "soft_targets",
    "textbook",
    "training_flops_per_parameter_token",
    "training_memory_bytes",
    "warmup_cosine_lr",
    "weight_bytes",
]
