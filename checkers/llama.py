"""LLaMA-style parameter counts: SwiGLU's three FFN matrices, grouped-query attention's smaller K
and V, RMSNorm's single weight, no biases, and an output head not tied to the embedding."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Annotated, Literal

from checkers.base import BaseChecker, Tolerance, grouped
from checkers.said import Said
from checkers.shapes import LAYERS_MAX, Strict

if TYPE_CHECKING:  # Field(...) in an annotation is read by pydantic only to validate (checkers.validating)
    from pydantic import Field

Part = Literal["attention", "ffn", "layer", "total"]
PARTS: tuple[Part, ...] = ("attention", "ffn", "layer", "total")
ASK = {
    "attention": "**一层**注意力（W_q、W_k、W_v、W_o）的参数量",
    "ffn": "**一层** SwiGLU FFN（W_gate、W_up、W_down）的参数量",
    "layer": "**一层** block 的参数量（注意力 + FFN + 两个 RMSNorm）",
    "total": "模型总参数量（词嵌入 + 全部 block + 最后的 RMSNorm + 不共享的输出层）",
}
# name: (layers, d_model, heads, kv_heads, d_ff, vocab): Touvron et al. 2023 (Llama 2, Table 1 and the
# released configs), Jiang et al. 2023 (Mistral 7B, Table 1)
LLAMA_MODELS = {
    "Llama-2-7B": (32, 4096, 32, 32, 11008, 32000),
    "Llama-2-13B": (40, 5120, 40, 40, 13824, 32000),
    "Llama-2-70B": (80, 8192, 64, 8, 28672, 32000),
    "Mistral-7B": (32, 4096, 32, 8, 14336, 32000),
}


@dataclass(frozen=True, kw_only=True)
class LlamaParamsParams(Strict):
    parts: Annotated[list[Part], Field(min_length=1)] = field(default_factory=lambda: list(PARTS))
    precision: Literal["exact", "significant"] = "exact"
    digits: Annotated[int, Field(ge=1, le=4)] = 3  # significant digits when precision is significant


@dataclass(frozen=True, kw_only=True)
class LlamaParamsInputs(Strict):
    layers: Annotated[int, Field(ge=1, le=LAYERS_MAX)]
    d_model: Annotated[int, Field(ge=1)]
    heads: Annotated[int, Field(ge=1)]
    kv_heads: Annotated[int, Field(ge=1)]
    d_ff: Annotated[int, Field(ge=1)]
    vocab: Annotated[int, Field(ge=1)]
    part: Part = "total"
    model: str | None = None

    def check(self) -> None:
        if self.d_model % self.heads or self.heads % self.kv_heads:
            raise ValueError(Said("d_model must split into heads, and heads into kv_heads groups"))


def counts(i: LlamaParamsInputs) -> dict[str, int]:
    """Each part by its formula, as the worked solution writes it."""
    head = i.d_model // i.heads
    attention = 2 * i.d_model * i.d_model + 2 * i.d_model * i.kv_heads * head
    ffn = 3 * i.d_model * i.d_ff
    layer = attention + ffn + 2 * i.d_model
    return {"attention": attention, "ffn": ffn, "layer": layer,
            "total": 2 * i.vocab * i.d_model + i.layers * layer + i.d_model}  # fmt: skip


class LlamaParams(BaseChecker[LlamaParamsParams, LlamaParamsInputs, int]):
    name = "llama_params"
    description = "LLaMA 式参数量：SwiGLU 三个矩阵、GQA、RMSNorm、无 bias、输出层不共享"
    Params = LlamaParamsParams
    Inputs = LlamaParamsInputs

    def compose(self, rng: random.Random, params: LlamaParamsParams) -> tuple[LlamaParamsInputs, str]:
        model = rng.choice(list(LLAMA_MODELS))
        layers, d, heads, kv_heads, d_ff, vocab = LLAMA_MODELS[model]
        inputs = LlamaParamsInputs(layers=layers, d_model=d, heads=heads, kv_heads=kv_heads, d_ff=d_ff, vocab=vocab,
                                   part=rng.choice(params.parts), model=model)  # fmt: skip
        attention = "MHA" if kv_heads == heads else f"GQA（{kv_heads} 组 K、V，每组 {heads // kv_heads} 个 query 头）"
        prompt = (
            f"**{model}**：L = {layers} 层，d_model = {d}，h = {heads} 个 query 头（d_head = {d // heads}），{attention}，"
            f"SwiGLU FFN 的 d_ff = {d_ff}，词表 V = {vocab}。所有线性层都没有 bias，RMSNorm 只有一个 d 维的 weight，"
            "输出层与词嵌入不共享。\n\n"
            f"求{ASK[inputs.part]}。"
        )
        return inputs, prompt

    def why_out_of_range(self, params: LlamaParamsParams, inputs: LlamaParamsInputs) -> str | None:
        if inputs.part not in params.parts:
            return Said("asks for {got}; the card is about {wanted}", got=inputs.part, wanted=list(params.parts))
        return None

    def tolerance(self, params: LlamaParamsParams, inputs: LlamaParamsInputs) -> Tolerance:
        return Tolerance("exact") if params.precision == "exact" else Tolerance("significant", params.digits)

    def solve(self, inputs: LlamaParamsInputs) -> int:
        from checkers import reference

        return reference.llama_parameters(inputs.layers, inputs.d_model, inputs.heads, inputs.kv_heads, inputs.d_ff,
                                          inputs.vocab)[inputs.part]  # fmt: skip

    def explain(self, inputs: LlamaParamsInputs, answer: int, tolerance: Tolerance) -> str:
        d, head, kv = inputs.d_model, inputs.d_model // inputs.heads, inputs.kv_heads
        c = counts(inputs)
        rows = [
            f"- 注意力：W_q、W_o 各 {d}×{d}，W_k、W_v 各 {d}×({kv}×{head})：2×{d}² + 2×{d}×{kv * head} = {grouped(c['attention'])}",
            f"- SwiGLU FFN：W_gate、W_up 各 {d}×{inputs.d_ff}，W_down {inputs.d_ff}×{d}：3×{d}×{inputs.d_ff} = {grouped(c['ffn'])}",
            f"- 一层 = 注意力 + FFN + 2 个 RMSNorm（各 {d}）= {grouped(c['layer'])}",
            f"- 总计 = 词嵌入 {inputs.vocab}×{d} + 输出层 {inputs.vocab}×{d} + {inputs.layers} × 一层 + 最后的 RMSNorm {d}"
            f" = {grouped(c['total'])}",
        ]
        return (
            "与 GPT-2 的不同：FFN 有三个矩阵（SwiGLU），GQA 的 K、V 只有 h_kv 个头，没有 bias，RMSNorm 没有 β，"
            "输出层单独一份。\n\n" + "\n".join(rows) + f"\n\n答案：`{tolerance.format(answer)}`"
        )
