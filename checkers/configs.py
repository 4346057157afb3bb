"""Model configurations (sizes only), kept free of torch so checkers can name them at import time."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Family = Literal["bert", "gpt"]
Convention = Literal["textbook", "exact"]
Component = Literal[
    "total", "embeddings", "token_embedding", "position_embedding", "segment_embedding",
    "attention", "ffn", "layer", "encoder", "pooler", "mlm_head", "nsp_head", "embedding_share",
]  # fmt: skip


@dataclass(frozen=True)
class ModelConfig:
    """The sizes that decide a Transformer's parameter count.

    `bias` and `layer_norm` switch biases and LayerNorms on or off, which is how the course's
    "textbook" table (weights only) differs from the exact count of a real checkpoint.
    """

    name: str
    family: Family
    vocab: int
    positions: int
    segments: int  # 0 = no segment (token type) embedding: GPT, DistilBERT
    layers: int
    hidden: int
    heads: int
    ffn: int
    pre_norm: bool = False  # GPT-2 style (LayerNorm before each sub-layer, plus a final one)
    pooler: bool = True  # BERT's [CLS] dense + tanh; only meaningful for the bert family
    bias: bool = True
    layer_norm: bool = True
    published: tuple[int, ...] = ()  # the total as the paper and the model's name give it (GPT-2 XL: 1542M, 1.5B)

    @property
    def causal(self) -> bool:
        """Decoder-only models attend to the left only."""
        return self.family == "gpt"

    def lacks(self, component: str) -> bool:
        """True for parts this model does not have (GPT: no segments, pooler or MLM/NSP heads;
        DistilBERT: no pooler and no NSP head, which sits on the pooler)."""
        if component == "segment_embedding":
            return not self.segments
        if component in ("pooler", "nsp_head"):
            return self.family != "bert" or not self.pooler
        return component in ("mlm_head", "nsp_head") and self.family != "bert"

    def describe(self) -> str:
        """One line for prompts: the sizes that matter."""
        seg = f", segments={self.segments}" if self.segments else ""
        return (
            f"L={self.layers}, d={self.hidden}, h={self.heads}, d_ff={self.ffn}, "
            f"V={self.vocab}, P={self.positions}{seg}"
        )


def _bert(name: str, layers: int, hidden: int, heads: int, vocab: int = 30522, **kw) -> ModelConfig:
    return ModelConfig(name, "bert", vocab, 512, kw.pop("segments", 2), layers, hidden, heads, 4 * hidden, **kw)


CONFIGS: dict[str, ModelConfig] = {
    c.name: c
    for c in (
        _bert("bert-base-uncased", 12, 768, 12, published=(110_000_000,)),  # BERT §3
        _bert("bert-large-uncased", 24, 1024, 16, published=(340_000_000,)),
        _bert("bert-base-chinese", 12, 768, 12, vocab=21128),
        _bert("distilbert-base-uncased", 6, 768, 12, segments=0, pooler=False, published=(66_000_000,)),  # Sanh 2019 Table 3
        # GPT-2 Table 2: "the smallest model is equivalent to the original GPT" (117M)
        ModelConfig("openai-gpt", "gpt", 40478, 512, 0, 12, 768, 12, 3072, pre_norm=False, pooler=False, published=(117_000_000,)),
        ModelConfig("gpt2", "gpt", 50257, 1024, 0, 12, 768, 12, 3072, pre_norm=True, pooler=False,
                    published=(117_000_000, 124_000_000)),
        # GPT-2 medium / large / XL (Radford et al. 2019, Table 2; sizes of the Hugging Face configs);
        # published: Table 2's figure, then the name the checkpoints go by
        ModelConfig("gpt2-medium", "gpt", 50257, 1024, 0, 24, 1024, 16, 4096, pre_norm=True, pooler=False,
                    published=(345_000_000, 355_000_000)),
        ModelConfig("gpt2-large", "gpt", 50257, 1024, 0, 36, 1280, 20, 5120, pre_norm=True, pooler=False,
                    published=(762_000_000, 774_000_000)),
        ModelConfig("gpt2-xl", "gpt", 50257, 1024, 0, 48, 1600, 25, 6400, pre_norm=True, pooler=False,
                    published=(1_542_000_000, 1_500_000_000)),
    )
}
