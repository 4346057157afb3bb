"""LoRA's trainable parameters for a rank and the projections adapted, on real models' sizes (each
source is cited in the prompt)."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Annotated, Literal

from checkers.base import BaseChecker, Tolerance, answer_line
from checkers.configs import CONFIGS
from checkers.said import Said, _
from checkers.shapes import LAYERS_MAX, Strict

if TYPE_CHECKING:  # Field(...) in an annotation is read by pydantic only to validate (checkers.validating)
    from pydantic import Field

Projection = Literal["q", "k", "v", "o", "up", "down"]
TARGETS: dict[str, list[Projection]] = {"qv": ["q", "v"], "qkvo": ["q", "k", "v", "o"], "all": ["q", "k", "v", "o", "up", "down"]}
# (name, layers, d_model, d_ff): BERT and GPT-2 from checkers.configs; GPT-3 175B (Brown et al. 2020, Table 2.1).
LORA_MODELS = tuple((c.name, c.layers, c.hidden, c.ffn) for c in CONFIGS.values() if c.name != "bert-base-chinese") + (
    ("GPT-3 175B", 96, 12288, 4 * 12288),
)


@dataclass(frozen=True, kw_only=True)
class LoraParamsParams(Strict):
    targets: Literal["qv", "qkvo", "all", "any"] = "any"
    ranks: Annotated[list[int], Field(min_length=1)] = field(default_factory=lambda: [1, 2, 4, 8, 16, 64])


@dataclass(frozen=True, kw_only=True)
class LoraParamsInputs(Strict):
    layers: Annotated[int, Field(ge=1, le=LAYERS_MAX)]
    d_model: Annotated[int, Field(ge=1)]
    d_ff: Annotated[int | None, Field(ge=1)] = None  # None: 4 d_model
    rank: Annotated[int, Field(ge=1)]
    targets: Annotated[list[Projection], Field(min_length=1)]

    def check(self) -> None:
        if len(set(self.targets)) != len(self.targets):
            raise ValueError(Said("each projection may be named once"))

    def shapes(self) -> list[tuple[int, int]]:
        """(d_in, d_out) of each adapted projection in one layer."""
        d, f = self.d_model, self.d_ff or 4 * self.d_model
        return [{"up": (d, f), "down": (f, d)}.get(t, (d, d)) for t in self.targets]


class LoraParams(BaseChecker[LoraParamsParams, LoraParamsInputs, int]):
    name = "lora_params"
    description = Said("LoRA's trainable parameters: for a rank r and the projections given LoRA (W_q, W_v, the FFN…)")
    Params = LoraParamsParams
    Inputs = LoraParamsInputs

    def compose(self, rng: random.Random, params: LoraParamsParams) -> tuple[LoraParamsInputs, str]:
        name, layers, d_model, d_ff = rng.choice(LORA_MODELS)
        targets = TARGETS[params.targets if params.targets != "any" else rng.choice(list(TARGETS))]
        inputs = LoraParamsInputs(layers=layers, d_model=d_model, d_ff=d_ff, rank=rng.choice(params.ranks), targets=targets)
        names = {"q": "W_q", "k": "W_k", "v": "W_v", "o": "W_o",
                 "up": _("the FFN's up-projection W_1 ({d_model}→{d_ff})").format(d_model=d_model, d_ff=d_ff),
                 "down": _("the FFN's down-projection W_2 ({d_ff}→{d_model})").format(d_model=d_model, d_ff=d_ff)}
        prompt = _(
            "**{name}** ({layers} layers, d_model = {d_model}, d_ff = {d_ff}) is fine-tuned with LoRA (Hu et al. 2021, §4.1): "
            "the original weights W frozen, a low-rank update ΔW = B A beside each chosen projection, rank r = {rank}, no "
            "bias. Every layer gets LoRA on {targets}.\n\nFind the number of trainable parameters (all layers together, no "
            "task head)."
        ).format(name=name, layers=layers, d_model=d_model, d_ff=d_ff, rank=inputs.rank, targets=", ".join(names[t] for t in targets))
        return inputs, prompt

    def why_out_of_range(self, params: LoraParamsParams, inputs: LoraParamsInputs) -> str | None:
        if inputs.rank not in params.ranks:
            return Said("rank {rank} is not one of {ranks}", rank=inputs.rank, ranks=str(params.ranks))
        if params.targets != "any" and inputs.targets != TARGETS[params.targets]:
            return Said("targets {got}, the card wants {wanted}", got=str(inputs.targets), wanted=str(TARGETS[params.targets]))
        return None

    def solve(self, inputs: LoraParamsInputs) -> int:
        from checkers import reference

        return reference.lora_trainable_parameters(inputs.layers, inputs.shapes(), inputs.rank)

    def tolerance(self, params: LoraParamsParams, inputs: LoraParamsInputs) -> Tolerance:
        return Tolerance("exact")

    def explain(self, inputs: LoraParamsInputs, answer: int, tolerance: Tolerance) -> str:
        r, L = inputs.rank, inputs.layers
        rows = [_("| Projection | W's shape (d_in × d_out) | A (r × d_in) + B (d_out × r) |"), "| --- | --- | --- |"]
        for target, (d_in, d_out) in zip(inputs.targets, inputs.shapes()):
            rows.append(f"| {target} | {d_in} × {d_out} | {r} × ({d_in} + {d_out}) = {r * (d_in + d_out):,} |")
        per_layer = sum(r * (d_in + d_out) for d_in, d_out in inputs.shapes())
        return (
            _("Each d_in × d_out projection gains A ∈ {a} and B ∈ {b}: r·(d_in + d_out) trainable parameters; the frozen W "
              "does not count.").format(a="R^{r×d_in}", b="R^{d_out×r}") + "\n\n"
            + "\n".join(rows) + "\n\n"
            + _("{per_layer:,} per layer, × {layers} layers = {total:,}").format(per_layer=per_layer, layers=L, total=per_layer * L)
            + "\n\n" + answer_line(tolerance.format(answer))
        )
