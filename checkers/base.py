"""The checker interface (Question, Tolerance, BaseChecker) and the seeded generate flow they share.

No torch and no pydantic here: study imports this on the way to a numeric card. generate() is
draw() (compose the prompt: no torch, and the card's params read into plain dataclasses, see
``checkers.shapes``) then finish() (solve with the torch reference), so a front end can show the
prompt at once and solve in the background.
"""

from __future__ import annotations

import math
import random
import re
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ClassVar, Generic, Literal, TypeVar

from checkers.said import COURSE_LANGUAGE, N_, _, language, speaking
from checkers.shapes import Strict

Answer = int | float | list[float]

UNITS = {"K": 3, "M": 6, "B": 9, "万": 4, "亿": 8}  # the suffixes an estimate may be asked in


def float_slack(truth: float) -> float:
    """Room for binary rounding when a written decimal is compared with a computed float."""
    return 1e-14 * max(1.0, abs(truth))


TIE_NOISE = Fraction(1, 10**13)  # how far below or above a tie a float's own error can put a value


def fixed(value: float, decimals: int, grouping: bool = False) -> str:
    """``value`` to ``decimals`` places, a tie rounded away from zero as school teaches (75.705 →
    75.71), also where the float computing it fell a hair short of the tie (757.05 × 0.1 =
    75.70499999999996, which Python rounds to 75.70): within TIE_NOISE of the value, and far below
    the last digit shown, counts as the tie. Exact arithmetic, so a whole number keeps its digits."""
    scaled = abs(Fraction(value)) * 10**decimals
    whole = math.floor(scaled)
    off_tie = abs(scaled - whole - Fraction(1, 2))
    units = whole + (scaled - whole > Fraction(1, 2) or off_tie <= min(scaled * TIE_NOISE, Fraction(1, 10**6)))
    integer, fraction = divmod(units, 10**decimals)
    digits = (f"{integer:,}" if grouping else f"{integer}") + (f".{fraction:0{decimals}d}" if decimals else "")
    return "-" + digits if value < 0 and units else digits  # never -0.00


def grouped(value: float, decimals: int = 0) -> str:
    """A number with thousands separators ("16,226,304"), which the answer grammar reads back."""
    return fixed(value, decimals, grouping=True)


def _magnitude(value: float) -> int:
    """The power of ten of value's first significant digit (0 for 0)."""
    return math.floor(math.log10(abs(value))) if value else 0


@dataclass(frozen=True)
class Tolerance:
    """What the question asks for, which fixes both the display and the grading bound.

    exact: an integer, nothing else; decimals: |x - truth| <= half a unit in the last asked
    decimal; relative: |x - truth| <= relative * |truth|; unit: an estimate in `unit` (M, 万 ...)
    to `decimals` places ("about how many M, to 1 decimal place"); significant: an estimate to `decimals`
    significant digits (1 = the order of magnitude an interviewer asks for). ``measure``: what
    the question counts in (GB, GiB, bytes, FLOPs: an English id, shown translated), which a typed answer may say after its number.
    ``vector``: the answer is several numbers, each held to this precision (exact: integers, typed
    as the grammar reads a vector).
    """

    kind: Literal["exact", "decimals", "relative", "unit", "significant"]
    decimals: int = 0
    relative: float = 0.0
    unit: str = ""
    measure: str = ""
    vector: bool = False

    def allowed(self, truth: float) -> float:
        """Largest accepted |answer - truth|; the tiny slack absorbs float rounding of the display."""
        if self.kind == "unit":
            bound = 0.5 * 10.0 ** (UNITS[self.unit] - self.decimals)
        elif self.kind == "significant":
            bound = 0.5 * 10.0 ** (_magnitude(truth) - self.decimals + 1)
        else:
            bound = {"exact": 0.0, "decimals": 0.5 * 10.0**-self.decimals, "relative": self.relative * abs(truth)}[self.kind]
        return bound + float_slack(truth)

    def phrase(self) -> str:
        """The precision request as the prompt states it."""
        if self.kind == "exact":
            if self.vector:
                return _("give exact integers, separated by commas or spaces, with or without the brackets")
            return _("give the exact integer")
        if self.kind == "decimals":
            return (_("round to {count} decimal place") if self.decimals == 1 else
                    _("round to {count} decimal places")).format(count=self.decimals)
        if self.kind == "unit":
            return (_("an estimate in {unit}, to {count} decimal place, as in {example}{unit}") if self.decimals == 1 else
                    _("an estimate in {unit}, to {count} decimal places, as in {example}{unit}")).format(
                unit=self.unit, count=self.decimals, example=f"{12.345:.{self.decimals}f}")
        if self.kind == "significant":
            if self.decimals == 1:
                return _("the order of magnitude: 1 significant digit is enough, with a unit K, M or B if you like")
            return _("an estimate: {count} significant digits are enough, with a unit K, M or B if you like").format(
                count=self.decimals)
        return _("a relative error of at most {percent}% is enough").format(percent=f"{self.relative * 100:g}")

    def format(self, value: Answer) -> str:
        """The answer at the display precision; typing it back always grades correct.

        Scalars get thousands separators; vector entries do not (the comma separates entries)."""
        if isinstance(value, list):
            return "[" + ", ".join(self._one(v, grouping=False) for v in value) + "]"
        return self._one(value, grouping=True)

    def _one(self, value: float, grouping: bool) -> str:
        if self.kind == "unit":
            return fixed(value / 10.0 ** UNITS[self.unit], self.decimals) + self.unit
        if self.kind == "significant":
            rounded = round(value, self.decimals - 1 - _magnitude(value))
            if abs(rounded) >= 1e15:  # past a thousand B, as an interviewer writes FLOPs: 8.4×10^22
                return f"{rounded / 10.0 ** _magnitude(rounded):g}×10^{_magnitude(rounded)}"
            shift, suffix = next(((UNITS[u], u) for u in ("B", "M", "K") if abs(rounded) >= 10.0 ** UNITS[u]), (0, ""))
            return f"{rounded / 10.0**shift:g}{suffix}"
        decimals = self.decimals if self.kind == "decimals" else 0
        if self.kind != "decimals" and not (float(value).is_integer() or self.kind == "exact"):
            return f"{value:.6g}"
        return fixed(value, decimals, grouping)

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind, "decimals": self.decimals, "relative": self.relative, "unit": self.unit,
            "measure": self.measure, "vector": self.vector, "text": self.phrase(),
        }


@dataclass(frozen=True)
class Question:
    checker: str
    seed: int
    prompt: str  # Markdown, in the language drawn in: the inputs and the precision wanted
    inputs: dict[str, Any]  # JSON-able; validates against the checker's Inputs
    answer: Answer
    tolerance: Tolerance
    solution: str  # worked solution (Markdown)
    answer_text: str  # the answer at the display precision
    other_accepted: tuple[float, ...] = ()  # other values graded like the answer (a careful learner's roundings); for a vector answer, whole vectors one after another

    def to_dict(self) -> dict[str, Any]:
        """JSON for `quiz generate --json`."""
        return {
            "checker": self.checker,
            "seed": self.seed,
            "prompt": self.prompt,
            "inputs": self.inputs,
            "answer": self.answer,
            "answer_text": self.answer_text,
            "also": list(self.other_accepted),  # the JSON of `quiz generate --json`
            "tolerance": self.tolerance.to_dict(),
            "solution": self.solution,
        }


@dataclass(frozen=True)
class Draft:
    """A composed question before it is solved: all the learner sees first (no torch needed)."""

    checker: str
    seed: int
    prompt: str
    inputs: Any  # the checker's Inputs model
    tolerance: Tolerance
    language: str = COURSE_LANGUAGE  # the prompt's: finish explains in it too, on whatever thread solves


def draw_values(rng: random.Random, n: int, low: float, high: float, decimals: int) -> list[float]:
    """n values in [low, high], rounded so a prompt shows them exactly (ints when decimals == 0)."""
    values = [round(rng.uniform(low, high), decimals) + 0.0 for _ in range(n)]
    return [int(v) for v in values] if decimals == 0 else values


def num(x: float, digits: int = 4) -> str:
    """A number in a worked solution: fixed digits, trailing zeros kept for alignment."""
    return fixed(x, digits)


def vec(xs: Sequence[float], digits: int | None = None) -> str:
    """A vector as the course writes it; digits=None shows the values as given."""
    return "[" + ", ".join(f"{x:g}" if digits is None else num(x, digits) for x in xs) + "]"


_CODE = re.compile(r"(`[^`]*`|\$[^$]*\$)")  # code spans and LaTeX keep their own spacing


def spaced(text: str) -> str:
    """Chinese typesetting: a space between a Chinese character and a Latin word or number
    ("求 Token Embedding"), outside code spans and LaTeX; "1.1亿" keeps its unit attached."""
    parts = _CODE.split(text)  # odd indexes: code spans and formulas
    for i in range(0, len(parts), 2):
        part = parts[i]
        parts[i] = "".join(" " + c if j and _gap(part[j - 1], c) else c for j, c in enumerate(part))
    for i in range(1, len(parts), 2):
        if _cjk(parts[i - 1].removesuffix("\n")[-1:]):  # a line ending in Chinese just before counts too
            parts[i - 1] += " "
        if _cjk(parts[i + 1][:1]):
            parts[i + 1] = " " + parts[i + 1]
    return "".join(parts)


def _cjk(char: str) -> bool:
    """A Chinese character (CJK Unified Ideographs and Extension A). Compared, not matched by a
    regex: compiling a class this wide costs a numeric card's start-up milliseconds."""
    return "\u3400" <= char <= "\u4dbf" or "\u4e00" <= char <= "\u9fff"


def _gap(before: str, after: str) -> bool:
    """Whether ``spaced`` puts a space between these two characters."""
    if _cjk(before):
        return after.isascii() and after.isalnum()
    return _cjk(after) and before.isascii() and (before.isalpha() or before.isdigit() and after not in "万亿")


def softmax_steps(scores: Sequence[float], keep: Sequence[int], label: str = N_("position"),
                  asked: Tolerance | None = None) -> str:
    """Worked softmax as a Markdown table: exp of each kept score, their sum, each ratio.

    Masked positions (keep == 0) show −∞ and weight 0, as the reference computes them. The
    weights have two places past those the answer asks for (``asked``; else 3), as grading's
    two-step rounding allows for: one past, 0.71645 read 0.7165, which the learner then rounded to
    a wrong 0.717; a card asking 4 places showed 0.00445 for an answer of 0.0044.
    """
    places = (asked.decimals if asked is not None and asked.kind == "decimals" else 3) + 2
    exps = [math.exp(s) if k else 0.0 for s, k in zip(scores, keep)]
    total = sum(exps)
    rows = [_("| {label} | score | exp | weight = exp / Σ |").format(label=_(label)), "| --- | --- | --- | --- |"]
    for j, (s, k, e) in enumerate(zip(scores, keep, exps)):
        rows.append(f"| {j} | {s:g} | {num(e)} | {num(e / total, places)} |" if k else f"| {j} | {s:g} → −∞ | 0 | 0 |")
    return "\n".join(rows) + f"\n\nΣ exp = {' + '.join(num(e) for e, k in zip(exps, keep) if k)} = {num(total)}"


def answer_line(answer: str) -> str:
    """A worked solution's last line: the answer at the asked precision, as a code span."""
    return _("Answer: `{answer}`").format(answer=answer)


ParamsT = TypeVar("ParamsT", bound=Strict)
InputsT = TypeVar("InputsT", bound=Strict)
AnswerT = TypeVar("AnswerT", bound=Answer)


class BaseChecker(ABC, Generic[ParamsT, InputsT, AnswerT]):
    """generate() = draw inputs from a seeded RNG (draw), then solve them with the reference and
    explain (finish).

    Subclasses set the class attributes and implement compose / solve / tolerance / explain;
    the type parameters are their Params, their Inputs and the shape of their answer.
    """

    name: ClassVar[str]
    description: ClassVar[str]
    Params: type[ParamsT]  # set on the class; not ClassVar only because a ClassVar cannot be generic
    Inputs: type[InputsT]

    def params(self, params: Strict | dict[str, Any] | None) -> ParamsT:
        """Params from a card's YAML mapping (or already validated)."""
        return params if isinstance(params, self.Params) else self.Params.model_validate(params or {})

    def draw(self, seed: int, params: Strict | dict[str, Any] | None = None) -> Draft:
        """The question as the learner first sees it; composing never imports torch."""
        valid = self.params(params)
        inputs, prompt = self.compose(self._rng(seed), valid)
        tolerance = self.tolerance(valid, inputs)
        asked = _("{prompt}\n\n({precision})").format(prompt=prompt, precision=tolerance.phrase())
        return Draft(self.name, seed, spaced(asked), inputs, tolerance, language())

    def inputs(self, seed: int, params: ParamsT) -> InputsT:
        """The inputs ``draw`` makes for this seed, without typesetting the prompt: lint draws a
        hundred per card and needs no prompt."""
        return self.compose(self._rng(seed), params)[0]

    def _rng(self, seed: int) -> random.Random:
        return random.Random(f"{self.name}:{seed}")  # str seeds hash deterministically, per checker

    def finish(self, draft: Draft) -> Question:
        """Solve and explain a drawn question (the torch reference runs here), in its language."""
        with speaking(draft.language):
            return self._solved(draft)

    def _solved(self, draft: Draft) -> Question:
        answer = self.solve(draft.inputs)
        return Question(
            checker=self.name,
            seed=draft.seed,
            prompt=draft.prompt,
            inputs=draft.inputs.model_dump(exclude_none=True),
            answer=answer,
            tolerance=draft.tolerance,
            solution=self.explain(draft.inputs, answer, draft.tolerance),
            answer_text=draft.tolerance.format(answer),
            other_accepted=self.other_accepted(draft.inputs, answer, draft.tolerance),
        )

    def generate(self, seed: int, params: Strict | dict[str, Any] | None = None) -> Question:
        return self.finish(self.draw(seed, params))

    def why_out_of_range(self, params: ParamsT, inputs: InputsT) -> str | None:
        """Why drawn inputs leave the point `params` state (None: inside), as a
        ``grading.Said`` the interface translates. Checked on the inputs, not trusted from
        compose, so lint can reject a card whose params let the draw wander."""
        return None

    def other_accepted(self, inputs: InputsT, answer: AnswerT, tolerance: Tolerance) -> tuple[float, ...]:
        """Other values graded like the answer (see MlmLoss: terms rounded before averaging); for a
        vector answer, whole vectors one after another (see LayerNorm: the shown 4-place σ)."""
        return ()

    @abstractmethod
    def compose(self, rng: random.Random, params: ParamsT) -> tuple[InputsT, str]:
        """Draw the inputs and write the prompt body (Markdown, its words through ``said._``) in one go."""

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
