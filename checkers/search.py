"""Beam search over two steps of a three-token vocabulary: the sequence a beam of width k keeps,
against greedy decoding (width 1), which can miss the likelier sequence."""

from __future__ import annotations

import itertools
import random
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated

from checkers.base import BaseChecker, Tolerance, answer_line, num
from checkers.said import Said, _, join
from checkers.shapes import Strict

if TYPE_CHECKING:  # Field(...) in an annotation is read by pydantic only to validate (checkers.validating)
    from pydantic import Field

TOKENS = "ABC"


@dataclass(frozen=True, kw_only=True)
class BeamSearchParams(Strict):
    width: Annotated[int, Field(ge=0, le=2)] = 0  # 0: 1 or 2
    decimals: Annotated[int, Field(ge=4, le=6)] = 4  # a product of two 2-place probabilities is exact at 4


@dataclass(frozen=True, kw_only=True)
class BeamSearchInputs(Strict):
    first: Annotated[list[float], Field(min_length=2)]  # P(token at step 1)
    second: Annotated[list[list[float]], Field(min_length=2)]  # row a: P(token at step 2 | step 1 = a)
    width: Annotated[int, Field(ge=1)]

    def check(self) -> None:
        rows = [self.first, *self.second]
        if len(self.second) != len(self.first) or any(len(row) != len(self.first) for row in self.second):
            raise ValueError(Said("second needs one row per first-step token, each as long as first"))
        if any(abs(sum(row) - 1) > 1e-9 or min(row) <= 0 for row in rows):
            raise ValueError(Said("each distribution must be positive and sum to 1"))
        if self.width > len(self.first):
            raise ValueError(Said("the beam cannot be wider than the vocabulary"))


def candidates(inputs: BeamSearchInputs) -> list[tuple[float, int, int]]:
    """(probability, first token, second token) of every sequence the beam expands, best first."""
    kept = sorted(range(len(inputs.first)), key=lambda a: -inputs.first[a])[: inputs.width]
    return sorted(((inputs.first[a] * inputs.second[a][b], a, b) for a in kept for b in range(len(inputs.first))), reverse=True)


def _distribution(rng: random.Random, n: int) -> list[float]:
    """n distinct positive probabilities with two places that sum to 1."""
    while True:
        cuts = sorted(rng.sample(range(5, 96), n - 1))
        parts = [b - a for a, b in zip([0, *cuts], [*cuts, 100])]
        if min(parts) >= 3 and len(set(parts)) == n:
            return [p / 100 for p in parts]


class BeamSearch(BaseChecker[BeamSearchParams, BeamSearchInputs, float]):
    name = "beam_search"
    description = Said("Beam search: the probability of the sequence a beam of width k picks in two decoding steps, against greedy decoding")
    Params = BeamSearchParams
    Inputs = BeamSearchInputs

    def compose(self, rng: random.Random, params: BeamSearchParams) -> tuple[BeamSearchInputs, str]:
        width = params.width or rng.choice([1, 2])
        while True:
            first = _distribution(rng, 3)
            inputs = BeamSearchInputs(first=first, second=[_distribution(rng, 3) for _token in TOKENS], width=width)
            every = sorted(first[a] * inputs.second[a][b] for a, b in itertools.product(range(3), repeat=2))
            if all(high - low > 1e-9 for low, high in zip(every, every[1:])):  # no ties anywhere
                break
        rows = "\n".join(f"| {TOKENS[a]} | " + " | ".join(f"{p:g}" for p in row) + " |" for a, row in enumerate(inputs.second))
        how = (_("greedy decoding (a beam of width 1: only the most likely token kept at each step)") if width == 1 else
               _("beam search of width k = {width}").format(width=width))
        prompt = _(
            "The vocabulary is only A, B and C; decode two steps. Step 1's distribution: P(A) = {a}, P(B) = {b}, P(C) = {c}. "
            "Step 2's distribution given a at step 1, P(· | a):\n\n| a | A | B | C |\n| --- | --- | --- | --- |\n{rows}\n\n"
            "Decode with {how}; a sequence scores the product of its two steps' probabilities (the sum of log "
            "probabilities), with no length normalisation. Find the probability of the sequence picked in the end."
        ).format(a=f"{first[0]:g}", b=f"{first[1]:g}", c=f"{first[2]:g}", rows=rows, how=how)
        return inputs, prompt

    def why_out_of_range(self, params: BeamSearchParams, inputs: BeamSearchInputs) -> str | None:
        if params.width and inputs.width != params.width:
            return Said("a beam of width {got}, the card wants {wanted}", got=inputs.width, wanted=params.width)
        return None

    def solve(self, inputs: BeamSearchInputs) -> float:
        import torch

        from checkers import reference

        first = torch.tensor(inputs.first, dtype=reference.DTYPE)
        return float(reference.beam_search_probability(first, torch.tensor(inputs.second, dtype=reference.DTYPE), inputs.width))

    def explain(self, inputs: BeamSearchInputs, answer: float, tolerance: Tolerance) -> str:
        kept = sorted(range(3), key=lambda a: -inputs.first[a])[: inputs.width]
        lines = [_("Step 1 keeps the {width} most likely: {kept}").format(
            width=inputs.width, kept=join(_("{token} ({p})").format(token=TOKENS[a], p=f"{inputs.first[a]:g}") for a in kept))]
        rows = [_("| Sequence | Probability |"), "| --- | --- |"]
        rows += [f"| {TOKENS[a]}{TOKENS[b]} | {inputs.first[a]:g} × {inputs.second[a][b]:g} = {num(p)} |" for p, a, b in candidates(inputs)]
        best, a, b = candidates(inputs)[0]
        overall = max((inputs.first[x] * inputs.second[x][y], x, y) for x, y in itertools.product(range(3), repeat=2))
        missed = (
            _("The most likely of all 9 sequences is {sequence} ({p}): it was picked.") if overall[1:] == (a, b) else
            _("The most likely of all 9 sequences is {sequence} ({p}): it was cut at step 1; the narrower the beam, the "
              "likelier it misses it.")
        ).format(sequence=TOKENS[overall[1]] + TOKENS[overall[2]], p=num(overall[0]))
        return (
            "\n\n".join(lines) + "\n\n" + _("Step 2 expanded:") + "\n\n" + "\n".join(rows) + "\n\n"
            + _("Picked {sequence}, probability {p}. {missed}").format(sequence=TOKENS[a] + TOKENS[b], p=num(best), missed=missed)
            + "\n\n" + answer_line(tolerance.format(answer))
        )
