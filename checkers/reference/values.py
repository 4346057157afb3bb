"""The numbers checkers ask for, computed on float64 tensors: losses and small sums, masked
attention weights, positional encodings, layer norm, perplexity, sampling and beam search,
learning-rate schedules and distillation."""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from checkers.reference.models import causal_mask, masked_softmax, padding_mask


DTYPE = torch.float64  # answers are shown to 3-4 decimals; float64 keeps rounding honest


def cross_entropy(logits: Tensor, labels: Tensor, reduction: str = "mean") -> Tensor:
    """F.cross_entropy with BERT's ignore_index=-100 (unselected positions)."""
    return F.cross_entropy(logits, labels, ignore_index=-100, reduction=reduction)


def nll_of_probability(p_true: Tensor) -> Tensor:
    """-ln p per entry, via cross_entropy on the two-way distribution [p, 1-p] with target 0."""
    logits = torch.stack([p_true, 1 - p_true], dim=-1).log()
    return cross_entropy(logits, torch.zeros(p_true.shape, dtype=torch.long), reduction="none")


def embedding_sum(token: Tensor, position: Tensor, segment: Tensor) -> Tensor:
    """Element-wise sum; shape unchanged ([B, S, d] in, [B, S, d] out)."""
    return token + position + segment


def masking_budget(tokens: int, select_rate: float, mask_rate: float, random_rate: float) -> Tensor:
    """Expected counts [selected, [MASK], random token, unchanged] for BERT's 15% / 80-10-10 rule."""
    split = torch.tensor([1.0, mask_rate, random_rate, 1.0 - mask_rate - random_rate], dtype=DTYPE)
    return tokens * select_rate * split


def causal_padding_weights(scores: Tensor, attention_mask: Tensor) -> Tensor:
    """[S, S] attention weights of one sequence under its causal mask and its padding (key) mask.

    A PAD query's row is 0: its output is discarded, and a PAD left of every token sees only
    masked keys (softmax of an all -inf row is NaN). A token's row always keeps its own key."""
    mask = padding_mask(attention_mask[None]) & causal_mask(scores.size(-1))  # [1, 1, S, S]
    weights = masked_softmax(scores, mask)[0, 0]
    return torch.where(attention_mask.bool()[:, None], weights, torch.zeros((), dtype=weights.dtype))


def sinusoidal_table(length: int, d_model: int) -> Tensor:
    """[length, d] sinusoidal encodings (Vaswani et al. 2017, §3.5): sin on even dims, cos on odd."""
    position = torch.arange(length, dtype=DTYPE)[:, None]
    frequency = torch.exp(torch.arange(0, d_model, 2, dtype=DTYPE) * (-math.log(10000.0) / d_model))
    table = torch.zeros(length, d_model, dtype=DTYPE)
    table[:, 0::2] = torch.sin(position * frequency)
    table[:, 1::2] = torch.cos(position * frequency)
    return table


def layer_norm(x: Tensor, gamma: Tensor, beta: Tensor, eps: float) -> Tensor:
    """nn.LayerNorm over the last axis with the given affine parameters (biased variance)."""
    norm = nn.LayerNorm(x.size(-1), eps=eps, dtype=x.dtype)
    with torch.no_grad():
        norm.weight.copy_(gamma)
        norm.bias.copy_(beta)
        return norm(x)


def perplexity(nll: Tensor) -> Tensor:
    """exp of the mean negative log-likelihood per token."""
    return torch.exp(nll.mean())


def sampling_distribution(logits: Tensor, temperature: float = 1.0, top_k: int = 0, top_p: float = 1.0) -> Tensor:
    """Next-token distribution after temperature, then top-k, then top-p (nucleus) filtering, in the
    order transformers applies them. Top-p keeps the smallest set of most likely tokens whose
    probability reaches p (Holtzman et al. 2020, §3.1), so a token is kept while the mass before it < p."""
    z = logits / temperature
    if top_k:
        z = z.masked_fill(z < torch.topk(z, top_k).values[-1], float("-inf"))
    if top_p < 1.0:
        probs, order = torch.sort(torch.softmax(z, dim=-1), descending=True)
        drop = torch.cumsum(probs, dim=-1) - probs >= top_p
        z = z.masked_fill(torch.zeros_like(drop).scatter(-1, order, drop), float("-inf"))
    return torch.softmax(z, dim=-1)


def warmup_cosine_lr(peak: float, warmup: int, total: int, step: int, final_ratio: float) -> float:
    """The rate at ``step`` (from 0) as transformers' get_cosine_schedule_with_warmup has its
    LambdaLR compute it: peak × t / warmup, then a half cosine from the peak down to
    final_ratio × peak at ``total``. Computed on tensors, not through torch.optim, whose first
    optimizer imports torch._dynamo (about 2 s)."""
    t = torch.tensor(float(step), dtype=DTYPE)
    if step < warmup:
        return float(peak * t / warmup)
    progress = (t - warmup) / (total - warmup)
    return float(peak * (final_ratio + (1 - final_ratio) * (1 + torch.cos(math.pi * progress)) / 2))


def soft_targets(logits: Tensor, temperature: float) -> Tensor:
    """softmax(z / T): Hinton et al. (2015), §2."""
    return F.softmax(logits / temperature, dim=-1)


def distillation_loss(student: Tensor, teacher: Tensor, temperature: float) -> Tensor:
    """T² · KL(teacher ‖ student) at temperature T, as F.kl_div computes it from the student's log
    probabilities (Hinton et al. 2015, §2: T² keeps the soft targets' gradients at their scale)."""
    return F.kl_div(F.log_softmax(student / temperature, dim=-1), soft_targets(teacher, temperature), reduction="sum") * temperature**2


def rotary(x: Tensor, position: int, base: float = 10000.0) -> Tensor:
    """RoPE as LLaMA's apply_rotary_emb computes it: consecutive pairs read as complex numbers,
    multiplied by e^(i · position · θ_j) with θ_j = base^(−2j/d) (Su et al. 2021, §3.4.2)."""
    d = x.size(-1)
    theta = base ** (-torch.arange(0, d, 2, dtype=DTYPE) / d)
    turn = torch.polar(torch.ones_like(theta), position * theta)
    return torch.view_as_real(torch.view_as_complex(x.reshape(-1, 2).contiguous()) * turn).flatten()


def beam_search_probability(first: Tensor, second: Tensor, width: int) -> Tensor:
    """Two steps of beam search on log probabilities, as a decoder runs it: keep the top ``width``
    first tokens (topk), extend each by every token, and return the probability of the best
    extension (width 1 is greedy decoding)."""
    kept = torch.topk(first.log(), width)
    scores = kept.values[:, None] + second[kept.indices].log()  # [width, V]
    return scores.flatten().max().exp()
