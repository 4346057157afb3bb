"""The checker interface (Question, Tolerance, BaseChecker) and the seeded generate flow they share.

No torch here: the CLI and deck linter import this at start-up.
"""

from __future__ import annotations

import math
import random
from abc import ABC, abstractmethod
from dataclasses import dataclass
from collections.abc import Sequence
from typing import Any, ClassVar, Generic, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, model_validator

Answer = int | float | list[float]


def float_slack(truth: float) -> float:
    """Room for binary rounding when a written decimal is compared with a computed float."""
    return 1e-14 * max(1.0, abs(truth))


@dataclass(frozen=True)
class Tolerance:
    """What the question asks for, which fixes both the display and the grading bound.

    exact: an integer, nothing else; decimals: |x - truth| <= half a unit in the last asked
    decimal; relative: |x - truth| <= relative * |truth|.
    """

    kind: Literal["exact", "decimals", "relative"]
    decimals: int = 0
    relative: float = 0.0

    def allowed(self, truth: float) -> float:
        """Largest accepted |answer - truth|; the tiny slack absorbs float rounding of the display."""
        bound = {"exact": 0.0, "decimals": 0.5 * 10.0**-self.decimals, "relative": self.relative * abs(truth)}
        return bound[self.kind] + float_slack(truth)

    def phrase(self) -> str:
        """The precision request as the prompt states it."""
        if self.kind == "exact":
            return "给出精确整数"
        if self.kind == "decimals":
            return f"保留 {self.decimals} 位小数"
        return f"相对误差不超过 {self.relative * 100:g}% 即可"

    def format(self, value: Answer) -> str:
        """The answer at the display precision; typing it back always grades correct."""
        if isinstance(value, list):
            return "[" + ", ".join(self.format(v) for v in value) + "]"
        if self.kind == "decimals":
            return f"{round(value, self.decimals) + 0.0:.{self.decimals}f}"  # +0.0 turns -0.0 into 0.0
        return str(int(round(value))) if float(value).is_integer() or self.kind == "exact" else f"{value:.6g}"

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "decimals": self.decimals, "relative": self.relative, "text": self.phrase()}


@dataclass(frozen=True)
class Question:
    checker: str
    seed: int
    prompt: str  # Markdown (Chinese): the inputs and the precision wanted
    inputs: dict[str, Any]  # JSON-able; validates against the checker's Inputs
    answer: Answer
    tolerance: Tolerance
    solution: str  # worked solution (Markdown)
    answer_text: str  # the answer at the display precision

    def to_dict(self) -> dict[str, Any]:
        """JSON for `quiz generate --json`."""
        return {
            "checker": self.checker,
            "seed": self.seed,
            "prompt": self.prompt,
            "inputs": self.inputs,
            "answer": self.answer,
            "answer_text": self.answer_text,
            "tolerance": self.tolerance.to_dict(),
            "solution": self.solution,
        }


class Strict(BaseModel):
    """Base for Params/Inputs: unknown keys are errors; lax mode so YAML's "4" becomes 4."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class LengthBounds(Strict):
    """Params mixin: a drawn length in [min_len, max_len]."""

    min_len: int = 3
    max_len: int = 6

    @model_validator(mode="after")
    def _ordered(self) -> "LengthBounds":
        if not 1 <= self.min_len <= self.max_len <= 12:
            raise ValueError("need 1 <= min_len <= max_len <= 12")
        return self


def draw_values(rng: random.Random, n: int, low: float, high: float, decimals: int) -> list[float]:
    """n values in [low, high], rounded so a prompt shows them exactly (ints when decimals == 0)."""
    values = [round(rng.uniform(low, high), decimals) + 0.0 for _ in range(n)]
    return [int(v) for v in values] if decimals == 0 else values


def num(x: float, digits: int = 4) -> str:
    """A number in a worked solution: fixed digits, trailing zeros kept for alignment."""
    return f"{x + 0.0:.{digits}f}"


def vec(xs: Sequence[float], digits: int | None = None) -> str:
    """A vector as the course writes it; digits=None shows the values as given."""
    return "[" + ", ".join(f"{x:g}" if digits is None else num(x, digits) for x in xs) + "]"


def softmax_steps(scores: Sequence[float], keep: Sequence[int], label: str = "位置") -> str:
    """Worked softmax as a Markdown table: exp of each kept score, their sum, each ratio.

    Masked positions (keep == 0) show −∞ and weight 0, as the reference computes them.
    """
    exps = [math.exp(s) if k else 0.0 for s, k in zip(scores, keep)]
    total = sum(exps)
    rows = [f"| {label} | 分数 | exp | 权重 = exp / Σ |", "| --- | --- | --- | --- |"]
    for j, (s, k, e) in enumerate(zip(scores, keep, exps)):
        rows.append(f"| {j} | {s:g} | {num(e)} | {num(e / total)} |" if k else f"| {j} | {s:g} → −∞ | 0 | 0 |")
    return "\n".join(rows) + f"\n\nΣ exp = {' + '.join(num(e) for e, k in zip(exps, keep) if k)} = {num(total)}"


ParamsT = TypeVar("ParamsT", bound=Strict)
InputsT = TypeVar("InputsT", bound=Strict)
AnswerT = TypeVar("AnswerT", bound=Answer)


class BaseChecker(ABC, Generic[ParamsT, InputsT, AnswerT]):
    """generate() = draw inputs from a seeded RNG, solve them with the reference, explain.

    Subclasses set the class attributes and implement compose / solve / tolerance / explain;
    the type parameters are their Params, their Inputs and the shape of their answer.
    """

    name: ClassVar[str]
    description: ClassVar[str]
    Params: type[ParamsT]  # set on the class; not ClassVar only because a ClassVar cannot be generic
    Inputs: type[InputsT]

    def generate(self, seed: int, params: BaseModel | dict[str, Any] | None = None) -> Question:
        if not isinstance(params, self.Params):
            params = self.Params.model_validate(params or {})
        rng = random.Random(f"{self.name}:{seed}")  # str seeds hash deterministically, per checker
        inputs, prompt = self.compose(rng, params)
        answer = self.solve(inputs)
        tolerance = self.tolerance(params, inputs)
        return Question(
            checker=self.name,
            seed=seed,
            prompt=f"{prompt}\n\n（{tolerance.phrase()}）",
            inputs=inputs.model_dump(exclude_none=True),
            answer=answer,
            tolerance=tolerance,
            solution=self.explain(inputs, answer, tolerance),
            answer_text=tolerance.format(answer),
        )

    @abstractmethod
    def compose(self, rng: random.Random, params: ParamsT) -> tuple[InputsT, str]:
        """Draw the inputs and write the prompt body (Chinese Markdown) in one go."""

    @abstractmethod
    def solve(self, inputs: InputsT) -> AnswerT:
        """The answer, computed by the torch reference (imported here, not at module level)."""

    def tolerance(self, params: Any, inputs: InputsT) -> Tolerance:
        """`params.decimals` places. Any: every Params but ParamCount's has `decimals` (a field, with
        per-checker bounds, that no common base declares); ParamCount overrides this."""
        return Tolerance("decimals", params.decimals)

    @abstractmethod
    def explain(self, inputs: InputsT, answer: AnswerT, tolerance: Tolerance) -> str:
        """The worked solution (Markdown) with the intermediate values."""
