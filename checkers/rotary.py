"""Rotary position embedding (RoPE, Su et al. 2021, §3.4.2): each pair of dimensions turned by
position × θ_i, and the score of a rotated query and key, which depends on their distance only."""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Literal

from checkers.base import BaseChecker, Tolerance, draw_values, num, vec
from checkers.said import Said
from checkers.shapes import Strict

if TYPE_CHECKING:  # Field(...) in an annotation is read by pydantic only to validate (checkers.validating)
    from pydantic import Field

Target = Literal["rotate", "score"]
SHOWN = 4  # places of cos and sin the prompt asks for and the worked solution shows


@dataclass(frozen=True, kw_only=True)
class RopeParams(Strict):
    target: Literal["rotate", "score", "any"] = "any"
    decimals: Annotated[int, Field(ge=1, le=4)] = 3


@dataclass(frozen=True, kw_only=True)
class RopeInputs(Strict):
    q: Annotated[list[float], Field(min_length=2)]
    position: Annotated[int, Field(ge=0, le=4096)]
    base: Annotated[float, Field(gt=1)] = 10000.0
    k: list[float] | None = None  # with key_position: the score q_m · k_n
    key_position: Annotated[int | None, Field(ge=0, le=4096)] = None
    target: Target = "rotate"

    def check(self) -> None:
        if len(self.q) % 2:
            raise ValueError(Said("RoPE turns pairs of dimensions: q needs an even length"))
        if self.target == "score" and (self.k is None or len(self.k) != len(self.q) or self.key_position is None):
            raise ValueError(Said("a score needs k, as long as q, and key_position"))

    def angles(self, position: int) -> list[float]:
        """position × θ_i, θ_i = base^(−2i/d), one per pair."""
        d = len(self.q)
        return [position * self.base ** (-2 * i / d) for i in range(d // 2)]


def _rotate(x: list[float], angles: list[float], places: int | None = None) -> list[float]:
    """Each pair (x_2i, x_2i+1) turned by its angle; cos and sin at ``places`` when given."""
    out: list[float] = []
    for i, angle in enumerate(angles):
        cos, sin = math.cos(angle), math.sin(angle)
        if places is not None:
            cos, sin = float(num(cos, places)), float(num(sin, places))
        a, b = x[2 * i], x[2 * i + 1]
        out += [a * cos - b * sin, a * sin + b * cos]
    return out


class Rope(BaseChecker[RopeParams, RopeInputs, float | list[float]]):
    name = "rope"
    description = "旋转位置编码 RoPE：按位置旋转每对维度，以及旋转后 q·k 只取决于相对距离"
    Params = RopeParams
    Inputs = RopeInputs

    def compose(self, rng: random.Random, params: RopeParams) -> tuple[RopeInputs, str]:
        target: Target = params.target if params.target != "any" else rng.choice(["rotate", "score"])
        d = rng.choice([2, 4])
        q = draw_values(rng, d, -2, 2, 0)
        while not any(q):
            q = draw_values(rng, d, -2, 2, 0)
        position = rng.randint(1, 5)
        head = (
            f"RoPE（θ_i = 10000^(−2i/d)，d = {d}）把第 i 对维度 (x_2i, x_2i+1) 在位置 m 上旋转 m·θ_i："
            "(x_2i cos − x_2i+1 sin, x_2i sin + x_2i+1 cos)。"
        )
        if target == "rotate":
            inputs = RopeInputs(q=q, position=position)
            ask = f"位置 m = {position} 的 query q = `{vec(q)}`，求旋转后的向量（{d} 个数；cos、sin 保留 {SHOWN} 位小数即可）。"
        else:
            k = draw_values(rng, d, -2, 2, 0)
            while not any(k):
                k = draw_values(rng, d, -2, 2, 0)
            key_position = rng.randint(0, position - 1)
            inputs = RopeInputs(q=q, position=position, k=k, key_position=key_position, target="score")
            ask = (
                f"位置 m = {position} 的 q = `{vec(q)}`，位置 n = {key_position} 的 k = `{vec(k)}`，都按各自位置旋转后，"
                f"求点积 q_m · k_n（不除以 √d；cos、sin 保留 {SHOWN} 位小数即可）。"
            )
        return inputs, f"{head}\n\n{ask}"

    def why_out_of_range(self, params: RopeParams, inputs: RopeInputs) -> str | None:
        if params.target != "any" and inputs.target != params.target:
            return Said("asks {got}, the card wants {wanted}", got=inputs.target, wanted=params.target)
        return None

    def solve(self, inputs: RopeInputs) -> float | list[float]:
        import torch

        from checkers import reference

        q = reference.rotary(torch.tensor(inputs.q, dtype=reference.DTYPE), inputs.position, inputs.base)
        if inputs.target == "rotate":
            return q.tolist()
        k = reference.rotary(torch.tensor(inputs.k or [], dtype=reference.DTYPE), inputs.key_position or 0, inputs.base)
        return float(q @ k)

    def other_accepted(self, inputs: RopeInputs, answer: float | list[float], tolerance: Tolerance) -> tuple[float, ...]:
        """The answer from cos and sin at the places the prompt asks for and the solution shows;
        a score also from the rotated q and k at the places the solution shows them."""
        q = _rotate(inputs.q, inputs.angles(inputs.position), SHOWN)
        if inputs.target == "rotate":
            return tuple(q)
        k = _rotate(inputs.k or [], inputs.angles(inputs.key_position or 0), SHOWN)
        exact_q = _rotate(inputs.q, inputs.angles(inputs.position))
        exact_k = _rotate(inputs.k or [], inputs.angles(inputs.key_position or 0))
        shown = sum(float(num(a, SHOWN)) * float(num(b, SHOWN)) for a, b in zip(exact_q, exact_k))
        return (sum(a * b for a, b in zip(q, k)), shown)

    def explain(self, inputs: RopeInputs, answer: float | list[float], tolerance: Tolerance) -> str:
        d = len(inputs.q)
        parts = [f"θ_i = 10000^(−2i/{d})：" + "，".join(f"θ_{i} = {inputs.base ** (-2 * i / d):g}" for i in range(d // 2))]
        vectors = [("q", inputs.q, inputs.position)]
        if inputs.target == "score":
            vectors.append(("k", inputs.k or [], inputs.key_position or 0))
        turned = []
        for label, x, position in vectors:
            rows = []
            for i, angle in enumerate(inputs.angles(position)):
                cos, sin = math.cos(angle), math.sin(angle)
                a, b = x[2 * i], x[2 * i + 1]
                rows.append(
                    f"- 第 {i} 对：角度 {position} × θ_{i} = {num(angle)}，cos = {num(cos)}，sin = {num(sin)}："
                    f"({a:g}·{num(cos)} − {b:g}·{num(sin)}, {a:g}·{num(sin)} + {b:g}·{num(cos)}) = "
                    f"({num(a * cos - b * sin)}, {num(a * sin + b * cos)})"
                )
            rotated = _rotate(x, inputs.angles(position))
            turned.append(rotated)
            parts.append(f"**{label}（位置 {position}）**\n\n" + "\n".join(rows) + f"\n\n旋转后 {label} = `{vec(rotated, 4)}`")
        if inputs.target == "score":
            q, k = turned
            terms = " + ".join(f"{num(a)}×{num(b)}" for a, b in zip(q, k))
            parts.append(
                f"q_m · k_n = {terms} = {num(sum(a * b for a, b in zip(q, k)))}\n\n"
                "（只取决于 m − n：两边再加同一个位移，点积不变，这就是 RoPE 的相对位置性质。）"
            )
        return "\n\n".join(parts) + f"\n\n答案：`{tolerance.format(answer)}`"
