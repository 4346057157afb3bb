"""Activation memory in training, per Korthikanti et al. 2022 ("Reducing Activation Recomputation in
Large Transformer Models"): what L transformer layers keep for the backward pass, s·b·h·(34 + 5·a·s/h)
bytes per layer in 16-bit (§4.1), against 2·s·b·h with full activation recomputation (§4.2)."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Annotated, Literal

from checkers.base import BaseChecker, Tolerance, answer_line, grouped
from checkers.said import N_, Said, _
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
    "none": N_("No activation recomputation: the forward pass keeps every layer's activations for the backward pass"),
    "full": N_("Full activation recomputation (full activation checkpointing): each layer keeps only its input, and the "
               "backward pass recomputes that layer's forward pass"),
}
# the paper's formulas (§4.1, §4.2), written into the words as values
PER_LAYER = "$sbh(34 + 5as/h)$"
INPUT = "$2sbh$"
SBH = "$sbh$"
QUADRATIC = "$5as/h$"


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
    description = Said("Activation memory in training: sbh(34 + 5as/h) bytes per layer, only 2sbh per layer with full "
                       "recomputation (Korthikanti 2022), in GB")
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
        setting = _("Training {model} (L = {layers} layers, hidden h = {hidden}, a = {heads} attention heads), sequence length "
                    "s = {seq}, micro-batch b = {batch}. {how}.").format(
            model=model, layers=layers, hidden=hidden, heads=heads, seq=seq, batch=inputs.batch, how=_(HOW[checkpointing]))
        rules = _(
            "Count as Korthikanti et al. 2022 §4.1 does: activations are stored in 16 bits (2 bytes), a dropout mask takes "
            "1 byte per element, no tensor or sequence parallelism, so each layer stores {per_layer} bytes; with full "
            "recomputation each layer stores only its input, {input} bytes (§4.2). Count these L layers only (no embedding "
            "or output layer); 1 GB = 10^9 bytes.\n\nFind how many GB the activations of these L layers take."
        ).format(per_layer=PER_LAYER, input=INPUT)
        return inputs, f"{setting}\n\n{rules}"

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
            steps = _(
                "With full recomputation each layer stores only its input: {input} = 2 × {s} × {b} × {h} = {bytes} bytes.\n\n"
                "Without recomputation each layer would store {per_layer} = {without} bytes, {times:.0f} times as much; the "
                "price is one more forward pass during the backward pass (about 1/3 more compute)."
            ).format(input=INPUT, s=s, b=b, h=h, bytes=grouped(per_layer), per_layer=PER_LAYER,
                     without=grouped(_layer(inputs)), times=_layer(inputs) / per_layer)
        else:
            per_layer = _layer(inputs)
            quadratic = 5 * a * s / h
            parts = (
                (_("Attention: {formula} (the QKV input, Q, K, the softmax output, its dropout mask and output, V, the output "
                   "projection's input and its mask)").format(formula="$11sbh + 5as^2b$"), 11 * sbh + 5 * a * s * s * b),
                (_("MLP: {formula} (the two linear layers' inputs, the GeLU input, the dropout mask)").format(formula="$19sbh$"),
                 19 * sbh),
                (_("The two LayerNorms' inputs: {formula}").format(formula="$4sbh$"), 4 * sbh),
                (_("Per layer in all {formula}").format(formula=PER_LAYER), per_layer),
            )
            grows = (_("{quadratic} = {value:g} comes from the attention matrix (it grows with the square of s), larger than 34.")
                     if quadratic > 34 else
                     _("{quadratic} = {value:g} comes from the attention matrix (it grows with the square of s), not as large as 34."))
            steps = "\n".join((
                _("{sbh} = {s} × {b} × {h} = {product}; {quadratic} = 5 × {a} × {s} / {h} = {value:g}.").format(
                    sbh=SBH, s=s, b=b, h=h, product=grouped(sbh), quadratic=QUADRATIC, a=a, value=quadratic),
                "", _("| Part | Bytes per layer |"), "| --- | --- |",
                *(f"| {part} | {grouped(size)} |" for part, size in parts),
                "", grows.format(quadratic=QUADRATIC, value=quadratic),
            ))
        total = _("{layers} layers: {layers} × {per_layer} = {bytes} bytes = {gb:g} GB.").format(
            layers=n, per_layer=grouped(per_layer), bytes=grouped(n * per_layer), gb=n * per_layer / GB)
        return f"{steps}\n\n{total}\n\n" + answer_line(tolerance.format(answer)) + " GB"


def _layer(inputs: ActivationMemoryInputs) -> int:
    """One layer without recomputation, sbh(34 + 5as/h) = 34sbh + 5as²b: as the worked solution writes it."""
    s, b, h, a = inputs.seq, inputs.batch, inputs.hidden, inputs.heads
    return 34 * s * b * h + 5 * a * s * s * b


def _closed_form(inputs: ActivationMemoryInputs) -> int:
    """All layers' bytes by the paper's closed form (composing needs no torch)."""
    per_layer = 2 * inputs.seq * inputs.batch * inputs.hidden if inputs.checkpointing == "full" else _layer(inputs)
    return inputs.layers * per_layer
