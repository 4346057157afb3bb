"""A small, readable PyTorch reference for BERT/GPT parts; every checker answer comes from here.

Only checker `solve` functions import this module (torch is slow to import).

Masking convention: masks hold 1 (keep) / 0 (masked); a masked score becomes -inf *before*
softmax, so its weight is exactly 0. A fully masked row (all -inf) comes out as NaN in every
position, exactly like `torch.softmax`; we keep that rather than silently inventing zeros, and the
checkers never generate (and their inputs reject) such a row.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace
from functools import lru_cache
from typing import Any

import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch._ops import OpOverload
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils.flop_counter import flop_registry

from checkers.configs import ModelConfig

DTYPE = torch.float64  # answers are shown to 3-4 decimals; float64 keeps rounding honest


# --- attention ---------------------------------------------------------------------------------


def masked_softmax(scores: Tensor, mask: Tensor | None = None) -> Tensor:
    """Softmax over the last axis with masked (mask == 0) scores set to -inf first."""
    if mask is not None:
        scores = scores.masked_fill(mask == 0, float("-inf"))
    return torch.softmax(scores, dim=-1)


def causal_mask(size: int) -> Tensor:
    """[S, S] mask, row i keeps positions j <= i."""
    return torch.tril(torch.ones(size, size, dtype=torch.bool))


def padding_mask(attention_mask: Tensor) -> Tensor:
    """[B, S] (1 = token, 0 = PAD) -> [B, 1, 1, S], broadcast over heads and query rows."""
    return attention_mask.bool()[:, None, None, :]


def attention_scores(q: Tensor, k: Tensor) -> Tensor:
    """QK^T / sqrt(d_k). The product is a new tensor, so it is divided in place: the same division,
    but on the meta device (multi_head_shapes) an out-of-place one runs torch._refs' Python kernel,
    whose first call imports torch._dynamo (about 0.6 s)."""
    return (q @ k.transpose(-2, -1)).div_(math.sqrt(q.size(-1)))


def scaled_dot_product_attention(q: Tensor, k: Tensor, v: Tensor, mask: Tensor | None = None) -> Tensor:
    return masked_softmax(attention_scores(q, k), mask) @ v


class MultiHeadAttention(nn.Module):
    """Q/K/V/O projections around scaled dot-product attention, split into heads."""

    def __init__(self, cfg: ModelConfig):
        super().__init__()
        self.heads = cfg.heads
        self.q, self.k, self.v, self.o = (nn.Linear(cfg.hidden, cfg.hidden, bias=cfg.bias) for _ in range(4))

    def forward(self, x: Tensor, mask: Tensor | None) -> Tensor:
        b, s, d = x.shape

        def split(t: Tensor) -> Tensor:  # [B, S, d] -> [B, h, S, d/h]
            return t.view(b, s, self.heads, d // self.heads).transpose(1, 2)

        out = scaled_dot_product_attention(split(self.q(x)), split(self.k(x)), split(self.v(x)), mask)
        return self.o(out.transpose(1, 2).reshape(b, s, d))


class FeedForward(nn.Module):
    """d -> d_ff -> d with GELU, as in BERT and GPT."""

    def __init__(self, cfg: ModelConfig):
        super().__init__()
        self.up = nn.Linear(cfg.hidden, cfg.ffn, bias=cfg.bias)
        self.down = nn.Linear(cfg.ffn, cfg.hidden, bias=cfg.bias)

    def forward(self, x: Tensor) -> Tensor:
        return self.down(F.gelu(self.up(x)))


def _norm(cfg: ModelConfig, size: int | None = None) -> nn.Module:
    return nn.LayerNorm(size or cfg.hidden) if cfg.layer_norm else nn.Identity()


class Block(nn.Module):
    """One Transformer layer: an encoder block (BERT) or, with cfg.causal, a decoder block (GPT).

    Post-norm (BERT, GPT-1): x = LN(x + sublayer(x)). Pre-norm (GPT-2): x = x + sublayer(LN(x)).
    GPT's decoder block has no cross-attention, so both share this structure.
    """

    def __init__(self, cfg: ModelConfig):
        super().__init__()
        self.causal, self.pre_norm = cfg.causal, cfg.pre_norm
        self.attn, self.attn_norm = MultiHeadAttention(cfg), _norm(cfg)
        self.ffn, self.ffn_norm = FeedForward(cfg), _norm(cfg)

    def forward(self, x: Tensor, mask: Tensor | None = None) -> Tensor:
        if self.causal:
            causal = causal_mask(x.size(1))
            mask = causal if mask is None else mask & causal
        if self.pre_norm:
            x = x + self.attn(self.attn_norm(x), mask)
            return x + self.ffn(self.ffn_norm(x))
        x = self.attn_norm(x + self.attn(x, mask))
        return self.ffn_norm(x + self.ffn(x))


def _embedding(num: int, dim: int) -> nn.Embedding:
    """nn.Embedding initialised with uniform_: its default normal_ init, on the meta device, goes
    through torch._refs and imports torch._dynamo (about 1 s) for nothing."""
    return nn.Embedding(num, dim, _weight=torch.empty(num, dim).uniform_(-0.02, 0.02))


class Embeddings(nn.Module):
    """token + position (+ segment) embeddings, summed element-wise: [B, S] -> [B, S, d].

    BERT normalises the sum; GPT-2 feeds it straight to the first block.
    """

    def __init__(self, cfg: ModelConfig):
        super().__init__()
        self.token = _embedding(cfg.vocab, cfg.hidden)
        self.position = _embedding(cfg.positions, cfg.hidden)
        self.segment = _embedding(cfg.segments, cfg.hidden) if cfg.segments else None
        self.norm = _norm(cfg) if cfg.family == "bert" else nn.Identity()

    def forward(self, input_ids: Tensor, segment_ids: Tensor | None = None) -> Tensor:
        positions = torch.arange(input_ids.size(1), device=input_ids.device)
        x = self.token(input_ids) + self.position(positions)[None]
        if self.segment is not None:
            x = x + self.segment(torch.zeros_like(input_ids) if segment_ids is None else segment_ids)
        return self.norm(x)


class Pooler(nn.Module):
    """BERT's sentence vector: tanh(W h_[CLS] + b); not the same as last_hidden_state[:, 0]."""

    def __init__(self, cfg: ModelConfig):
        super().__init__()
        self.dense = nn.Linear(cfg.hidden, cfg.hidden, bias=cfg.bias)

    def forward(self, hidden: Tensor) -> Tensor:
        return torch.tanh(self.dense(hidden[:, 0]))


class BertModel(nn.Module):
    def __init__(self, cfg: ModelConfig):
        super().__init__()
        self.embeddings = Embeddings(cfg)
        self.layers = nn.ModuleList(Block(cfg) for _ in range(cfg.layers))
        self.pooler = Pooler(cfg) if cfg.pooler else None

    def forward(
        self, input_ids: Tensor, attention_mask: Tensor | None = None, segment_ids: Tensor | None = None
    ) -> tuple[Tensor, Tensor | None]:
        """-> (last_hidden_state [B, S, d], pooler_output [B, d] or None)."""
        mask = None if attention_mask is None else padding_mask(attention_mask)
        x = self.embeddings(input_ids, segment_ids)
        for layer in self.layers:
            x = layer(x, mask)
        return x, (self.pooler(x) if self.pooler is not None else None)


class MLMHead(nn.Module):
    """dense + GELU + LayerNorm, then a decoder tied to the word embeddings with its own bias."""

    def __init__(self, cfg: ModelConfig, word_embeddings: nn.Embedding):
        super().__init__()
        self.dense = nn.Linear(cfg.hidden, cfg.hidden, bias=cfg.bias)
        self.norm = _norm(cfg)
        self.decoder = nn.Linear(cfg.hidden, cfg.vocab, bias=False)
        self.decoder.weight = word_embeddings.weight  # tied: one tensor, counted once
        self.bias = nn.Parameter(torch.zeros(cfg.vocab)) if cfg.bias else None

    def forward(self, hidden: Tensor) -> Tensor:
        logits = self.decoder(self.norm(F.gelu(self.dense(hidden))))
        return logits if self.bias is None else logits + self.bias


class BertForPreTraining(nn.Module):
    """BertModel + MLM head + NSP head (Linear(d, 2) on the pooled [CLS])."""

    def __init__(self, cfg: ModelConfig):
        super().__init__()
        self.bert = BertModel(cfg)
        self.mlm = MLMHead(cfg, self.bert.embeddings.token)
        self.nsp = nn.Linear(cfg.hidden, 2, bias=cfg.bias)

    def forward(self, input_ids: Tensor, attention_mask: Tensor | None = None, segment_ids: Tensor | None = None):
        """-> (MLM logits [B, S, V], NSP logits [B, 2])."""
        hidden, pooled = self.bert(input_ids, attention_mask, segment_ids)
        return self.mlm(hidden), self.nsp(pooled if pooled is not None else hidden[:, 0])


class GPTModel(nn.Module):
    """Decoder-only LM with tied input/output embeddings (GPT-2: pre-norm + final LayerNorm)."""

    def __init__(self, cfg: ModelConfig):
        super().__init__()
        self.embeddings = Embeddings(cfg)
        self.layers = nn.ModuleList(Block(cfg) for _ in range(cfg.layers))
        self.final_norm = _norm(cfg) if cfg.pre_norm else nn.Identity()
        self.lm_head = nn.Linear(cfg.hidden, cfg.vocab, bias=False)
        self.lm_head.weight = self.embeddings.token.weight

    def forward(self, input_ids: Tensor, attention_mask: Tensor | None = None) -> Tensor:
        """-> next-token logits [B, S, V]."""
        mask = None if attention_mask is None else padding_mask(attention_mask)
        x = self.embeddings(input_ids)
        for layer in self.layers:
            x = layer(x, mask)
        return self.lm_head(self.final_norm(x))


# --- parameter counts --------------------------------------------------------------------------

def count_parameters(module: nn.Module) -> int:
    """Sum of numel over unique parameters: `parameters()` yields a tied tensor once."""
    return sum(p.numel() for p in module.parameters())


def textbook(cfg: ModelConfig) -> ModelConfig:
    """The course table's convention: weight matrices only (no biases, no LayerNorm).

    The table's total also leaves out the pooler; `parameter_breakdown` handles that part."""
    return replace(cfg, bias=False, layer_norm=False)


@lru_cache(maxsize=256)
def _meta_model(cfg: ModelConfig) -> BertForPreTraining | GPTModel:
    """Built on the meta device: shapes without storage, so BERT-large allocates nothing."""
    with torch.device("meta"):
        return BertForPreTraining(cfg) if cfg.family == "bert" else GPTModel(cfg)


@lru_cache(maxsize=256)
def parameter_breakdown(cfg: ModelConfig, convention: str = "exact") -> dict[str, int]:
    """Per-component counts. "total" is the bare model (BertModel with pooler / GPT with its tied
    LM head; the textbook total has no pooler); MLM and NSP heads are reported separately.
    Parts a model lacks (GPT's segment embedding, DistilBERT's pooler) count 0."""
    if convention == "textbook":
        cfg = textbook(cfg)
    model = _meta_model(cfg)
    base = model.bert if isinstance(model, BertForPreTraining) else model
    emb, block = base.embeddings, base.layers[0]
    assert isinstance(block, Block)  # ModuleList items are typed as plain Modules
    counts = {
        "token_embedding": count_parameters(emb.token),
        "position_embedding": count_parameters(emb.position),
        "segment_embedding": count_parameters(emb.segment) if emb.segment is not None else 0,
        "embeddings": count_parameters(emb),
        "attention": count_parameters(block.attn),
        "ffn": count_parameters(block.ffn),
        "layer": count_parameters(block),
        "pooler": count_parameters(base.pooler) if isinstance(base, BertModel) and base.pooler is not None else 0,
        "total": count_parameters(base),
    }
    counts["encoder"] = counts["total"] - counts["embeddings"] - counts["pooler"]  # blocks (+ GPT-2's final LN)
    if convention == "textbook":
        counts["total"] -= counts["pooler"]
    if isinstance(model, BertForPreTraining):
        counts["mlm_head"] = count_parameters(model.mlm) - counts["token_embedding"]  # decoder weight is shared
        counts["nsp_head"] = count_parameters(model.nsp)
    return counts


# --- losses and small sums ---------------------------------------------------------------------


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


# --- interview numbers: shapes, masks, memory, FLOPs, LoRA, positions, norms, decoding -----------
# Sizes run on the meta device (shapes and dtypes, no storage), so a 175B-sized count allocates nothing.

DTYPES = {"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}


@lru_cache(maxsize=256)
def multi_head_shapes(batch: int, q_len: int, kv_len: int, d_model: int, heads: int) -> dict[str, list[int]]:
    """Every tensor's shape through projection, head split, attention and merge, recorded as it runs.

    The projection has no bias: a bias leaves every shape as it is, and on the meta device its add
    runs torch._refs' Python kernel, whose first call imports torch._dynamo (about 0.6 s). The
    matmuls' meta kernels still import sympy once per process (about 0.3 s)."""
    d_k = d_model // heads
    with torch.device("meta"):
        proj = nn.Linear(d_model, d_model, bias=False)
        x_q, x_kv = torch.empty(batch, q_len, d_model), torch.empty(batch, kv_len, d_model)
        q, k, v = proj(x_q), proj(x_kv), proj(x_kv)
        q_split = q.view(batch, q_len, heads, d_k)
        q_heads = q_split.transpose(1, 2)
        k_heads = k.view(batch, kv_len, heads, d_k).transpose(1, 2)
        v_heads = v.view(batch, kv_len, heads, d_k).transpose(1, 2)
        scores = attention_scores(q_heads, k_heads)
        context = torch.softmax(scores, dim=-1) @ v_heads
        merged = context.transpose(1, 2).reshape(batch, q_len, d_model)
        output = proj(merged)
    tensors = {"q": q, "q_split": q_split, "q_heads": q_heads, "k_heads": k_heads, "scores": scores,
               "context": context, "merged": merged, "output": output}  # fmt: skip
    return {name: list(t.shape) for name, t in tensors.items()}


def causal_padding_weights(scores: Tensor, attention_mask: Tensor) -> Tensor:
    """[S, S] attention weights of one sequence under its causal mask and its padding (key) mask.

    A PAD query's row is 0: its output is discarded, and a PAD left of every token sees only
    masked keys (softmax of an all -inf row is NaN). A token's row always keeps its own key."""
    mask = padding_mask(attention_mask[None]) & causal_mask(scores.size(-1))  # [1, 1, S, S]
    weights = masked_softmax(scores, mask)[0, 0]
    return torch.where(attention_mask.bool()[:, None], weights, torch.zeros((), dtype=weights.dtype))


def kv_cache_bytes(layers: int, kv_heads: int, head_dim: int, batch: int, length: int, dtype: str) -> int:
    """Bytes of the K and V caches of every layer, [B, h_kv, S, d_head] each, as allocated tensors."""
    with torch.device("meta"):
        cache = [torch.empty(batch, kv_heads, length, head_dim, dtype=DTYPES[dtype]) for _ in range(2 * layers)]
    return sum(t.numel() * t.element_size() for t in cache)


class FlopCount(TorchDispatchMode):
    """Sums the FLOPs of the aten ops run inside it with torch.utils.flop_counter's formulas, the
    ones FlopCounterMode uses. FlopCounterMode's own dispatch mode is wrapped in torch._dynamo's
    disable, so its first op imports torch._dynamo (about 0.6 s) though nothing here is compiled;
    this mode opts out of that wrapping."""

    def __init__(self) -> None:
        super().__init__()
        self.total = 0

    @classmethod
    def _should_skip_dynamo(cls) -> bool:
        return False

    def __torch_dispatch__(
        self, func: OpOverload, types: Sequence[type], args: tuple[Any, ...] = (), kwargs: dict[str, Any] | None = None
    ) -> Any:
        kwargs = kwargs or {}
        out = func(*args, **kwargs)
        formula = flop_registry.get(func.overloadpacket)
        if formula is not None:
            self.total += formula(*args, **kwargs, out_val=out)
        return out


def kaplan_forward_flops(layers: int, d_model: int, d_attn: int, d_ff: int, n_ctx: int) -> int:
    """Forward FLOPs of one token as Kaplan et al. (2020, Table 1) count them: every weight matmul
    (QKV, attention output, FFN up and down) plus the QK^T logits against n_ctx keys; embeddings,
    softmax, norms, residual adds and the attention-weighted sum of V are left out, so they are not
    run. FlopCount counts one block as it runs; the layers are identical, so the total is layers
    times that."""
    with torch.device("meta"):
        qkv, out = nn.Linear(d_model, 3 * d_attn, bias=False), nn.Linear(d_attn, d_model, bias=False)
        up, down = nn.Linear(d_model, d_ff, bias=False), nn.Linear(d_ff, d_model, bias=False)
        x, keys = torch.empty(1, d_model), torch.empty(n_ctx, d_attn)
        with FlopCount() as counter:
            q = qkv(x)[:, :d_attn]
            _ = q @ keys.T  # the context-dependent term (logits are not used further)
            down(up(out(q)))  # the attention output has q's shape; the FFN reads the block's d_model
    return layers * counter.total


class LoRALinear(nn.Module):
    """A frozen Linear plus the trainable update B A of rank r (Hu et al. 2021, §4.1); B starts at 0."""

    def __init__(self, d_in: int, d_out: int, rank: int, alpha: float = 1.0):
        super().__init__()
        self.base = nn.Linear(d_in, d_out, bias=False).requires_grad_(False)
        self.lora_a = nn.Parameter(torch.empty(rank, d_in))
        self.lora_b = nn.Parameter(torch.zeros(d_out, rank))
        self.scaling = alpha / rank

    def forward(self, x: Tensor) -> Tensor:
        return self.base(x) + (x @ self.lora_a.T @ self.lora_b.T) * self.scaling


def lora_trainable_parameters(layers: int, shapes: list[tuple[int, int]], rank: int) -> int:
    """Trainable (requires_grad) parameters once each (d_in, d_out) projection of every layer is
    wrapped: one layer's wrapped projections are built and counted, times the identical layers."""
    with torch.device("meta"):
        layer = nn.ModuleList(LoRALinear(d_in, d_out, rank) for d_in, d_out in shapes)
    return layers * sum(p.numel() for p in layer.parameters() if p.requires_grad)


def training_memory_bytes(parameters: int, precision: str) -> dict[str, int]:
    """Weights, gradients and Adam states as tensors, per ZeRO (Rajbhandari et al. 2020, §3.1).

    fp32: fp32 weights and gradients, Adam's exp_avg and exp_avg_sq in fp32. mixed: fp16 weights and
    gradients; the optimizer keeps an fp32 master copy of the weights besides the two moments."""
    low = torch.float32 if precision == "fp32" else torch.float16
    with torch.device("meta"):
        weights = torch.empty(parameters, dtype=low)
        gradients = weights.new_empty(weights.shape)  # not empty_like: on meta it imports sympy (0.3 s)
        master = [torch.empty(parameters, dtype=torch.float32)] if precision == "mixed" else []
        states = master + [torch.zeros(parameters, dtype=torch.float32) for _ in ("exp_avg", "exp_avg_sq")]
    size = lambda t: t.numel() * t.element_size()  # noqa: E731
    parts = {"weights": size(weights), "gradients": size(gradients), "optimizer": sum(size(t) for t in states)}
    return {**parts, "total": sum(parts.values())}


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


# --- budgets: weights at low precision, training compute, ALBERT's factorised embedding -------


WEIGHT_DTYPES = {"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16, "int8": torch.int8}


def weight_bytes(parameters: int, dtype: str) -> int:
    """Bytes of the weights alone as stored tensors; int4 packs two weights into each uint8 (as
    GPTQ and bitsandbytes store them), scales and zero points left out."""
    with torch.device("meta"):
        if dtype == "int4":
            weights = torch.empty((parameters + 1) // 2, dtype=torch.uint8)
        else:
            weights = torch.empty(parameters, dtype=WEIGHT_DTYPES[dtype])
    return weights.numel() * weights.element_size()


def training_flops_per_parameter_token() -> int:
    """FLOPs of one training step per weight per token, counted on a Linear whose input needs a
    gradient as inside a network: forward 2, backward 4 (the input's and the weight's gradients),
    the 6 of C = 6ND (Kaplan et al. 2020, §2.1)."""
    d_in, d_out, tokens = 8, 4, 3
    with torch.device("meta"):
        layer = nn.Linear(d_in, d_out, bias=False)
        x = torch.empty(tokens, d_in, requires_grad=True)
        with FlopCount() as counter:
            layer(x).sum().backward()
    return counter.total // (d_in * d_out * tokens)


def factorised_embedding_parameters(vocab: int, embedding: int, hidden: int) -> dict[str, int]:
    """ALBERT's V x E table plus its E x H projection, against BERT's V x H table (weights only)."""
    with torch.device("meta"):
        factorised = nn.Sequential(nn.Embedding(vocab, embedding), nn.Linear(embedding, hidden, bias=False))
        full = nn.Embedding(vocab, hidden)
    counts = {"factorised": count_parameters(factorised), "full": count_parameters(full)}
    return {**counts, "saving": counts["full"] - counts["factorised"]}


# --- training recipes: warmup + cosine learning rate, distillation at a temperature -------------


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


class LlamaBlock(nn.Module):
    """A LLaMA block's parameters: bias-free Q/O (d x d) and K/V (d x h_kv·d_head) for grouped-query
    attention, SwiGLU's gate, up and down projections, and two RMSNorms (Touvron et al. 2023)."""

    def __init__(self, d_model: int, heads: int, kv_heads: int, d_ff: int):
        super().__init__()
        kv = kv_heads * (d_model // heads)
        self.q, self.k = nn.Linear(d_model, d_model, bias=False), nn.Linear(d_model, kv, bias=False)
        self.v, self.o = nn.Linear(d_model, kv, bias=False), nn.Linear(d_model, d_model, bias=False)
        self.gate, self.up = nn.Linear(d_model, d_ff, bias=False), nn.Linear(d_model, d_ff, bias=False)
        self.down = nn.Linear(d_ff, d_model, bias=False)
        self.norms = nn.ModuleList([nn.RMSNorm(d_model), nn.RMSNorm(d_model)])


def llama_parameters(layers: int, d_model: int, heads: int, kv_heads: int, d_ff: int, vocab: int) -> dict[str, int]:
    """Parameters by part, counted on meta-device modules: one block (the layers are identical),
    the embedding, the final RMSNorm and the untied output head."""
    with torch.device("meta"):
        block = LlamaBlock(d_model, heads, kv_heads, d_ff)
        rest = nn.ModuleList([nn.Embedding(vocab, d_model), nn.RMSNorm(d_model), nn.Linear(d_model, vocab, bias=False)])
    attention = sum(count_parameters(m) for m in (block.q, block.k, block.v, block.o))
    ffn = sum(count_parameters(m) for m in (block.gate, block.up, block.down))
    layer = count_parameters(block)
    return {"attention": attention, "ffn": ffn, "layer": layer, "total": layers * layer + count_parameters(rest)}


def beam_search_probability(first: Tensor, second: Tensor, width: int) -> Tensor:
    """Two steps of beam search on log probabilities, as a decoder runs it: keep the top ``width``
    first tokens (topk), extend each by every token, and return the probability of the best
    extension (width 1 is greedy decoding)."""
    kept = torch.topk(first.log(), width)
    scores = kept.values[:, None] + second[kept.indices].log()  # [width, V]
    return scores.flatten().max().exp()
