"""Training recipes an interviewer asks to compute: a learning rate under linear warmup and cosine
decay, and knowledge distillation's soft targets and loss at a temperature."""

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
    description = "学习率调度：线性 warmup 之后余弦衰减，第 t 步的学习率"
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
        floor = "衰减到 0" if not inputs.final_ratio else f"衰减到峰值的 {inputs.final_ratio:.0%}（LLaMA 的做法）"
        prompt = (
            f"训练共 {total:,} 步，峰值学习率 {inputs.peak:g}。前 {warmup:,} 步线性 warmup：第 t 步（从 0 数）"
            f"lr = 峰值 × t / {warmup:,}；之后按余弦{floor}：进度 p = (t − {warmup:,}) / ({total:,} − {warmup:,})，"
            f"lr = 最低 + (峰值 − 最低) × (1 + cos(πp)) / 2。\n\n求第 {step:,} 步的学习率，以 1e-4 为单位（如 1.5 表示 1.5e-4）。"
        )
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
            steps = f"第 {inputs.step:,} 步还在 warmup：lr = {peak:g} × {inputs.step:,} / {inputs.warmup:,} = {num(answer)}"
        else:
            progress = (inputs.step - inputs.warmup) / (inputs.total - inputs.warmup)
            steps = (
                f"进度 p = ({inputs.step:,} − {inputs.warmup:,}) / ({inputs.total:,} − {inputs.warmup:,}) = {num(progress)}\n\n"
                f"1 + cos(πp) = 1 + ({num(math.cos(math.pi * progress))}) = {num(1 + math.cos(math.pi * progress))}\n\n"
                f"lr = {low:g} + ({peak:g} − {low:g}) × {num(1 + math.cos(math.pi * progress))} / 2 = {num(answer)}"
            )
        return f"以 1e-4 为单位：峰值 {peak:g}，最低 {low:g}。\n\n{steps}\n\n答案：`{tolerance.format(answer)}`"


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
    description = "知识蒸馏：温度 T 下教师的软标签，以及 T² · KL(教师 ‖ 学生) 的蒸馏 loss"
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
        setting = f"教师模型对一个样本的 logits 为 `{vec(teacher)}`，蒸馏温度 T = {temperature:g}。"
        if target == "soft":
            ask = f"求教师的软标签 softmax(z / T)（{n} 个数）。"
        else:
            ask = (
                f"学生的 logits 为 `{vec(student or [])}`。蒸馏 loss = T² · KL(p_教师 ‖ p_学生)，两者都是温度 T 下的 softmax，"
                f"KL 用自然对数（`F.kl_div(log_softmax(s/T), softmax(t/T), reduction=\"sum\") * T**2`）。\n\n"
                f"求这个样本的蒸馏 loss（中间的概率保留 {SHOWN} 位小数即可）。"
            )
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
            "温度 T 把 logits 除以 T 再 softmax：T 越大分布越平，错误类别之间的相对大小（「暗知识」）显露出来"
            "（Hinton et al. 2015, §2）。",
            f"教师 z / T = `{vec([z / t for z in inputs.teacher], 4)}` → p = `{vec(teacher, SHOWN)}`",
        ]
        if inputs.target == "loss":
            student = _soft(inputs.student or [], t)
            kl = sum(a * math.log(a / b) for a, b in zip(teacher, student))
            terms = " + ".join(f"{num(a, SHOWN)} × ln({num(a, SHOWN)} / {num(b, SHOWN)})" for a, b in zip(teacher, student))
            lines += [
                f"学生 s / T = `{vec([z / t for z in inputs.student or []], 4)}` → q = `{vec(student, SHOWN)}`",
                f"KL(p ‖ q) = Σ p ln(p / q) = {terms} = {num(kl, 5)}",
                f"乘 T² = {t:g}² 让梯度量级不随 T 变小（Hinton et al. 2015, §2）：{t * t:g} × {num(kl, 5)} = {num(t * t * kl)}",
            ]
        return "\n\n".join(lines) + f"\n\n答案：`{tolerance.format(answer)}`"
