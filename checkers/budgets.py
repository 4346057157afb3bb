"""What a large model costs beyond its training states: its weights at 16, 8 or 4 bits, the compute
of a training run (6ND) and Chinchilla's tokens per parameter, and ALBERT's factorised embedding."""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Literal

from checkers.base import BaseChecker, Tolerance, answer_line, grouped
from checkers.costs import GB, GIB, places_telling_gb_from_gib
from checkers.said import N_, Said, _
from checkers.shapes import Strict

if TYPE_CHECKING:  # Field(...) in an annotation is read by pydantic only to validate (checkers.validating)
    from pydantic import Field

# ------------------------------------------------------------------------------ weight memory

WeightDtype = Literal["fp32", "fp16", "bf16", "int8", "int4"]
BITS = {"fp32": 32, "fp16": 16, "bf16": 16, "int8": 8, "int4": 4}
WEIGHT_DTYPES: tuple[WeightDtype, ...] = ("fp32", "fp16", "bf16", "int8", "int4")
Unit = Literal["GB", "GiB"]
UNIT_BYTES = {"GB": GB, "GiB": GIB}
# Parameter counts of the released checkpoints: Touvron et al. 2023 (Llama 2), Jiang et al. 2023
# (Mistral 7B), Radford et al. 2019 (GPT-2 XL, as Hugging Face counts it).
WEIGHT_MODELS = (
    ("Llama-2-7B", 6_738_415_616),
    ("Llama-2-13B", 13_015_864_320),
    ("Llama-2-70B", 68_976_648_192),
    ("Mistral-7B", 7_241_732_096),
    ("GPT-2 XL", 1_557_611_200),
)


@dataclass(frozen=True, kw_only=True)
class WeightMemoryParams(Strict):
    dtype: Literal["fp16", "int8", "int4", "any"] = "any"  # any: fp32, fp16, bf16, int8 or int4
    unit: Literal["GB", "GiB", "any"] = "any"
    decimals: Annotated[int, Field(ge=1, le=3)] = 2  # places at least (see WeightMemory.tolerance)


@dataclass(frozen=True, kw_only=True)
class WeightMemoryInputs(Strict):
    parameters: Annotated[int, Field(ge=1)]
    dtype: WeightDtype
    unit: Unit = "GB"
    model: str | None = None  # the checkpoint the count is from, named in the prompt


class WeightMemory(BaseChecker[WeightMemoryParams, WeightMemoryInputs, float]):
    name = "weight_memory"
    description = Said("How much memory the weights take at inference: fp32 / fp16 / bf16 / int8 / int4, in GB or GiB")
    Params = WeightMemoryParams
    Inputs = WeightMemoryInputs

    def compose(self, rng: random.Random, params: WeightMemoryParams) -> tuple[WeightMemoryInputs, str]:
        model, parameters = rng.choice(WEIGHT_MODELS)
        dtype: WeightDtype = params.dtype if params.dtype != "any" else rng.choice(WEIGHT_DTYPES)
        unit: Unit = params.unit if params.unit != "any" else rng.choice(["GB", "GiB"])
        inputs = WeightMemoryInputs(parameters=parameters, dtype=dtype, unit=unit, model=model)
        size = _("1 GB = 10^9 bytes") if unit == "GB" else _("1 GiB = 2^30 bytes")
        packed = _(", two int4 packed into one byte") if dtype == "int4" else ""
        prompt = _(
            "**{model}** has {parameters} parameters. At inference its weights are stored as {dtype} ({bits} bits per "
            "parameter{packed}).\n\n"
            "Counting the weights alone (no quantisation scale / zero point, KV cache or activations), {size}: how many "
            "**{unit}** do the weights take?"
        ).format(model=model, parameters=grouped(parameters), dtype=dtype, bits=BITS[dtype], packed=packed, size=size, unit=unit)
        return inputs, prompt

    def why_out_of_range(self, params: WeightMemoryParams, inputs: WeightMemoryInputs) -> str | None:
        if params.dtype != "any" and inputs.dtype != params.dtype:
            return Said("stored as {got}, the card wants {wanted}", got=inputs.dtype, wanted=params.dtype)
        if params.unit != "any" and inputs.unit != params.unit:
            return Said("asked in {got}, the card wants {wanted}", got=inputs.unit, wanted=params.unit)
        return None

    def tolerance(self, params: WeightMemoryParams, inputs: WeightMemoryInputs) -> Tolerance:
        amount = inputs.parameters * BITS[inputs.dtype] / 8 / UNIT_BYTES[inputs.unit]
        return Tolerance("decimals", places_telling_gb_from_gib(amount, params.decimals), measure=inputs.unit)

    def solve(self, inputs: WeightMemoryInputs) -> float:
        from checkers import reference

        return reference.weight_bytes(inputs.parameters, inputs.dtype) / UNIT_BYTES[inputs.unit]

    def explain(self, inputs: WeightMemoryInputs, answer: float, tolerance: Tolerance) -> str:
        size = math.ceil(inputs.parameters * BITS[inputs.dtype] / 8)
        divisor = "10^9" if inputs.unit == "GB" else "2^30"
        return (
            _("{bits} bits per parameter = {bytes} bytes:").format(bits=BITS[inputs.dtype], bytes=f"{BITS[inputs.dtype] / 8:g}")
            + "\n\n" + _("{parameters} × {bytes} = {size} bytes").format(
                parameters=grouped(inputs.parameters), bytes=f"{BITS[inputs.dtype] / 8:g}", size=grouped(size)) + "\n\n"
            f"÷ {divisor} = {tolerance.format(answer)} {inputs.unit}"
            + _(" (GB and GiB differ by 7.4%: 1 GiB = 1.0737 GB)") + "\n\n" + answer_line(tolerance.format(answer))
        )


# ----------------------------------------------------------------------------- compute budget

Target = Literal["flops", "tokens", "optimal_params"]
TOKENS_PER_PARAMETER = 20  # Hoffmann et al. 2022 (Chinchilla), Table 3: compute-optimal D ≈ 20 N
ASKED = {
    "flops": N_("About how many FLOPs does this training take in all (C ≈ 6ND)"),
    "tokens": N_("By Chinchilla's compute-optimal ratio, about how many tokens should it be trained on"),
    "optimal_params": N_("By Chinchilla's compute-optimal ratio (D ≈ 20N), about how large a model (N parameters) should this "
                         "compute train"),
}


@dataclass(frozen=True, kw_only=True)
class ComputeBudgetParams(Strict):
    target: Literal["flops", "tokens", "optimal_params", "any"] = "any"
    digits: Annotated[int, Field(ge=1, le=3)] = 2


@dataclass(frozen=True, kw_only=True)
class ComputeBudgetInputs(Strict):
    target: Target
    parameters: Annotated[int | None, Field(ge=1)] = None
    tokens: Annotated[float | None, Field(gt=0)] = None  # past the 10^12 a whole-number field takes (Llama 2: 2 × 10^12)
    flops: Annotated[float | None, Field(gt=0)] = None

    def check(self) -> None:
        given = {"flops": ("parameters", "tokens"), "tokens": ("parameters",), "optimal_params": ("flops",)}[self.target]
        if any(getattr(self, name) is None for name in given):
            raise ValueError(Said("target {target} needs {given}", target=self.target, given=", ".join(given)))


def _power(value: float) -> str:
    """1.4e12 as a prompt writes it: 1.4 × 10^12."""
    exponent = math.floor(math.log10(value))
    return f"{value / 10**exponent:g} × 10^{exponent}"


class ComputeBudget(BaseChecker[ComputeBudgetParams, ComputeBudgetInputs, float]):
    name = "compute_budget"
    description = Said("Training compute C ≈ 6ND, and Chinchilla's compute-optimal ratio D ≈ 20N")
    Params = ComputeBudgetParams
    Inputs = ComputeBudgetInputs

    def compose(self, rng: random.Random, params: ComputeBudgetParams) -> tuple[ComputeBudgetInputs, str]:
        target: Target = params.target if params.target != "any" else rng.choice(["flops", "tokens", "optimal_params"])
        n = rng.choice([1, 3, 7, 13, 30, 65, 70, 175]) * 10**9
        if target == "flops":
            d = float(rng.choice([300, 1000, 1400, 2000, 15000]) * 10**9)
            inputs = ComputeBudgetInputs(target=target, parameters=n, tokens=d)
            setting = _("A decoder-only model of {n} parameters is trained once over {d} tokens.").format(n=_power(n), d=_power(d))
        elif target == "tokens":
            inputs = ComputeBudgetInputs(target=target, parameters=n)
            setting = _("A model of {n} parameters is to be trained.").format(n=_power(n))
        else:
            flops = float(rng.choice([1, 2, 3, 5, 6]) * 10 ** rng.choice([21, 22, 23, 24]))
            inputs = ComputeBudgetInputs(target=target, flops=flops)
            setting = _("The training compute at hand is C = {flops} FLOPs, counted as C ≈ 6ND.").format(flops=_power(flops))
        return inputs, _("{setting}\n\n{asked}?").format(setting=setting, asked=_(ASKED[target]))

    def why_out_of_range(self, params: ComputeBudgetParams, inputs: ComputeBudgetInputs) -> str | None:
        if params.target != "any" and inputs.target != params.target:
            return Said("asks {got}, the card wants {wanted}", got=inputs.target, wanted=params.target)
        return None

    def tolerance(self, params: ComputeBudgetParams, inputs: ComputeBudgetInputs) -> Tolerance:
        return Tolerance("significant", params.digits)

    def solve(self, inputs: ComputeBudgetInputs) -> float:
        from checkers import reference

        per = reference.training_flops_per_parameter_token()
        if inputs.target == "flops":
            return float(per * (inputs.parameters or 0) * (inputs.tokens or 0))
        if inputs.target == "tokens":
            return float(TOKENS_PER_PARAMETER * (inputs.parameters or 0))
        return math.sqrt((inputs.flops or 0.0) / (per * TOKENS_PER_PARAMETER))

    def explain(self, inputs: ComputeBudgetInputs, answer: float, tolerance: Tolerance) -> str:
        why = _("Per parameter per token: one multiply-add forward = 2 FLOPs, and two gradients backward (the inputs' and the "
                "weights') = 4 FLOPs, 6 in all (Kaplan et al. 2020, §2.1).")
        if inputs.target == "flops":
            steps = f"C = 6 × N × D = 6 × {_power(inputs.parameters or 0)} × {_power(inputs.tokens or 0)} = {_power(answer)}"
        elif inputs.target == "tokens":
            why = _("Chinchilla (Hoffmann et al. 2022, Table 3): at the compute optimum the tokens are about 20 times the "
                    "parameters, model and data scaled in the same proportion.")
            steps = f"D ≈ 20 × N = 20 × {_power(inputs.parameters or 0)} = {_power(answer)}"
        else:
            why += _(" Chinchilla: at the compute optimum D ≈ 20N, so C ≈ 6 × N × 20N = 120 N².")
            steps = f"N = √(C / 120) = √({_power(inputs.flops or 0.0)} / 120) = {_power(answer)}"
        return f"{why}\n\n{steps}\n\n" + answer_line(tolerance.format(answer))


# ------------------------------------------------------------------- ALBERT's factorised embedding

EmbeddingTarget = Literal["factorised", "saving"]
# Lan et al. 2020, Table 1: V = 30000, E = 128, H by model (base, large, xlarge, xxlarge)
ALBERT_HIDDEN = {"ALBERT-base": 768, "ALBERT-large": 1024, "ALBERT-xlarge": 2048, "ALBERT-xxlarge": 4096}


@dataclass(frozen=True, kw_only=True)
class AlbertEmbeddingParams(Strict):
    target: Literal["factorised", "saving", "any"] = "any"


@dataclass(frozen=True, kw_only=True)
class AlbertEmbeddingInputs(Strict):
    vocab: Annotated[int, Field(ge=1)]
    embedding: Annotated[int, Field(ge=1)]
    hidden: Annotated[int, Field(ge=1)]
    target: EmbeddingTarget = "factorised"

    def check(self) -> None:
        if self.embedding >= self.hidden:
            raise ValueError(Said("the factorised embedding size E must be smaller than H"))


class AlbertEmbedding(BaseChecker[AlbertEmbeddingParams, AlbertEmbeddingInputs, int]):
    name = "albert_embedding"
    description = Said("ALBERT's factorised word embeddings: V×E + E×H against BERT's V×H, the parameters and the saving")
    Params = AlbertEmbeddingParams
    Inputs = AlbertEmbeddingInputs

    def compose(self, rng: random.Random, params: AlbertEmbeddingParams) -> tuple[AlbertEmbeddingInputs, str]:
        target: EmbeddingTarget = params.target if params.target != "any" else rng.choice(["factorised", "saving"])
        if rng.random() < 0.5:
            model, hidden = rng.choice(list(ALBERT_HIDDEN.items()))
            vocab, embedding = 30000, 128
            where = _("**{model}** (Lan et al. 2020, Table 1): V = {vocab}, E = {embedding}, H = {hidden}").format(
                model=model, vocab=vocab, embedding=embedding, hidden=hidden)
        else:
            vocab, embedding = rng.choice([21128, 30000, 32000, 50000]), rng.choice([64, 128, 256])
            hidden = rng.choice([h for h in (768, 1024, 2048, 4096) if h > embedding])
            where = _("An ALBERT-style model: V = {vocab}, E = {embedding}, H = {hidden}").format(
                vocab=vocab, embedding=embedding, hidden=hidden)
        inputs = AlbertEmbeddingInputs(vocab=vocab, embedding=embedding, hidden=hidden, target=target)
        ask = (
            _("How many parameters do the word embeddings (the V×E table + the E×H projection) have") if target == "factorised"
            else _("How many parameters does the factorisation save against a plain V×H embedding table")
        )
        prompt = _("{where}. ALBERT looks up a small V×E table, then projects it to the hidden size H with an E×H matrix "
                   "(weight matrices only, no bias).\n\n{ask}?").format(where=where, ask=ask)
        return inputs, prompt

    def why_out_of_range(self, params: AlbertEmbeddingParams, inputs: AlbertEmbeddingInputs) -> str | None:
        if params.target != "any" and inputs.target != params.target:
            return Said("asks {got}, the card wants {wanted}", got=inputs.target, wanted=params.target)
        return None

    def tolerance(self, params: AlbertEmbeddingParams, inputs: AlbertEmbeddingInputs) -> Tolerance:
        return Tolerance("exact")

    def solve(self, inputs: AlbertEmbeddingInputs) -> int:
        from checkers import reference

        return reference.factorised_embedding_parameters(inputs.vocab, inputs.embedding, inputs.hidden)[inputs.target]

    def explain(self, inputs: AlbertEmbeddingInputs, answer: int, tolerance: Tolerance) -> str:
        v, e, h = inputs.vocab, inputs.embedding, inputs.hidden
        factorised, full = v * e + e * h, v * h
        lines = [
            _("Factorised: ") + f"V×E + E×H = {v}×{e} + {e}×{h} = {grouped(v * e)} + {grouped(e * h)} = {grouped(factorised)}",
            _("BERT-style: ") + f"V×H = {v}×{h} = {grouped(full)}",
        ]
        if inputs.target == "saving":
            lines.append(_("Saved: ") + f"{grouped(full)} − {grouped(factorised)} = {grouped(full - factorised)}")
        return (
            _("ALBERT (§3.1) brings O(V×H) down to O(V×E + E×H): word embeddings need only hold context-free word meaning, "
              "so E can be far smaller than H.") + "\n\n"
            + "\n\n".join(lines) + "\n\n" + answer_line(tolerance.format(answer))
        )
