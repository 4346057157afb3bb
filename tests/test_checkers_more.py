"""The interview-number checkers (issue 13) against computations written here: numpy and closed
forms from the papers, never the torch reference; published model sizes; worked solutions."""

from __future__ import annotations

import json
import math
import random
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from pydantic import ValidationError

from checkers import reference, registry
from checkers.base import num, vec
from checkers.configs import CONFIGS
from checkers.grading import grade
from quizzer.decks import load_decks

ROOT = Path(__file__).resolve().parents[1]
SEEDS = range(200)
NEW = ["attention_shapes", "mask_matrix", "kv_cache", "training_memory", "flops_per_token", "lora_params",
       "sinusoidal_pe", "layer_norm", "perplexity", "sampling", "weight_memory", "compute_budget",
       "albert_embedding", "lr_schedule", "distillation", "rope", "llama_params",
       "beam_search", "activation_memory", "bpe_tokens", "wordpiece_tokens"]  # fmt: skip


def questions(name: str, params: dict | None = None, seeds=SEEDS):
    checker = registry.get(name)
    for seed in seeds:
        yield checker.generate(seed, params)


def np_softmax(z: np.ndarray, keep: np.ndarray) -> np.ndarray:
    e = np.where(keep, np.exp(z - z[keep].max()), 0.0)
    return e / e.sum()


def test_at_least_15_checkers_and_the_new_ones_listed_by_the_cli():
    from typer.testing import CliRunner

    from quizzer.cli import app

    result = CliRunner().invoke(app, ["checkers", "--json"])
    assert result.exit_code == 0, result.output
    listed = json.loads(result.output)
    names = {row["name"] if isinstance(row, dict) else row for row in listed}
    assert len(names) >= 15 and set(NEW) <= names
    from test_checkers import REQUIRED

    assert names == REQUIRED | set(NEW)  # a checker added is one these tests name, so its own tests follow


@pytest.mark.slow
def test_prompts_compose_without_torch():
    code = (
        "import random, sys\nfrom checkers import registry\n"
        f"for name in {NEW!r}:\n"
        "    c = registry.get(name)\n"
        "    for seed in range(30):\n"
        "        inputs, prompt = c.compose(random.Random(seed), c.Params())\n"
        "        assert prompt and c.why_out_of_range(c.Params(), inputs) is None, (name, seed)\n"
        "bad = {'torch', 'numpy'} & set(sys.modules)\nassert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)


# ------------------------------------------------------------------ answers, computed independently


def test_attention_shapes_follow_the_split_and_merge():
    for q in questions("attention_shapes"):
        i = q.inputs
        b, s, t, d, h = i["batch"], i["q_len"], i["kv_len"], i["d_model"], i["heads"]
        expected = {"q": [b, s, d], "q_split": [b, s, h, d // h], "q_heads": [b, h, s, d // h], "k_heads": [b, h, t, d // h],
                    "scores": [b, h, s, t], "context": [b, h, s, d // h], "merged": [b, s, d], "output": [b, s, d]}  # fmt: skip
        assert q.answer == expected[i["stage"]]
    cross = registry.get("attention_shapes").generate(0, {"attention": "cross", "stages": ["scores"]})
    assert cross.inputs["q_len"] != cross.inputs["kv_len"] and cross.answer[-2:] == [cross.inputs["q_len"], cross.inputs["kv_len"]]


def test_mask_matrix_is_numpy_softmax_under_causal_and_padding():
    """Left padding as batched generation does it (and PAD on both sides): the padding mask hides
    a PAD key from a real query that the causal mask alone lets through; a PAD query's row is 0."""
    sides = set()
    for q in questions("mask_matrix"):
        scores, mask = np.array(q.inputs["scores"]), np.array(q.inputs["attention_mask"], dtype=bool)
        n = len(mask)
        assert 2 <= mask.sum() < n and 3 <= n <= 4
        causal = np.tril(np.ones((n, n), dtype=bool))
        keep = causal & mask[None, :]
        expected = np.stack([np_softmax(scores[r], keep[r]) if mask[r] else np.zeros(n) for r in range(n)])
        np.testing.assert_allclose(q.answer, expected.flatten(), atol=1e-12)
        assert all(w == 0 for w, k in zip(q.answer, keep.flatten()) if not k)
        assert any((causal[r] & ~keep[r]).any() for r in range(n) if mask[r])  # the padding mask changes a real row
        sides.add((bool(not mask[0]), bool(not mask[-1])))
    assert sides == {(True, False), (True, True)}
    left = registry.get("mask_matrix").generate(0, {"padding": "left"})
    assert left.inputs["attention_mask"][0] == 0 and left.inputs["attention_mask"][-1] == 1


def test_mask_matrix_refuses_a_right_padded_sequence_as_off_its_point():
    checker = registry.get("mask_matrix")
    right = checker.Inputs(scores=[[0, 1, 2]] * 3, attention_mask=[1, 1, 0])
    assert checker.why_out_of_range(checker.Params(), right) is not None
    assert checker.why_out_of_range(checker.Params(), checker.Inputs(scores=[[0, 1, 2]] * 3, attention_mask=[0, 1, 1])) is None


def test_kv_cache_is_2_layers_heads_dim_bytes():
    seen = set()
    for q in questions("kv_cache"):
        i = q.inputs
        size = 2 * i["layers"] * i["kv_heads"] * i["head_dim"] * {"fp16": 2, "fp32": 4}[i["dtype"]]
        total = size * i.get("batch", 1) * i.get("length", 1)
        expected = size if i.get("target", "per_token") == "per_token" else total / 2**30
        assert q.answer == pytest.approx(expected, rel=1e-15)
        seen.add((i.get("target", "per_token"), i["heads"] == i["kv_heads"], i["dtype"]))
    assert len(seen) == 8  # every target x MHA/GQA x dtype is drawn
    # Llama-2-7B in fp16: 0.5 MiB per token, so 4,096 tokens are 2 GiB
    llama = {"layers": 32, "heads": 32, "kv_heads": 32, "head_dim": 128}
    checker = registry.get("kv_cache")
    assert checker.solve(checker.Inputs(**llama)) == 512 * 1024
    assert checker.solve(checker.Inputs(**llama, length=4096, target="total")) == 2.0


def test_a_kv_cache_total_in_gb_is_never_taken_for_gib():
    """The same bytes over 10^9 instead of 2^30, rounded to the places asked, grade wrong; the
    places asked are at least the card's."""
    small = 0
    for q in questions("kv_cache", seeds=range(400)):
        i = q.inputs
        if i.get("target") != "total":
            continue
        total = 2 * i["layers"] * i["kv_heads"] * i["head_dim"] * {"fp16": 2, "fp32": 4}[i["dtype"]] * i["batch"] * i["length"]
        places = q.tolerance.decimals
        assert places >= 2 and f"round to {places} decimal places" in q.prompt
        assert grade(f"{total / 10**9:.{places}f}", q).outcome == "wrong", (q.seed, total)
        assert grade(f"{total / 2**30:.{places}f}", q).outcome == "correct"
        small += total < 2**30
    assert small  # small totals, where two places could not tell GB from GiB, are drawn too


def test_scaled_scores_never_draw_a_zero_query_or_key():
    for q in questions("scaled_scores", seeds=range(300)):
        assert all(any(v) for v in (q.inputs["q"], *q.inputs["k"])), q.seed
    checker = registry.get("scaled_scores")
    zero = checker.Inputs(q=[0, 0], k=[[1, 2], [2, 1]])
    assert checker.why_out_of_range(checker.Params(), zero) is not None


ZERO_BYTES = {"fp32": {"weights": 4, "gradients": 4, "optimizer": 8}, "mixed": {"weights": 2, "gradients": 2, "optimizer": 12}}


@pytest.mark.parametrize(
    ("parameters", "dtype", "unit", "expected"),
    [
        (6_738_415_616, "fp16", "GB", 13.476831232),  # Llama-2-7B: 2 bytes a weight
        (6_738_415_616, "int4", "GB", 3.369207808),  # half a byte a weight
        (68_976_648_192, "int8", "GiB", 68_976_648_192 / 2**30),
        (1_557_611_201, "int4", "GB", 778_805_601 / 1e9),  # an odd count: the last byte holds one weight
        (7_241_732_096, "fp32", "GiB", 4 * 7_241_732_096 / 2**30),
    ],
)
def test_weight_memory_is_bits_over_eight_per_parameter(parameters, dtype, unit, expected):
    checker = registry.get("weight_memory")
    assert checker.solve(checker.Inputs(parameters=parameters, dtype=dtype, unit=unit)) == pytest.approx(expected, rel=1e-15)


def test_weight_memory_in_the_other_unit_is_wrong():
    for q in questions("weight_memory"):
        i = q.inputs
        size = i["parameters"] * {"fp32": 4, "fp16": 2, "bf16": 2, "int8": 1, "int4": 0.5}[i["dtype"]]
        right, other = (10**9, 2**30) if i["unit"] == "GB" else (2**30, 10**9)
        assert q.answer == pytest.approx(math.ceil(size) / right, rel=1e-12)
        assert grade(typed([math.ceil(size) / other], q), q).outcome == "wrong", q.seed
        assert grade(typed([math.ceil(size) * 2 / right], q), q).outcome == "wrong", q.seed  # a byte per 8 bits counted twice


def test_compute_budget_is_6nd_and_twenty_tokens_a_parameter():
    """Kaplan et al. 2020, §2.1 (C = 6ND); Hoffmann et al. 2022, Table 3 (Chinchilla: D ≈ 20N),
    whose 70B model saw 1.4T tokens on Gopher's 5.76e23 FLOPs."""
    targets = set()
    for q in questions("compute_budget"):
        i = q.inputs
        expected = {
            "flops": lambda: 6 * i.get("parameters", 0) * i.get("tokens", 0),
            "tokens": lambda: 20 * i.get("parameters", 0),
            "optimal_params": lambda: math.sqrt(i.get("flops", 0) / 120),
        }[i["target"]]()
        assert q.answer == pytest.approx(expected, rel=1e-12)
        targets.add(i["target"])
    assert targets == {"flops", "tokens", "optimal_params"}
    checker = registry.get("compute_budget")
    assert checker.solve(checker.Inputs(target="flops", parameters=175 * 10**9, tokens=300e9)) == pytest.approx(3.15e23)
    assert 69e9 < checker.solve(checker.Inputs(target="optimal_params", flops=5.76e23)) < 70e9
    assert checker.solve(checker.Inputs(target="tokens", parameters=70 * 10**9)) == 1.4e12
    assert reference.training_flops_per_parameter_token() == 6


def test_albert_embedding_is_v_e_plus_e_h():
    """Lan et al. 2020, §3.1: O(V × H) becomes O(V × E + E × H)."""
    for q in questions("albert_embedding"):
        i = q.inputs
        factorised = i["vocab"] * i["embedding"] + i["embedding"] * i["hidden"]
        assert q.answer == (factorised if i["target"] == "factorised" else i["vocab"] * i["hidden"] - factorised)
        assert grade(f"{i['vocab'] * i['hidden']:,}", q).outcome == "wrong"  # the unfactorised table is not the answer
    checker = registry.get("albert_embedding")
    assert checker.solve(checker.Inputs(vocab=30000, embedding=128, hidden=4096)) == 4_364_288


def test_lr_schedule_is_linear_warmup_then_half_cosine():
    """Goyal et al. 2017, §2.2 (linear warmup); Loshchilov & Hutter 2017 (cosine); LLaMA §2.2 (down
    to 10% of the peak). The rate is asked in units of 1e-4."""
    phases = set()
    for q in questions("lr_schedule"):
        i = q.inputs
        t, w, total, peak, low = i["step"], i["warmup"], i["total"], i["peak"], i["peak"] * i.get("final_ratio", 0.0)
        if t < w:
            expected = peak * t / w
        else:
            expected = low + (peak - low) * (1 + np.cos(np.pi * (t - w) / (total - w))) / 2
        assert q.answer == pytest.approx(expected / 1e-4, rel=1e-12)
        phases.add(t < w)
        to_zero = peak * (1 + np.cos(np.pi * (t - w) / (total - w))) / 2 / 1e-4
        if t >= w and abs(to_zero - q.answer) > 2 * 10.0**-q.tolerance.decimals:  # forgetting the floor shows
            assert grade(typed([to_zero], q), q).outcome == "wrong", q.seed
    assert phases == {True, False}
    checker = registry.get("lr_schedule")
    assert checker.solve(checker.Inputs(peak=3e-4, warmup=2000, total=100_000, step=51_000, final_ratio=0.1)) == pytest.approx(1.65)
    assert checker.solve(checker.Inputs(peak=3e-4, warmup=2000, total=100_000, step=100_000, final_ratio=0.1)) == pytest.approx(0.3)


def test_distillation_is_hintons_soft_targets_and_t_squared_kl():
    """Hinton et al. 2015, §2: p = softmax(z / T); the soft loss is scaled by T². A loss from the
    probabilities at the 4 places the prompt asks for is right; one without T², or KL the other way
    round, is not."""
    seen = set()
    for q in questions("distillation"):
        i = q.inputs
        temperature = i["temperature"]
        p = np_softmax(np.array(i["teacher"]) / temperature, np.ones(len(i["teacher"]), dtype=bool))
        if i["target"] == "soft":
            np.testing.assert_allclose(q.answer, p, atol=1e-12)
        else:
            s = np_softmax(np.array(i["student"]) / temperature, np.ones(len(i["student"]), dtype=bool))
            kl = float(np.sum(p * np.log(p / s)))
            assert q.answer == pytest.approx(temperature**2 * kl, rel=1e-10)
            p4, s4 = np.array([half_up(v, 4) for v in p]), np.array([half_up(v, 4) for v in s])
            assert grade(typed([temperature**2 * float(np.sum(p4 * np.log(p4 / s4)))], q), q).outcome == "correct", q.seed
            assert grade(typed([kl], q), q).outcome == "wrong", q.seed
            reverse = temperature**2 * float(np.sum(s * np.log(s / p)))
            assert abs(reverse - q.answer) < 2e-3 or grade(typed([reverse], q), q).outcome == "wrong", q.seed
        seen.add(i["target"])
    assert seen == {"soft", "loss"}


@pytest.mark.parametrize(
    ("model", "published"),
    [  # num_parameters() of the released checkpoints
        ("Llama-2-7B", 6_738_415_616),
        ("Llama-2-13B", 13_015_864_320),
        ("Llama-2-70B", 68_976_648_192),
        ("Mistral-7B", 7_241_732_096),
    ],
)
def test_llama_totals_are_the_released_checkpoints(model, published):
    checker = registry.get("llama_params")
    layers, d, heads, kv_heads, d_ff, vocab = {
        "Llama-2-7B": (32, 4096, 32, 32, 11008, 32000), "Llama-2-13B": (40, 5120, 40, 40, 13824, 32000),
        "Llama-2-70B": (80, 8192, 64, 8, 28672, 32000), "Mistral-7B": (32, 4096, 32, 8, 14336, 32000),
    }[model]  # Touvron et al. 2023, Table 1 and the configs; Jiang et al. 2023, Table 1
    inputs = checker.Inputs(layers=layers, d_model=d, heads=heads, kv_heads=kv_heads, d_ff=d_ff, vocab=vocab)
    assert checker.solve(inputs) == published
    per_layer = 2 * d * d + 2 * d * kv_heads * (d // heads) + 3 * d * d_ff + 2 * d
    assert checker.solve(checker.Inputs(**{**inputs.model_dump(), "part": "layer"})) == per_layer
    tied = published - vocab * d  # a GPT-2-style tied head is a systematic mistake here
    question = next(q for q in questions("llama_params", {"parts": ["total"]}, range(60)) if q.inputs["model"] == model)
    assert grade(f"{tied:,}", question).outcome == "wrong" and grade(f"{published:,}", question).outcome == "correct"


def test_beam_search_keeps_the_top_k_prefixes_and_greedy_can_miss_the_best():
    """Width k: the best of the k most likely first tokens' extensions; width 1 is greedy. Computed
    here by enumerating all nine sequences."""
    missed = 0
    for q in questions("beam_search", seeds=range(300)):
        first, second, width = np.array(q.inputs["first"]), np.array(q.inputs["second"]), q.inputs["width"]
        joint = first[:, None] * second
        kept = np.argsort(-first)[:width]
        assert q.answer == pytest.approx(joint[kept].max(), abs=1e-12)
        if width == 1 and joint.max() > q.answer + 1e-9:
            missed += 1
            assert grade(f"{joint.max():.4f}", q).outcome == "wrong"  # the best sequence is not what greedy finds
    assert missed > 10


def rope_numpy(x: list[float], position: int) -> np.ndarray:
    """Su et al. 2021, eq. 13-15: the block-diagonal rotation R_m applied to x."""
    d = len(x)
    rotation = np.zeros((d, d))
    for i in range(d // 2):
        angle = position * 10000 ** (-2 * i / d)
        rotation[2 * i : 2 * i + 2, 2 * i : 2 * i + 2] = [[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]]
    return rotation @ np.array(x, dtype=float)


def test_rope_is_the_block_rotation_and_the_score_depends_on_the_distance_only():
    checker, seen = registry.get("rope"), set()
    for q in questions("rope"):
        i = q.inputs
        rotated = rope_numpy(i["q"], i["position"])
        if i["target"] == "rotate":
            np.testing.assert_allclose(q.answer, rotated, atol=1e-12)
            assert grade(typed(i["q"], q), q).outcome == "wrong" or not any(rotated - i["q"]), q.seed  # unrotated
        else:
            score = float(rotated @ rope_numpy(i["k"], i["key_position"]))
            assert q.answer == pytest.approx(score, abs=1e-12)
            shifted = checker.Inputs(q=i["q"], position=i["position"] + 100, k=i["k"], key_position=i["key_position"] + 100,
                                     target="score")
            assert checker.solve(shifted) == pytest.approx(score, abs=1e-9)  # the relative-position property
        seen.add(i["target"])
    assert seen == {"rotate", "score"}


def test_training_memory_is_zero_paper_accounting():
    for q in questions("training_memory"):
        i = q.inputs
        per = ZERO_BYTES[i["precision"]]
        expected = (sum(per.values()) if i["part"] == "total" else per[i["part"]]) * i["parameters"] / 1e9
        assert q.answer == pytest.approx(expected, rel=1e-12)
    checker = registry.get("training_memory")
    # ZeRO §3.1: GPT-2 with 1.5B parameters needs at least 24 GB of model states (16 bytes each)
    assert checker.solve(checker.Inputs(parameters=1_500_000_000, precision="mixed")) == 24.0
    assert checker.solve(checker.Inputs(parameters=1_500_000_000, precision="fp32")) == 24.0  # fp32 too: 4 + 4 + 8
    weights = checker.solve(checker.Inputs(parameters=1_500_000_000, precision="mixed", part="weights"))
    assert weights == 3.0


def test_adam_keeps_two_moments_of_the_parameter_size():
    """What training_memory assumes about torch.optim.Adam, checked on the real optimizer."""
    import torch

    weight = torch.nn.Parameter(torch.randn(7, 3))
    weight.grad = torch.randn(7, 3)
    optimizer = torch.optim.Adam([weight])
    optimizer.step()
    state = optimizer.state[weight]
    moments = {k: v for k, v in state.items() if k != "step"}
    assert set(moments) == {"exp_avg", "exp_avg_sq"}
    assert all(v.shape == weight.shape and v.dtype == torch.float32 for v in moments.values())


def kaplan(layers: int, d: int, n_ctx: int, d_ff: int | None = None) -> int:
    """Kaplan et al. 2020, Table 1: C_forward = 2N + 2 n_layer n_ctx d_attn, N = 2 d n_layer (2 d_attn + d_ff)."""
    n = 2 * d * layers * (2 * d + (d_ff or 4 * d))
    return 2 * n + 2 * layers * n_ctx * d


def test_flops_are_kaplans_table():
    for q in questions("flops_per_token", seeds=range(60)):
        i = q.inputs
        forward = kaplan(i["layers"], i["d_model"], i["n_ctx"], i.get("d_ff"))
        assert q.answer == (forward if i["mode"] == "forward" else 3 * forward)
    checker = registry.get("flops_per_token")
    gpt3 = checker.solve(checker.Inputs(layers=96, d_model=12288, n_ctx=2048, mode="training"))
    assert gpt3 == pytest.approx(6 * 174e9, rel=0.02)  # "about 6N" for GPT-3's 175B parameters


def test_lora_counts_r_times_in_plus_out_per_adapted_matrix():
    for q in questions("lora_params"):
        i = q.inputs
        d, f = i["d_model"], i.get("d_ff") or 4 * i["d_model"]
        dims = {"q": 2 * d, "k": 2 * d, "v": 2 * d, "o": 2 * d, "up": d + f, "down": d + f}
        assert q.answer == i["layers"] * i["rank"] * sum(dims[t] for t in i["targets"])
    # LoRA paper §7.1, Table 5: GPT-3 175B (96 layers, d = 12288) with the same 18M budget three ways
    checker = registry.get("lora_params")
    for targets, rank in ((["q"], 8), (["q", "v"], 4), (["q", "k", "v", "o"], 2)):
        count = checker.solve(checker.Inputs(layers=96, d_model=12288, rank=rank, targets=targets))
        assert count == 18_874_368 and round(count / 1e6) == 19  # the paper prints 18M (rounded down)


def test_lora_module_starts_as_the_frozen_layer():
    import torch

    layer = reference.LoRALinear(5, 3, rank=2)
    torch.nn.init.normal_(layer.lora_a)
    x = torch.randn(4, 5)
    assert torch.equal(layer(x), layer.base(x))  # B = 0 at the start
    assert [p.requires_grad for p in (layer.base.weight, layer.lora_a, layer.lora_b)] == [False, True, True]


def test_sinusoidal_values_are_vaswanis_formula():
    for q in questions("sinusoidal_pe"):
        i = q.inputs
        d, pos = i["d_model"], i["position"]
        dims = np.arange(d)
        angle = pos / np.power(10000.0, 2 * (dims // 2) / d)
        row = np.where(dims % 2 == 0, np.sin(angle), np.cos(angle))
        expected = row.tolist() if i.get("index") is None else row[i["index"]]
        np.testing.assert_allclose(q.answer, expected, atol=1e-12)


def test_layer_norm_is_numpy_with_biased_variance():
    for q in questions("layer_norm"):
        i = q.inputs
        x = np.array(i["x"])
        gamma, beta = np.array(i.get("gamma", [1.0] * len(x))), np.array(i.get("beta", [0.0] * len(x)))
        expected = (x - x.mean()) / np.sqrt(x.var() + i.get("eps", 1e-5)) * gamma + beta
        np.testing.assert_allclose(q.answer, expected, atol=1e-12)


def half_up(value: float, places: int) -> float:
    """A worked solution's shown value: rounded half up in decimal, as it is printed."""
    from decimal import ROUND_HALF_UP, Decimal

    return float(Decimal(repr(float(value))).quantize(Decimal(1).scaleb(-places), ROUND_HALF_UP))


def typed(values, q) -> str:
    return ", ".join(f"{v:.{q.tolerance.decimals}f}" for v in values)


def test_layer_norm_from_the_shown_intermediates_is_right_and_the_unbiased_variance_is_not():
    """The prompt says μ and √(σ² + eps) need 4 places; an output computed from those (seed 3:
    −0.301 from σ = 0.8292, where the exact σ gives −0.302) is right. Dividing by n − 1, or taking
    the sum for the mean, stays wrong."""
    for q in questions("layer_norm"):
        i = q.inputs
        x = np.array(i["x"])
        gamma, beta = np.array(i.get("gamma", [1.0] * len(x))), np.array(i.get("beta", [0.0] * len(x)))
        eps = i.get("eps", 1e-5)
        assert "μ and √(σ² + eps) on the way to 4 decimal places are enough" in q.prompt
        mean, std = half_up(x.mean(), 4), half_up(math.sqrt(x.var() + eps), 4)
        assert grade(typed((x - mean) / std * gamma + beta, q), q).outcome == "correct", q.seed
        unbiased = (x - x.mean()) / np.sqrt(x.var(ddof=1) + eps) * gamma + beta
        assert grade(typed(unbiased, q), q).outcome == "wrong", q.seed
        summed = (x - x.sum()) / np.sqrt(x.var() + eps) * gamma + beta
        assert x.mean() == 0 or grade(typed(summed, q), q).outcome == "wrong", q.seed  # a zero mean is its own sum
    three = registry.get("layer_norm").generate(3)
    assert three.answer_text.startswith("[-0.302") and grade("-0.301, 1.508, 0.905, 0.905", three).outcome != "correct"
    assert grade("-0.301, -1.508, 0.905, 0.905", three).outcome == "correct"


def test_perplexity_from_the_mean_loss_at_three_places_is_right_and_the_summed_loss_is_not():
    rounded = 0
    for q in questions("perplexity"):
        probs = q.inputs.get("probs")
        if probs is None:
            continue
        nll = -np.log(probs)
        assert "the mean negative log-likelihood on the way to 3 decimal places is enough" in q.prompt
        assert grade(typed([math.exp(half_up(nll.mean(), 3))], q), q).outcome == "correct", q.seed
        rounded += typed([math.exp(half_up(nll.mean(), 3))], q) != q.answer_text
        assert grade(typed([math.exp(nll.sum())], q), q).outcome == "wrong", q.seed
        assert grade(typed([math.exp(np.log2(1 / np.array(probs)).mean())], q), q).outcome == "wrong", q.seed
    assert rounded  # seeds where the rounded mean gives another answer are among those drawn


def test_perplexity_is_exp_of_mean_nll():
    forms = set()
    for q in questions("perplexity"):
        i = q.inputs
        nll = -np.log(i["probs"]).mean() if "probs" in i else i["loss"]
        assert q.answer == pytest.approx(math.exp(nll), rel=1e-12)
        forms.add("probs" in i)
    assert forms == {True, False}
    assert registry.get("perplexity").solve(registry.get("perplexity").Inputs(probs=[0.25] * 4)) == pytest.approx(4.0)


def nucleus(logits: list[float], temperature: float, top_k: int, top_p: float) -> np.ndarray:
    """Temperature, top-k, then the smallest most-likely set whose mass reaches p (Holtzman et al. 2020)."""
    z = np.array(logits) / temperature
    keep = np.ones(len(z), dtype=bool)
    if top_k:
        keep &= z >= np.sort(z)[::-1][top_k - 1]
    probs = np_softmax(z, keep)
    order = np.argsort(-probs)
    size = int(np.searchsorted(np.cumsum(probs[order]), top_p - 1e-12) + 1)  # first prefix with mass >= p
    nucleus_keep = np.zeros(len(z), dtype=bool)
    nucleus_keep[order[:size]] = True
    return np_softmax(z, keep & nucleus_keep)


def test_sampling_is_temperature_top_k_top_p():
    variants = set()
    for q in questions("sampling"):
        i = q.inputs
        expected = nucleus(i["logits"], i.get("temperature", 1.0), i.get("top_k", 0), i.get("top_p", 1.0))
        np.testing.assert_allclose(q.answer, expected, atol=1e-12)
        assert math.isclose(sum(q.answer), 1.0, rel_tol=1e-12)
        variants.add((i.get("temperature", 1.0) != 1.0, i.get("top_k", 0) > 0, i.get("top_p", 1.0) < 1))
    assert {(True, False, False), (False, True, False), (False, False, True), (True, True, True)} <= variants


def test_sampling_without_renormalising_is_wrong():
    """Top-k / top-p keep some tokens; leaving their softmax probabilities as they were (not
    dividing by the kept mass) is a systematic mistake, never accepted."""
    cut = 0
    for q in questions("sampling", seeds=range(250)):
        z = np.array(q.inputs["logits"]) / q.inputs.get("temperature", 1.0)
        whole = np_softmax(z, np.ones(len(z), dtype=bool))
        kept = np.where(np.array(q.answer) > 0, whole, 0.0)
        if np.allclose(kept, q.answer):
            continue  # nothing was cut
        cut += 1
        assert grade(typed(kept, q), q).outcome == "wrong", q.seed
    assert cut > 100


@pytest.mark.parametrize("variant", ["temperature", "top_k", "top_p", "combined"])
def test_sampling_variant_params_stay_on_their_point(variant):
    checker = registry.get("sampling")
    params = checker.Params(variant=variant)
    for seed in SEEDS:
        inputs, _ = checker.compose(random.Random(seed), params)
        assert checker.why_out_of_range(params, inputs) is None, seed
    assert checker.why_out_of_range(checker.Params(variant="top_k"), checker.Inputs(logits=[1, 2, 3], temperature=2.0, top_k=2))


def test_bad_inputs_are_refused():
    bad = {
        "attention_shapes": {"batch": 1, "q_len": 2, "kv_len": 2, "d_model": 10, "heads": 3, "stage": "q"},
        "mask_matrix": {"scores": [[1, 2, 3]] * 3, "attention_mask": [1, 0, 1]},
        "kv_cache": {"layers": 2, "heads": 6, "kv_heads": 4, "head_dim": 8},
        "lora_params": {"layers": 1, "d_model": 8, "rank": 1, "targets": ["q", "q"]},
        "sinusoidal_pe": {"position": 1, "d_model": 5},
        "layer_norm": {"x": [1, 2], "gamma": [1]},
        "perplexity": {"probs": [0.5], "loss": 1.0},
        "sampling": {"logits": [1, 1, 2], "top_k": 2},
    }
    for name, raw in bad.items():
        with pytest.raises(ValidationError):
            registry.get(name).Inputs.model_validate(raw)


# ----------------------------------------------------------------------------- published sizes


def gpt2_count(d: int, layers: int, vocab: int = 50257, positions: int = 1024) -> int:
    """GPT-2 as Hugging Face builds it: wte + wpe, per block 12 d^2 + 13 d (weights, biases, two LNs), ln_f; head tied."""
    return vocab * d + positions * d + layers * (12 * d * d + 13 * d) + 2 * d


@pytest.mark.parametrize(
    ("name", "d", "layers", "heads", "published", "name_size", "paper"),
    [
        ("gpt2", 768, 12, 12, 124_439_808, "124M", 117),
        ("gpt2-medium", 1024, 24, 16, 354_823_168, "355M", 345),
        ("gpt2-large", 1280, 36, 20, 774_030_080, "774M", 762),
        ("gpt2-xl", 1600, 48, 25, 1_557_611_200, "1.5B", 1542),
    ],
)
def test_gpt2_family_totals(name, d, layers, heads, published, name_size, paper):
    """published: the Hugging Face checkpoints' num_parameters() (tied LM head); name_size: how the
    family is named (124M/355M/774M/1.5B); paper: Radford et al. 2019, Table 2, in millions, which
    the exact counts exceed by 1-7% (the paper's own accounting)."""
    cfg = CONFIGS[name]
    assert (cfg.hidden, cfg.layers, cfg.heads, cfg.vocab, cfg.positions, cfg.ffn) == (d, layers, heads, 50257, 1024, 4 * d)
    assert gpt2_count(d, layers) == published
    assert reference.parameter_breakdown(cfg)["total"] == published
    shown = f"{math.floor(published / 1e8) / 10:g}B" if published > 1e9 else f"{round(published / 1e6)}M"
    assert shown == name_size
    assert 1.0 < published / (paper * 1e6) < 1.07


@pytest.mark.parametrize(
    ("model", "right", "wrong", "coarse"),
    [
        # Table 2 of Radford et al. 2019, the checkpoints' names, two significant digits of the exact count
        ("gpt2-medium", ["345M", "355M", "350M", "354,823,168", "3.5亿"], ["406M", "330M", "0.2B"], "0.4B"),
        ("gpt2-large", ["762M", "774M", "770M", "7.7亿"], ["838M", "740M", "0.6B"], "0.8B"),
        ("gpt2-xl", ["1.5B", "1542M", "1.6B", "1,557,611,200", "15亿"], ["1.4B", "1.7B", "3B"], "2B"),
    ],
)
def test_about_how_many_takes_the_papers_figures_and_two_digits(model, right, wrong, coarse):
    """num-gpt2-family-params asks "约多少": the paper's rounded figures and two significant digits
    are right; counting the LM head again (V x d more: 406M, 838M) or a coarser guess is not."""
    card = next(c for d in load_decks([ROOT / "decks"]) for c in d.deck.cards if c.id == "num-gpt2-family-params")
    question = registry.get("param_count").generate(0, {**card.params, "models": [model]})
    assert {text: grade(text, question).outcome for text in right} == dict.fromkeys(right, "correct")
    assert {text: grade(text, question).outcome for text in wrong} == dict.fromkeys(wrong, "wrong")
    assert grade(coarse, question).outcome == "imprecise"  # one digit: asked again


def test_bert_large_total_with_pooler():
    assert reference.parameter_breakdown(CONFIGS["bert-large-uncased"])["total"] == 335_141_888


# ---------------------------------------------------------------------------- worked solutions


def final_answer(solution: str) -> str:
    return re.findall(r"Answer[^`]*`([^`]+)`", solution)[-1]


def intermediate(q) -> list[str]:
    """Strings the worked solution must contain: its own computation of the answer."""
    a, i, name = q.answer, q.inputs, q.checker
    if name == "attention_shapes":
        return [f"**`{vec(a)}`**"]
    if name == "mask_matrix":
        n = len(i["attention_mask"])
        return [f"Row {r} = `{q.tolerance.format(a[r * n:(r + 1) * n])}`" for r in range(n)]
    if name == "kv_cache":
        return [f"= {a:,} bytes"] if isinstance(a, int) else [f"= {a:.4f} GiB"]
    if name == "training_memory":
        return [f"= {a:g} |"]
    if name in ("flops_per_token", "lora_params"):
        return [f"= {a:,}\n"]
    if name == "sinusoidal_pe":
        return [f"= {num(v, 6)} |" for v in (a if isinstance(a, list) else [a])]
    if name == "layer_norm":
        return [f"= {num(v)}" for v in a]
    if name == "perplexity":
        return [f"= {num(a)}"]
    if name == "weight_memory":
        return [f"= {q.answer_text} {i['unit']}"]
    if name == "compute_budget":
        return [f"{a / 10 ** math.floor(math.log10(a)):g} × 10^{math.floor(math.log10(a))}\n"]
    if name == "albert_embedding":
        return [f"= {a:,}"]
    if name == "lr_schedule":
        return [f"= {num(a)}"]
    if name == "llama_params":
        return [f"= {a:,}"]
    if name == "beam_search":
        return [f"probability {num(a)}."]
    if name == "activation_memory":
        return [f"bytes = {a:g} GB."]
    if name == "bpe_tokens":
        return [f"= {a}\n"] if q.inputs["target"] == "corpus" else [f"Tokens: {a}."]
    if name == "wordpiece_tokens":
        return [f" = {a}\n"]
    if name == "rope":
        return [f"Turned q = `{vec(a, 4)}`"] if isinstance(a, list) else [f"= {num(a)}\n"]
    if name == "distillation":
        return [f"p = `{vec(a, 4)}`"] if isinstance(a, list) else [f"= {num(a)}"]
    return [f"| {num(v, 5)} |" for v in a if v] + ["→ −∞ | 0 | 0 |" for v in a if not v]  # sampling: weights to 5 places


@pytest.mark.parametrize("name", NEW)
def test_worked_solution_reaches_the_answer(name):
    for q in questions(name, seeds=range(60)):
        assert final_answer(q.solution) == q.answer_text
        assert grade(q.answer_text, q).outcome == "correct"
        for text in intermediate(q):
            assert text in q.solution, (q.seed, text)


# ---------------------------------------------------------------------------------- the cards


def new_cards():
    from quizzer.decks import load_decks

    for loaded in load_decks([ROOT / "decks"]):
        for card in loaded.deck.cards:
            if getattr(card, "checker", None) in NEW:
                yield card


def test_every_new_checker_has_a_card_and_each_card_stays_on_its_point():
    cards = list(new_cards())
    assert {c.checker for c in cards} == set(NEW)
    for card in cards:
        checker = registry.get(card.checker)
        params = checker.Params.model_validate(card.params)
        for seed in SEEDS:
            inputs, _ = checker.compose(random.Random(f"{checker.name}:{seed}"), params)
            assert checker.why_out_of_range(params, inputs) is None, (card.id, seed)


def test_interview_deck_cards_cite_a_paper_section():
    from quizzer.decks import load_decks

    deck = next(d.deck for d in load_decks([ROOT / "decks"]) if d.deck.id == "interview-numbers")
    for card in deck.cards:
        text = " ".join(filter(None, [getattr(card, "prompt", None), card.example.note if card.example else None]))
        assert re.search(r"(19|20)\d\d", text) and "§" in text, card.id
