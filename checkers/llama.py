"""LLaMA-style parameter counts: SwiGLU's three FFN matrices, grouped-query attention's smaller K
and V, RMSNorm's single weight, no biases, and an output head not tied to the embedding."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Annotated, Literal

from checkers.base import BaseChecker, Tolerance, answer_line, grouped
from checkers.said import N_, Said, _
from checkers.shapes import LAYERS_MAX, Strict

if TYPE_CHECKING:  # Field(...) in an annotation is read by pydantic only to validate (checkers.validating)
    from pydantic import Field

Part = Literal["attention", "ffn", "layer", "total"]
PARTS: tuple[Part, ...] = ("attention", "ffn", "layer", "total")
ASK = {
    "attention": N_("the parameters of **one layer**'s attention (W_q, W_k, W_v, W_o)"),
    "ffn": N_("the parameters of **one layer**'s SwiGLU FFN (W_gate, W_up, W_down)"),
    "layer": N_("the parameters of **one** block (attention + FFN + two RMSNorms)"),
    "total": N_("the model's parameters in all (word embeddings + every block + the last RMSNorm + the unshared output layer)"),
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
    description = Said("LLaMA-style parameter counts: SwiGLU's three matrices, GQA, RMSNorm, no bias, an unshared output layer")
    Params = LlamaParamsParams
    Inputs = LlamaParamsInputs

    def compose(self, rng: random.Random, params: LlamaParamsParams) -> tuple[LlamaParamsInputs, str]:
        model = rng.choice(list(LLAMA_MODELS))
        layers, d, heads, kv_heads, d_ff, vocab = LLAMA_MODELS[model]
        inputs = LlamaParamsInputs(layers=layers, d_model=d, heads=heads, kv_heads=kv_heads, d_ff=d_ff, vocab=vocab,
                                   part=rng.choice(params.parts), model=model)  # fmt: skip
        attention = "MHA" if kv_heads == heads else _("GQA ({groups} groups of K and V, {per} query heads each)").format(
            groups=kv_heads, per=heads // kv_heads)
        prompt = _(
            "**{model}**: L = {layers} layers, d_model = {d}, h = {heads} query heads (d_head = {head}), {attention}, "
            "the SwiGLU FFN's d_ff = {d_ff}, vocabulary V = {vocab}. No linear layer has a bias, RMSNorm has only a "
            "d-dimensional weight, and the output layer is not shared with the word embeddings.\n\n"
            "Find {what}."
        ).format(model=model, layers=layers, d=d, heads=heads, head=d // heads, attention=attention, d_ff=d_ff, vocab=vocab,
                 what=_(ASK[inputs.part]))
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
            _("- Attention: W_q and W_o {d}×{d} each, W_k and W_v {d}×({kv}×{head}) each: ").format(d=d, kv=kv, head=head)
            + f"2×{d}² + 2×{d}×{kv * head} = {grouped(c['attention'])}",
            _("- SwiGLU FFN: W_gate and W_up {d}×{d_ff} each, W_down {d_ff}×{d}: ").format(d=d, d_ff=inputs.d_ff)
            + f"3×{d}×{inputs.d_ff} = {grouped(c['ffn'])}",
            _("- One layer = attention + FFN + 2 RMSNorms ({d} each) = {count}").format(d=d, count=grouped(c["layer"])),
            _("- Total = word embeddings {vocab}×{d} + output layer {vocab}×{d} + {layers} × one layer + the last RMSNorm {d} "
              "= {count}").format(vocab=inputs.vocab, d=d, layers=inputs.layers, count=grouped(c["total"])),
        ]
        return (
            _("How it differs from GPT-2: the FFN has three matrices (SwiGLU), GQA's K and V have only h_kv heads, there "
              "is no bias, RMSNorm has no β, and the output layer is a copy of its own.") + "\n\n" + "\n".join(rows)
            + "\n\n" + answer_line(tolerance.format(answer))
        )
