"""BERT's input vector: token + position + segment embeddings, summed element-wise."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated

from checkers.base import BaseChecker, Tolerance, answer_line, draw_values, vec
from checkers.said import Said, _
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
    description = Said("The three embeddings added element-wise: token + position + segment (the shape unchanged)")
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
        prompt = _(
            "A {d}-dimensional sketch: a token at position {pos}, in sentence {segment}.\n\n"
            "| Part | Vector |\n| --- | --- |\n| Token | `{token}` |\n"
            "| Position (pos={pos}) | `{position}` |\n| Segment ({segment}) | `{segment_vector}` |\n\n"
            "Find the input vector fed to the first Transformer layer (before LayerNorm) ({d} numbers)."
        ).format(d=d, pos=pos, segment=seg, token=vec(inputs.token), position=vec(inputs.position),
                 segment_vector=vec(inputs.segment))
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
            _("- Dimension {i}: {t} + ({p}) + ({s}) = {sum}").format(i=i, t=f"{t:g}", p=f"{p:g}", s=f"{s:g}", sum=tolerance.format(a))
            for i, (t, p, s, a) in enumerate(zip(inputs.token, inputs.position, inputs.segment, answer))
        ]
        return (
            _("The three are **added element-wise** (not concatenated), the dimension unchanged: "
              "[B, S, d] + [B, S, d] + [B, S, d] → [B, S, d].") + "\n\n"
            + "\n".join(rows)
            + "\n\n" + answer_line(tolerance.format(answer))
        )
