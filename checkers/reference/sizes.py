"""Sizes computed by running tensors on the meta device (shapes and dtypes, no storage, so a
175B-sized count allocates nothing): attention's shapes, the bytes of a KV cache, of weights and
of training state, and FLOPs counted with torch.utils.flop_counter's formulas."""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any

import torch
from torch import nn
from torch._ops import OpOverload
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils.flop_counter import flop_registry

from checkers.reference.models import attention_scores


DTYPES = {"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}


@lru_cache(maxsize=256)
def multi_head_shapes(batch: int, q_len: int, kv_len: int, d_model: int, heads: int) -> dict[str, list[int]]:
    """Every tensor's shape through projection, head split, attention and merge, recorded as it runs.

    The projection has no bias: a bias leaves every shape as it is, and on the meta device its add
    runs torch._refs' Python kernel, whose first call imports torch._dynamo (about 0.6 s). The
    matmuls' meta kernels still import sympy once per process (about 0.3 s)."""
    d_k = d_model // heads
    with torch.device("meta"):
        proj = nn.Linear(d_model, d_model, bias=False)
        x_q, x_kv = torch.empty(batch, q_len, d_model), torch.empty(batch, kv_len, d_model)
        q, k, v = proj(x_q), proj(x_kv), proj(x_kv)
        q_split = q.view(batch, q_len, heads, d_k)
        q_heads = q_split.transpose(1, 2)
        k_heads = k.view(batch, kv_len, heads, d_k).transpose(1, 2)
        v_heads = v.view(batch, kv_len, heads, d_k).transpose(1, 2)
        scores = attention_scores(q_heads, k_heads)
        context = torch.softmax(scores, dim=-1) @ v_heads
        merged = context.transpose(1, 2).reshape(batch, q_len, d_model)
        output = proj(merged)
    tensors = {"q": q, "q_split": q_split, "q_heads": q_heads, "k_heads": k_heads, "scores": scores,
               "context": context, "merged": merged, "output": output}  # fmt: skip
    return {name: list(t.shape) for name, t in tensors.items()}


def kv_cache_bytes(layers: int, kv_heads: int, head_dim: int, batch: int, length: int, dtype: str) -> int:
    """Bytes of the K and V caches of every layer, [B, h_kv, S, d_head] each, as allocated tensors."""
    with torch.device("meta"):
        cache = [torch.empty(batch, kv_heads, length, head_dim, dtype=DTYPES[dtype]) for _ in range(2 * layers)]
    return sum(t.numel() * t.element_size() for t in cache)


class FlopCount(TorchDispatchMode):
    """Sums the FLOPs of the aten ops run inside it with torch.utils.flop_counter's formulas, the
    ones FlopCounterMode uses. FlopCounterMode's own dispatch mode is wrapped in torch._dynamo's
    disable, so its first op imports torch._dynamo (about 0.6 s) though nothing here is compiled;
    this mode opts out of that wrapping."""

    def __init__(self) -> None:
        super().__init__()
        self.total = 0

    @classmethod
    def _should_skip_dynamo(cls) -> bool:
        return False

    def __torch_dispatch__(
        self, func: OpOverload, types: Sequence[type], args: tuple[Any, ...] = (), kwargs: dict[str, Any] | None = None
    ) -> Any:
        kwargs = kwargs or {}
        out = func(*args, **kwargs)
        formula = flop_registry.get(func.overloadpacket)
        if formula is not None:
            self.total += formula(*args, **kwargs, out_val=out)
        return out


def kaplan_forward_flops(layers: int, d_model: int, d_attn: int, d_ff: int, n_ctx: int) -> int:
    """Forward FLOPs of one token as Kaplan et al. (2020, Table 1) count them: every weight matmul
    (QKV, attention output, FFN up and down) plus the QK^T logits against n_ctx keys; embeddings,
    softmax, norms, residual adds and the attention-weighted sum of V are left out, so they are not
    run. FlopCount counts one block as it runs; the layers are identical, so the total is layers
    times that."""
    with torch.device("meta"):
        qkv, out = nn.Linear(d_model, 3 * d_attn, bias=False), nn.Linear(d_attn, d_model, bias=False)
        up, down = nn.Linear(d_model, d_ff, bias=False), nn.Linear(d_ff, d_model, bias=False)
        x, keys = torch.empty(1, d_model), torch.empty(n_ctx, d_attn)
        with FlopCount() as counter:
            q = qkv(x)[:, :d_attn]
            _ = q @ keys.T  # the context-dependent term (logits are not used further)
            down(up(out(q)))  # the attention output has q's shape; the FFN reads the block's d_model
    return layers * counter.total


def training_memory_bytes(parameters: int, precision: str) -> dict[str, int]:
    """Weights, gradients and Adam states as tensors, per ZeRO (Rajbhandari et al. 2020, §3.1).

    fp32: fp32 weights and gradients, Adam's exp_avg and exp_avg_sq in fp32. mixed: fp16 weights and
    gradients; the optimizer keeps an fp32 master copy of the weights besides the two moments."""
    low = torch.float32 if precision == "fp32" else torch.float16
    with torch.device("meta"):
        weights = torch.empty(parameters, dtype=low)
        gradients = weights.new_empty(weights.shape)  # not empty_like: on meta it imports sympy (0.3 s)
        master = [torch.empty(parameters, dtype=torch.float32)] if precision == "mixed" else []
        states = master + [torch.zeros(parameters, dtype=torch.float32) for _ in ("exp_avg", "exp_avg_sq")]
    size = lambda t: t.numel() * t.element_size()  # noqa: E731
    parts = {"weights": size(weights), "gradients": size(gradients), "optimizer": sum(size(t) for t in states)}
    return {**parts, "total": sum(parts.values())}


WEIGHT_DTYPES = {"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16, "int8": torch.int8}


def weight_bytes(parameters: int, dtype: str) -> int:
    """Bytes of the weights alone as stored tensors; int4 packs two weights into each uint8 (as
    GPTQ and bitsandbytes store them), scales and zero points left out."""
    with torch.device("meta"):
        if dtype == "int4":
            weights = torch.empty((parameters + 1) // 2, dtype=torch.uint8)
        else:
            weights = torch.empty(parameters, dtype=WEIGHT_DTYPES[dtype])
    return weights.numel() * weights.element_size()


def training_flops_per_parameter_token() -> int:
    """FLOPs of one training step per weight per token, counted on a Linear whose input needs a
    gradient as inside a network: forward 2, backward 4 (the input's and the weight's gradients),
    the 6 of C = 6ND (Kaplan et al. 2020, §2.1)."""
    d_in, d_out, tokens = 8, 4, 3
    with torch.device("meta"):
        layer = nn.Linear(d_in, d_out, bias=False)
        x = torch.empty(tokens, d_in, requires_grad=True)
        with FlopCount() as counter:
            layer(x).sum().backward()
    return counter.total // (d_in * d_out * tokens)


def activation_bytes(seq: int, batch: int, hidden: int, heads: int, recompute: bool) -> dict[str, int]:
    """The bytes one transformer layer keeps for its backward pass, per Korthikanti et al. 2022
    (§4.1, no tensor or sequence parallelism): 16-bit activations and 1-byte dropout masks, made as
    tensors on the meta device. Full recomputation (§4.2) keeps only the layer's input and runs
    the forward pass again during backward."""
    s, b, h, a = seq, batch, hidden, heads
    half, mask = torch.float16, torch.bool
    with torch.device("meta"):
        if recompute:
            stored = {"input": [torch.empty(s, b, h, dtype=half)]}
        else:
            stored = {
                "attention": [
                    torch.empty(s, b, h, dtype=half),  # the QKV projection's input
                    torch.empty(s, b, h, dtype=half), torch.empty(s, b, h, dtype=half),  # Q and K, for QK^T
                    torch.empty(b, a, s, s, dtype=half),  # the softmax's output
                    torch.empty(b, a, s, s, dtype=mask),  # the softmax dropout's mask
                    torch.empty(b, a, s, s, dtype=half), torch.empty(s, b, h, dtype=half),  # dropout output and V
                    torch.empty(s, b, h, dtype=half),  # the output projection's input
                    torch.empty(s, b, h, dtype=mask),  # its dropout's mask
                ],
                "mlp": [
                    torch.empty(s, b, h, dtype=half),  # the first linear's input
                    torch.empty(s, b, 4 * h, dtype=half),  # GeLU's input
                    torch.empty(s, b, 4 * h, dtype=half),  # the second linear's input
                    torch.empty(s, b, h, dtype=mask),  # the dropout's mask
                ],
                "layernorm": [torch.empty(s, b, h, dtype=half), torch.empty(s, b, h, dtype=half)],  # the two inputs
            }
    return {part: sum(t.numel() * t.element_size() for t in tensors) for part, tensors in stored.items()}
