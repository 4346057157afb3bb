"""Multi-head attention drills: tensor shapes through split and merge, and a whole weight matrix
under a causal plus a padding mask."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Annotated, Literal, get_args

from checkers.base import BaseChecker, Tolerance, answer_line, draw_values, softmax_steps, vec
from checkers.said import N_, Said, _
from checkers.shapes import LengthBounds, Strict

if TYPE_CHECKING:  # Field(...) in an annotation is read by pydantic only to validate (checkers.validating)
    from pydantic import Field

Stage = Literal["q", "q_split", "q_heads", "k_heads", "scores", "context", "merged", "output"]
STAGES: tuple[Stage, ...] = get_args(Stage)

CODE = """```python
q = W_q(x_q)                                   # ① q
q = q.view(B, S_q, h, d_k)                     # ② q_split
q = q.transpose(1, 2)                          # ③ q_heads
k = W_k(x_kv).view(B, S_kv, h, d_k).transpose(1, 2)   # ④ k_heads{likewise}
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
    description = Said("Multi-head attention's tensor shapes: the projection, splitting heads by view/transpose, the scores, "
                       "merging by reshape")
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
            _("Self-attention: x_q = x_kv, B = {batch}, S_q = S_kv = {q_len}").format(batch=inputs.batch, q_len=q_len)
            if kind == "self"
            else _("The decoder's cross-attention: the queries come from the decoder (S_q = {q_len}), K/V from the encoder's "
                   "output (S_kv = {kv_len}), B = {batch}").format(q_len=q_len, kv_len=kv_len, batch=inputs.batch)
        )
        prompt = _(
            "Multi-head attention, d_model = {d_model}, h = {heads} heads, d_k = d_model / h. {setting}. "
            "The input x_q has shape [B, S_q, d_model], x_kv [B, S_kv, d_model] (batch_first).\n\n{code}\n\n"
            "Find the shape of the tensor step **{stage}** makes, its dimensions in order as a vector, like `[a, b, c]`."
        ).format(d_model=d_model, heads=heads, setting=setting, code=CODE.format(likewise=_(" (v likewise)")),
                 stage=LABEL[inputs.stage])
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
        return Tolerance("exact", vector=True)

    def explain(self, inputs: AttentionShapesInputs, answer: list[float], tolerance: Tolerance) -> str:
        from checkers import reference

        b, s_q, s_kv, d, h = inputs.batch, inputs.q_len, inputs.kv_len, inputs.d_model, inputs.heads
        shapes = reference.multi_head_shapes(b, s_q, s_kv, d, h)
        why = {
            "q": _("Linear changes only the last dimension: d_model → d_model"),
            "q_split": _("the last dimension split into h × d_k = {h} × {d_k}").format(h=h, d_k=d // h),
            "q_heads": _("dimensions 1 and 2 swapped, so each head is a batch dimension of its own"),
            "k_heads": _("K takes S_kv, its heads split and swapped the same way"),
            "scores": _("[B, h, S_q, d_k] @ [B, h, d_k, S_kv]: an S_q × S_kv score matrix per head"),
            "context": "[B, h, S_q, S_kv] @ [B, h, S_kv, d_k]",
            "merged": _("back to [B, S_q, h, d_k], then h × d_k merged into {d} (after transpose this needs reshape or "
                        "contiguous().view)").format(d=d),
            "output": _("W_o changes only the last dimension"),
        }
        rows = [_("| Step | Shape | Why |"), "| --- | --- | --- |"]
        for stage in STAGES:
            mark = "**" if stage == inputs.stage else ""
            rows.append(f"| {mark}{LABEL[stage]}{mark} | {mark}`{vec(shapes[stage])}`{mark} | {why[stage]} |")
        return (
            _("d_k = {d} / {h} = {d_k}.").format(d=d, h=h, d_k=d // h) + "\n\n" + "\n".join(rows) + "\n\n"
            + answer_line(tolerance.format(answer))
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
    description = Said("A causal mask and a padding mask together: the whole attention-weight matrix of a left-padded sequence")
    Params = MaskMatrixParams
    Inputs = MaskMatrixInputs

    def compose(self, rng: random.Random, params: MaskMatrixParams) -> tuple[MaskMatrixInputs, str]:
        padding: Padding = params.padding if params.padding != "any" else rng.choice(["left", "both"])
        n = rng.randint(4 if padding == "both" else params.min_len, params.max_len)
        pads = rng.randint(2 if padding == "both" else 1, n - 2)  # at least two real tokens
        left = pads if padding == "left" else rng.randint(1, pads - 1)
        inputs = MaskMatrixInputs(
            scores=[draw_values(rng, n, -1, 3, 0) for _row in range(n)],
            attention_mask=[0] * left + [1] * (n - pads) + [0] * (pads - left),
        )
        rows = "\n".join(f"| q{i} | " + " | ".join(f"{s:g}" for s in row) + " |" for i, row in enumerate(inputs.scores))
        header = "| | " + " | ".join(f"k{j}" for j in range(n)) + " |\n|" + " --- |" * (n + 1)
        where = (
            _("padded on the left with {left} PAD (batched generation pads on the left, new tokens join on the right)").format(left=left)
            if padding == "left"
            else _("its prompt padded on the left with {left} PAD; it finished generating first and was padded on the right "
                   "with {right} more PAD while the other sequences went on").format(left=left, right=pads - left)
        )
        prompt = _(
            "GPT generating a batch: a sequence of length {n}, {where}, attention_mask = `{mask}`. "
            "Self-attention uses a causal mask (position i sees only j ≤ i) and a padding mask (a PAD as key is hidden) together. "
            "One head's scaled score matrix {formula} (rows = queries, columns = keys):\n\n{header}\n{rows}\n\n"
            "Masked positions become −∞ before the softmax. Find the whole {n}×{n} attention-weight matrix after the softmax, "
            "row by row as {cells} numbers (row 0 first, then row 1…; 0 where masked; a row whose query is a PAD is thrown "
            "away: write it all 0)."
        ).format(n=n, where=where, mask=vec(inputs.attention_mask), formula="$QK^\\top/\\sqrt{d_k}$", header=header, rows=rows,
                 cells=n * n)
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
        parts = [_(
            "Visible = causal (j ≤ i) and padding (key j is not a PAD): the two masks **and**ed. The PADs lie left of the "
            "real tokens, where the causal mask cannot hide them: every real query from row {first} on is kept from the "
            "PADs on its left by the padding mask alone. A row whose query is a PAD is thrown away and written all 0 (a "
            "left PAD's row sees only PADs, all −∞, and its softmax would be NaN)."
        ).format(first=first)]
        for i, row in enumerate(inputs.scores):
            weights = answer[i * n : (i + 1) * n]
            if not mask[i]:
                parts.append(_("**Row {i}** (its query is a PAD: all 0)").format(i=i) + "\n\n"
                             + _("Row {i} = `{weights}`").format(i=i, weights=tolerance.format(weights)))
                continue
            keep = [int(j <= i and mask[j] == 1) for j in range(n)]
            parts.append(
                _("**Row {i}** (visible keys: {keys})").format(i=i, keys=", ".join(f"k{j}" for j in range(n) if keep[j]))
                + f"\n\n{softmax_steps(row, keep, N_('key'), asked=tolerance)}\n\n"
                + _("Row {i} = `{weights}`").format(i=i, weights=tolerance.format(weights))
            )
        return "\n\n".join(parts) + "\n\n" + _("Answer (row by row): `{answer}`").format(answer=tolerance.format(answer))
