"""Attention drills: masked softmax rows (padding / causal / forgotten mask) and QK^T/√d_k."""

from __future__ import annotations

import math
import random
from typing import Literal

from pydantic import Field, model_validator

from checkers.base import BaseChecker, LengthBounds, Strict, Tolerance, draw_values, num, softmax_steps, vec


class MaskedSoftmaxParams(LengthBounds):
    variant: Literal["padding", "causal", "unmasked"] = "padding"
    decimals: int = Field(default=3, ge=1, le=6)


class MaskedSoftmaxInputs(Strict):
    scores: list[float] = Field(min_length=1)
    mask: list[int]  # 1 = keep, 0 = masked; causal row i: 1 for j <= i

    @model_validator(mode="after")
    def _valid_mask(self) -> "MaskedSoftmaxInputs":
        if len(self.mask) != len(self.scores):
            raise ValueError(f"mask has {len(self.mask)} entries but scores has {len(self.scores)}")
        if set(self.mask) - {0, 1}:
            raise ValueError("mask entries must be 0 or 1")
        if 1 not in self.mask:
            raise ValueError("a fully masked row has no softmax (it would be NaN); keep at least one position")
        return self


class MaskedSoftmax(BaseChecker[MaskedSoftmaxParams, MaskedSoftmaxInputs, list[float]]):
    name = "masked_softmax"
    description = "带 mask 的 softmax：padding / causal 行的注意力权重（被遮位置为 0）"
    Params = MaskedSoftmaxParams
    Inputs = MaskedSoftmaxInputs

    def compose(self, rng: random.Random, params: MaskedSoftmaxParams) -> tuple[MaskedSoftmaxInputs, str]:
        n = rng.randint(params.min_len, params.max_len)
        scores = draw_values(rng, n, -2, 5, rng.choice([0, 1]))
        pads = rng.randint(1, n - 1) if n > 1 else 0
        if params.variant == "causal":
            row = rng.randrange(1, n) if n > 1 else 0  # row 0 would only ever give [1, 0, ...]
            mask = [int(j <= row) for j in range(n)]
            setting = f"GPT 的因果自注意力，长度 {n} 的序列中第 {row} 行（位置从 0 数）：位置 j ≤ {row} 可见，其余遮住。"
        elif params.variant == "padding":
            mask = [1] * (n - pads) + [0] * pads
            setting = f"BERT 的 batch 中一条序列补了 {pads} 个 PAD（最后 {pads} 个位置），用 padding mask 遮住。"
        else:
            mask = [1] * n
            setting = (
                f"序列最后 {pads} 个位置是 PAD，但**忘了传 attention_mask**：PAD 也参与 softmax。"
                "求各位置（含 PAD）拿到的注意力权重。"
            )
        inputs = MaskedSoftmaxInputs(scores=scores, mask=mask)
        prompt = (
            f"{setting}\n\n某一行注意力分数 `{vec(scores)}`，mask = `{vec(mask)}`（1 = 保留，0 = 遮住）。\n\n"
            f"求 softmax 后的权重向量（共 {n} 个数，被遮位置写 0）。"
        )
        return inputs, prompt

    def solve(self, inputs: MaskedSoftmaxInputs) -> list[float]:
        import torch

        from checkers import reference

        scores = torch.tensor(inputs.scores, dtype=reference.DTYPE)
        return reference.masked_softmax(scores, torch.tensor(inputs.mask)).tolist()

    def explain(self, inputs: MaskedSoftmaxInputs, answer: list[float], tolerance: Tolerance) -> str:
        return (
            "mask 为 0 的分数在 softmax **之前**换成 −∞，exp(−∞) = 0，所以被遮位置权重严格为 0，"
            "其余位置的权重和为 1。\n\n"
            f"{softmax_steps(inputs.scores, inputs.mask)}\n\n答案：`{tolerance.format(answer)}`"
        )


class ScaledScoresParams(LengthBounds):
    min_len: int = 2  # number of keys
    max_len: int = 4
    d_k: int | None = Field(default=None, ge=1, le=8)  # None: drawn from 2..4
    decimals: int = Field(default=3, ge=1, le=6)


class ScaledScoresInputs(Strict):
    q: list[float] = Field(min_length=1)
    k: list[list[float]] = Field(min_length=1)

    @model_validator(mode="after")
    def _same_dim(self) -> "ScaledScoresInputs":
        if any(len(key) != len(self.q) for key in self.k):
            raise ValueError(f"every key needs d_k = {len(self.q)} entries, like q")
        return self


class ScaledScores(BaseChecker[ScaledScoresParams, ScaledScoresInputs, list[float]]):
    name = "scaled_scores"
    description = "缩放点积分数：一个 query 对各个 key 的 q·k / √d_k"
    Params = ScaledScoresParams
    Inputs = ScaledScoresInputs

    def compose(self, rng: random.Random, params: ScaledScoresParams) -> tuple[ScaledScoresInputs, str]:
        d_k = params.d_k or rng.randint(2, 4)
        keys = rng.randint(params.min_len, params.max_len)
        inputs = ScaledScoresInputs(
            q=draw_values(rng, d_k, -2, 3, 0), k=[draw_values(rng, d_k, -2, 3, 0) for _ in range(keys)]
        )
        key_lines = "\n".join(f"- k{j} = `{vec(key)}`" for j, key in enumerate(inputs.k))
        prompt = (
            f"d_k = {d_k}。query q = `{vec(inputs.q)}`，{keys} 个 key：\n\n{key_lines}\n\n"
            f"求缩放点积注意力分数 $q k_j^\\top / \\sqrt{{d_k}}$（softmax 之前），按 key 顺序给出 {keys} 个数。"
        )
        return inputs, prompt

    def solve(self, inputs: ScaledScoresInputs) -> list[float]:
        import torch

        from checkers import reference

        q = torch.tensor([inputs.q], dtype=reference.DTYPE)
        return reference.attention_scores(q, torch.tensor(inputs.k, dtype=reference.DTYPE))[0].tolist()

    def explain(self, inputs: ScaledScoresInputs, answer: list[float], tolerance: Tolerance) -> str:
        root = math.sqrt(len(inputs.q))
        lines = [f"√d_k = √{len(inputs.q)} = {num(root)}", ""]
        for j, (key, score) in enumerate(zip(inputs.k, answer)):
            terms = " + ".join(f"({a:g})×({b:g})" for a, b in zip(inputs.q, key))
            dot = sum(a * b for a, b in zip(inputs.q, key))
            lines.append(f"- k{j}：q·k = {terms} = {dot:g}，÷ {num(root)} = {num(score)}")
        return "\n".join(lines) + f"\n\n答案：`{tolerance.format(answer)}`"
