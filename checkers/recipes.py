"""Training recipes an interviewer asks to compute: a learning rate under linear warmup and cosine
decay, and knowledge distillation's soft targets and loss at a temperature."""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Literal

from checkers.base import BaseChecker, Tolerance, answer_line, draw_values, num, vec
from checkers.said import Said, _
from checkers.shapes import Strict

if TYPE_CHECKING:  # Field(...) in an annotation is read by pydantic only to validate (checkers.validating)
    from pydantic import Field

# ------------------------------------------------------------------------------ learning rate

Phase = Literal["warmup", "decay"]


@dataclass(frozen=True, kw_only=True)
class LrScheduleParams(Strict):
    phase: Literal["warmup", "decay", "any"] = "any"
    decimals: Annotated[int, Field(ge=1, le=4)] = 3  # places of the rate in units of 1e-4


@dataclass(frozen=True, kw_only=True)
class LrScheduleInputs(Strict):
    peak: Annotated[float, Field(gt=0, le=1)]
    warmup: Annotated[int, Field(ge=1)]
    total: Annotated[int, Field(ge=2)]
    step: Annotated[int, Field(ge=0)]
    final_ratio: Annotated[float, Field(ge=0, lt=1)] = 0.0  # the rate at the last step, as a share of the peak

    def check(self) -> None:
        if not self.warmup < self.total or self.step > self.total:
            raise ValueError(Said("need warmup < total and step <= total"))

    def phase(self) -> Phase:
        return "warmup" if self.step < self.warmup else "decay"


class LrSchedule(BaseChecker[LrScheduleParams, LrScheduleInputs, float]):
    name = "lr_schedule"
    description = Said("Learning-rate schedule: linear warmup, then cosine decay; the rate at step t")
    Params = LrScheduleParams
    Inputs = LrScheduleInputs

    def compose(self, rng: random.Random, params: LrScheduleParams) -> tuple[LrScheduleInputs, str]:
        phase: Phase = params.phase if params.phase != "any" else rng.choice(["warmup", "decay"])
        total = rng.choice([10_000, 20_000, 50_000, 100_000])
        warmup = total // rng.choice([10, 20, 50])
        step = rng.randrange(1, warmup) if phase == "warmup" else rng.randrange(warmup + 1, total)
        inputs = LrScheduleInputs(
            peak=rng.choice([1e-4, 2e-4, 3e-4, 6e-4]), warmup=warmup, total=total, step=step,
            final_ratio=rng.choice([0.0, 0.1]),
        )
        floor = _("decays to 0") if not inputs.final_ratio else _("decays to {ratio:.0%} of the peak (as LLaMA does)").format(
            ratio=inputs.final_ratio)
        prompt = _(
            "Training runs {total:,} steps at a peak learning rate of {peak}. The first {warmup:,} steps warm up linearly: at "
            "step t (counted from 0) lr = peak × t / {warmup:,}; after that the rate {floor} along a cosine: progress "
            "p = (t − {warmup:,}) / ({total:,} − {warmup:,}), lr = lowest + (peak − lowest) × (1 + cos(πp)) / 2.\n\n"
            "Find the learning rate at step {step:,}, in units of 1e-4 (1.5 means 1.5e-4)."
        ).format(total=total, peak=f"{inputs.peak:g}", warmup=warmup, floor=floor, step=step)
        return inputs, prompt

    def why_out_of_range(self, params: LrScheduleParams, inputs: LrScheduleInputs) -> str | None:
        if params.phase != "any" and inputs.phase() != params.phase:
            return Said("step {step} is in the {got} phase, the card wants {wanted}", step=inputs.step, got=inputs.phase(), wanted=params.phase)
        return None

    def solve(self, inputs: LrScheduleInputs) -> float:
        from checkers import reference

        return reference.warmup_cosine_lr(inputs.peak, inputs.warmup, inputs.total, inputs.step, inputs.final_ratio) / 1e-4

    def explain(self, inputs: LrScheduleInputs, answer: float, tolerance: Tolerance) -> str:
        peak, low = inputs.peak / 1e-4, inputs.peak * inputs.final_ratio / 1e-4
        if inputs.phase() == "warmup":
            steps = _("Step {step:,} is still warming up: ").format(step=inputs.step) + \
                f"lr = {peak:g} × {inputs.step:,} / {inputs.warmup:,} = {num(answer)}"
        else:
            progress = (inputs.step - inputs.warmup) / (inputs.total - inputs.warmup)
            steps = (
                _("Progress p = ") + f"({inputs.step:,} − {inputs.warmup:,}) / ({inputs.total:,} − {inputs.warmup:,}) = {num(progress)}\n\n"
                f"1 + cos(πp) = 1 + ({num(math.cos(math.pi * progress))}) = {num(1 + math.cos(math.pi * progress))}\n\n"
                f"lr = {low:g} + ({peak:g} − {low:g}) × {num(1 + math.cos(math.pi * progress))} / 2 = {num(answer)}"
            )
        return (_("In units of 1e-4: peak {peak}, lowest {low}.").format(peak=f"{peak:g}", low=f"{low:g}") + f"\n\n{steps}\n\n"
                + answer_line(tolerance.format(answer)))


# ------------------------------------------------------------------------------- distillation

Target = Literal["soft", "loss"]
SHOWN = 4  # places of the soft probabilities the prompt asks for and the worked solution shows


@dataclass(frozen=True, kw_only=True)
class DistillationParams(Strict):
    target: Literal["soft", "loss", "any"] = "any"
    decimals: Annotated[int, Field(ge=1, le=4)] = 3


@dataclass(frozen=True, kw_only=True)
class DistillationInputs(Strict):
    teacher: Annotated[list[float], Field(min_length=2)]
    temperature: Annotated[float, Field(gt=0, le=20)]
    student: list[float] | None = None  # needed for the loss
    target: Target = "soft"

    def check(self) -> None:
        if self.target == "loss" and (self.student is None or len(self.student) != len(self.teacher)):
            raise ValueError(Said("the loss needs student logits, as many as the teacher's"))


def _soft(logits: list[float], temperature: float) -> list[float]:
    exps = [math.exp(z / temperature) for z in logits]
    return [e / sum(exps) for e in exps]


class Distillation(BaseChecker[DistillationParams, DistillationInputs, float | list[float]]):
    name = "distillation"
    description = Said("Knowledge distillation: the teacher's soft labels at temperature T, and the distillation loss T² · KL(teacher ‖ student)")
    Params = DistillationParams
    Inputs = DistillationInputs

    def compose(self, rng: random.Random, params: DistillationParams) -> tuple[DistillationInputs, str]:
        target: Target = params.target if params.target != "any" else rng.choice(["soft", "loss"])
        n = rng.randint(3, 4)
        teacher = draw_values(rng, n, -1, 6, 0)
        while len(set(teacher)) < 2:
            teacher = draw_values(rng, n, -1, 6, 0)
        temperature = float(rng.choice([2, 3, 4, 5]))
        student = draw_values(rng, n, -1, 6, 0) if target == "loss" else None
        inputs = DistillationInputs(teacher=teacher, temperature=temperature, student=student, target=target)
        setting = _("The teacher model's logits for one example are `{logits}`; the distillation temperature is T = {t}.").format(
            logits=vec(teacher), t=f"{temperature:g}")
        if target == "soft":
            ask = _("Find the teacher's soft labels softmax(z / T) ({n} numbers).").format(n=n)
        else:
            ask = _(
                "The student's logits are `{logits}`. The distillation loss = T² · KL(p_teacher ‖ p_student), both softmax at "
                "temperature T, KL in natural logarithms ({code}).\n\n"
                "Find this example's distillation loss (the probabilities on the way to {shown} decimal places are enough)."
            ).format(logits=vec(student or []), code='`F.kl_div(log_softmax(s/T), softmax(t/T), reduction="sum") * T**2`',
                     shown=SHOWN)
        return inputs, f"{setting}\n\n{ask}"

    def why_out_of_range(self, params: DistillationParams, inputs: DistillationInputs) -> str | None:
        if params.target != "any" and inputs.target != params.target:
            return Said("asks {got}, the card wants {wanted}", got=inputs.target, wanted=params.target)
        return None

    def solve(self, inputs: DistillationInputs) -> float | list[float]:
        import torch

        from checkers import reference

        teacher = torch.tensor(inputs.teacher, dtype=reference.DTYPE)
        if inputs.target == "soft":
            return reference.soft_targets(teacher, inputs.temperature).tolist()
        student = torch.tensor(inputs.student or [], dtype=reference.DTYPE)
        return float(reference.distillation_loss(student, teacher, inputs.temperature))

    def other_accepted(self, inputs: DistillationInputs, answer: float | list[float], tolerance: Tolerance) -> tuple[float, ...]:
        """The loss computed from both distributions at the places the prompt asks for and the
        worked solution shows."""
        if inputs.target != "loss":
            return ()
        p = [float(num(v, SHOWN)) for v in _soft(inputs.teacher, inputs.temperature)]
        q = [float(num(v, SHOWN)) for v in _soft(inputs.student or [], inputs.temperature)]
        return (inputs.temperature**2 * sum(a * math.log(a / b) for a, b in zip(p, q) if a > 0),)

    def explain(self, inputs: DistillationInputs, answer: float | list[float], tolerance: Tolerance) -> str:
        t = inputs.temperature
        teacher = _soft(inputs.teacher, t)
        lines = [
            _("Temperature T divides the logits by T before the softmax: the larger T, the flatter the distribution, and "
              "the wrong classes' sizes relative to one another (the \"dark knowledge\") show (Hinton et al. 2015, §2)."),
            _("Teacher z / T = `{scaled}` → p = `{p}`").format(scaled=vec([z / t for z in inputs.teacher], 4), p=vec(teacher, SHOWN)),
        ]
        if inputs.target == "loss":
            student = _soft(inputs.student or [], t)
            kl = sum(a * math.log(a / b) for a, b in zip(teacher, student))
            terms = " + ".join(f"{num(a, SHOWN)} × ln({num(a, SHOWN)} / {num(b, SHOWN)})" for a, b in zip(teacher, student))
            lines += [
                _("Student s / T = `{scaled}` → q = `{q}`").format(scaled=vec([z / t for z in inputs.student or []], 4),
                                                                   q=vec(student, SHOWN)),
                f"KL(p ‖ q) = Σ p ln(p / q) = {terms} = {num(kl, 5)}",
                _("Times T² = {t}², so the gradients' size does not shrink with T (Hinton et al. 2015, §2): ").format(t=f"{t:g}")
                + f"{t * t:g} × {num(kl, 5)} = {num(t * t * kl)}",
            ]
        return "\n\n".join(lines) + "\n\n" + answer_line(tolerance.format(answer))
