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

ROOT = Path(__file__).resolve().parents[1]
SEEDS = range(200)
NEW = ["attention_shapes", "mask_matrix", "kv_cache", "training_memory", "flops_per_token", "lora_params",
       "sinusoidal_pe", "layer_norm", "perplexity", "sampling"]  # fmt: skip


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
        "        assert prompt and c.outside(c.Params(), inputs) is None, (name, seed)\n"
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
    for q in questions("mask_matrix"):
        scores, mask = np.array(q.inputs["scores"]), np.array(q.inputs["attention_mask"], dtype=bool)
        n = len(mask)
        assert 2 <= mask.sum() < n and 3 <= n <= 4
        keep = np.tril(np.ones((n, n), dtype=bool)) & mask[None, :]
        expected = np.stack([np_softmax(scores[r], keep[r]) for r in range(n)])
        np.testing.assert_allclose(q.answer, expected.flatten(), atol=1e-12)
        assert all(w == 0 for w, k in zip(q.answer, keep.flatten()) if not k)


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


ZERO_BYTES = {"fp32": {"weights": 4, "gradients": 4, "optimizer": 8}, "mixed": {"weights": 2, "gradients": 2, "optimizer": 12}}


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


@pytest.mark.parametrize("variant", ["temperature", "top_k", "top_p", "combined"])
def test_sampling_variant_params_stay_on_their_point(variant):
    checker = registry.get("sampling")
    params = checker.Params(variant=variant)
    for seed in SEEDS:
        inputs, _ = checker.compose(random.Random(seed), params)
        assert checker.outside(params, inputs) is None, seed
    assert checker.outside(checker.Params(variant="top_k"), checker.Inputs(logits=[1, 2, 3], temperature=2.0, top_k=2))


def test_bad_inputs_are_refused():
    bad = {
        "attention_shapes": {"batch": 1, "q_len": 2, "kv_len": 2, "d_model": 10, "heads": 3, "stage": "q"},
        "mask_matrix": {"scores": [[1, 2], [3, 4]], "attention_mask": [0, 1]},
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


def test_bert_large_total_with_pooler():
    assert reference.parameter_breakdown(CONFIGS["bert-large-uncased"])["total"] == 335_141_888


# ---------------------------------------------------------------------------- worked solutions


def final_answer(solution: str) -> str:
    return re.findall(r"答案[^`]*`([^`]+)`", solution)[-1]


def intermediate(q) -> list[str]:
    """Strings the worked solution must contain: its own computation of the answer."""
    a, i, name = q.answer, q.inputs, q.checker
    if name == "attention_shapes":
        return [f"**`{vec(a)}`**"]
    if name == "mask_matrix":
        n = len(i["attention_mask"])
        return [f"第 {r} 行 = `{q.tolerance.format(a[r * n:(r + 1) * n])}`" for r in range(n)]
    if name == "kv_cache":
        return [f"= {a:,} 字节"] if isinstance(a, int) else [f"= {a:.4f} GiB"]
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
            assert checker.outside(params, inputs) is None, (card.id, seed)


def test_interview_deck_cards_cite_a_paper_section():
    from quizzer.decks import load_decks

    deck = next(d.deck for d in load_decks([ROOT / "decks"]) if d.deck.id == "interview-numbers")
    for card in deck.cards:
        text = " ".join(filter(None, [getattr(card, "prompt", None), card.example.note if card.example else None]))
        assert re.search(r"(19|20)\d\d", text) and "§" in text, card.id
