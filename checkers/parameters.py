"""Parameter-count drills for BERT and GPT configs, textbook (weights only) or exact."""

from __future__ import annotations

import random
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Annotated, Literal, get_args

from checkers.base import BaseChecker, Tolerance, num
from checkers.configs import CONFIGS, Component, Convention, Family, ModelConfig
from checkers.said import Said
from checkers.shapes import LAYERS_MAX, Strict

if TYPE_CHECKING:  # Field(...) in an annotation is read by pydantic only to validate (checkers.validating)
    from pydantic import Field

COMPONENTS: tuple[Component, ...] = get_args(Component)

ASK = {
    "total": "模型总参数量",
    "embeddings": "Embedding 层的参数量（各 embedding 矩阵之和{exact}）",
    "token_embedding": "Token Embedding 的参数量",
    "position_embedding": "Position Embedding 的参数量",
    "segment_embedding": "Segment Embedding 的参数量",
    "attention": "**一层**自注意力（Q/K/V/O 四个投影{exact}）的参数量",
    "ffn": "**一层** FFN（d → d_ff → d{exact}）的参数量",
    "layer": "**一层** Transformer block 的参数量（attention + FFN{exact}）",
    "encoder": "全部 L 层 block 合计的参数量{exact}",
    "pooler": "Pooler（[CLS] 上的 dense + tanh{exact}）的参数量",
    "mlm_head": "MLM 头的参数量（{exact}；解码矩阵与词嵌入共享，不重复计）",
    "nsp_head": "NSP 头 Linear(d, 2) 的参数量{exact}",
    "embedding_share": "Embedding 层参数占模型总参数量的比例（写成小数）",
}

# What each convention says about a part in the question, so it states one convention only.
PART = {
    "textbook": {"mlm_head": "只算 dense 的权重矩阵"},
    "exact": {
        "embeddings": "，含其后的 LayerNorm",
        "attention": "，含 bias",
        "ffn": "，含 bias",
        "layer": "，含 bias 和两个 LayerNorm",
        "pooler": "，含 bias",
        "mlm_head": "dense + LayerNorm + 输出 bias",
        "nsp_head": "（含 bias）",
    },
}


def ask(component: Component, convention: Convention, cfg: ModelConfig) -> str:
    """The question for one part under one convention, never mentioning the other."""
    part = PART[convention].get(component, "")
    if convention == "exact" and component == "embeddings" and cfg.family != "bert":
        part = ""  # GPT-2 feeds the sum straight to the first block: no LayerNorm here
    if convention == "exact" and component == "encoder" and cfg.pre_norm:
        part = "（含最后的 LayerNorm）"
    return ASK[component].format(exact=part)


def convention_text(convention: Convention, cfg: ModelConfig) -> str:
    """The convention as a prompt states it, for this model (DistilBERT has no pooler)."""
    if convention == "textbook":
        pooler = "；总计不含 pooler" if not cfg.lacks("pooler") else ""
        return f"**课程表格口径**：只算权重矩阵，不含 bias 和 LayerNorm{pooler}。"
    if cfg.family == "gpt":
        total = "输出层与词嵌入共享权重，只算一次"
    elif cfg.lacks("pooler"):
        total = f"总计 = {cfg.name} 模型本体（它没有 pooler 和 NSP 头），不含 MLM 头"
    else:
        total = "BERT 总计 = BertModel（含 pooler，不含 MLM/NSP 头）"
    return f"**精确口径**：含全部 bias 与 LayerNorm；{total}。"


@dataclass(frozen=True, kw_only=True)
class ParamCountParams(Strict):
    """family / models / random_sizes: which models a question may name (models, when given, are
    the only ones); precision: exact integer, an estimate in M to `decimals` places, or an
    estimate to `digits` significant digits (1: the order of magnitude)."""

    family: Literal["bert", "gpt", "any"] = "any"
    convention: Literal["textbook", "exact", "any"] = "any"
    components: Annotated[list[Component], Field(min_length=1)] = field(default_factory=lambda: list(COMPONENTS))
    models: list[str] = field(default_factory=list)
    random_sizes: bool = True  # False: only the named configs (bert-base-uncased, gpt2, ...)
    precision: Literal["exact", "relative", "millions", "significant"] = "exact"
    relative: Annotated[float, Field(gt=0, lt=1)] = 0.01  # used when precision == "relative"
    decimals: Annotated[int, Field(ge=0, le=3)] = 1  # used when precision == "millions"
    digits: Annotated[int, Field(ge=1, le=4)] = 2  # used when precision == "significant"

    def check(self) -> None:
        unknown = [m for m in self.models if m not in CONFIGS]
        if unknown:
            raise ValueError(Said("unknown model(s) {models}; known: {known}", models=unknown, known=list(CONFIGS)))
        other = [m for m in self.models if self.family not in ("any", CONFIGS[m].family)]
        if other:
            raise ValueError(Said("model(s) {models} are not of family {family}", models=other, family=self.family))
        if not any(candidates(self)):
            raise ValueError(Said("no {family} model in reach has any of {components}", family=self.family, components=list(self.components)))


def _has_some(cfg: ModelConfig, components: list[Component]) -> bool:
    return any(not cfg.lacks(c) for c in components)


def candidates(params: ParamCountParams) -> tuple[list[str], list[Family]]:
    """(named configs, families of random sizes) a question may be drawn from: each has at least
    one of the asked components, so no draw falls back to a part the card is not about."""
    families: list[Family] = ["bert", "gpt"] if params.family == "any" else [params.family]
    named = [
        n for n, c in CONFIGS.items()
        if c.family in families and (not params.models or n in params.models) and _has_some(c, params.components)
    ]  # fmt: skip
    if params.models or not params.random_sizes:
        return named, []
    probe = {f: ParamCountInputs(family=f, layers=1, hidden=64, vocab=1).config() for f in families}
    return named, [f for f in families if _has_some(probe[f], params.components)]


@dataclass(frozen=True, kw_only=True)
class ParamCountInputs(Strict):
    """A named config (`model`), optionally with fields overridden, or every size given explicitly."""

    model: str | None = None
    family: Family | None = None
    layers: Annotated[int | None, Field(ge=1, le=LAYERS_MAX)] = None
    hidden: Annotated[int | None, Field(ge=1)] = None
    heads: Annotated[int | None, Field(ge=1)] = None
    ffn: Annotated[int | None, Field(ge=1)] = None
    vocab: Annotated[int | None, Field(ge=1)] = None
    positions: Annotated[int | None, Field(ge=1)] = None
    segments: Annotated[int | None, Field(ge=0)] = None
    component: Component = "total"
    convention: Convention = "exact"

    def check(self) -> None:
        if self.model is not None and self.model not in CONFIGS:
            raise ValueError(Said("unknown model '{model}'; known: {known}", model=self.model, known=list(CONFIGS)))
        cfg = self.config()  # also rejects a custom config without family, layers, hidden or vocab
        if cfg.lacks(self.component):
            raise ValueError(Said("{name} has no {component}", name=cfg.name, component=self.component))
        if cfg.hidden % cfg.heads:
            raise ValueError(Said("hidden {hidden} is not divisible by heads {heads}", hidden=cfg.hidden, heads=cfg.heads))

    def config(self) -> ModelConfig:
        sizes = {f: getattr(self, f) for f in ("layers", "hidden", "heads", "ffn", "vocab", "positions", "segments")}
        given = {k: v for k, v in sizes.items() if v is not None}
        if self.model is not None:
            return replace(CONFIGS[self.model], **given)
        family, layers, hidden, vocab = self.family, self.layers, self.hidden, self.vocab
        if family is None or layers is None or hidden is None or vocab is None:
            raise ValueError(Said("without `model`, give at least family, layers, hidden and vocab"))
        bert = family == "bert"
        return ModelConfig(
            name=f"自定义 {family.upper()}",
            family=family,
            vocab=vocab,
            positions=given.get("positions", 512 if bert else 1024),
            segments=given.get("segments", 2 if bert else 0),
            layers=layers,
            hidden=hidden,
            heads=given.get("heads", max(1, hidden // 64)),
            ffn=given.get("ffn", 4 * hidden),
            pre_norm=not bert,
            pooler=bert,
        )


def formulas(cfg: ModelConfig, convention: str) -> dict[str, str]:
    """How each count is made up, for the worked table (numbers come from the reference)."""
    V, P, T, d, f, L = cfg.vocab, cfg.positions, cfg.segments, cfg.hidden, cfg.ffn, cfg.layers
    exact = convention == "exact"
    ln = f" + 2×{d}（LayerNorm）" if exact else ""
    rows = {
        "token_embedding": f"{V} × {d}",
        "position_embedding": f"{P} × {d}",
        "segment_embedding": f"{T} × {d}",
        "embeddings": f"({V} + {P} + {T}) × {d}" + (ln if cfg.family == "bert" else ""),
        "attention": f"4 × ({d}×{d} + {d})" if exact else f"4 × {d} × {d}",
        "ffn": f"{d}×{f} + {f} + {f}×{d} + {d}" if exact else f"2 × {d} × {f}",
        "layer": "attention + FFN" + (f" + 2 × 2×{d}（两个 LayerNorm）" if exact else ""),
        "encoder": f"{L} × 每层" + (f" + 2×{d}（最终 LayerNorm）" if exact and cfg.pre_norm else ""),
        "pooler": f"{d}×{d} + {d}" if exact else f"{d} × {d}（不计入总计）",
        "total": "embeddings + encoder" + (" + pooler" if exact and not cfg.lacks("pooler") else ""),
        "mlm_head": f"{d}×{d} + {d} + 2×{d} + {V}（bias）" if exact else f"{d} × {d}（解码矩阵共享）",
        "nsp_head": f"2×{d} + 2" if exact else f"2 × {d}",
    }
    return {k: v for k, v in rows.items() if not cfg.lacks(k)}


class ParamCount(BaseChecker[ParamCountParams, ParamCountInputs, int | float]):
    name = "param_count"
    description = "参数量：BERT/GPT 各部分或总计（课程表格口径或精确口径），以及 Embedding 占比"
    Params = ParamCountParams
    Inputs = ParamCountInputs

    def compose(self, rng: random.Random, params: ParamCountParams) -> tuple[ParamCountInputs, str]:
        convention: Convention = params.convention if params.convention != "any" else rng.choice(["textbook", "exact"])
        named, random_families = candidates(params)
        if random_families and (not named or rng.random() < 0.5):
            family = rng.choice(random_families)
            hidden = rng.choice([256, 384, 512, 768, 1024])
            probe = ParamCountInputs(
                family=family,
                layers=rng.choice([2, 4, 6, 8, 12, 24]),
                hidden=hidden,
                heads=hidden // 64,
                vocab=rng.choice([21128, 30522, 32000, 50257]),
                positions=512 if family == "bert" else rng.choice([512, 1024]),
                convention=convention,
            )
        else:
            probe = ParamCountInputs(model=rng.choice(named), convention=convention)
        allowed = [c for c in params.components if not probe.config().lacks(c)]
        inputs = probe.model_copy(update={"component": rng.choice(allowed)})
        cfg = inputs.config()
        if cfg.family == "bert":
            arch = "BERT 式（Encoder-only，post-norm）"
        else:
            arch = "GPT-2 式（Decoder-only，pre-norm + 最终 LayerNorm）" if cfg.pre_norm else "GPT-1（Decoder-only，post-norm）"
        prompt = (
            f"模型 **{cfg.name}**：{arch}，{cfg.describe()}。\n\n{convention_text(convention, cfg)}\n\n"
            f"求{ask(inputs.component, convention, cfg)}。"
        )
        return inputs, prompt

    def why_out_of_range(self, params: ParamCountParams, inputs: ParamCountInputs) -> str | None:
        cfg = inputs.config()
        if params.models and inputs.model not in params.models:
            return Said("drew {got}; the card is about {wanted}", got=cfg.name, wanted=list(params.models))
        if params.family != "any" and cfg.family != params.family:
            return Said("drew a {got} model; the card is about {wanted}", got=cfg.family, wanted=params.family)
        if params.convention != "any" and inputs.convention != params.convention:
            return Said("drew the {got} convention; the card is about {wanted}", got=inputs.convention, wanted=params.convention)
        if inputs.component not in params.components:
            return Said("asks for {got}; the card is about {wanted}", got=inputs.component, wanted=list(params.components))
        if not params.random_sizes and inputs.model is None:
            return Said("drew random sizes; the card names only real models")
        return None

    def solve(self, inputs: ParamCountInputs) -> int | float:
        from checkers import reference

        counts = reference.parameter_breakdown(inputs.config(), inputs.convention)
        if inputs.component == "embedding_share":
            return counts["embeddings"] / counts["total"]
        return counts[inputs.component]

    def other_accepted(self, inputs: ParamCountInputs, answer: int | float, tolerance: Tolerance) -> tuple[float, ...]:
        """An estimate ("约多少": significant digits) of a named model's total also takes the figures
        its paper and its name give (GPT-2 XL: 1542M, 1.5B), graded at the same digits."""
        if tolerance.kind != "significant" or inputs.component != "total" or inputs.model is None:
            return ()
        cfg = inputs.config()
        return cfg.published if cfg == CONFIGS[inputs.model] else ()

    def tolerance(self, params: ParamCountParams, inputs: ParamCountInputs) -> Tolerance:
        if inputs.component == "embedding_share":
            return Tolerance("decimals", 3)
        if params.precision == "millions":
            return Tolerance("unit", params.decimals, unit="M")
        if params.precision == "significant":
            return Tolerance("significant", params.digits)
        return Tolerance("exact") if params.precision == "exact" else Tolerance("relative", relative=params.relative)

    def explain(self, inputs: ParamCountInputs, answer: int | float, tolerance: Tolerance) -> str:
        from checkers import reference

        cfg = inputs.config()
        counts = reference.parameter_breakdown(cfg, inputs.convention)
        rows = ["| 部分 | 计算 | 参数量 |", "| --- | --- | --- |"]
        for part, formula in formulas(cfg, inputs.convention).items():
            mark = "**" if part == inputs.component else ""
            rows.append(f"| {mark}{part}{mark} | {formula} | {mark}{counts[part]:,}{mark} |")
        share = ""
        if inputs.component == "embedding_share":
            share = f"\n\nEmbedding 占比 = {counts['embeddings']:,} / {counts['total']:,} = {num(answer)}"
        return (
            f"{convention_text(inputs.convention, cfg)}\n\n" + "\n".join(rows) + share
            + f"\n\n答案：`{tolerance.format(answer)}`"
            + (f"（精确值 {answer:,}）" if tolerance.kind in ("unit", "significant", "relative") else "")
            + self._published(inputs, answer, tolerance)
        )

    def _published(self, inputs: ParamCountInputs, answer: int | float, tolerance: Tolerance) -> str:
        figures = self.other_accepted(inputs, answer, tolerance)
        if not figures:
            return ""
        return f"；论文与通称的 {'、'.join(Tolerance('significant', 4).format(f) for f in figures)} 也算对"
