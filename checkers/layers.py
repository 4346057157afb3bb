"""Small layers computed by hand: sinusoidal positional encodings and LayerNorm of a short vector."""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Annotated, Literal

from checkers.base import BaseChecker, Tolerance, answer_line, draw_values, num, vec
from checkers.said import Said, _
from checkers.shapes import LengthBounds, Strict

if TYPE_CHECKING:  # Field(...) in an annotation is read by pydantic only to validate (checkers.validating)
    from pydantic import Field


@dataclass(frozen=True, kw_only=True)
class PositionalEncodingParams(Strict):
    target: Literal["vector", "single", "any"] = "any"
    d_models: Annotated[list[int], Field(min_length=1)] = field(default_factory=lambda: [4, 6, 8])
    max_position: Annotated[int, Field(ge=1, le=10_000)] = 50
    decimals: Annotated[int, Field(ge=2, le=6)] = 4

    def check(self) -> None:
        if any(d % 2 or not 2 <= d <= 16 for d in self.d_models):
            raise ValueError(Said("each d_model must be even, from 2 to 16"))


@dataclass(frozen=True, kw_only=True)
class PositionalEncodingInputs(Strict):
    position: Annotated[int, Field(ge=0, le=100_000)]
    d_model: Annotated[int, Field(ge=2, le=1024)]
    index: int | None = None  # one dimension; None: the whole vector

    def check(self) -> None:
        if self.d_model % 2:
            raise ValueError(Said("d_model must be even (sin and cos come in pairs)"))
        if self.index is not None and not 0 <= self.index < self.d_model:
            raise ValueError(Said("index must lie in [0, {d_model})", d_model=self.d_model))


def _angle(position: int, dim: int, d_model: int) -> float:
    """pos / 10000^(2i/d) for dimension dim (pair i = dim // 2)."""
    return position / 10000 ** (2 * (dim // 2) / d_model)


class PositionalEncoding(BaseChecker[PositionalEncodingParams, PositionalEncodingInputs, float | list[float]]):
    name = "sinusoidal_pe"
    description = Said("The original Transformer's sinusoidal position encoding: PE(pos, 2i) = sin, PE(pos, 2i+1) = cos")
    Params = PositionalEncodingParams
    Inputs = PositionalEncodingInputs

    def compose(self, rng: random.Random, params: PositionalEncodingParams) -> tuple[PositionalEncodingInputs, str]:
        d = rng.choice(params.d_models)
        target = params.target if params.target != "any" else rng.choice(["vector", "single"])
        inputs = PositionalEncodingInputs(
            position=rng.randint(1, params.max_position), d_model=d, index=rng.randrange(d) if target == "single" else None
        )
        ask = (
            _("Find the whole encoding vector at position pos = {position} ({d} numbers, dimensions 0…{last}).").format(
                position=inputs.position, d=d, last=d - 1)
            if inputs.index is None
            else _("Find PE(pos = {position}, dimension {index}) (dimensions counted from 0).").format(
                position=inputs.position, index=inputs.index)
        )
        prompt = _(
            "The original Transformer's (Vaswani et al. 2017, §3.5) sinusoidal position encoding, d_model = {d}:\n\n"
            "{sine}, {cosine}, angles in radians.\n\n{ask}"
        ).format(d=d, sine="$PE_{(pos,2i)} = \\sin(pos / 10000^{2i/d_{model}})$",
                 cosine="$PE_{(pos,2i+1)} = \\cos(pos / 10000^{2i/d_{model}})$", ask=ask)
        return inputs, prompt

    def why_out_of_range(self, params: PositionalEncodingParams, inputs: PositionalEncodingInputs) -> str | None:
        if params.target != "any" and (inputs.index is None) != (params.target == "vector"):
            return Said("the card wants a {target} answer", target=params.target)
        if inputs.d_model not in params.d_models or inputs.position > params.max_position:
            return Said("d_model {d_model} / position {position} outside the card's range", d_model=inputs.d_model, position=inputs.position)
        return None

    def solve(self, inputs: PositionalEncodingInputs) -> float | list[float]:
        from checkers import reference

        row = reference.sinusoidal_table(inputs.position + 1, inputs.d_model)[inputs.position]
        return row.tolist() if inputs.index is None else float(row[inputs.index])

    def explain(self, inputs: PositionalEncodingInputs, answer: float | list[float], tolerance: Tolerance) -> str:
        d, pos = inputs.d_model, inputs.position
        dims = range(d) if inputs.index is None else [inputs.index]
        rows = [_("| Dimension | i | Frequency 1/10000^(2i/d) | Angle | Value |"), "| --- | --- | --- | --- | --- |"]
        for dim in dims:
            angle = _angle(pos, dim, d)
            func, value = ("sin", math.sin(angle)) if dim % 2 == 0 else ("cos", math.cos(angle))
            rows.append(f"| {dim} | {dim // 2} | {10000 ** (-2 * (dim // 2) / d):.6g} | {angle:.6g} | {func}({angle:.6g}) = {num(value, 6)} |")
        return (
            _("Even dimensions take sin, odd ones cos, and a pair (2i, 2i+1) shares one frequency; the higher the dimension, "
              "the lower the frequency.") + "\n\n"
            + "\n".join(rows)
            + "\n\n" + answer_line(tolerance.format(answer))
        )


@dataclass(frozen=True, kw_only=True)
class LayerNormParams(LengthBounds):
    min_len: int = 3
    max_len: int = 5
    affine: Literal["identity", "given", "any"] = "any"  # identity: gamma = 1, beta = 0
    decimals: Annotated[int, Field(ge=1, le=6)] = 3


@dataclass(frozen=True, kw_only=True)
class LayerNormInputs(Strict):
    x: Annotated[list[float], Field(min_length=2)]
    gamma: list[float] | None = None  # None: all ones
    beta: list[float] | None = None  # None: all zeros
    eps: Annotated[float, Field(ge=0, le=0.1)] = 1e-5  # nn.LayerNorm's default

    def check(self) -> None:
        for name in ("gamma", "beta"):
            value = getattr(self, name)
            if value is not None and len(value) != len(self.x):
                raise ValueError(Said("{name} needs {count} entries, like x", name=name, count=len(self.x)))
        if len(set(self.x)) == 1 and self.eps == 0:
            raise ValueError(Said("a constant x has variance 0: give eps > 0"))

    def affine(self) -> tuple[list[float], list[float]]:
        return self.gamma or [1.0] * len(self.x), self.beta or [0.0] * len(self.x)


SHOWN = 4  # places of the intermediates the prompt asks for and the worked solution shows


def _moments(inputs: LayerNormInputs) -> tuple[float, float, float]:
    """(μ, σ², √(σ² + eps)) with the biased variance (divided by n), as nn.LayerNorm computes them."""
    mean = sum(inputs.x) / len(inputs.x)
    var = sum((v - mean) ** 2 for v in inputs.x) / len(inputs.x)
    return mean, var, math.sqrt(var + inputs.eps)


class LayerNorm(BaseChecker[LayerNormParams, LayerNormInputs, list[float]]):
    name = "layer_norm"
    description = Said("LayerNorm: a short vector minus its mean, divided by its standard deviation (biased variance + eps), times γ plus β")
    Params = LayerNormParams
    Inputs = LayerNormInputs

    def compose(self, rng: random.Random, params: LayerNormParams) -> tuple[LayerNormInputs, str]:
        n = rng.randint(max(2, params.min_len), params.max_len)
        x = draw_values(rng, n, -2, 4, rng.choice([0, 1]))
        while len(set(x)) < 2:  # a constant vector normalises to 0 everywhere: nothing to compute
            x = draw_values(rng, n, -2, 4, 0)
        affine = params.affine if params.affine != "any" else rng.choice(["identity", "given"])
        if affine == "given":
            inputs = LayerNormInputs(x=x, gamma=draw_values(rng, n, 0.5, 2, 1), beta=draw_values(rng, n, -1, 1, 1))
            weights = _("γ = `{gamma}`, β = `{beta}`").format(gamma=vec(inputs.gamma or []), beta=vec(inputs.beta or []))
        else:
            inputs = LayerNormInputs(x=x)
            weights = _("γ = 1, β = 0 (their values at initialisation)")
        prompt = _(
            "Apply LayerNorm to the {n}-dimensional vector x = `{x}` (normalising the last dimension, as `nn.LayerNorm({n})`, "
            "eps = 1e-5), {weights}.\n\n"
            "Find the output vector ({n} numbers; the mean μ and √(σ² + eps) on the way to {shown} decimal places are enough)."
        ).format(n=n, x=vec(x), weights=weights, shown=SHOWN)
        return inputs, prompt

    def why_out_of_range(self, params: LayerNormParams, inputs: LayerNormInputs) -> str | None:
        if not params.min_len <= len(inputs.x) <= params.max_len:
            return Said("length {n} is outside [{low}, {high}]", n=len(inputs.x), low=params.min_len, high=params.max_len)
        if params.affine != "any" and (inputs.gamma is None) != (params.affine == "identity"):
            return Said("the card wants affine = {affine}", affine=params.affine)
        return Said("a constant x normalises to 0 everywhere") if len(set(inputs.x)) == 1 else None

    def solve(self, inputs: LayerNormInputs) -> list[float]:
        import torch

        from checkers import reference

        gamma, beta = inputs.affine()
        tensor = lambda v: torch.tensor(v, dtype=reference.DTYPE)  # noqa: E731
        return reference.layer_norm(tensor(inputs.x), tensor(gamma), tensor(beta), inputs.eps).tolist()

    def other_accepted(self, inputs: LayerNormInputs, answer: list[float], tolerance: Tolerance) -> tuple[float, ...]:
        """The output computed from μ and √(σ² + eps) at the places the prompt asks and the worked
        solution shows: a learner who divides by the shown σ is right."""
        mean, _variance, std = (float(num(value, SHOWN)) for value in _moments(inputs))
        gamma, beta = inputs.affine()
        return tuple((v - mean) / std * g + b for v, g, b in zip(inputs.x, gamma, beta))

    def explain(self, inputs: LayerNormInputs, answer: list[float], tolerance: Tolerance) -> str:
        x, n = inputs.x, len(inputs.x)
        gamma, beta = inputs.affine()
        mean, var, std = _moments(inputs)
        rows = [_("- Dimension {i}: ").format(i=i) + f"({v:g} − {num(mean)}) / {num(std)} × {g:g} + ({b:g}) = {num((v - mean) / std * g + b)}"
                for i, (v, g, b) in enumerate(zip(x, gamma, beta))]  # fmt: skip
        return (
            _("Mean μ = ({terms}) / {n} = {mean}").format(terms=" + ".join(f"{v:g}" for v in x), n=n, mean=num(mean)) + "\n\n"
            + _("The variance is the **biased** estimate (divided by n = {n}, not n − 1): σ² = Σ(x − μ)² / {n} = {var}").format(
                n=n, var=num(var)) + "\n\n"
            f"√(σ² + eps) = √({num(var)} + {inputs.eps:g}) = {num(std)}\n\n"
            + "\n".join(rows)
            + "\n\n" + answer_line(tolerance.format(answer))
        )
