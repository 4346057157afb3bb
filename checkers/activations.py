"""Activation memory in training, per Korthikanti et al. 2022 ("Reducing Activation Recomputation in
Large Transformer Models"): what L transformer layers keep for the backward pass, s·b·h·(34 + 5·a·s/h)
bytes per layer in 16-bit (§4.1), against 2·s·b·h with full activation recomputation (§4.2)."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Annotated, Literal

from checkers.base import BaseChecker, Tolerance, grouped
from checkers.said import Said
from checkers.shapes import LAYERS_MAX, Strict

if TYPE_CHECKING:  # Field(...) in an annotation is read by pydantic only to validate (checkers.validating)
    from pydantic import Field

GB = 10**9
SMALLEST_GB = 0.1  # below it, GB and GiB (7% apart) round alike at two places
Checkpointing = Literal["none", "full"]
# name: (layers, hidden, heads, sequence, micro-batches drawn): Devlin et al. 2019 §3 (BERT),
# Radford et al. 2019 Table 2 (GPT-2 XL), Brown et al. 2020 Table 2.1 (GPT-3), Korthikanti et al. 2022
# Table 3 (the 22B and 530B models).
ACTIVATION_MODELS = {
    "BERT-base": (12, 768, 12, 512, (8, 16, 32, 64)),
    "BERT-large": (24, 1024, 16, 512, (4, 8, 16, 32)),
    "GPT-2 XL": (48, 1600, 25, 1024, (1, 2, 4, 8)),
    "22B": (48, 6144, 64, 2048, (1, 2, 4)),
    "GPT-3 175B": (96, 12288, 96, 2048, (1, 2)),
    "530B": (105, 20480, 128, 2048, (1, 2)),
}
HOW = {
    "none": "不做激活重计算：前向时每层的激活都存下来给反向用",
    "full": "完全激活重计算（full activation checkpointing）：每层只存它的输入，反向时把这一层的前向重算一遍",
}


@dataclass(frozen=True, kw_only=True)
class ActivationMemoryParams(Strict):
    checkpointing: Literal["none", "full", "any"] = "any"
    models: Annotated[list[str], Field(min_length=1)] = field(default_factory=lambda: list(ACTIVATION_MODELS))
    decimals: Annotated[int, Field(ge=2, le=3)] = 2  # GB places

    def check(self) -> None:
        unknown = [name for name in self.models if name not in ACTIVATION_MODELS]
        if unknown:
            raise ValueError(Said("unknown model(s) {models}; known: {known}", models=unknown, known=list(ACTIVATION_MODELS)))


@dataclass(frozen=True, kw_only=True)
class ActivationMemoryInputs(Strict):
    layers: Annotated[int, Field(ge=1, le=LAYERS_MAX)]
    hidden: Annotated[int, Field(ge=1)]
    heads: Annotated[int, Field(ge=1)]
    seq: Annotated[int, Field(ge=1)]
    batch: Annotated[int, Field(ge=1)]
    checkpointing: Checkpointing = "none"
    model: str | None = None

    def check(self) -> None:
        if self.hidden % self.heads:
            raise ValueError(Said("hidden must split into heads"))


class ActivationMemory(BaseChecker[ActivationMemoryParams, ActivationMemoryInputs, float]):
    name = "activation_memory"
    description = "训练时的激活显存：每层 sbh(34 + 5as/h) 字节，完全重计算时每层只存 2sbh（Korthikanti 2022），单位 GB"
    Params = ActivationMemoryParams
    Inputs = ActivationMemoryInputs

    def compose(self, rng: random.Random, params: ActivationMemoryParams) -> tuple[ActivationMemoryInputs, str]:
        checkpointing: Checkpointing = rng.choice(["none", "full"]) if params.checkpointing == "any" else params.checkpointing
        while True:
            model = rng.choice(params.models)
            layers, hidden, heads, seq, batches = ACTIVATION_MODELS[model]
            inputs = ActivationMemoryInputs(layers=layers, hidden=hidden, heads=heads, seq=seq, batch=rng.choice(batches),
                                            checkpointing=checkpointing, model=model)
            if _closed_form(inputs) >= SMALLEST_GB * GB:
                break
        prompt = (
            f"训练 {model}（L = {layers} 层，hidden h = {hidden}，注意力头 a = {heads}），序列长度 s = {seq}，"
            f"micro-batch b = {inputs.batch}。{HOW[checkpointing]}。\n\n"
            "按 Korthikanti et al. 2022 §4.1 的口径：激活用 16 位（2 字节）存，dropout 的 mask 每元素 1 字节，"
            "不做张量并行和序列并行，每层存 $sbh(34 + 5as/h)$ 字节；完全重计算时每层只存输入 $2sbh$ 字节（§4.2）。"
            "只算这 L 层（不含 embedding 和输出层），1 GB = 10^9 字节。\n\n求这 L 层的激活共占多少 GB。"
        )
        return inputs, prompt

    def why_out_of_range(self, params: ActivationMemoryParams, inputs: ActivationMemoryInputs) -> str | None:
        if params.checkpointing != "any" and inputs.checkpointing != params.checkpointing:
            return Said("checkpointing {got}, the card wants {wanted}", got=inputs.checkpointing, wanted=params.checkpointing)
        if inputs.model is not None and inputs.model not in params.models:
            return Said("model {model} is not one of {models}", model=inputs.model, models=params.models)
        return None

    def tolerance(self, params: ActivationMemoryParams, inputs: ActivationMemoryInputs) -> Tolerance:
        return Tolerance("decimals", params.decimals, measure="GB")

    def solve(self, inputs: ActivationMemoryInputs) -> float:
        from checkers import reference

        per_layer = reference.activation_bytes(inputs.seq, inputs.batch, inputs.hidden, inputs.heads,
                                               recompute=inputs.checkpointing == "full")
        return inputs.layers * sum(per_layer.values()) / GB

    def explain(self, inputs: ActivationMemoryInputs, answer: float, tolerance: Tolerance) -> str:
        s, b, h, a, n = inputs.seq, inputs.batch, inputs.hidden, inputs.heads, inputs.layers
        sbh = s * b * h
        if inputs.checkpointing == "full":
            per_layer = 2 * sbh
            steps = (
                f"完全重计算时每层只存输入：$2sbh$ = 2 × {s} × {b} × {h} = {grouped(per_layer)} 字节。\n\n"
                f"没有重计算时每层要存 $sbh(34 + 5as/h)$ = {grouped(_layer(inputs))} 字节，"
                f"是它的 {_layer(inputs) / per_layer:.0f} 倍；代价是反向时多做一次前向（约多 1/3 的计算）。"
            )
        else:
            per_layer = _layer(inputs)
            quadratic = 5 * a * s / h
            steps = (
                f"$sbh$ = {s} × {b} × {h} = {grouped(sbh)}；$5as/h$ = 5 × {a} × {s} / {h} = {quadratic:g}。\n\n"
                f"| 部分 | 每层字节 |\n| --- | --- |\n"
                f"| 注意力：$11sbh + 5as^2b$（QKV 输入、Q、K、softmax 输出及其 dropout mask 与输出、V、输出投影输入与 mask） | "
                f"{grouped(11 * sbh + 5 * a * s * s * b)} |\n"
                f"| MLP：$19sbh$（两个线性层的输入、GeLU 输入、dropout mask） | {grouped(19 * sbh)} |\n"
                f"| 两个 LayerNorm 的输入：$4sbh$ | {grouped(4 * sbh)} |\n"
                f"| 每层合计 $sbh(34 + 5as/h)$ | {grouped(per_layer)} |\n\n"
                f"$5as/h$ = {quadratic:g} 来自注意力矩阵（随 s 平方增长），{'比 34 还大' if quadratic > 34 else '没有 34 大'}。"
            )
        return (
            f"{steps}\n\n{n} 层：{n} × {grouped(per_layer)} = {grouped(n * per_layer)} 字节 = {n * per_layer / GB:g} GB。"
            f"\n\n答案：`{tolerance.format(answer)}` GB"
        )


def _layer(inputs: ActivationMemoryInputs) -> int:
    """One layer without recomputation, sbh(34 + 5as/h) = 34sbh + 5as²b: as the worked solution writes it."""
    s, b, h, a = inputs.seq, inputs.batch, inputs.hidden, inputs.heads
    return 34 * s * b * h + 5 * a * s * s * b


def _closed_form(inputs: ActivationMemoryInputs) -> int:
    """All layers' bytes by the paper's closed form (composing needs no torch)."""
    per_layer = 2 * inputs.seq * inputs.batch * inputs.hidden if inputs.checkpointing == "full" else _layer(inputs)
    return inputs.layers * per_layer
