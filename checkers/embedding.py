"""BERT's input vector: token + position + segment embeddings, summed element-wise."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated

from checkers.base import BaseChecker, Tolerance, draw_values, vec
from checkers.said import Said
from checkers.shapes import LengthBounds, Strict

if TYPE_CHECKING:  # Field(...) in an annotation is read by pydantic only to validate (checkers.validating)
    from pydantic import Field


@dataclass(frozen=True, kw_only=True)
class EmbeddingSumParams(LengthBounds):
    min_len: int = 3  # embedding dimension d
    max_len: int = 5
    decimals: Annotated[int, Field(ge=1, le=6)] = 2


@dataclass(frozen=True, kw_only=True)
class EmbeddingSumInputs(Strict):
    token: Annotated[list[float], Field(min_length=1)]
    position: Annotated[list[float], Field(min_length=1)]
    segment: Annotated[list[float], Field(min_length=1)]

    def check(self) -> None:
        if not len(self.token) == len(self.position) == len(self.segment):
            raise ValueError(Said("token, position and segment vectors need the same dimension d"))


class EmbeddingSum(BaseChecker[EmbeddingSumParams, EmbeddingSumInputs, list[float]]):
    name = "embedding_sum"
    description = "三种 Embedding 逐元素相加：token + position + segment（形状不变）"
    Params = EmbeddingSumParams
    Inputs = EmbeddingSumInputs

    def compose(self, rng: random.Random, params: EmbeddingSumParams) -> tuple[EmbeddingSumInputs, str]:
        d = rng.randint(params.min_len, params.max_len)
        segment_value = draw_values(rng, 1, -0.2, 0.2, 2)[0]
        inputs = EmbeddingSumInputs(
            token=draw_values(rng, d, -1, 1, 2),
            position=draw_values(rng, d, -0.3, 0.3, 2),
            segment=[segment_value] * d,
        )
        pos, seg = rng.randint(1, 30), rng.choice("AB")
        prompt = (
            f"{d} 维示意：某 token 在位置 {pos}、属于句子 {seg}。\n\n"
            f"| 分量 | 向量 |\n| --- | --- |\n| Token | `{vec(inputs.token)}` |\n"
            f"| Position（pos={pos}） | `{vec(inputs.position)}` |\n| Segment（{seg}） | `{vec(inputs.segment)}` |\n\n"
            f"求送进第一层 Transformer 之前（LayerNorm 之前）的输入向量（{d} 个数）。"
        )
        return inputs, prompt

    def why_out_of_range(self, params: EmbeddingSumParams, inputs: EmbeddingSumInputs) -> str | None:
        if not params.min_len <= len(inputs.token) <= params.max_len:
            return Said("dimension {n} is outside [{low}, {high}]", n=len(inputs.token), low=params.min_len, high=params.max_len)
        return None

    def solve(self, inputs: EmbeddingSumInputs) -> list[float]:
        import torch

        from checkers import reference

        token, position, segment = (
            torch.tensor(v, dtype=reference.DTYPE) for v in (inputs.token, inputs.position, inputs.segment)
        )
        return reference.embedding_sum(token, position, segment).tolist()

    def explain(self, inputs: EmbeddingSumInputs, answer: list[float], tolerance: Tolerance) -> str:
        rows = [
            f"- 第 {i} 维：{t:g} + ({p:g}) + ({s:g}) = {tolerance.format(a)}"
            for i, (t, p, s, a) in enumerate(zip(inputs.token, inputs.position, inputs.segment, answer))
        ]
        return (
            "三者**逐元素相加**（不是拼接），维度不变：[B, S, d] + [B, S, d] + [B, S, d] → [B, S, d]。\n\n"
            + "\n".join(rows)
            + f"\n\n答案：`{tolerance.format(answer)}`"
        )
