"""The seven original checkers' answers against an independent computation (numpy and closed
forms written here), over many seeds and every variant, and their worked solutions against the answer."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

from checkers import registry
from checkers.base import grouped
from checkers.configs import CONFIGS
from checkers.grading import grade

SEEDS = range(150)


def softmax(scores: list[float], mask: list[int]) -> np.ndarray:
    x = np.array(scores, dtype=float)
    keep = np.array(mask) == 1
    e = np.where(keep, np.exp(x - x[keep].max()), 0.0)
    return e / e.sum()


@pytest.mark.parametrize("variant", ["padding", "causal", "unmasked", "zero_score"])
def test_masked_softmax_against_numpy(variant):
    checker = registry.get("masked_softmax")
    for seed in SEEDS:
        q = checker.generate(seed, {"variant": variant})
        expected = softmax(q.inputs["scores"], q.inputs["mask"])
        assert np.allclose(q.answer, expected, rtol=1e-12, atol=1e-15)
        for j, weight in enumerate(expected):  # the worked table shows each weight, to 5 places
            assert f"| {j} |" in q.solution and (f"{weight:.5f} |" in q.solution or weight == 0)


def test_scaled_scores_against_numpy():
    checker = registry.get("scaled_scores")
    for seed in SEEDS:
        q = checker.generate(seed)
        qv, k = np.array(q.inputs["q"], float), np.array(q.inputs["k"], float)
        expected = k @ qv / math.sqrt(len(qv))
        assert np.allclose(q.answer, expected, rtol=1e-12, atol=1e-15)
        assert f"{math.sqrt(len(qv)):.4f}" in q.solution


def test_embedding_sum_against_numpy():
    checker = registry.get("embedding_sum")
    for seed in SEEDS:
        q = checker.generate(seed)
        expected = np.sum([q.inputs["token"], q.inputs["position"], q.inputs["segment"]], axis=0)
        assert np.allclose(q.answer, expected, rtol=1e-12, atol=1e-12)
        for value in expected:
            assert f"= {round(value, 2) + 0.0:.2f}" in q.solution


def mlm_losses(inputs: dict) -> list[float]:
    """-ln p(true) per selected position: from probs, or log-sum-exp minus the true logit."""
    if "probs" in inputs:
        return [-math.log(p) for p in inputs["probs"]]
    out = []
    for row, y in zip(inputs["logits"], inputs["labels"]):
        if y != -100:
            out.append(math.log(sum(math.exp(v) for v in row)) - row[y])
    return out


@pytest.mark.parametrize("params", [{}, {"form": "probs"}, {"form": "logits", "min_len": 2}, {"target": "position"}])
def test_mlm_loss_against_closed_form(params):
    checker = registry.get("mlm_loss")
    for seed in SEEDS:
        q = checker.generate(seed, params)
        losses = mlm_losses(q.inputs)
        if "position" in q.inputs:
            selected = [i for i, y in enumerate(q.inputs.get("labels", [0] * len(losses))) if y != -100]
            expected = losses[selected.index(q.inputs["position"])]
        else:
            expected = sum(losses) / len(losses)
        assert q.answer == pytest.approx(expected, rel=1e-12)
        for loss in losses:
            assert f"{loss:.4f}" in q.solution
        if len(losses) > 1 and "position" not in q.inputs:
            assert f"= {expected:.4f}" in q.solution  # the averaging line ends on the answer
            summed = f"{sum(losses):.{q.tolerance.decimals}f}"  # the sum for the mean: never accepted
            assert grade(summed, q).outcome == "wrong", (seed, summed)


def test_nsp_loss_against_closed_form():
    checker = registry.get("nsp_loss")
    for seed in SEEDS:
        q = checker.generate(seed)
        p = q.inputs["p_isnext"]
        expected = -math.log(p if q.inputs["label"] == "IsNext" else 1 - p)
        assert q.answer == pytest.approx(expected, rel=1e-12)
        assert f"= {expected:.4f}" in q.solution


def test_masking_budget_against_closed_form():
    checker = registry.get("masking_budget")
    for seed in SEEDS:
        q = checker.generate(seed)
        selected = q.inputs["tokens"] * 0.15
        expected = [selected, selected * 0.8, selected * 0.1, selected * 0.1]
        assert q.answer == pytest.approx(expected, rel=1e-12)
        # what the solution shows, a tie rounded up: test_checkers' test_a_shown_answer_rounds_a_tie_up_as_school_teaches


def closed_form_counts(cfg, convention: str) -> dict[str, int]:
    """Parameter counts from the architecture's formulas (BERT: post-norm with pooler; GPT-2:
    pre-norm with a final LayerNorm; GPT-1: post-norm; the LM/MLM decoder tied to the embedding)."""
    V, P, T, d, f, L = cfg.vocab, cfg.positions, cfg.segments, cfg.hidden, cfg.ffn, cfg.layers
    bert = cfg.family == "bert"
    if convention == "textbook":
        attention, ffn = 4 * d * d, 2 * d * f
        counts = {"attention": attention, "ffn": ffn, "layer": attention + ffn, "pooler": d * d,
                  "embeddings": (V + P + T) * d, "mlm_head": d * d, "nsp_head": 2 * d}
        counts["encoder"] = L * counts["layer"]
        counts["total"] = counts["embeddings"] + counts["encoder"]
    else:
        attention, ffn = 4 * (d * d + d), d * f + f + f * d + d
        counts = {"attention": attention, "ffn": ffn, "layer": attention + ffn + 2 * 2 * d, "pooler": d * d + d,
                  "embeddings": (V + P + T) * d + (2 * d if bert else 0), "mlm_head": d * d + d + 2 * d + V,
                  "nsp_head": 2 * d + 2}
        counts["encoder"] = L * counts["layer"] + (2 * d if cfg.pre_norm else 0)
        counts["total"] = counts["embeddings"] + counts["encoder"] + (counts["pooler"] if not cfg.lacks("pooler") else 0)
    counts.update(token_embedding=V * d, position_embedding=P * d, segment_embedding=T * d)
    return counts


@pytest.mark.parametrize("convention", ["textbook", "exact"])
def test_param_count_against_closed_form(convention):
    checker, inputs = registry.get("param_count"), registry.get("param_count").Inputs
    for seed in range(300):
        q = checker.generate(seed, {"convention": convention})
        cfg = inputs.model_validate(q.inputs).config()
        counts = closed_form_counts(cfg, convention)
        component = q.inputs.get("component", "total")
        expected = counts["embeddings"] / counts["total"] if component == "embedding_share" else counts[component]
        assert q.answer == pytest.approx(expected, rel=1e-15), (seed, q.inputs)
        if component != "embedding_share":  # the bold row of the worked table is the answer
            assert f"| **{component}** |" in q.solution and f"**{grouped(expected)}**" in q.solution


def test_published_totals():
    """The checkpoints' totals as their model cards and papers give them (BertModel with pooler,
    GPT-2 with tied LM head): bert-base-uncased 110M, bert-large 340M, DistilBERT 66M, GPT-2 124M."""
    solve = registry.get("param_count").solve
    inputs = registry.get("param_count").Inputs
    published = {
        "bert-base-uncased": 109_482_240,
        "bert-large-uncased": 335_141_888,
        "distilbert-base-uncased": 66_362_880,
        "gpt2": 124_439_808,
    }
    for model, total in published.items():
        assert solve(inputs.model_validate({"model": model})) == total
        assert closed_form_counts(CONFIGS[model], "exact")["total"] == total


def test_estimate_solutions_show_the_exact_count_too():
    checker = registry.get("param_count")
    for seed in range(40):
        q = checker.generate(seed, {"precision": "millions", "decimals": 1, "components": ["total", "encoder"]})
        assert re.search(rf"Answer: `{re.escape(q.answer_text)}` \(exactly {re.escape(grouped(q.answer))}\)", q.solution)
        assert q.answer_text == f"{q.answer / 1e6:.1f}M"
