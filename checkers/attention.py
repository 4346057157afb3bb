"""Attention drills: masked softmax rows (padding / causal / forgotten mask) and QK^T/√d_k."""

from __future__ import annotations

import itertools
import math
import random
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Literal

from checkers.base import BaseChecker, Tolerance, answer_line, draw_values, num, softmax_steps, vec
from checkers.said import Said, _
from checkers.shapes import LengthBounds, Strict

if TYPE_CHECKING:  # Field(...) in an annotation is read by pydantic only to validate (checkers.validating)
    from pydantic import Field


@dataclass(frozen=True, kw_only=True)
class MaskedSoftmaxParams(LengthBounds):
    """variant: which mask story; min_kept: real (unmasked, non-PAD) positions a row keeps at least,
    so the answer is never the trivial [1, 0, ...] unless a card sets 1 on purpose; min_masked:
    future positions a causal row hides at least (1: never the last row, which masks nothing)."""

    variant: Literal["padding", "causal", "unmasked", "zero_score"] = "padding"
    min_kept: Annotated[int, Field(ge=1, le=11)] = 2
    min_masked: Annotated[int, Field(ge=0, le=11)] = 0
    decimals: Annotated[int, Field(ge=1, le=6)] = 3

    def check(self) -> None:
        super().check()
        if self.min_masked and self.variant != "causal":
            raise ValueError(Said("min_masked is for variant causal only"))
        need = self.min_kept + self.min_masked if self.variant == "causal" else self.min_kept + 1  # + a PAD / zeroed position
        if self.min_len < need:
            raise ValueError(Said("variant {variant} with min_kept {min_kept} needs min_len >= {need}", variant=self.variant, min_kept=self.min_kept, need=need))


@dataclass(frozen=True, kw_only=True)
class MaskedSoftmaxInputs(Strict):
    scores: Annotated[list[float], Field(min_length=1)]
    mask: list[int]  # 1 = keep, 0 = masked; causal row i: 1 for j <= i
    pads: Annotated[int | None, Field(ge=1)] = None  # the story of a forgotten mask: trailing PADs it should hide

    def check(self) -> None:
        if len(self.mask) != len(self.scores):
            raise ValueError(Said("mask has {mask} entries but scores has {scores}", mask=len(self.mask), scores=len(self.scores)))
        if set(self.mask) - {0, 1}:
            raise ValueError(Said("mask entries must be 0 or 1"))
        if 1 not in self.mask:
            raise ValueError(Said("a fully masked row has no softmax (it would be NaN); keep at least one position"))
        if self.pads is not None and self.pads >= len(self.scores):
            raise ValueError(Said("pads ({pads}) must leave at least one real token of {count}", pads=self.pads, count=len(self.scores)))


def _trailing_zeros(scores: list[float]) -> int:
    return len(scores) - len(list(itertools.dropwhile(lambda s: s == 0, reversed(scores))))


class MaskedSoftmax(BaseChecker[MaskedSoftmaxParams, MaskedSoftmaxInputs, list[float]]):
    name = "masked_softmax"
    description = Said("Masked softmax: a padding / causal row's attention weights (0 where masked), and what a forgotten mask or "
                       "scores written as 0 do")
    Params = MaskedSoftmaxParams
    Inputs = MaskedSoftmaxInputs

    def compose(self, rng: random.Random, params: MaskedSoftmaxParams) -> tuple[MaskedSoftmaxInputs, str]:
        n = rng.randint(params.min_len, params.max_len)
        scores = draw_values(rng, n, -2, 5, rng.choice([0, 1]))
        kept = rng.randint(params.min_kept, n - 1)  # real tokens; the rest are PAD / zeroed
        pads = n - kept
        shown_mask = True
        if params.variant == "causal":
            row = rng.randint(params.min_kept - 1, n - 1 - params.min_masked)
            mask = [int(j <= row) for j in range(n)]
            setting = _("GPT's causal self-attention, row {row} of a sequence of length {n} (positions counted from 0): "
                        "positions j ≤ {row} are visible, the rest masked.").format(row=row, n=n)
            inputs = MaskedSoftmaxInputs(scores=scores, mask=mask)
        elif params.variant == "padding":
            mask = [1] * kept + [0] * pads
            setting = _("In a BERT batch, a sequence of length {n} was padded with {pads} PAD (the last {pads} positions), "
                        "hidden by a padding mask.").format(n=n, pads=pads)
            inputs = MaskedSoftmaxInputs(scores=scores, mask=mask)
        elif params.variant == "unmasked":
            setting = _(
                "In a sequence of length {n} the first {kept} are real tokens and the last {pads} positions are PAD, "
                "but **the attention_mask was forgotten**: the PADs take part in the softmax too. Find the attention weight "
                "each position (PADs included) gets."
            ).format(n=n, kept=kept, pads=pads)
            inputs = MaskedSoftmaxInputs(scores=scores, mask=[1] * n, pads=pads)
        else:
            row = kept - 1
            scores = draw_values(rng, kept, 0.1, 1.0, 2) + [0] * pads
            setting = _(
                "GPT's causal self-attention, row {row} of a sequence of length {n} (positions counted from 0): positions "
                "j > {row} are the future and should be masked, but the code **wrote their scores as 0** instead of −∞."
            ).format(row=row, n=n)
            inputs = MaskedSoftmaxInputs(scores=scores, mask=[1] * n)
            shown_mask = False
        mask_text = _(", mask = `{mask}` (1 = kept, 0 = masked)").format(mask=vec(inputs.mask)) if shown_mask else ""
        zeros = _("0 where masked") if 0 in inputs.mask else _("one for every position")
        prompt = _(
            "{setting}\n\nThis row's attention scores are `{scores}`{mask_text}.\n\n"
            "Find the weight vector after the softmax ({n} numbers, {zeros})."
        ).format(setting=setting, scores=vec(inputs.scores), mask_text=mask_text, n=n, zeros=zeros)
        return inputs, prompt

    def why_out_of_range(self, params: MaskedSoftmaxParams, inputs: MaskedSoftmaxInputs) -> str | None:
        n, mask = len(inputs.mask), inputs.mask
        kept = sum(mask)
        if not params.min_len <= n <= params.max_len:
            return Said("row length {n} is outside [{low}, {high}]", n=n, low=params.min_len, high=params.max_len)
        if params.variant in ("padding", "causal") and mask != [1] * kept + [0] * (n - kept):
            return Said("a {variant} mask keeps a prefix, not {mask}", variant=params.variant, mask=str(mask))
        if params.variant == "padding" and kept == n:
            return Said("a padding row needs at least one PAD")
        if params.variant == "causal" and n - kept < params.min_masked:
            return Said("the card asks a causal row to hide at least {least} future position(s); this one hides {hidden}",
                        least=params.min_masked, hidden=n - kept)
        if params.variant in ("unmasked", "zero_score") and kept != n:
            return Said("variant {variant} masks nothing, but the mask is {mask}", variant=params.variant, mask=str(mask))
        real = kept
        if params.variant == "unmasked":
            if inputs.pads is None:
                return Said("a forgotten-mask row needs PADs in its story")
            real = n - inputs.pads
        if params.variant == "zero_score":
            real = n - _trailing_zeros(inputs.scores)
            if real == n or 0 in inputs.scores[:real]:
                return Said("a zero-score row needs trailing zero scores after non-zero ones, not {scores}", scores=str(inputs.scores))
        if real < params.min_kept:
            return Said("only {real} real position(s); the card asks for at least {least}", real=real, least=params.min_kept)
        return None

    def solve(self, inputs: MaskedSoftmaxInputs) -> list[float]:
        import torch

        from checkers import reference

        scores = torch.tensor(inputs.scores, dtype=reference.DTYPE)
        return reference.masked_softmax(scores, torch.tensor(inputs.mask)).tolist()

    def explain(self, inputs: MaskedSoftmaxInputs, answer: list[float], tolerance: Tolerance) -> str:
        if 0 in inputs.mask:
            why = _("Scores where the mask is 0 become −∞ **before** the softmax, and exp(−∞) = 0, so masked positions "
                    "weigh exactly 0 and the other positions' weights sum to 1.")
        elif inputs.pads:
            why = _("No attention_mask was passed, no score became −∞, so the PADs get positive weights too and take "
                    "attention away from the real tokens.")
        elif _trailing_zeros(inputs.scores):
            why = _("A score written as 0 is not masked: exp(0) = 1 > 0, so those positions still get positive weights. "
                    "Only −∞ makes a weight 0.")
        else:
            why = _("Every position of this row is visible: the softmax runs over the whole row.")
        return (f"{why}\n\n{softmax_steps(inputs.scores, inputs.mask, asked=tolerance)}\n\n"
                + answer_line(tolerance.format(answer)))


@dataclass(frozen=True, kw_only=True)
class ScaledScoresParams(LengthBounds):
    min_len: int = 2  # number of keys
    max_len: int = 4
    d_k: Annotated[int | None, Field(ge=1, le=8)] = None  # None: drawn from 2..4
    decimals: Annotated[int, Field(ge=1, le=6)] = 3


@dataclass(frozen=True, kw_only=True)
class ScaledScoresInputs(Strict):
    q: Annotated[list[float], Field(min_length=1)]
    k: Annotated[list[list[float]], Field(min_length=1)]

    def check(self) -> None:
        if any(len(key) != len(self.q) for key in self.k):
            raise ValueError(Said("every key needs d_k = {d_k} entries, like q", d_k=len(self.q)))


def _nonzero(rng: random.Random, d_k: int) -> list[float]:
    """A query or key of small integers, never all zero (its scores would be 0 whatever it meets)."""
    while not any(vector := draw_values(rng, d_k, -2, 3, 0)):
        pass
    return vector


class ScaledScores(BaseChecker[ScaledScoresParams, ScaledScoresInputs, list[float]]):
    name = "scaled_scores"
    description = Said("Scaled dot-product scores: one query against each key, q·k / √d_k")
    Params = ScaledScoresParams
    Inputs = ScaledScoresInputs

    def compose(self, rng: random.Random, params: ScaledScoresParams) -> tuple[ScaledScoresInputs, str]:
        d_k = params.d_k or rng.randint(2, 4)
        keys = rng.randint(params.min_len, params.max_len)
        inputs = ScaledScoresInputs(q=_nonzero(rng, d_k), k=[_nonzero(rng, d_k) for _key in range(keys)])
        key_lines = "\n".join(f"- k{j} = `{vec(key)}`" for j, key in enumerate(inputs.k))
        prompt = _(
            "d_k = {d_k}. The query q = `{q}`, and {keys} keys:\n\n{key_lines}\n\n"
            "Find the scaled dot-product attention scores {formula} (before the softmax): {keys} numbers, in the keys' order."
        ).format(d_k=d_k, q=vec(inputs.q), keys=keys, key_lines=key_lines, formula="$q k_j^\\top / \\sqrt{d_k}$")
        return inputs, prompt

    def why_out_of_range(self, params: ScaledScoresParams, inputs: ScaledScoresInputs) -> str | None:
        if params.d_k is not None and len(inputs.q) != params.d_k:
            return Said("d_k is {got}, the card asks for {wanted}", got=len(inputs.q), wanted=params.d_k)
        if not params.min_len <= len(inputs.k) <= params.max_len:
            return Said("{n} keys, outside [{low}, {high}]", n=len(inputs.k), low=params.min_len, high=params.max_len)
        if not all(any(vector) for vector in (inputs.q, *inputs.k)):
            return Said("a zero query or key scores 0 against everything: nothing to compute")
        return None

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
            lines.append(_("- k{j}: q·k = {terms} = {dot}, ÷ {root} = {score}").format(
                j=j, terms=terms, dot=f"{dot:g}", root=num(root), score=num(score)))
        return "\n".join(lines) + "\n\n" + answer_line(tolerance.format(answer))
