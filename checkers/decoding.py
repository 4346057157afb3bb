"""Language-model outputs: perplexity from token probabilities or a loss, and the next-token
distribution after temperature, top-k and top-p."""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Literal

from checkers.base import BaseChecker, Tolerance, answer_line, draw_values, num, softmax_steps, vec
from checkers.said import N_, Said, _
from checkers.shapes import LengthBounds, Strict

if TYPE_CHECKING:  # Field(...) in an annotation is read by pydantic only to validate (checkers.validating)
    from pydantic import Field


@dataclass(frozen=True, kw_only=True)
class PerplexityParams(LengthBounds):
    min_len: int = 2
    max_len: int = 5
    form: Literal["probs", "loss", "any"] = "any"
    decimals: Annotated[int, Field(ge=1, le=6)] = 2


@dataclass(frozen=True, kw_only=True)
class PerplexityInputs(Strict):
    """Either `probs` (the probability the model gave each actual next token) or a mean `loss` (nats)."""

    probs: Annotated[list[float] | None, Field(min_length=1)] = None
    loss: Annotated[float | None, Field(ge=0, le=20)] = None

    def check(self) -> None:
        if (self.probs is None) == (self.loss is None):
            raise ValueError(Said("give either probs or loss"))
        if self.probs is not None and not all(0 < p <= 1 for p in self.probs):
            raise ValueError(Said("probabilities must lie in (0, 1]"))


MEAN_PLACES = 3  # places of the mean NLL the prompt says are enough (the worked solution shows 4)


class Perplexity(BaseChecker[PerplexityParams, PerplexityInputs, float]):
    name = "perplexity"
    description = Said("Perplexity PPL = exp(mean negative log-likelihood): from each token's probability or from the cross-entropy loss")
    Params = PerplexityParams
    Inputs = PerplexityInputs

    def compose(self, rng: random.Random, params: PerplexityParams) -> tuple[PerplexityInputs, str]:
        form = params.form if params.form != "any" else rng.choice(["probs", "loss"])
        if form == "probs":
            n = rng.randint(params.min_len, params.max_len)
            inputs = PerplexityInputs(probs=draw_values(rng, n, 0.05, 0.9, 2))
            setting = _(
                "Over a text of {n} tokens, a language model gave each next token that actually came these probabilities, in "
                "order: `{probs}`.\n\nFind the text's perplexity (averaged per token; the mean negative log-likelihood on "
                "the way to {places} decimal places is enough)."
            ).format(n=n, probs=vec(inputs.probs or []), places=MEAN_PLACES)
        else:
            inputs = PerplexityInputs(loss=draw_values(rng, 1, 1.5, 4.5, 2)[0])
            setting = _(
                "GPT's mean cross-entropy loss on the validation set (the mean of `F.cross_entropy`, natural logarithm) is "
                "{loss}.\n\nFind the perplexity it means."
            ).format(loss=f"{inputs.loss:g}")
        return inputs, setting

    def why_out_of_range(self, params: PerplexityParams, inputs: PerplexityInputs) -> str | None:
        form = "probs" if inputs.probs is not None else "loss"
        if params.form != "any" and form != params.form:
            return Said("given as {got}, the card wants {wanted}", got=form, wanted=params.form)
        if inputs.probs is not None and not params.min_len <= len(inputs.probs) <= params.max_len:
            return Said("{n} tokens is outside [{low}, {high}]", n=len(inputs.probs), low=params.min_len, high=params.max_len)
        return None

    def solve(self, inputs: PerplexityInputs) -> float:
        import torch

        from checkers import reference

        if inputs.probs is not None:
            nll = reference.nll_of_probability(torch.tensor(inputs.probs, dtype=reference.DTYPE))
        else:
            nll = torch.tensor([inputs.loss], dtype=reference.DTYPE)
        return float(reference.perplexity(nll))

    def other_accepted(self, inputs: PerplexityInputs, answer: float, tolerance: Tolerance) -> tuple[float, ...]:
        """exp of the mean NLL at the places the prompt asks and at the places the worked solution
        shows: a learner who rounds the mean as told is right."""
        if inputs.probs is None:
            return ()
        mean = sum(-math.log(p) for p in inputs.probs) / len(inputs.probs)
        return tuple(math.exp(float(num(mean, places))) for places in (MEAN_PLACES, 4))

    def explain(self, inputs: PerplexityInputs, answer: float, tolerance: Tolerance) -> str:
        if inputs.probs is None:
            steps = f"PPL = exp(loss) = exp({inputs.loss:g}) = {num(answer)}"
        else:
            losses = [-math.log(p) for p in inputs.probs]
            mean = sum(losses) / len(losses)
            steps = (
                "\n".join(f"- −ln({p:g}) = {num(loss)}" for p, loss in zip(inputs.probs, losses))
                + "\n\n" + _("Mean = ({terms}) / {n} = {mean}").format(
                    terms=" + ".join(num(loss) for loss in losses), n=len(losses), mean=num(mean)) + "\n\n"
                + _("PPL = exp({mean}) = {ppl} (one over the probabilities' geometric mean)").format(mean=num(mean), ppl=num(answer))
            )
        return (
            _("Perplexity = exp(the mean negative log-likelihood per token), the exponential of the cross-entropy loss "
              "(nats): how many equally likely tokens the model hesitates between, on average.") + "\n\n" + steps
            + "\n\n" + answer_line(tolerance.format(answer))
        )


MARGIN = 0.01  # a drawn top-p stays this far from every cumulative sum, so rounding cannot flip a token


@dataclass(frozen=True, kw_only=True)
class SamplingParams(LengthBounds):
    min_len: int = 4
    max_len: int = 6
    variant: Literal["temperature", "top_k", "top_p", "combined", "any"] = "any"
    decimals: Annotated[int, Field(ge=1, le=6)] = 3


@dataclass(frozen=True, kw_only=True)
class SamplingInputs(Strict):
    logits: Annotated[list[float], Field(min_length=2)]
    temperature: Annotated[float, Field(gt=0, le=100)] = 1.0
    top_k: Annotated[int, Field(ge=0)] = 0  # 0 = off
    top_p: Annotated[float, Field(gt=0, le=1)] = 1.0  # 1 = off

    def check(self) -> None:
        if self.top_k > len(self.logits):
            raise ValueError(Said("top_k {top_k} exceeds the {count} logits", top_k=self.top_k, count=len(self.logits)))
        if (self.top_k or self.top_p < 1) and len(set(self.logits)) != len(self.logits):
            raise ValueError(Said("top-k / top-p need distinct logits (a tie makes the kept set ambiguous)"))


def _probs(z: list[float]) -> list[float]:
    """softmax over the finite entries (pure Python: the prompt's side of the top-p margin check)."""
    top = max(z)
    exps = [math.exp(v - top) if v != -math.inf else 0.0 for v in z]
    return [e / sum(exps) for e in exps]


def _steps(inputs: SamplingInputs) -> tuple[list[float], list[int], list[int]]:
    """z = logits / T, the top-k keep mask, and the final keep mask after top-p (pure Python, for the
    worked solution and the margin check; the answer itself comes from the reference)."""
    z = [v / inputs.temperature for v in inputs.logits]
    keep = [1] * len(z)
    if inputs.top_k:
        kth = sorted(z, reverse=True)[inputs.top_k - 1]
        keep = [int(v >= kth) for v in z]
    after_k = list(keep)
    if inputs.top_p < 1:
        probs = _probs([v if k else -math.inf for v, k in zip(z, keep)])
        mass = 0.0
        for j in sorted(range(len(z)), key=lambda j: -probs[j]):
            keep[j] = int(keep[j] and mass < inputs.top_p)
            mass += probs[j]
    return z, after_k, keep


class Sampling(BaseChecker[SamplingParams, SamplingInputs, list[float]]):
    name = "sampling"
    description = Said("Decoding: the sampling distribution of a row of logits after temperature, top-k and top-p (nucleus)")
    Params = SamplingParams
    Inputs = SamplingInputs

    def compose(self, rng: random.Random, params: SamplingParams) -> tuple[SamplingInputs, str]:
        n = rng.randint(params.min_len, params.max_len)
        variant = params.variant if params.variant != "any" else rng.choice(["temperature", "top_k", "top_p", "combined"])
        while True:
            logits = draw_values(rng, n, -1, 4, rng.choice([0, 1]))
            if len(set(logits)) < n:
                continue
            temperature = rng.choice([0.5, 0.7, 2.0]) if variant in ("temperature", "combined") else 1.0
            top_k = rng.randint(2, n - 1) if variant in ("top_k", "combined") else 0
            top_p = rng.choice([0.5, 0.6, 0.7, 0.8, 0.9]) if variant in ("top_p", "combined") else 1.0
            inputs = SamplingInputs(logits=logits, temperature=temperature, top_k=top_k, top_p=top_p)
            if self._clear(inputs) and (sum(_steps(inputs)[2]) >= 2 or not (top_k or top_p < 1)):
                break  # top-p not on a rounding edge, and filtering leaves something to renormalise
        rules = []
        if temperature != 1.0:
            rules.append(_("temperature T = {t} (the logits divided by T)").format(t=f"{temperature:g}"))
        if top_k:
            rules.append(_("top-k, k = {k} (only the {k} largest kept)").format(k=top_k))
        if top_p < 1:
            rules.append(_("top-p, p = {p} (taken from the most likely down, keeping the smallest set whose cumulative "
                           "probability first reaches p)").format(p=f"{top_p:g}"))
        prompt = (
            _("A toy GPT whose vocabulary has only {n} tokens; the next token's logits = `{logits}` (tokens 0…{last}). "
              "Decoding settings: {rules}.").format(n=n, logits=vec(logits), last=n - 1, rules=_("; ").join(rules))
            + (_(" In transformers' order: first divide by the temperature, then top-k, then top-p; filtered tokens become "
                 "−∞ and the softmax is taken again.") if len(rules) > 1 else "")
            + "\n\n" + _("Find the final sampling distribution ({n} probabilities, in token order, 0 for a filtered one).").format(n=n)
        )
        return inputs, prompt

    @staticmethod
    def _clear(inputs: SamplingInputs) -> bool:
        """No cumulative sum lies within MARGIN of top_p, so the kept set is not a rounding call."""
        if inputs.top_p == 1.0:
            return True
        z, keep, _ = _steps(inputs)
        probs = sorted(_probs([v if k else -math.inf for v, k in zip(z, keep)]), reverse=True)
        sums = [sum(probs[: i + 1]) for i in range(len(probs))]
        return all(abs(s - inputs.top_p) > MARGIN for s in sums)

    def why_out_of_range(self, params: SamplingParams, inputs: SamplingInputs) -> str | None:
        used = {"temperature": inputs.temperature != 1.0, "top_k": inputs.top_k > 0, "top_p": inputs.top_p < 1}
        if params.variant in used and [k for k, v in used.items() if v] != [params.variant]:
            return Said("the card drills {variant} alone", variant=params.variant)
        if params.variant == "combined" and not all(used.values()):
            return Said("the card combines temperature, top-k and top-p")
        if sum(_steps(inputs)[2]) < 2 and (inputs.top_k or inputs.top_p < 1):
            return Said("filtering kept a single token (greedy): nothing to renormalise")
        return None

    def solve(self, inputs: SamplingInputs) -> list[float]:
        import torch

        from checkers import reference

        logits = torch.tensor(inputs.logits, dtype=reference.DTYPE)
        return reference.sampling_distribution(logits, inputs.temperature, inputs.top_k, inputs.top_p).tolist()

    def explain(self, inputs: SamplingInputs, answer: list[float], tolerance: Tolerance) -> str:
        z, after_k, keep = _steps(inputs)
        parts = []
        if inputs.temperature != 1.0:
            parts.append(_("- Divided by the temperature T = {t}: z = `{z}` (T < 1 sharpens the distribution, T > 1 flattens "
                           "it)").format(t=f"{inputs.temperature:g}", z=vec([round(v, 4) for v in z])))
        if inputs.top_k:
            parts.append(_("- top-k (k = {k}): tokens {kept} kept, the rest set to −∞").format(
                k=inputs.top_k, kept=", ".join(str(j) for j, k in enumerate(after_k) if k)))
        if inputs.top_p < 1:
            probs = _probs([v if k else -math.inf for v, k in zip(z, after_k)])
            order = sorted((j for j in range(len(z)) if after_k[j]), key=lambda j: -probs[j])
            mass, lines = 0.0, []
            for j in order:
                before, mass = mass, mass + probs[j]
                lines.append((_("  - token {j}: p = {p}, cumulative before {before} → kept, cumulative {mass}") if keep[j] else
                              _("  - token {j}: p = {p}, cumulative before {before} → dropped, cumulative {mass}")).format(
                    j=j, p=num(probs[j]), before=num(before), mass=num(mass)))
            parts.append(_("- top-p (p = {p}): the filtered softmax probabilities added from the largest down; the tokens "
                           "after the sum reaches p are dropped:").format(p=f"{inputs.top_p:g}") + "\n\n" + "\n".join(lines))
        parts.append(_("The softmax again over the kept tokens:") + "\n\n" + softmax_steps(z, keep, N_("token"), asked=tolerance))
        return "\n\n".join(parts) + "\n\n" + answer_line(tolerance.format(answer))
