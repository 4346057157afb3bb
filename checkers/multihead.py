"""Multi-head attention drills: tensor shapes through split and merge, and a whole weight matrix
under a causal plus a padding mask."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Annotated, Literal, get_args

from checkers.base import BaseChecker, Tolerance, draw_values, softmax_steps, vec
from checkers.said import Said
from checkers.shapes import LengthBounds, Strict

if TYPE_CHECKING:  # Field(...) in an annotation is read by pydantic only to validate (checkers.validating)
    from pydantic import Field

Stage = Literal["q", "q_split", "q_heads", "k_heads", "scores", "context", "merged", "output"]
STAGES: tuple[Stage, ...] = get_args(Stage)

CODE = """```python
q = W_q(x_q)                                   # ① q
q = q.view(B, S_q, h, d_k)                     # ② q_split
q = q.transpose(1, 2)                          # ③ q_heads
k = W_k(x_kv).view(B, S_kv, h, d_k).transpose(1, 2)   # ④ k_heads（v 同理）
scores = q @ k.transpose(-2, -1) / d_k ** 0.5  # ⑤ scores
context = scores.softmax(-1) @ v               # ⑥ context
merged = context.transpose(1, 2).reshape(B, S_q, d_model)  # ⑦ merged
out = W_o(merged)                              # ⑧ output
```"""

LABEL = dict(zip(STAGES, ("① q", "② q_split", "③ q_heads", "④ k_heads", "⑤ scores", "⑥ context", "⑦ merged", "⑧ output")))
SIZES = ((768, 12), (1024, 16), (512, 8), (1280, 20), (1600, 25), (4096, 32))  # (d_model, h) of real models


@dataclass(frozen=True, kw_only=True)
class AttentionShapesParams(Strict):
    attention: Literal["self", "cross", "any"] = "any"
    stages: Annotated[list[Stage], Field(min_length=1)] = field(default_factory=lambda: list(STAGES))


@dataclass(frozen=True, kw_only=True)
class AttentionShapesInputs(Strict):
    batch: Annotated[int, Field(ge=1)]
    q_len: Annotated[int, Field(ge=1)]
    kv_len: Annotated[int, Field(ge=1)]
    d_model: Annotated[int, Field(ge=1)]
    heads: Annotated[int, Field(ge=1)]
    stage: Stage

    def check(self) -> None:
        if self.d_model % self.heads:
            raise ValueError(Said("d_model {d_model} is not divisible by heads {heads}", d_model=self.d_model, heads=self.heads))


class AttentionShapes(BaseChecker[AttentionShapesParams, AttentionShapesInputs, list[float]]):
    name = "attention_shapes"
    description = "多头注意力的张量形状：投影、拆头 view/transpose、分数、合并 reshape 各步"
    Params = AttentionShapesParams
    Inputs = AttentionShapesInputs

    def compose(self, rng: random.Random, params: AttentionShapesParams) -> tuple[AttentionShapesInputs, str]:
        kind = params.attention if params.attention != "any" else rng.choice(["self", "cross"])
        d_model, heads = rng.choice(SIZES)
        q_len = rng.choice([5, 8, 10, 16, 32, 50, 128])
        kv_len = q_len if kind == "self" else rng.choice([n for n in (6, 12, 20, 64, 100, 256) if n != q_len])
        inputs = AttentionShapesInputs(batch=rng.choice([1, 2, 4, 8, 16, 32]), q_len=q_len, kv_len=kv_len,
                                       d_model=d_model, heads=heads, stage=rng.choice(params.stages))  # fmt: skip
        setting = (
            f"自注意力：x_q = x_kv，B = {inputs.batch}，S_q = S_kv = {q_len}"
            if kind == "self"
            else f"Decoder 的交叉注意力：query 来自 Decoder（S_q = {q_len}），K/V 来自 Encoder 输出（S_kv = {kv_len}），B = {inputs.batch}"
        )
        prompt = (
            f"多头注意力，d_model = {d_model}，h = {heads} 个头，d_k = d_model / h。{setting}。"
            f"输入 x_q 形状 [B, S_q, d_model]，x_kv 形状 [B, S_kv, d_model]（batch_first）。\n\n{CODE}\n\n"
            f"求 **{LABEL[inputs.stage]}** 这一步得到的张量形状，按维度顺序写成向量，如 `[a, b, c]`。"
        )
        return inputs, prompt

    def why_out_of_range(self, params: AttentionShapesParams, inputs: AttentionShapesInputs) -> str | None:
        if inputs.stage not in params.stages:
            return Said("stage {stage} is not one of {stages}", stage=inputs.stage, stages=str(params.stages))
        if params.attention == "self" and inputs.q_len != inputs.kv_len:
            return Said("self-attention needs S_q == S_kv")
        if params.attention == "cross" and inputs.q_len == inputs.kv_len:
            return Said("a cross-attention question needs S_q != S_kv to tell them apart")
        return None

    def solve(self, inputs: AttentionShapesInputs) -> list[float]:
        from checkers import reference

        shapes = reference.multi_head_shapes(inputs.batch, inputs.q_len, inputs.kv_len, inputs.d_model, inputs.heads)
        return [float(n) for n in shapes[inputs.stage]]

    def tolerance(self, params: AttentionShapesParams, inputs: AttentionShapesInputs) -> Tolerance:
        return Tolerance("exact")

    def explain(self, inputs: AttentionShapesInputs, answer: list[float], tolerance: Tolerance) -> str:
        from checkers import reference

        b, s_q, s_kv, d, h = inputs.batch, inputs.q_len, inputs.kv_len, inputs.d_model, inputs.heads
        shapes = reference.multi_head_shapes(b, s_q, s_kv, d, h)
        why = {
            "q": "Linear 只变最后一维：d_model → d_model",
            "q_split": f"最后一维拆成 h × d_k = {h} × {d // h}",
            "q_heads": "交换第 1、2 维，让每个头成为独立的 batch 维",
            "k_heads": "K 用 S_kv，同样拆头再交换",
            "scores": "[B, h, S_q, d_k] @ [B, h, d_k, S_kv]：每个头一个 S_q × S_kv 的分数矩阵",
            "context": "[B, h, S_q, S_kv] @ [B, h, S_kv, d_k]",
            "merged": f"换回 [B, S_q, h, d_k] 再把 h × d_k 合并成 {d}（transpose 后需 reshape 或 contiguous().view）",
            "output": "W_o 只变最后一维",
        }
        rows = ["| 步骤 | 形状 | 说明 |", "| --- | --- | --- |"]
        for stage in STAGES:
            mark = "**" if stage == inputs.stage else ""
            rows.append(f"| {mark}{LABEL[stage]}{mark} | {mark}`{vec(shapes[stage])}`{mark} | {why[stage]} |")
        return (
            f"d_k = {d} / {h} = {d // h}。\n\n" + "\n".join(rows) + f"\n\n答案：`{tolerance.format(answer)}`"
        )


Padding = Literal["left", "both"]


@dataclass(frozen=True, kw_only=True)
class MaskMatrixParams(LengthBounds):
    min_len: int = 3
    max_len: int = 4
    padding: Literal["left", "both", "any"] = "any"  # both: a left-padded prompt that finished early
    decimals: Annotated[int, Field(ge=1, le=4)] = 2

    def check(self) -> None:
        super().check()
        if not 3 <= self.min_len <= self.max_len <= 5:
            raise ValueError(Said("need 3 <= min_len <= max_len <= 5 (a matrix the learner can compute by hand)"))
        if self.padding == "both" and self.max_len < 4:
            raise ValueError(Said("padding on both sides needs max_len >= 4 (two real tokens and a PAD on each side)"))


@dataclass(frozen=True, kw_only=True)
class MaskMatrixInputs(Strict):
    scores: Annotated[list[list[float]], Field(min_length=1)]  # [S, S], already scaled by 1/sqrt(d_k)
    attention_mask: list[int]  # [S], 1 = token, 0 = PAD; the tokens are one run, PAD on either side

    def check(self) -> None:
        size = len(self.scores)
        if any(len(row) != size for row in self.scores) or len(self.attention_mask) != size:
            raise ValueError(Said("scores must be {size} x {size} and attention_mask must have {size} entries", size=size))
        if set(self.attention_mask) - {0, 1}:
            raise ValueError(Said("attention_mask entries must be 0 or 1"))
        if "".join(map(str, self.attention_mask)).strip("0").count("0"):
            raise ValueError(Said("the tokens of attention_mask must be one run: PAD only at the start or the end"))

    def sides(self) -> tuple[int, int]:
        """(PAD on the left, PAD on the right)."""
        text = "".join(map(str, self.attention_mask))
        return len(text) - len(text.lstrip("0")), len(text) - len(text.rstrip("0"))


class MaskMatrix(BaseChecker[MaskMatrixParams, MaskMatrixInputs, list[float]]):
    """Batched generation pads on the left, so the PAD keys sit before real queries and only the
    padding mask hides them; right padding alone changes no real row (the causal mask already
    hides every later key), so a drawn sequence always has PAD on its left."""

    name = "mask_matrix"
    description = "causal mask + padding mask 同时作用：一条左补齐序列的整个注意力权重矩阵"
    Params = MaskMatrixParams
    Inputs = MaskMatrixInputs

    def compose(self, rng: random.Random, params: MaskMatrixParams) -> tuple[MaskMatrixInputs, str]:
        padding: Padding = params.padding if params.padding != "any" else rng.choice(["left", "both"])
        n = rng.randint(4 if padding == "both" else params.min_len, params.max_len)
        pads = rng.randint(2 if padding == "both" else 1, n - 2)  # at least two real tokens
        left = pads if padding == "left" else rng.randint(1, pads - 1)
        inputs = MaskMatrixInputs(
            scores=[draw_values(rng, n, -1, 3, 0) for _ in range(n)],
            attention_mask=[0] * left + [1] * (n - pads) + [0] * (pads - left),
        )
        rows = "\n".join(f"| q{i} | " + " | ".join(f"{s:g}" for s in row) + " |" for i, row in enumerate(inputs.scores))
        header = "| | " + " | ".join(f"k{j}" for j in range(n)) + " |\n|" + " --- |" * (n + 1)
        where = (
            f"左侧补了 {left} 个 PAD（批量生成时左补齐，新 token 接在最右边）"
            if padding == "left"
            else f"prompt 左侧补了 {left} 个 PAD，它先生成完毕，右侧又补了 {pads - left} 个 PAD 等其他序列"
        )
        prompt = (
            f"GPT 批量生成：一条长度 {n} 的序列，{where}，attention_mask = `{vec(inputs.attention_mask)}`。"
            f"自注意力同时用 causal mask（位置 i 只看 j ≤ i）和 padding mask（PAD 作为 key 被遮住）。"
            f"某个头的缩放后分数矩阵 $QK^\\top/\\sqrt{{d_k}}$（行 = query，列 = key）：\n\n{header}\n{rows}\n\n"
            f"被遮位置在 softmax 之前置为 −∞。求 softmax 后的整个 {n}×{n} 注意力权重矩阵，"
            f"按行展开写成 {n * n} 个数（先第 0 行，再第 1 行……；被遮位置写 0；query 是 PAD 的行输出会被丢弃，整行写 0）。"
        )
        return inputs, prompt

    def why_out_of_range(self, params: MaskMatrixParams, inputs: MaskMatrixInputs) -> str | None:
        n, kept = len(inputs.scores), sum(inputs.attention_mask)
        left, right = inputs.sides()
        if not params.min_len <= n <= params.max_len:
            return Said("length {n} is outside [{low}, {high}]", n=n, low=params.min_len, high=params.max_len)
        if kept < 2:
            return Said("the question needs at least two real tokens and at least one PAD")
        if not left:
            return Said("no PAD before a token: the causal mask already hides every later PAD, so the padding mask "
                        "would change no real row")
        if params.padding != "any" and (right > 0) != (params.padding == "both"):
            return Said("the card wants padding = {padding}", padding=params.padding)
        return None

    def solve(self, inputs: MaskMatrixInputs) -> list[float]:
        import torch

        from checkers import reference

        scores = torch.tensor(inputs.scores, dtype=reference.DTYPE)
        weights = reference.causal_padding_weights(scores, torch.tensor(inputs.attention_mask))
        return weights.flatten().tolist()

    def explain(self, inputs: MaskMatrixInputs, answer: list[float], tolerance: Tolerance) -> str:
        n, mask = len(inputs.scores), inputs.attention_mask
        first = mask.index(1)
        parts = [
            "可见位置 = causal（j ≤ i）且 padding（key j 不是 PAD），两个 mask 取**与**。"
            f"PAD 在真实 token 的左边，causal mask 遮不住它们：第 {first} 行起的每个真实 query 都靠 padding mask "
            "才看不到左边的 PAD。query 是 PAD 的行输出会被丢弃，整行写 0（左侧的 PAD 行只能看到 PAD，全是 −∞，"
            "softmax 会得到 NaN）。"
        ]
        for i, row in enumerate(inputs.scores):
            weights = answer[i * n : (i + 1) * n]
            if not mask[i]:
                parts.append(f"**第 {i} 行**（query 是 PAD，整行写 0）\n\n第 {i} 行 = `{tolerance.format(weights)}`")
                continue
            keep = [int(j <= i and mask[j] == 1) for j in range(n)]
            parts.append(
                f"**第 {i} 行**（可见 key：{', '.join(f'k{j}' for j in range(n) if keep[j])}）\n\n"
                f"{softmax_steps(row, keep, 'key', asked=tolerance)}\n\n第 {i} 行 = `{tolerance.format(weights)}`"
            )
        return "\n\n".join(parts) + f"\n\n答案（按行展开）：`{tolerance.format(answer)}`"
