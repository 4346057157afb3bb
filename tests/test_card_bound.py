"""Card-bound generation: every numeric card's draws stay on the card's point as its params state it.

The constraints are checked here from the card's params and the drawn inputs with the test's own
rules (not with the checkers' `outside`), over 200 seeds per card drawn the way `quiz generate
--card` and study draw them (the card kind's ask).
"""

from __future__ import annotations

import json
import math
import re
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from checkers import registry
from checkers.configs import CONFIGS
from quizzer import kinds
from quizzer.base import i18n
from quizzer.cli import app
from quizzer.decks import load_decks

ROOT = Path(__file__).resolve().parents[1]
SEEDS = range(200)
ORIGINAL = {"masked_softmax", "scaled_scores", "embedding_sum", "param_count", "mlm_loss", "nsp_loss", "masking_budget"}
runner = CliRunner()


def numeric_cards() -> list[Any]:
    cards = []
    for loaded in load_decks([ROOT / "decks"]):
        cards += [loaded.card(e.id) for e in loaded.entries if e.kind == "numeric"]
    return cards


CARDS = numeric_cards()


def trailing_zeros(values: list[float]) -> int:
    count = 0
    for v in reversed(values):
        if v != 0:
            break
        count += 1
    return count


def violation(card: Any, inputs: dict[str, Any], prompt: str) -> str | None:
    """The test's own reading of a card's stated constraint (params) against one draw."""
    p = card.params
    if card.checker == "masked_softmax":
        mask, scores = inputs["mask"], inputs["scores"]
        n, kept = len(mask), sum(mask)
        if not int(p.get("min_len", 3)) <= n <= int(p.get("max_len", 6)):
            return f"length {n}"
        variant, need = p.get("variant", "padding"), int(p.get("min_kept", 2))
        if variant in ("padding", "causal"):
            if mask != [1] * kept + [0] * (n - kept):
                return f"mask {mask} is not a kept prefix"
            real = kept
            if variant == "padding" and kept == n:
                return "no PAD in a padding row"
            if variant == "causal" and n - kept < int(p.get("min_masked", 0)):
                return f"a causal row hiding {n - kept} future positions"
        elif variant == "unmasked":
            if kept != n or not inputs.get("pads") or f"the last {inputs['pads']} positions are PAD" not in prompt:
                return "a forgotten mask hides nothing, and the story names its PADs"
            real = n - inputs["pads"]
        else:  # zero_score: future positions written as 0, never called PAD
            zeros = trailing_zeros(scores)
            real = n - zeros
            if kept != n or not zeros or 0 in scores[:real] or "PAD" in prompt:
                return f"zero-score row {scores}"
        if real < need:
            return f"only {real} real positions"
    elif card.checker == "mlm_loss":
        rows = inputs.get("probs") or inputs.get("logits")
        if not int(p.get("min_len", 1)) <= len(rows) <= int(p.get("max_len", 4)):
            return f"{len(rows)} positions"
        if p.get("form", "any") != "any" and ("probs" in inputs) != (p["form"] == "probs"):
            return "form"
        if "probs" in inputs and not all(float(p.get("p_min", 0.05)) <= x <= float(p.get("p_max", 0.95)) for x in rows):
            return f"p = {rows}"
        if p.get("target") == "mean" and "position" in inputs:
            return "asked one position, not the mean"
    elif card.checker == "param_count":
        model = inputs.get("model")
        if "models" in p and model not in p["models"]:
            return f"model {model}"
        if model and f"**{model}**" not in prompt:
            return "the prompt does not name the model"
        family = CONFIGS[model].family if model else inputs["family"]
        if p.get("family", "any") not in ("any", family):
            return f"family {family}"
        if p.get("convention", "any") not in ("any", inputs["convention"]):
            return f"convention {inputs['convention']}"
        if inputs.get("component", "total") not in p.get("components", [inputs.get("component", "total")]):
            return f"component {inputs.get('component')}"
    elif card.checker == "mask_matrix":
        mask = inputs["attention_mask"]
        if mask[0] != 0 or sum(mask) < 2:
            return f"attention_mask {mask}: no PAD left of the tokens, or fewer than two tokens"
        if p.get("padding", "any") != "any" and (mask[-1] == 0) != (p["padding"] == "both"):
            return f"attention_mask {mask} is not padding {p['padding']}"
    elif card.checker == "scaled_scores":
        if "d_k" in p and len(inputs["q"]) != int(p["d_k"]):
            return f"d_k {len(inputs['q'])}"
    elif card.checker == "embedding_sum":
        if not int(p.get("min_len", 3)) <= len(inputs["token"]) <= int(p.get("max_len", 5)):
            return f"d = {len(inputs['token'])}"
    return None


def test_the_decks_have_numeric_cards_of_the_original_checkers():
    assert len(CARDS) >= 20 and {c.checker for c in CARDS} >= ORIGINAL


@pytest.mark.parametrize("card", CARDS, ids=lambda c: c.id)
def test_every_draw_stays_on_the_cards_point(card):
    kind = kinds.of(card)  # study's ask: the prompt only (the solve starts once the card is on screen)
    for seed in SEEDS:
        draft = kind.ask(card, seed).drawn.draft  # the prompt study shows
        inputs = draft.inputs.model_dump(exclude_none=True)
        assert violation(card, inputs, draft.prompt) is None, (seed, violation(card, inputs, draft.prompt), inputs)


@pytest.mark.parametrize("card", CARDS, ids=lambda c: c.id)
def test_lint_checks_the_inputs_study_draws(card):
    """Lint draws inputs without typesetting the prompt; they are the ones study's draw makes."""
    checker = registry.get(card.checker)
    params = checker.Params.model_validate(card.params)
    for seed in SEEDS:
        assert checker.inputs(seed, params) == kinds.of(card).ask(card, seed).drawn.draft.inputs


@pytest.mark.parametrize("card", CARDS[::4], ids=lambda c: c.id)
def test_generate_card_draws_as_study_does(card):
    for seed in (0, 7):
        result = runner.invoke(app, ["generate", "--card", card.id, "--seed", str(seed), "--json"])
        assert result.exit_code == 0, result.output
        shown = json.loads(result.stdout)
        asked = kinds.of(card).ask(card, seed).drawn.question()
        assert shown == json.loads(json.dumps(asked.to_dict()))
        assert violation(card, shown["inputs"], shown["prompt"]) is None


def test_generate_card_errors():
    assert runner.invoke(app, ["generate", "--card", "no-such-card"]).exit_code == 1
    qa = next(e.id for loaded in load_decks([ROOT / "decks"]) for e in loaded.entries if e.kind != "numeric")
    assert runner.invoke(app, ["generate", "--card", qa]).exit_code == 2
    assert runner.invoke(app, ["generate", "masked_softmax", "--card", CARDS[0].id]).exit_code == 2


def test_cards_that_name_a_model_draw_only_that_model():
    named = {"large": "bert-large-uncased", "distilbert": "distilbert-base-uncased"}
    found = 0
    for card in CARDS:
        for word, model in named.items():
            if card.checker == "param_count" and word in card.id:
                found += 1
                assert card.params.get("models") == [model], card.id
    assert found >= 2


BERT_BASE_TEXTBOOK = {  # the course's 8.2 table, weights only: V = 30522, d = 768, d_ff = 3072, L = 12
    "bert-params-token-embedding": 30522 * 768,
    "bert-params-position-embedding": 512 * 768,
    "bert-params-segment-embedding": 2 * 768,
    "bert-params-embeddings-total": (30522 + 512 + 2) * 768,
    "bert-params-attention-layer": 4 * 768 * 768,
    "bert-params-ffn-layer": 2 * 768 * 3072,
    "bert-params-per-layer": 4 * 768 * 768 + 2 * 768 * 3072,
    "bert-params-total-textbook": (30522 + 512 + 2) * 768 + 12 * (4 * 768 * 768 + 2 * 768 * 3072),
    "bert-params-embedding-share": (30522 + 512 + 2) * 768 / ((30522 + 512 + 2) * 768 + 12 * (4 * 768 * 768 + 2 * 768 * 3072)),
    "bert-params-total-exact": 109_482_240,  # bert-base-uncased's checkpoint without the MLM/NSP heads
}


@pytest.mark.parametrize("card_id", sorted(BERT_BASE_TEXTBOOK))
def test_the_bert_base_fact_cards_ask_bert_base_every_time(card_id):
    """Their notes teach bert-base's figures; other sizes are the drill card's job."""
    card = next(c for c in CARDS if c.id == card_id)
    for seed in range(30):
        question = kinds.of(card).ask(card, seed).drawn.question()
        assert question.inputs["model"] == "bert-base-uncased", seed
        assert question.answer == pytest.approx(BERT_BASE_TEXTBOOK[card_id], rel=1e-12)
    drill = next(c for c in CARDS if c.id == "bert-params-drill-any-size")
    drawn = {kinds.of(drill).ask(drill, seed).drawn.draft.inputs.model for seed in range(30)}
    assert None in drawn  # the drill draws sizes of its own


@pytest.mark.parametrize("card_id", ["bert-causal-vs-padding-softmax", "d12-gpt-causal-softmax-row-b"])
def test_the_causal_row_cards_always_hide_a_future_position(card_id):
    card = next(c for c in CARDS if c.id == card_id)
    for seed in SEEDS:
        mask = kinds.of(card).ask(card, seed).drawn.draft.inputs.mask
        assert 0 in mask and mask[0] == 1, (seed, mask)


def test_lint_rejects_a_card_whose_generator_leaves_its_point(monkeypatch):
    """A generator that ignores min_kept (here: a broken compose) is caught by the property draw."""
    card = next(c for c in CARDS if c.checker == "masked_softmax" and c.params.get("variant") == "padding")
    checker = registry.get("masked_softmax")
    assert kinds.of(card).check(card, verify=True) == []
    compose = type(checker).compose

    def sloppy(self, rng, params):
        inputs, prompt = compose(self, rng, params)
        n = len(inputs.scores)
        return inputs.model_copy(update={"mask": [1] + [0] * (n - 1)}), prompt

    monkeypatch.setattr(type(checker), "compose", sloppy)
    issues = kinds.of(card).check(card, verify=True)
    assert issues and issues[0].path == ("params",) and "leave the card's point" in issues[0].message
    assert "only 1 real position(s); the card asks for at least" in issues[0].message
    i18n.use("zh")  # the generator's reason is translated with the rest of the line
    try:
        message = kinds.of(card).check(card, verify=True)[0].message
    finally:
        i18n.use("en")
    assert "只有 1 个真实位置；卡片要求至少" in message and "only" not in message


def test_lint_rejects_params_that_cannot_keep_the_point(tmp_path):
    deck = (ROOT / "decks" / "ch08-bert.yaml").read_text("utf-8")
    broken = deck.replace("      variant: padding\n      min_kept: 2\n", "      variant: padding\n      min_kept: 6\n", 1)
    assert broken != deck
    path = tmp_path / "ch08-bert.yaml"
    path.write_text(broken, "utf-8")
    result = runner.invoke(app, ["lint", str(path)])
    assert result.exit_code == 1 and "min_kept" in result.stdout


# -- the first screen: composing never waits for torch ---------------------------------------


@pytest.mark.slow
def test_composing_every_card_imports_no_torch():
    code = (
        "import sys\n"
        "from pathlib import Path\n"
        "from checkers import registry\n"
        "from quizzer.decks import load_decks\n"
        "for loaded in load_decks([Path('decks')]):\n"
        "    for e in loaded.entries:\n"
        "        if e.kind == 'numeric':\n"
        "            card = loaded.card(e.id)\n"
        "            registry.get(card.checker).draw(3, card.params)\n"
        "assert 'torch' not in sys.modules, 'composing imported torch'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)


def test_ask_returns_before_the_answer_is_solved(monkeypatch):
    """The prompt is ready while the reference still works; grading and the back wait for it."""
    card = next(c for c in CARDS if c.checker == "mlm_loss")
    checker = registry.get("mlm_loss")
    release, started = threading.Event(), threading.Event()
    finish = type(checker).finish

    def slow(self, draft):
        started.set()
        assert release.wait(30)
        return finish(self, draft)

    monkeypatch.setattr(type(checker), "finish", slow)
    kind = kinds.of(card)
    asked = kind.ask(card, 5)
    assert not started.is_set()  # nothing solves while the card is being drawn
    kind.prepare(asked)  # the card is on screen
    assert started.wait(30)
    assert "loss" in kind.front(asked) and not asked.drawn.future.done()
    release.set()
    expected = checker.generate(5, card.params)
    assert kind.back(asked) == expected.answer_text
    assert kind.score(asked, expected.answer_text).correct


def test_a_failing_solve_surfaces_when_the_answer_is_needed(monkeypatch):
    card = next(c for c in CARDS if c.checker == "nsp_loss")
    checker = registry.get("nsp_loss")

    def broken(self, inputs):
        raise RuntimeError("reference broke")

    monkeypatch.setattr(type(checker), "solve", broken)
    asked = kinds.of(card).ask(card, 1)
    assert "NSP" in kinds.of(card).front(asked)
    with pytest.raises(RuntimeError, match="reference broke"):
        kinds.of(card).back(asked)


# -- wording ------------------------------------------------------------------------------------

CJK = "\u4e00-\u9fff"


def glued(text: str) -> list[str]:
    """Chinese glued to a Latin word or number outside code spans and formulas ("1.1亿" is fine)."""
    plain = re.sub(r"`[^`]*`|\$[^$]*\$", " ", text)
    found = re.findall(rf"[{CJK}][A-Za-z0-9]|[A-Za-z][{CJK}]|[0-9][{CJK}]", plain)
    return [m for m in found if m[1] not in "万亿"]


@pytest.fixture
def chinese():
    """The prompts in Chinese, whose typesetting and wording these tests read."""
    i18n.use("zh")


@pytest.mark.parametrize("name", sorted(ORIGINAL))
def test_prompts_are_typeset_and_self_contained(name, chinese):
    checker = registry.get(name)
    for seed in range(60):
        prompt = checker.draw(seed).prompt
        assert glued(prompt) == [], (seed, glued(prompt), prompt)
        assert "抽取稿" not in prompt and "图" not in prompt, prompt


def test_a_forgotten_mask_prompt_keeps_two_real_tokens_and_names_its_pads():
    checker = registry.get("masked_softmax")
    for seed in SEEDS:
        draft = checker.draw(seed, {"variant": "unmasked"})
        n, pads = len(draft.inputs.scores), draft.inputs.pads
        assert pads and n - pads >= 2 and f"the first {n - pads} are real tokens and the last {pads} positions are PAD" in draft.prompt


def test_single_position_mlm_prompts_do_not_average(chinese):
    checker = registry.get("mlm_loss")
    singles = 0
    for seed in SEEDS:
        draft = checker.draw(seed)
        selected = draft.inputs.probs or [y for y in draft.inputs.labels if y != -100]
        if len(selected) == 1:
            singles += 1
            assert "依次" not in draft.prompt and "平均" not in draft.prompt, draft.prompt
    assert singles > 10


def test_distilbert_is_never_asked_for_a_pooler_or_nsp_head(chinese):
    checker = registry.get("param_count")
    params = {"models": ["distilbert-base-uncased"]}
    asked = set()
    for seed in SEEDS:
        draft = checker.draw(seed, params)
        asked.add(draft.inputs.component)
        assert "含 pooler" not in draft.prompt and "BertModel" not in draft.prompt, draft.prompt
    assert "pooler" not in asked and "nsp_head" not in asked and {"total", "mlm_head"} <= asked


def test_each_question_states_one_convention(chinese):
    checker = registry.get("param_count")
    for seed in range(300):
        draft = checker.draw(seed)
        other = "精确口径" if draft.inputs.convention == "textbook" else "课程表格口径"
        assert other not in draft.prompt, draft.prompt
        question = draft.prompt.split("求", 1)[1]
        if draft.inputs.convention == "textbook":
            assert "LayerNorm" not in question and "bias" not in question, draft.prompt


def test_the_no_mask_note_states_the_right_denominator():
    card = next(c for c in CARDS if c.id == "bert-no-mask-softmax")
    total = sum(math.exp(float(s)) for s in card.example.inputs["scores"])
    stated = re.search(r"\\approx (\d+\.\d+)", card.example.note)
    assert stated and stated.group(1) == f"{total:.2f}" == "240.59"
