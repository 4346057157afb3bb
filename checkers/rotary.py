"""Rotary position embedding (RoPE, Su et al. 2021, §3.4.2): each pair of dimensions turned by
position × θ_i, and the score of a rotated query and key, which depends on their distance only."""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Literal

from checkers.base import BaseChecker, Tolerance, answer_line, draw_values, num, vec
from checkers.said import C_, Said, _
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
    description = Said("Rotary position embedding RoPE: each pair of dimensions turned by position, and q·k after turning depends only on the relative distance")
    Params = RopeParams
    Inputs = RopeInputs

    def compose(self, rng: random.Random, params: RopeParams) -> tuple[RopeInputs, str]:
        target: Target = params.target if params.target != "any" else rng.choice(["rotate", "score"])
        d = rng.choice([2, 4])
        q = draw_values(rng, d, -2, 2, 0)
        while not any(q):
            q = draw_values(rng, d, -2, 2, 0)
        position = rng.randint(1, 5)
        head = _(
            "RoPE (θ_i = 10000^(−2i/d), d = {d}) turns the i-th pair of dimensions (x_2i, x_2i+1) at position m by m·θ_i: "
            "(x_2i cos − x_2i+1 sin, x_2i sin + x_2i+1 cos)."
        ).format(d=d)
        if target == "rotate":
            inputs = RopeInputs(q=q, position=position)
            ask = _("The query q = `{q}` at position m = {position}: find the turned vector ({d} numbers; cos and sin to "
                    "{shown} decimal places are enough).").format(q=vec(q), position=position, d=d, shown=SHOWN)
        else:
            k = draw_values(rng, d, -2, 2, 0)
            while not any(k):
                k = draw_values(rng, d, -2, 2, 0)
            key_position = rng.randint(0, position - 1)
            inputs = RopeInputs(q=q, position=position, k=k, key_position=key_position, target="score")
            ask = _(
                "q = `{q}` at position m = {position} and k = `{k}` at position n = {key_position}, each turned by its own "
                "position: find the dot product q_m · k_n (not divided by √d; cos and sin to {shown} decimal places are enough)."
            ).format(q=vec(q), position=position, k=vec(k), key_position=key_position, shown=SHOWN)
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
        angles = C_("between equations", "; ").join(f"θ_{i} = {inputs.base ** (-2 * i / d):g}" for i in range(d // 2))
        parts = [_("θ_i = 10000^(−2i/{d}): {angles}").format(d=d, angles=angles)]
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
                    _("- Pair {i}: angle {position} × θ_{i} = {angle}, cos = {cos}, sin = {sin}: ").format(
                        i=i, position=position, angle=num(angle), cos=num(cos), sin=num(sin))
                    + f"({a:g}·{num(cos)} − {b:g}·{num(sin)}, {a:g}·{num(sin)} + {b:g}·{num(cos)}) = "
                    f"({num(a * cos - b * sin)}, {num(a * sin + b * cos)})"
                )
            rotated = _rotate(x, inputs.angles(position))
            turned.append(rotated)
            parts.append(_("**{label} (position {position})**").format(label=label, position=position) + "\n\n"
                         + "\n".join(rows) + "\n\n" + _("Turned {label} = `{vector}`").format(label=label, vector=vec(rotated, 4)))
        if inputs.target == "score":
            q, k = turned
            terms = " + ".join(f"{num(a)}×{num(b)}" for a, b in zip(q, k))
            parts.append(
                f"q_m · k_n = {terms} = {num(sum(a * b for a, b in zip(q, k)))}\n\n"
                + _("(It depends only on m − n: shift both by the same amount and the dot product stays; this is RoPE's "
                    "relative-position property.)")
            )
        return "\n\n".join(parts) + "\n\n" + answer_line(tolerance.format(answer))
