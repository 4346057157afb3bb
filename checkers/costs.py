"""What a model costs: KV-cache bytes, training memory with Adam, FLOPs per token, LoRA's trainable
parameters. Sizes are real models' where a name is given (each source is cited in the prompt)."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Annotated, Literal, get_args

from checkers.base import BaseChecker, Tolerance, num
from checkers.configs import CONFIGS
from checkers.said import Said
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
    description = "KV cache 显存：每个 token 的字节数，或一个 batch × 长度的 GiB（fp16/fp32，MHA/GQA）"
    Params = KvCacheParams
    Inputs = KvCacheInputs

    def compose(self, rng: random.Random, params: KvCacheParams) -> tuple[KvCacheInputs, str]:
        attention = params.attention if params.attention != "any" else rng.choice(["mha", "gqa"])
        named = [m for m in KV_MODELS if (m[2] == m[3]) == (attention == "mha")]
        if rng.random() < 0.5:
            name, layers, heads, kv_heads, head_dim = rng.choice(named)
            model = f"**{name}**：L = {layers} 层，h = {heads} 个 query 头，h_kv = {kv_heads} 个 KV 头，d_head = {head_dim}"
        else:
            layers, heads, head_dim = rng.choice([12, 24, 32, 40, 48]), rng.choice([16, 32, 64]), rng.choice([64, 128])
            kv_heads = heads if attention == "mha" else heads // rng.choice([4, 8])
            model = f"一个 Decoder-only 模型：L = {layers} 层，h = {heads} 个 query 头，h_kv = {kv_heads} 个 KV 头，d_head = {head_dim}"
        dtype: Dtype = params.dtype if params.dtype != "any" else rng.choice(["fp16", "fp32"])
        target = params.target if params.target != "any" else rng.choice(["per_token", "total"])
        base = KvCacheInputs(layers=layers, heads=heads, kv_heads=kv_heads, head_dim=head_dim, dtype=dtype)
        kind = "MHA（每个 query 头有自己的 K、V）" if kv_heads == heads else f"GQA（每 {heads // kv_heads} 个 query 头共享一组 K、V）"
        setting = f"{model}，{kind}；KV cache 以 {dtype} 存储（每个数 {BYTES[dtype]} 字节）。"
        if target == "per_token":
            inputs = base
            ask = "求**每个 token** 的 KV cache 占多少**字节**（所有层的 K 和 V 合计）。"
        else:
            update = {"batch": rng.choice([1, 4, 8, 16, 32]), "length": rng.choice([1024, 2048, 4096, 8192]), "target": "total"}
            inputs = base.model_copy(update=update)
            ask = (
                f"batch = {inputs.batch} 条序列、每条缓存到 {inputs.length} 个 token 时，KV cache 一共占多少 **GiB**"
                "（1 GiB = 2^30 字节；只算 K、V 本身）？"
            )
        return inputs, f"自回归推理时每层缓存 K 和 V，形状各为 [B, h_kv, S, d_head]。{setting}\n\n{ask}"

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
            return Tolerance("exact", measure="字节")
        gib = _per_token(inputs) * inputs.batch * inputs.length / GIB
        return Tolerance("decimals", places_telling_gb_from_gib(gib, params.decimals), measure="GiB")

    def explain(self, inputs: KvCacheInputs, answer: int | float, tolerance: Tolerance) -> str:
        per_token = _per_token(inputs)
        lines = [
            f"每个 token 每层存一个 K 和一个 V，各 h_kv × d_head = {inputs.kv_heads} × {inputs.head_dim} 个数：",
            "",
            f"每 token = 2（K、V）× L × h_kv × d_head × 字节 = 2 × {inputs.layers} × {inputs.kv_heads} × "
            f"{inputs.head_dim} × {BYTES[inputs.dtype]} = {per_token:,} 字节",
        ]
        if inputs.heads != inputs.kv_heads:
            lines.append(f"\nGQA 只缓存 h_kv 个头：比同尺寸 MHA（h = {inputs.heads}）省 {inputs.heads // inputs.kv_heads} 倍。")
        if inputs.target == "total":
            tokens = inputs.batch * inputs.length
            lines.append(
                f"\n总计 = 每 token × B × S = {per_token:,} × {inputs.batch} × {inputs.length} = {per_token * tokens:,} 字节"
                f" = {per_token * tokens:,} / 2^30 GiB = {num(per_token * tokens / GIB)} GiB"
            )
        return "\n".join(lines) + f"\n\n答案：`{tolerance.format(answer)}`"


# ------------------------------------------------------------------------- training memory

Part = Literal["total", "weights", "gradients", "optimizer"]
PER_PARAMETER = {  # bytes per parameter by part (ZeRO, Rajbhandari et al. 2020, §3.1)
    "fp32": {"weights": 4, "gradients": 4, "optimizer": 8},
    "mixed": {"weights": 2, "gradients": 2, "optimizer": 12},
}
PART_NAME = {"total": "模型状态合计", "weights": "权重", "gradients": "梯度", "optimizer": "Adam 优化器状态"}
STATES = {
    "fp32": "fp32 权重、fp32 梯度，Adam 的一阶矩 m 和二阶矩 v 各一份 fp32",
    "mixed": "混合精度：fp16 权重和 fp16 梯度用于前向/反向；优化器另存 fp32 的权重副本（master weights）和 fp32 的 m、v",
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
    description = "Adam 训练的显存（模型状态）：权重、梯度、优化器状态，fp32 或混合精度，单位 GB"
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
        prompt = (
            f"用 Adam 训练一个参数量 Ψ = {_giant(inputs.parameters)}（{inputs.parameters:,} 个参数）的模型。"
            f"{STATES[inputs.precision]}。\n\n只算模型状态（ZeRO 论文 §3.1 的口径）：不含激活值、临时缓冲和显存碎片，"
            f"1 GB = 10^9 字节。\n\n求**{PART_NAME[inputs.part]}**占多少 GB。"
        )
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
        detail = "m 4 + v 4" if inputs.precision == "fp32" else "fp32 权重副本 4 + m 4 + v 4"
        rows = ["| 部分 | 每参数字节 | GB |", "| --- | --- | --- |"]
        for part, size in bytes_per.items():
            note = f"（{detail}）" if part == "optimizer" else ""
            rows.append(f"| {PART_NAME[part]} | {size}{note} | {size} × {_giant(inputs.parameters)} = {size * inputs.parameters / GB:g} |")
        rows.append(f"| 合计 | 16 | 16 × {_giant(inputs.parameters)} = {16 * inputs.parameters / GB:g} |")
        return (
            "fp32 训练和混合精度训练的模型状态都是每参数 16 字节（ZeRO §3.1：混合精度是 2Ψ + 2Ψ + 12Ψ），"
            "混合精度省的是激活和计算，不是模型状态。\n\n"
            + "\n".join(rows)
            + f"\n\n答案：`{tolerance.format(answer)}` GB"
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
    description = "每 token 的 FLOPs：前向 2N、训练 6N，加上随上下文长度增长的注意力项（Kaplan 口径）"
    Params = FlopsParams
    Inputs = FlopsInputs

    def compose(self, rng: random.Random, params: FlopsParams) -> tuple[FlopsInputs, str]:
        mode: Literal["forward", "training"] = params.mode if params.mode != "any" else rng.choice(["forward", "training"])
        if rng.random() < 0.6:
            name, layers, d_model, n_ctx = rng.choice(FLOP_MODELS)
            model = f"**{name}**：n_layer = {layers}，d_model = {d_model}，d_ff = 4·d_model，n_ctx = {n_ctx}"
        else:
            layers, d_model, n_ctx = rng.choice([6, 12, 24, 32]), rng.choice([512, 768, 1024, 2048]), rng.choice([512, 1024, 2048])
            model = f"一个 Decoder-only 模型：n_layer = {layers}，d_model = {d_model}，d_ff = 4·d_model，n_ctx = {n_ctx}"
        inputs = FlopsInputs(layers=layers, d_model=d_model, n_ctx=n_ctx, mode=mode)
        ask = "**前向**一次" if mode == "forward" else "**训练**时（前向 + 反向）"
        prompt = (
            f"{model}，d_attn = d_model。\n\n按 Kaplan et al. 2020（Scaling Laws for Neural Language Models）§2.1 表 1 的口径："
            "N 只算各层的权重矩阵（不含 embedding、bias、LayerNorm），乘加算 2 次 FLOP，注意力的上下文项只算 QKᵀ，"
            "反向约为前向的 2 倍。\n\n"
            f"求上下文长度为 n_ctx 时，{ask}**每个 token** 的 FLOPs。"
        )
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
            "（d_ff = 4d 时即 12·n_layer·d²）\n\n"
            f"前向每 token：C_forward = 2N + 2·n_layer·n_ctx·d_attn = {2 * big_n:,} + 2 × {L} × {n} × {d} = "
            f"{2 * big_n:,} + {attention:,} = {2 * big_n + attention:,}\n\n"
            + (
                ""
                if inputs.mode == "forward"
                else f"训练 = 3 × 前向（反向 ≈ 2 × 前向）= 6N + 6·n_layer·n_ctx·d_attn = {6 * big_n:,} + {3 * attention:,} = "
                f"{6 * big_n + 3 * attention:,}\n\n"
            )
            + f"注意力项占 {factor // 2 * attention / answer:.1%}：d_model 远大于 n_ctx/12 时，常直接用 {factor}N 估算。"
            f"\n\n答案：`{tolerance.format(answer)}`"
        )


# ------------------------------------------------------------------------------------- LoRA

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
    description = "LoRA 可训练参数量：给定秩 r 与加 LoRA 的投影（W_q、W_v、FFN……）"
    Params = LoraParamsParams
    Inputs = LoraParamsInputs

    def compose(self, rng: random.Random, params: LoraParamsParams) -> tuple[LoraParamsInputs, str]:
        name, layers, d_model, d_ff = rng.choice(LORA_MODELS)
        targets = TARGETS[params.targets if params.targets != "any" else rng.choice(list(TARGETS))]
        inputs = LoraParamsInputs(layers=layers, d_model=d_model, d_ff=d_ff, rank=rng.choice(params.ranks), targets=targets)
        names = {"q": "W_q", "k": "W_k", "v": "W_v", "o": "W_o", "up": f"FFN 升维 W_1（{d_model}→{d_ff}）", "down": f"FFN 降维 W_2（{d_ff}→{d_model}）"}
        prompt = (
            f"对 **{name}**（{layers} 层，d_model = {d_model}，d_ff = {d_ff}）做 LoRA 微调（Hu et al. 2021, §4.1）："
            f"冻结原权重 W，每个被选中的投影旁加低秩分解 ΔW = B A，秩 r = {inputs.rank}，不加 bias。"
            f"每一层都在 {', '.join(names[t] for t in targets)} 上加 LoRA。\n\n求可训练参数总数（全部层合计，不含任务头）。"
        )
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
        rows = ["| 投影 | W 形状 (d_in × d_out) | A（r × d_in）+ B（d_out × r） |", "| --- | --- | --- |"]
        for target, (d_in, d_out) in zip(inputs.targets, inputs.shapes()):
            rows.append(f"| {target} | {d_in} × {d_out} | {r} × ({d_in} + {d_out}) = {r * (d_in + d_out):,} |")
        per_layer = sum(r * (d_in + d_out) for d_in, d_out in inputs.shapes())
        return (
            "每个 d_in × d_out 的投影加 A ∈ R^{r×d_in} 和 B ∈ R^{d_out×r}，可训练 r·(d_in + d_out) 个参数；原 W 冻结不计。\n\n"
            + "\n".join(rows)
            + f"\n\n每层 {per_layer:,}，× {L} 层 = {per_layer * L:,}\n\n答案：`{tolerance.format(answer)}`"
        )
