"""Parameter counts, each from modules built on the meta device (shapes without storage, so a
175B-sized count allocates nothing): BERT and GPT by component, LoRA's trainable share, ALBERT's
factorised embedding, a LLaMA model by part."""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache

import torch
from torch import Tensor, nn

from checkers.configs import ModelConfig
from checkers.reference.models import Block, BertForPreTraining, BertModel, GPTModel


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


def factorised_embedding_parameters(vocab: int, embedding: int, hidden: int) -> dict[str, int]:
    """ALBERT's V x E table plus its E x H projection, against BERT's V x H table (weights only)."""
    with torch.device("meta"):
        factorised = nn.Sequential(nn.Embedding(vocab, embedding), nn.Linear(embedding, hidden, bias=False))
        full = nn.Embedding(vocab, hidden)
    counts = {"factorised": count_parameters(factorised), "full": count_parameters(full)}
    return {**counts, "saving": counts["full"] - counts["factorised"]}


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
