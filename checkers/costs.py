"""What a model costs: KV-cache bytes, training memory with Adam, FLOPs per token (LoRA's trainable
parameters: checkers.adapters). Sizes are real models' where a name is given (each source is cited in
the prompt)."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Annotated, Literal, get_args

from checkers.base import BaseChecker, Tolerance, answer_line, num
from checkers.configs import CONFIGS
from checkers.said import N_, Said, _
from checkers.shapes import LAYERS_MAX, Strict

if TYPE_CHECKING:  # Field(...) in an annotation is read by pydantic only to validate (checkers.validating)
    from pydantic import Field

Dtype = Literal["fp16", "fp32"]
BYTES = {"fp16": 2, "fp32": 4}
GIB = 2**30
GB = 10**9


def _giant(n: float) -> str:
    """A parameter count as a prompt shows it: 7,000,000,000 -> "7B", 110,000,000 -> "0.11B"."""
    return f"{n / 1e9:g}B"


# ------------------------------------------------------------------------------------ KV cache

# (name, layers, query heads, KV heads, head dim): Touvron et al. 2023 (Llama 2, Table 1 and §2.2:
# 70B uses GQA with 8 KV heads), Jiang et al. 2023 (Mistral 7B, Table 1), Radford et al. 2019 (GPT-2 XL).
KV_MODELS = (
    ("Llama-2-7B", 32, 32, 32, 128),
    ("Llama-2-13B", 40, 40, 40, 128),
    ("Llama-2-70B", 80, 64, 8, 128),
    ("Mistral-7B", 32, 32, 8, 128),
    ("GPT-2 XL", 48, 25, 25, 64),
)


@dataclass(frozen=True, kw_only=True)
class KvCacheParams(Strict):
    target: Literal["per_token", "total", "any"] = "any"
    attention: Literal["mha", "gqa", "any"] = "any"
    dtype: Literal["fp16", "fp32", "any"] = "any"
    decimals: Annotated[int, Field(ge=1, le=4)] = 2  # GiB places for a total, at least (see KvCache.tolerance)


@dataclass(frozen=True, kw_only=True)
class KvCacheInputs(Strict):
    layers: Annotated[int, Field(ge=1, le=LAYERS_MAX)]
    heads: Annotated[int, Field(ge=1)]
    kv_heads: Annotated[int, Field(ge=1)]
    head_dim: Annotated[int, Field(ge=1)]
    dtype: Dtype = "fp16"
    batch: Annotated[int, Field(ge=1)] = 1
    length: Annotated[int, Field(ge=1)] = 1
    target: Literal["per_token", "total"] = "per_token"

    def check(self) -> None:
        if self.heads % self.kv_heads:
            raise ValueError(Said("heads {heads} must be a multiple of kv_heads {kv_heads}", heads=self.heads, kv_heads=self.kv_heads))
        if self.target == "per_token" and (self.batch, self.length) != (1, 1):
            raise ValueError(Said("a per-token question has batch = length = 1"))


def places_telling_gb_from_gib(amount: float, decimals: int) -> int:
    """At least ``decimals`` places, and enough that ``amount`` in the other unit (GB and GiB differ
    by 7.4%) lies two units of the last place away: GB for GiB is never within the bound."""
    while amount * (GIB / GB - 1) < 2 * 10.0**-decimals:
        decimals += 1
    return decimals


def _per_token(inputs: KvCacheInputs) -> int:
    """Bytes of one token's K and V over all layers: 2 × L × h_kv × d_head × bytes per number."""
    return 2 * inputs.layers * inputs.kv_heads * inputs.head_dim * BYTES[inputs.dtype]


class KvCache(BaseChecker[KvCacheParams, KvCacheInputs, int | float]):
    name = "kv_cache"
    description = Said("KV cache memory: the bytes per token, or the GiB of a batch × length (fp16/fp32, MHA/GQA)")
    Params = KvCacheParams
    Inputs = KvCacheInputs

    def compose(self, rng: random.Random, params: KvCacheParams) -> tuple[KvCacheInputs, str]:
        attention = params.attention if params.attention != "any" else rng.choice(["mha", "gqa"])
        named = [m for m in KV_MODELS if (m[2] == m[3]) == (attention == "mha")]
        if rng.random() < 0.5:
            name, layers, heads, kv_heads, head_dim = rng.choice(named)
            model = _("**{name}**: L = {layers} layers, h = {heads} query heads, h_kv = {kv_heads} KV heads, d_head = {head_dim}").format(
                name=name, layers=layers, heads=heads, kv_heads=kv_heads, head_dim=head_dim)
        else:
            layers, heads, head_dim = rng.choice([12, 24, 32, 40, 48]), rng.choice([16, 32, 64]), rng.choice([64, 128])
            kv_heads = heads if attention == "mha" else heads // rng.choice([4, 8])
            model = _("A decoder-only model: L = {layers} layers, h = {heads} query heads, h_kv = {kv_heads} KV heads, "
                      "d_head = {head_dim}").format(layers=layers, heads=heads, kv_heads=kv_heads, head_dim=head_dim)
        dtype: Dtype = params.dtype if params.dtype != "any" else rng.choice(["fp16", "fp32"])
        target = params.target if params.target != "any" else rng.choice(["per_token", "total"])
        base = KvCacheInputs(layers=layers, heads=heads, kv_heads=kv_heads, head_dim=head_dim, dtype=dtype)
        kind = (_("MHA (each query head has its own K and V)") if kv_heads == heads else
                _("GQA (every {group} query heads share one K and V)").format(group=heads // kv_heads))
        setting = _("{model}, {kind}; the KV cache is stored as {dtype} ({bytes} bytes a number).").format(
            model=model, kind=kind, dtype=dtype, bytes=BYTES[dtype])
        if target == "per_token":
            inputs = base
            ask = _("Find how many **bytes** of KV cache **each token** takes (K and V of every layer together).")
        else:
            update = {"batch": rng.choice([1, 4, 8, 16, 32]), "length": rng.choice([1024, 2048, 4096, 8192]), "target": "total"}
            inputs = base.model_copy(update=update)
            ask = _(
                "With batch = {batch} sequences, each cached up to {length} tokens, how many **GiB** does the KV cache take in "
                "all (1 GiB = 2^30 bytes; K and V themselves only)?"
            ).format(batch=inputs.batch, length=inputs.length)
        return inputs, _("In autoregressive inference each layer caches K and V, each of shape [B, h_kv, S, d_head]. "
                         "{setting}\n\n{ask}").format(setting=setting, ask=ask)

    def why_out_of_range(self, params: KvCacheParams, inputs: KvCacheInputs) -> str | None:
        if params.target != "any" and inputs.target != params.target:
            return Said("asks {got}, the card wants {wanted}", got=inputs.target, wanted=params.target)
        if params.attention != "any" and (inputs.kv_heads == inputs.heads) != (params.attention == "mha"):
            return Said("h_kv = {kv_heads} of h = {heads} is not {attention}", kv_heads=inputs.kv_heads, heads=inputs.heads, attention=params.attention)
        if params.dtype != "any" and inputs.dtype != params.dtype:
            return Said("stored as {got}, the card wants {wanted}", got=inputs.dtype, wanted=params.dtype)
        return None

    def solve(self, inputs: KvCacheInputs) -> int | float:
        from checkers import reference

        size = reference.kv_cache_bytes(
            inputs.layers, inputs.kv_heads, inputs.head_dim, inputs.batch, inputs.length, inputs.dtype
        )
        return size if inputs.target == "per_token" else size / GIB

    def tolerance(self, params: KvCacheParams, inputs: KvCacheInputs) -> Tolerance:
        """A total is asked in GiB to enough places that the same bytes in GB (7.4% more) lie at
        least two units of the last place away, so GB for GiB is never within the bound."""
        if inputs.target == "per_token":
            return Tolerance("exact", measure="bytes")
        gib = _per_token(inputs) * inputs.batch * inputs.length / GIB
        return Tolerance("decimals", places_telling_gb_from_gib(gib, params.decimals), measure="GiB")

    def explain(self, inputs: KvCacheInputs, answer: int | float, tolerance: Tolerance) -> str:
        per_token = _per_token(inputs)
        lines = [
            _("Each token stores one K and one V per layer, h_kv × d_head = {kv_heads} × {head_dim} numbers each:").format(
                kv_heads=inputs.kv_heads, head_dim=inputs.head_dim),
            "",
            _("Per token = 2 (K, V) × L × h_kv × d_head × bytes = 2 × {layers} × {kv_heads} × {head_dim} × {bytes} = "
              "{per_token:,} bytes").format(layers=inputs.layers, kv_heads=inputs.kv_heads, head_dim=inputs.head_dim,
                                            bytes=BYTES[inputs.dtype], per_token=per_token),
        ]
        if inputs.heads != inputs.kv_heads:
            lines.append("\n" + _("GQA caches only h_kv heads: {times} times less than an MHA of the same size (h = {heads}).").format(
                times=inputs.heads // inputs.kv_heads, heads=inputs.heads))
        if inputs.target == "total":
            tokens = inputs.batch * inputs.length
            lines.append("\n" + _(
                "Total = per token × B × S = {per_token:,} × {batch} × {length} = {total:,} bytes = {total:,} / 2^30 GiB = "
                "{gib} GiB").format(per_token=per_token, batch=inputs.batch, length=inputs.length, total=per_token * tokens,
                                    gib=num(per_token * tokens / GIB)))
        return "\n".join(lines) + "\n\n" + answer_line(tolerance.format(answer))


# ------------------------------------------------------------------------- training memory

Part = Literal["total", "weights", "gradients", "optimizer"]
PER_PARAMETER = {  # bytes per parameter by part (ZeRO, Rajbhandari et al. 2020, §3.1)
    "fp32": {"weights": 4, "gradients": 4, "optimizer": 8},
    "mixed": {"weights": 2, "gradients": 2, "optimizer": 12},
}
PART_NAME = {"total": N_("the model states in all"), "weights": N_("the weights"), "gradients": N_("the gradients"),
             "optimizer": N_("Adam's optimizer states")}
STATES = {
    "fp32": N_("fp32 weights, fp32 gradients, and one fp32 copy each of Adam's first moment m and second moment v"),
    "mixed": N_("Mixed precision: fp16 weights and fp16 gradients for the forward and backward passes; the optimizer keeps "
                "an fp32 copy of the weights (master weights) and fp32 m and v besides"),
}


@dataclass(frozen=True, kw_only=True)
class TrainingMemoryParams(Strict):
    precision: Literal["fp32", "mixed", "any"] = "any"
    parts: Annotated[list[Part], Field(min_length=1)] = field(default_factory=lambda: list(get_args(Part)))
    decimals: Annotated[int, Field(ge=0, le=3)] = 2  # GB places


@dataclass(frozen=True, kw_only=True)
class TrainingMemoryInputs(Strict):
    parameters: Annotated[int, Field(ge=1)]
    precision: Literal["fp32", "mixed"]
    part: Part = "total"


class TrainingMemory(BaseChecker[TrainingMemoryParams, TrainingMemoryInputs, float]):
    name = "training_memory"
    description = Said("Memory for training with Adam (the model states): weights, gradients, optimizer states, fp32 or mixed "
                       "precision, in GB")
    Params = TrainingMemoryParams
    Inputs = TrainingMemoryInputs

    def compose(self, rng: random.Random, params: TrainingMemoryParams) -> tuple[TrainingMemoryInputs, str]:
        parameters = rng.choice([110, 340, 1_500, 6_700, 7_000, 7_500, 13_000, 70_000]) * 10**6
        if rng.random() < 0.4:
            parameters = round(rng.uniform(0.1, 20) * 10) * 10**8
        inputs = TrainingMemoryInputs(
            parameters=parameters,
            precision=params.precision if params.precision != "any" else rng.choice(["fp32", "mixed"]),
            part=rng.choice(params.parts),
        )
        prompt = _(
            "A model of Ψ = {giant} parameters ({parameters:,}) is trained with Adam. {states}.\n\nCount the model states "
            "only (as the ZeRO paper does, §3.1): no activations, temporary buffers or memory fragmentation; "
            "1 GB = 10^9 bytes.\n\nFind how many GB **{part}** take."
        ).format(giant=_giant(inputs.parameters), parameters=inputs.parameters, states=_(STATES[inputs.precision]),
                 part=_(PART_NAME[inputs.part]))
        return inputs, prompt

    def why_out_of_range(self, params: TrainingMemoryParams, inputs: TrainingMemoryInputs) -> str | None:
        if params.precision != "any" and inputs.precision != params.precision:
            return Said("{got} training, the card wants {wanted}", got=inputs.precision, wanted=params.precision)
        return None if inputs.part in params.parts else Said("part {part} is not one of {parts}", part=inputs.part, parts=str(params.parts))

    def tolerance(self, params: TrainingMemoryParams, inputs: TrainingMemoryInputs) -> Tolerance:
        return Tolerance("decimals", params.decimals, measure="GB")

    def solve(self, inputs: TrainingMemoryInputs) -> float:
        from checkers import reference

        return reference.training_memory_bytes(inputs.parameters, inputs.precision)[inputs.part] / GB

    def explain(self, inputs: TrainingMemoryInputs, answer: float, tolerance: Tolerance) -> str:
        bytes_per = PER_PARAMETER[inputs.precision]
        detail = "m 4 + v 4" if inputs.precision == "fp32" else _("fp32 weight copy 4 + m 4 + v 4")
        rows = [_("| Part | Bytes per parameter | GB |"), "| --- | --- | --- |"]
        for part, size in bytes_per.items():
            note = _(" ({detail})").format(detail=detail) if part == "optimizer" else ""
            rows.append(f"| {_(PART_NAME[part])} | {size}{note} | {size} × {_giant(inputs.parameters)} = {size * inputs.parameters / GB:g} |")
        rows.append(_("| Total | 16 | ") + f"16 × {_giant(inputs.parameters)} = {16 * inputs.parameters / GB:g} |")
        return (
            _("fp32 training and mixed-precision training both keep 16 bytes of model states per parameter (ZeRO §3.1: mixed "
              "precision is 2Ψ + 2Ψ + 12Ψ); mixed precision saves activations and compute, not model states.") + "\n\n"
            + "\n".join(rows)
            + "\n\n" + answer_line(tolerance.format(answer)) + " GB"
        )


# ------------------------------------------------------------------------------------ FLOPs

# (name, layers, d_model, n_ctx): GPT-2 from checkers.configs; GPT-3 175B from Brown et al. 2020, Table 2.1.
FLOP_MODELS = tuple((c.name, c.layers, c.hidden, c.positions) for c in CONFIGS.values() if c.family == "gpt") + (
    ("GPT-3 175B", 96, 12288, 2048),
)


@dataclass(frozen=True, kw_only=True)
class FlopsParams(Strict):
    mode: Literal["forward", "training", "any"] = "any"
    relative: Annotated[float, Field(gt=0, lt=1)] = 0.01


@dataclass(frozen=True, kw_only=True)
class FlopsInputs(Strict):
    layers: Annotated[int, Field(ge=1, le=LAYERS_MAX)]
    d_model: Annotated[int, Field(ge=1)]
    d_ff: Annotated[int | None, Field(ge=1)] = None  # None: 4 d_model
    n_ctx: Annotated[int, Field(ge=1)]
    mode: Literal["forward", "training"] = "training"

    @property
    def ffn(self) -> int:
        return self.d_ff or 4 * self.d_model


class Flops(BaseChecker[FlopsParams, FlopsInputs, int]):
    name = "flops_per_token"
    description = Said("FLOPs per token: 2N forward, 6N training, plus the attention term that grows with the context (as "
                       "Kaplan counts)")
    Params = FlopsParams
    Inputs = FlopsInputs

    def compose(self, rng: random.Random, params: FlopsParams) -> tuple[FlopsInputs, str]:
        mode: Literal["forward", "training"] = params.mode if params.mode != "any" else rng.choice(["forward", "training"])
        if rng.random() < 0.6:
            name, layers, d_model, n_ctx = rng.choice(FLOP_MODELS)
            model = _("**{name}**: n_layer = {layers}, d_model = {d_model}, d_ff = 4·d_model, n_ctx = {n_ctx}").format(
                name=name, layers=layers, d_model=d_model, n_ctx=n_ctx)
        else:
            layers, d_model, n_ctx = rng.choice([6, 12, 24, 32]), rng.choice([512, 768, 1024, 2048]), rng.choice([512, 1024, 2048])
            model = _("A decoder-only model: n_layer = {layers}, d_model = {d_model}, d_ff = 4·d_model, n_ctx = {n_ctx}").format(
                layers=layers, d_model=d_model, n_ctx=n_ctx)
        inputs = FlopsInputs(layers=layers, d_model=d_model, n_ctx=n_ctx, mode=mode)
        ask = _("in **one forward pass**") if mode == "forward" else _("in **training** (forward + backward)")
        prompt = _(
            "{model}, d_attn = d_model.\n\nCount as Kaplan et al. 2020 (Scaling Laws for Neural Language Models) §2.1, "
            "Table 1 does: N counts only the layers' weight matrices (no embeddings, biases or LayerNorm), a multiply-add is "
            "2 FLOPs, the attention's context term counts QKᵀ only, and the backward pass is about twice the forward.\n\n"
            "Find the FLOPs **per token** {ask}, at a context length of n_ctx."
        ).format(model=model, ask=ask)
        return inputs, prompt

    def why_out_of_range(self, params: FlopsParams, inputs: FlopsInputs) -> str | None:
        return None if params.mode in ("any", inputs.mode) else Said("asks {got}, the card wants {wanted}", got=inputs.mode, wanted=params.mode)

    def solve(self, inputs: FlopsInputs) -> int:
        from checkers import reference

        forward = reference.kaplan_forward_flops(inputs.layers, inputs.d_model, inputs.d_model, inputs.ffn, inputs.n_ctx)
        return forward if inputs.mode == "forward" else 3 * forward

    def tolerance(self, params: FlopsParams, inputs: FlopsInputs) -> Tolerance:
        return Tolerance("relative", relative=params.relative, measure="FLOPs")

    def explain(self, inputs: FlopsInputs, answer: int, tolerance: Tolerance) -> str:
        L, d, f, n = inputs.layers, inputs.d_model, inputs.ffn, inputs.n_ctx
        big_n = 2 * d * L * (2 * d + f)
        attention = 2 * L * n * d
        factor = 2 if inputs.mode == "forward" else 6
        return (
            f"N = 2 · d_model · n_layer · (2·d_attn + d_ff) = 2 × {d} × {L} × (2×{d} + {f}) = {big_n:,}"
            + _(" (12·n_layer·d² when d_ff = 4d)") + "\n\n"
            + _("Forward per token: ") + f"C_forward = 2N + 2·n_layer·n_ctx·d_attn = {2 * big_n:,} + 2 × {L} × {n} × {d} = "
            f"{2 * big_n:,} + {attention:,} = {2 * big_n + attention:,}\n\n"
            + (
                ""
                if inputs.mode == "forward"
                else _("Training = 3 × forward (backward ≈ 2 × forward) = ") + f"6N + 6·n_layer·n_ctx·d_attn = {6 * big_n:,} + "
                f"{3 * attention:,} = {6 * big_n + 3 * attention:,}\n\n"
            )
            + _("The attention term is {share:.1%}: where d_model is far above n_ctx/12, {factor}N is the usual estimate.").format(
                share=factor // 2 * attention / answer, factor=factor)
            + "\n\n" + answer_line(tolerance.format(answer))
        )
