"""The torch reference against facts it did not produce: published counts, closed forms, numpy."""

from __future__ import annotations

import math
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from checkers import reference
from checkers.configs import CONFIGS, ModelConfig

ROOT = Path(__file__).resolve().parent.parent


def bert_exact(V: int, P: int, T: int, L: int, d: int, f: int, pooler: bool = True) -> int:
    """BertModel, counted by hand: embeddings + LN, per layer QKVO + LN + FFN + LN, pooler."""
    embeddings = (V + P + T) * d + 2 * d
    layer = 4 * (d * d + d) + 2 * d + (d * f + f) + (f * d + d) + 2 * d
    return embeddings + L * layer + (d * d + d if pooler else 0)


def gpt2_exact(V: int, P: int, L: int, d: int, f: int) -> int:
    """GPT-2 (HF layout): wte + wpe, per block ln_1, c_attn, c_proj, ln_2, c_fc, c_proj; ln_f."""
    block = 2 * d + (d * 3 * d + 3 * d) + (d * d + d) + 2 * d + (d * f + f) + (f * d + d)
    return V * d + P * d + L * block + 2 * d


def textbook_total(V: int, P: int, T: int, L: int, d: int, f: int) -> int:
    """The course's table: weight matrices only."""
    return (V + P + T) * d + L * (4 * d * d + 2 * d * f)


def test_published_exact_counts():
    assert reference.parameter_breakdown(CONFIGS["bert-base-uncased"])["total"] == 109_482_240
    assert reference.parameter_breakdown(CONFIGS["gpt2"])["total"] == 124_439_808
    assert reference.parameter_breakdown(CONFIGS["distilbert-base-uncased"])["total"] == 66_362_880


@pytest.mark.parametrize(
    "name, expected",
    [
        ("bert-base-uncased", bert_exact(30522, 512, 2, 12, 768, 3072)),
        ("bert-large-uncased", bert_exact(30522, 512, 2, 24, 1024, 4096)),
        ("bert-base-chinese", bert_exact(21128, 512, 2, 12, 768, 3072)),
        ("distilbert-base-uncased", bert_exact(30522, 512, 0, 6, 768, 3072, pooler=False)),
        ("gpt2", gpt2_exact(50257, 1024, 12, 768, 3072)),
    ],
)
def test_exact_counts_match_closed_form(name, expected):
    assert reference.parameter_breakdown(CONFIGS[name])["total"] == expected


def test_textbook_reproduces_course_table():
    counts = reference.parameter_breakdown(CONFIGS["bert-base-uncased"], "textbook")
    assert counts["token_embedding"] == 30522 * 768  # 23.4M
    assert counts["position_embedding"] == 512 * 768
    assert counts["segment_embedding"] == 2 * 768
    assert counts["attention"] == 4 * 768 * 768  # 2.36M
    assert counts["ffn"] == 2 * 768 * 3072  # 4.72M
    assert counts["encoder"] == 12 * (4 * 768 * 768 + 2 * 768 * 3072)  # 85.0M
    assert counts["total"] == textbook_total(30522, 512, 2, 12, 768, 3072) == 108_770_304  # 108.8M


def test_heads_are_counted_with_tied_decoder_once():
    counts = reference.parameter_breakdown(CONFIGS["bert-base-uncased"])
    d, V = 768, 30522
    assert counts["mlm_head"] == (d * d + d) + 2 * d + V  # dense, LayerNorm, own output bias
    assert counts["nsp_head"] == 2 * d + 2
    assert counts["pooler"] == d * d + d


@given(
    family=st.sampled_from(["bert", "gpt"]),
    layers=st.integers(1, 30),
    heads=st.integers(1, 8),
    head_dim=st.integers(1, 64),
    vocab=st.integers(10, 60000),
    positions=st.integers(1, 2048),
)
def test_random_configs_match_closed_form(family, layers, heads, head_dim, vocab, positions):
    d = heads * head_dim
    bert = family == "bert"
    cfg = ModelConfig("x", family, vocab, positions, 2 if bert else 0, layers, d, heads, 4 * d, pre_norm=not bert, pooler=bert)
    expected = bert_exact(vocab, positions, 2, layers, d, 4 * d) if bert else gpt2_exact(vocab, positions, layers, d, 4 * d)
    assert reference.parameter_breakdown(cfg)["total"] == expected
    textbook = textbook_total(vocab, positions, 2 if bert else 0, layers, d, 4 * d)
    assert reference.parameter_breakdown(cfg, "textbook")["total"] == textbook


def test_counting_a_huge_model_allocates_nothing():
    """~1 trillion parameters (4 TB in float32) is only countable if nothing is allocated."""
    huge = replace(CONFIGS["gpt2"], name="huge", vocab=1_000_000, layers=100, hidden=25_600, heads=200, ffn=102_400)
    assert reference.parameter_breakdown(huge)["total"] > 7.8e11


def numpy_masked_softmax(scores: np.ndarray, keep: np.ndarray) -> np.ndarray:
    shifted = np.where(keep, scores - scores[keep.astype(bool)].max(), 0.0)
    e = np.where(keep, np.exp(shifted), 0.0)
    return e / e.sum()


@given(
    st.lists(
        st.tuples(st.floats(-30, 30, allow_nan=False), st.booleans()), min_size=1, max_size=12
    ).filter(lambda row: any(k for _, k in row))
)
def test_masked_softmax_matches_numpy(row):
    scores = np.array([s for s, _ in row])
    keep = np.array([int(k) for _, k in row])
    got = reference.masked_softmax(torch.tensor(scores, dtype=torch.float64), torch.tensor(keep)).numpy()
    np.testing.assert_allclose(got, numpy_masked_softmax(scores, keep), rtol=1e-10, atol=1e-12)
    assert np.all(got[keep == 0] == 0.0)
    assert math.isclose(got.sum(), 1.0, rel_tol=1e-12)


def test_fully_masked_row_is_nan_like_torch():
    weights = reference.masked_softmax(torch.tensor([1.0, 2.0, 3.0]), torch.tensor([0, 0, 0]))
    assert torch.isnan(weights).all()


def test_course_padding_example():
    scores = torch.tensor([2.0, 1, 3, 2, 4, 5], dtype=torch.float64)
    masked = reference.masked_softmax(scores, torch.tensor([1, 1, 1, 1, 0, 0]))
    assert masked[4:].tolist() == [0.0, 0.0]
    unmasked = reference.masked_softmax(scores)
    assert unmasked[4].item() == pytest.approx(0.2269, abs=5e-5)
    assert unmasked[5].item() == pytest.approx(0.6169, abs=5e-5)


def test_causal_mask_keeps_left_and_self():
    assert reference.causal_mask(3).int().tolist() == [[1, 0, 0], [1, 1, 0], [1, 1, 1]]


def test_mlm_loss_is_minus_log_p():
    p = torch.tensor([0.62, 0.01, 0.5], dtype=torch.float64)
    assert reference.nll_of_probability(p).tolist() == pytest.approx([-math.log(0.62), -math.log(0.01), math.log(2)])
    logits = torch.tensor([[1.0, 2.0, 0.0], [3.0, 0.0, 0.0], [0.0, 0.0, 1.0]], dtype=torch.float64)
    labels = torch.tensor([1, -100, 2])
    by_hand = [-math.log(math.exp(2) / (math.e + math.exp(2) + 1)), -math.log(math.e / (2 + math.e))]
    assert reference.cross_entropy(logits, labels).item() == pytest.approx(sum(by_hand) / 2)


def test_embedding_sum_course_example():
    parts = [torch.tensor(v) for v in ([0.6, -0.2, 0.3, 0.5], [0.25, -0.15, 0.20, 0.10], [-0.1] * 4)]
    assert reference.embedding_sum(*parts).tolist() == pytest.approx([0.75, -0.45, 0.40, 0.50])


TINY = dict(vocab=40, positions=16, layers=2, hidden=16, heads=4, ffn=32)


def test_bert_forward_ignores_pad_tokens_and_ties_mlm_decoder():
    torch.manual_seed(0)
    model = reference.BertForPreTraining(replace(CONFIGS["bert-base-uncased"], **TINY)).eval()
    assert model.mlm.decoder.weight is model.bert.embeddings.token.weight
    ids = torch.tensor([[1, 5, 7, 2, 0, 0]])
    other_pads = torch.tensor([[1, 5, 7, 2, 9, 11]])
    mask = torch.tensor([[1, 1, 1, 1, 0, 0]])
    with torch.no_grad():
        hidden, pooled = model.bert(ids, mask)
        hidden2, _ = model.bert(other_pads, mask)
        mlm, nsp = model(ids, mask)
    assert hidden.shape == (1, 6, 16) and pooled.shape == (1, 16)
    assert mlm.shape == (1, 6, 40) and nsp.shape == (1, 2)
    torch.testing.assert_close(hidden[:, :4], hidden2[:, :4])


@pytest.mark.parametrize("name", ["gpt2", "openai-gpt"])  # pre-norm and post-norm decoders
def test_gpt_forward_is_causal_and_tied(name):
    torch.manual_seed(0)
    model = reference.GPTModel(replace(CONFIGS[name], **TINY)).eval()
    assert model.lm_head.weight is model.embeddings.token.weight
    with torch.no_grad():
        a = model(torch.tensor([[3, 4, 5, 6, 7]]))
        b = model(torch.tensor([[3, 4, 5, 30, 31]]))
    assert a.shape == (1, 5, 40)
    torch.testing.assert_close(a[:, :3], b[:, :3])
    assert not torch.allclose(a[:, 3:], b[:, 3:])


# --- the meta device: numbers from shapes, without torch._dynamo ---------------------------------

ALLOCATING = (
    "reference.kv_cache_bytes(32, 8, 128, 1, 4096, 'fp16')\n"
    "reference.lora_trainable_parameters(96, [(12288, 12288), (12288, 49152)], 8)\n"
    "reference.training_memory_bytes(1_500_000_000, 'mixed')\n"
)
RUNNING = (
    "reference.multi_head_shapes(2, 5, 7, 64, 8)\n"
    "reference.kaplan_forward_flops(96, 12288, 12288, 49152, 2048)\n"
    "reference.parameter_breakdown(CONFIGS['bert-base-uncased'])\n"
)


def imported_after(code: str, modules: tuple[str, ...]) -> set[str]:
    """Which of ``modules`` are imported once ``code`` has run in a fresh interpreter."""
    probe = f"from checkers import reference\nfrom checkers.configs import CONFIGS\n{code}import sys\n"
    probe += f"print('LOADED:', *sorted(m for m in {modules!r} if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=ROOT)
    [line] = [row for row in out.stdout.splitlines() if row.startswith("LOADED:")]
    return set(line.split()[1:])


@pytest.mark.slow
def test_meta_device_answers_never_import_dynamo():
    """Shapes, FLOPs, bytes and counts on the meta device run no out-of-place elementwise op and no
    FlopCounterMode: either's first call imports torch._dynamo, about 0.6 s of every lint and export."""
    assert imported_after(ALLOCATING + RUNNING, ("torch._dynamo",)) == set()


@pytest.mark.slow
def test_meta_allocations_run_no_python_meta_kernel():
    """kv_cache, lora_params and training_memory only make meta tensors: no Python meta kernel runs,
    so sympy (imported by their torch._check, about 0.3 s) stays out of a study session's first card."""
    assert imported_after(ALLOCATING, ("sympy", "torch._dynamo")) == set()


def test_flop_count_counts_what_flop_counter_mode_counts():
    """FlopCount sums FlopCounterMode's formulas: same totals on the ops of a Transformer block."""
    from torch.utils.flop_counter import FlopCounterMode

    def block() -> None:
        with torch.device("meta"):
            x = torch.empty(3, 5, 64)
            q = torch.nn.Linear(64, 64)(x).view(3, 5, 8, 8).transpose(1, 2)  # bias: addmm
            context = reference.scaled_dot_product_attention(q, q, q)  # bmm, twice
            hidden = torch.nn.Linear(64, 256, bias=False)(context.transpose(1, 2).reshape(3, 5, 64))  # mm
            torch.baddbmm(torch.empty(3, 5, 5), hidden, hidden.transpose(1, 2))
            torch.nn.Linear(256, 10)(hidden[:, 0])  # 2-D input with bias: addmm

    with reference.FlopCount() as ours:
        block()
    with FlopCounterMode(display=False) as torchs:
        block()
    assert ours.total == torchs.get_total_flops() > 0
