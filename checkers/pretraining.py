"""BERT pre-training drills: MLM loss (ignore_index=-100), NSP loss, the 15% / 80-10-10 budget."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Annotated, Literal

from checkers.base import BaseChecker, Tolerance, answer_line, draw_values, num, softmax_steps, vec
from checkers.said import N_, Said, _
from checkers.shapes import LengthBounds, Strict

if TYPE_CHECKING:
    from pydantic import Field
    from torch import Tensor

IGNORE = -100


@dataclass(frozen=True, kw_only=True)
class MlmLossParams(LengthBounds):
    min_len: int = 1  # selected positions (probs form) / sequence length (logits form)
    max_len: int = 4
    form: Literal["probs", "logits", "any"] = "any"
    target: Literal["mean", "position", "any"] = "any"
    decimals: Annotated[int, Field(ge=1, le=6)] = 3
    p_min: Annotated[float, Field(ge=0.01, le=0.99)] = 0.05  # probs form: the range of p(true token),
    p_max: Annotated[float, Field(ge=0.01, le=0.99)] = 0.95  # drawn with 2 decimals (low p: a heavy loss)

    def check(self) -> None:
        super().check()
        if self.p_min > self.p_max:
            raise ValueError(Said("p_min ({p_min}) is above p_max ({p_max})", p_min=self.p_min, p_max=self.p_max))


@dataclass(frozen=True, kw_only=True)
class MlmLossInputs(Strict):
    """Either `probs` (p of the true token at each selected position) or `logits` + `labels`.

    `position` (0-based) asks for the loss at one position instead of the mean.
    """

    probs: Annotated[list[float] | None, Field(min_length=1)] = None
    logits: Annotated[list[list[float]] | None, Field(min_length=1)] = None
    labels: list[int] | None = None
    position: int | None = None

    def check(self) -> None:
        if self.probs is not None and self.logits is None:
            if self.labels is not None:
                raise ValueError(Said("labels go with logits, not with probs"))
            if not all(0 < p <= 1 for p in self.probs):
                raise ValueError(Said("probabilities must lie in (0, 1]"))
            selected = list(range(len(self.probs)))
        elif self.logits is not None and self.probs is None:
            vocab = len(self.logits[0])
            if self.labels is None or len(self.labels) != len(self.logits):
                raise ValueError(Said("labels need one entry per logits row"))
            if any(len(row) != vocab for row in self.logits):
                raise ValueError(Said("every logits row needs the same vocabulary size"))
            if any(not (0 <= y < vocab or y == IGNORE) for y in self.labels):
                raise ValueError(Said("labels must be token ids in [0, {vocab}) or {ignore}", vocab=vocab, ignore=IGNORE))
            selected = [i for i, y in enumerate(self.labels) if y != IGNORE]
            if not selected:
                raise ValueError(Said("every label is {ignore}: no position to average over", ignore=IGNORE))
        else:
            raise ValueError(Said("give either probs, or logits with labels"))
        if self.position is not None and self.position not in selected:
            raise ValueError(Said("position {position} is not a selected position ({selected})", position=self.position, selected=selected))


def _per_position(inputs: MlmLossInputs) -> tuple[Tensor, Tensor]:
    """Per-position -ln p (0 where ignored) and the mean over selected positions, from the reference."""
    import torch

    from checkers import reference

    if inputs.probs is not None:
        losses = reference.nll_of_probability(torch.tensor(inputs.probs, dtype=reference.DTYPE))
        return losses, losses.mean()
    logits = torch.tensor(inputs.logits, dtype=reference.DTYPE)
    labels = torch.tensor(inputs.labels)
    return reference.cross_entropy(logits, labels, "none"), reference.cross_entropy(logits, labels)


class MlmLoss(BaseChecker[MlmLossParams, MlmLossInputs, float]):
    name = "mlm_loss"
    description = Said("MLM loss: −ln p at the selected positions and their mean (unselected positions, label = −100, ignored)")
    Params = MlmLossParams
    Inputs = MlmLossInputs

    def compose(self, rng: random.Random, params: MlmLossParams) -> tuple[MlmLossInputs, str]:
        n = rng.randint(params.min_len, params.max_len)
        form = params.form if params.form != "any" else rng.choice(["probs", "logits"])
        if form == "probs":
            probs = draw_values(rng, n, params.p_min, params.p_max, 2)
            inputs = MlmLossInputs(probs=probs)
            selected = list(range(n))
            setting = (
                _("At {n} positions MLM selected, the model gave the right token these probabilities, in order: `{probs}`.").format(
                    n=n, probs=vec(probs))
                if n > 1
                else _("At one position MLM selected, the model gave the right token the probability {p}.").format(p=f"{probs[0]:g}")
            )
        else:
            vocab = rng.choice([3, 4])
            labels = [rng.randrange(vocab) if rng.random() < 0.6 else IGNORE for _position in range(n)]
            if all(y == IGNORE for y in labels):  # at least one position is selected...
                labels[rng.randrange(n)] = rng.randrange(vocab)
            if IGNORE not in labels and n > 1:  # ...and, when there is room, one is ignored
                labels[rng.randrange(n)] = IGNORE
            logits = [draw_values(rng, vocab, -2, 3, 0) for _position in range(n)]
            inputs = MlmLossInputs(logits=logits, labels=labels)
            selected = [i for i, y in enumerate(labels) if y != IGNORE]
            rows = "\n".join(f"| {i} | `{vec(row)}` | {y} |" for i, (row, y) in enumerate(zip(logits, labels)))
            setting = _(
                "A toy MLM whose vocabulary has only {vocab} tokens, a sequence of length {n}, label = {ignore} where a "
                "position was not selected:\n\n"
                "| Position | logits | label |\n| --- | --- | --- |\n{rows}\n\n"
                "Computed as `F.cross_entropy(logits, labels, ignore_index={ignore})`."
            ).format(vocab=vocab, n=n, ignore=IGNORE, rows=rows)
        target = params.target if params.target != "any" else rng.choice(["mean", "position"])
        if target == "position" and len(selected) > 1:
            inputs = inputs.model_copy(update={"position": rng.choice(selected)})
            ask = _("Find the loss at position {position} (counted from 0; natural logarithm).").format(position=inputs.position)
        elif len(selected) > 1:
            ask = _("Find the mean loss over the selected positions (natural logarithm).")
        else:
            ask = (_("Find this position's loss (natural logarithm).") if form == "probs" else
                   _("Find the loss at position {position}, the only one selected (natural logarithm).").format(position=selected[0]))
        return inputs, f"{setting}\n\n{ask}"

    def why_out_of_range(self, params: MlmLossParams, inputs: MlmLossInputs) -> str | None:
        rows = inputs.probs if inputs.probs is not None else inputs.logits or []
        if not params.min_len <= len(rows) <= params.max_len:
            return Said("{n} positions, outside [{low}, {high}]", n=len(rows), low=params.min_len, high=params.max_len)
        if params.form != "any" and (inputs.probs is not None) != (params.form == "probs"):
            return Said("the card asks for the {form} form", form=params.form)
        if inputs.probs is not None and not all(params.p_min <= p <= params.p_max for p in inputs.probs):
            return Said("probabilities {probs} leave [{low}, {high}]", probs=str(inputs.probs), low=params.p_min, high=params.p_max)
        if params.target == "mean" and inputs.position is not None:
            return Said("the card asks for the mean, not one position")
        return None

    def other_accepted(self, inputs: MlmLossInputs, answer: float, tolerance: Tolerance) -> tuple[float, ...]:
        """A mean is also right when each term was rounded to the asked digits before averaging."""
        losses = _per_position(inputs)[0].tolist()
        selected = [i for i, loss in enumerate(losses) if inputs.labels is None or inputs.labels[i] != IGNORE]
        if inputs.position is not None or len(selected) < 2:
            return ()
        return (sum(round(losses[i], tolerance.decimals) for i in selected) / len(selected),)

    def solve(self, inputs: MlmLossInputs) -> float:
        losses, mean = _per_position(inputs)
        return float(mean if inputs.position is None else losses[inputs.position])

    def explain(self, inputs: MlmLossInputs, answer: float, tolerance: Tolerance) -> str:
        losses = _per_position(inputs)[0].tolist()
        steps: list[str] = []
        selected: list[int] = []
        if inputs.probs is not None:
            steps = [_("- Position {i}: ").format(i=i) + f"−ln({p:g}) = {num(loss)}" for i, (p, loss) in enumerate(zip(inputs.probs, losses))]
            selected = list(range(len(losses)))
        elif inputs.logits is not None and inputs.labels is not None:  # the other form, as validated
            for i, (row, y) in enumerate(zip(inputs.logits, inputs.labels)):
                if y == IGNORE:
                    steps.append(_("- Position {i}: label = {ignore}, no loss.").format(i=i, ignore=IGNORE))
                    continue
                selected.append(i)
                steps.append(
                    _("- Position {i} (label = {y}):").format(i=i, y=y) + f"\n\n{softmax_steps(row, [1] * len(row), N_('token'))}\n\n"
                    f"  loss = −ln p({y}) = {num(losses[i])}"
                )
        summary = (
            _("The loss at position {position} = {loss}").format(position=inputs.position, loss=num(losses[inputs.position]))
            if inputs.position is not None
            else _("Mean = ({terms}) / {n} = {mean}").format(terms=" + ".join(num(losses[i]) for i in selected),
                                                           n=len(selected), mean=num(answer))
        )
        return (
            _("Each selected position's loss is −ln p(the right token); the mean is taken over the selected positions only "
              "(not the whole sentence).") + "\n\n"
            + "\n".join(steps)
            + f"\n\n{summary}\n\n" + answer_line(tolerance.format(answer))
        )


@dataclass(frozen=True, kw_only=True)
class NspLossParams(Strict):
    decimals: Annotated[int, Field(ge=1, le=6)] = 3


@dataclass(frozen=True, kw_only=True)
class NspLossInputs(Strict):
    p_isnext: Annotated[float, Field(gt=0, lt=1)]
    label: Literal["IsNext", "NotNext"]


class NspLoss(BaseChecker[NspLossParams, NspLossInputs, float]):
    name = "nsp_loss"
    description = Said("NSP loss: given P(IsNext), −log p of the true label")
    Params = NspLossParams
    Inputs = NspLossInputs

    def compose(self, rng: random.Random, params: NspLossParams) -> tuple[NspLossInputs, str]:
        inputs = NspLossInputs(p_isnext=draw_values(rng, 1, 0.05, 0.95, 2)[0], label=rng.choice(["IsNext", "NotNext"]))
        prompt = _(
            "The NSP head gives the sentence pair (A, B) P(IsNext) = {p}. The true label is **{label}** ({meaning}).\n\n"
            "Find this example's NSP loss (natural logarithm)."
        ).format(p=f"{inputs.p_isnext:g}", label=inputs.label,
                 meaning=_("B does follow A") if inputs.label == "IsNext" else _("B is a sentence drawn at random"))
        return inputs, prompt

    def solve(self, inputs: NspLossInputs) -> float:
        import torch

        from checkers import reference

        p = torch.tensor([inputs.p_isnext], dtype=reference.DTYPE)
        return float(reference.nll_of_probability(p if inputs.label == "IsNext" else 1 - p)[0])

    def explain(self, inputs: NspLossInputs, answer: float, tolerance: Tolerance) -> str:
        p = inputs.p_isnext if inputs.label == "IsNext" else 1 - inputs.p_isnext
        first = "" if inputs.label == "IsNext" else f"P(NotNext) = 1 − {inputs.p_isnext:g} = {p:g}" + _("; ")
        return f"{first}loss = −ln P({inputs.label}) = −ln({p:g}) = {num(answer)}\n\n" + answer_line(tolerance.format(answer))


@dataclass(frozen=True, kw_only=True)
class MaskingBudgetParams(Strict):
    max_batch: Annotated[int, Field(ge=1, le=1024)] = 32
    seq_lens: Annotated[list[int], Field(min_length=1)] = field(default_factory=lambda: [64, 128, 256, 512])
    decimals: Annotated[int, Field(ge=0, le=4)] = 2


@dataclass(frozen=True, kw_only=True)
class MaskingBudgetInputs(Strict):
    tokens: Annotated[int, Field(ge=1)]  # tokens eligible for selection (PAD excluded)
    select_rate: Annotated[float, Field(ge=0, le=1)] = 0.15
    mask_rate: Annotated[float, Field(ge=0, le=1)] = 0.8
    random_rate: Annotated[float, Field(ge=0, le=1)] = 0.1

    def check(self) -> None:
        if self.mask_rate + self.random_rate > 1 + 1e-12:
            raise ValueError(Said("mask_rate + random_rate must not exceed 1 (the rest keeps the original token)"))


class MaskingBudget(BaseChecker[MaskingBudgetParams, MaskingBudgetInputs, list[float]]):
    name = "masking_budget"
    description = Said("MLM's 15% / 80-10-10: how many tokens of a batch are selected, [MASK]ed, random and kept (expected values)")
    Params = MaskingBudgetParams
    Inputs = MaskingBudgetInputs

    def compose(self, rng: random.Random, params: MaskingBudgetParams) -> tuple[MaskingBudgetInputs, str]:
        batch, seq = rng.randint(1, params.max_batch), rng.choice(params.seq_lens)
        pads = rng.randint(0, batch * seq // 4)
        inputs = MaskingBudgetInputs(tokens=batch * seq - pads)
        prompt = _(
            "batch = {batch} sequences, each padded to length {seq}, {pads} PAD in all; PADs are never selected, every "
            "other token may be (this question does not set [CLS]/[SEP] apart).\n\n"
            "As BERT does: each token is selected for prediction with probability 15%, and a selected one becomes "
            "[MASK] 80%, a random token 10%, and stays itself 10% of the time.\n\n"
            "**In expected values, not rounded**, give [selected, [MASK], random, kept] in that order."
        ).format(batch=batch, seq=seq, pads=pads)
        return inputs, prompt

    def solve(self, inputs: MaskingBudgetInputs) -> list[float]:
        from checkers import reference

        return reference.masking_budget(inputs.tokens, inputs.select_rate, inputs.mask_rate, inputs.random_rate).tolist()

    def explain(self, inputs: MaskingBudgetInputs, answer: list[float], tolerance: Tolerance) -> str:
        selected, masked, rand, kept = answer
        keep_rate = 1 - inputs.mask_rate - inputs.random_rate
        return (
            _("- Selected: ") + f"{inputs.tokens} × {inputs.select_rate:g} = {num(selected, 2)}\n"
            + _("- [MASK]: ") + f"{num(selected, 2)} × {inputs.mask_rate:g} = {num(masked, 2)}\n"
            + _("- Random: ") + f"{num(selected, 2)} × {inputs.random_rate:g} = {num(rand, 2)}\n"
            + _("- Kept: ") + f"{num(selected, 2)} × {keep_rate:g} = {num(kept, 2)}\n\n"
            + _("80/10/10 are proportions **within the selected 15%**; all three kinds of position predict the original "
                "token (all enter the loss).") + "\n\n"
            + answer_line(tolerance.format(answer))
        )
