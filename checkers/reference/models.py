"""The BERT and GPT models as small, readable PyTorch modules, and the masked attention they are
built of.

Masking convention: masks hold 1 (keep) / 0 (masked); a masked score becomes -inf *before*
softmax, so its weight is exactly 0. A fully masked row (all -inf) comes out as NaN in every
position, exactly like `torch.softmax`; we keep that rather than silently inventing zeros, and the
checkers never generate (and their inputs reject) such a row.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from checkers.configs import ModelConfig


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
