"""Checkers through their public interface: generate, grade what they display, verify examples."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest
from pydantic import ValidationError

from checkers import registry
from checkers.grading import grade, stepped
from checkers.verify import check_example
from quizzer.base import i18n

SEEDS = range(200)
NAMES = registry.names()
REQUIRED = {"masked_softmax", "param_count", "mlm_loss", "embedding_sum", "masking_budget", "scaled_scores", "nsp_loss"}


def as_yaml_strings(value):
    """What the deck loader hands over: every scalar as a string (a missing value stays None)."""
    if isinstance(value, dict):
        return {k: as_yaml_strings(v) for k, v in value.items()}
    if isinstance(value, list):
        return [as_yaml_strings(v) for v in value]
    return value if value is None else str(value)


def fine(x: float) -> str:
    """A number written with many more digits than any question asks for."""
    return f"{x:.12g}"


def test_registry_has_the_required_checkers_with_one_line_descriptions():
    assert REQUIRED <= set(NAMES)
    for name in NAMES:
        checker = registry.get(name)
        assert checker.name == name
        assert checker.description and "\n" not in checker.description
    with pytest.raises(registry.UnknownChecker, match="unknown checker"):
        registry.get("nope")


@pytest.mark.slow
def test_importing_checkers_does_not_import_torch():
    """Only the ``checkers/reference/`` package imports torch: every other checkers module imports without it."""
    folder = Path(__file__).resolve().parents[1] / "checkers"  # not the working directory's
    others = [m.relative_to(folder).with_suffix("") for m in folder.rglob("*.py")
              if m.relative_to(folder).parts[0] != "reference" and m.name != "__init__.py"]
    assert len(others) > 20 and (folder / "reference" / "__init__.py").is_file()
    modules = ", ".join("checkers." + ".".join(m.parts) for m in others)
    code = f"import sys, {modules}; from checkers import registry; registry.names(); " \
        "bad = {'torch', 'numpy'} & set(sys.modules); assert not bad, bad"
    subprocess.run([sys.executable, "-c", code], check=True, cwd=Path(__file__).parent.parent)


@pytest.mark.parametrize("name", NAMES)
def test_own_answer_grades_correct_and_just_outside_does_not(name):
    checker = registry.get(name)
    for seed in SEEDS:
        q = checker.generate(seed)
        assert grade(q.answer_text, q).outcome == "correct", (seed, q.answer_text)
        truths = q.answer if isinstance(q.answer, list) else [q.answer]
        texts = q.answer_text.strip("[]").split(", ") if isinstance(q.answer, list) else [q.answer_text]
        highest = max([truths[0], *q.other_accepted[::len(truths)], *stepped(truths[0], q.tolerance)])  # past every value accepted
        outside = highest + max(q.tolerance.allowed(highest) * 1.01, 1e-9)
        if q.tolerance.kind == "exact":
            outside = truths[0] + 1
        typed = ", ".join([fine(outside)] + texts[1:])
        assert grade(typed, q).outcome == "wrong", (seed, typed, q.answer)


def test_a_shown_answer_rounds_a_tie_up_as_school_teaches():
    """757.05 × 0.1 was shown as 75.70 (the float is 75.70499999999996, and Python rounds a tie
    to even): the masking budget's expected counts, computed here in exact decimals from the
    question's own inputs and rounded half up, are what the answer and the worked solution show."""
    from decimal import ROUND_HALF_UP, Decimal

    checker, ties = registry.get("masking_budget"), 0
    for seed in range(200):
        q = checker.generate(seed)
        i = {key: Decimal(str(value)) for key, value in q.inputs.items()}
        selected = i["tokens"] * i["select_rate"]
        parts = [Decimal(1), i["mask_rate"], i["random_rate"], 1 - i["mask_rate"] - i["random_rate"]]
        exact = [selected * part for part in parts]
        ties += any(value.quantize(Decimal("0.001")) == value and value * 1000 % 10 == 5 for value in exact)
        shown = [str(value.quantize(Decimal("0.01"), ROUND_HALF_UP)) for value in exact]
        assert q.answer_text == "[" + ", ".join(shown) + "]", (seed, q.answer_text, exact)
        assert f"= {shown[2]}" in q.solution, seed
    assert ties > 20  # the rule was put to the test


def test_fixed_rounds_half_up_keeps_whole_numbers_and_never_shows_minus_zero():
    from checkers.base import fixed

    assert [fixed(2.675, 2), fixed(1.005, 2), fixed(-2.675, 2), fixed(0.125, 2)] == ["2.68", "1.01", "-2.68", "0.13"]
    assert fixed(-0.001, 2) == "0.00" and fixed(-0.4, 0) == "0"
    assert fixed(2**70, 0, grouping=True) == f"{2**70:,}"  # a whole number keeps every digit
    assert fixed(12345678901234.0, 0) == "12345678901234" and fixed(2.0**80, 0) == f"{2**80}"  # no tie near
    assert fixed(1234567.125, 2, grouping=True) == "1,234,567.13"


@pytest.mark.parametrize("name", NAMES)
def test_fewer_digits_than_asked_is_imprecise_exactly_when_outside_the_bound(name):
    checker = registry.get(name)
    for seed in SEEDS:
        q = checker.generate(seed)
        if q.tolerance.kind != "decimals" or q.tolerance.decimals < 2:
            continue
        truths = q.answer if isinstance(q.answer, list) else [q.answer]
        coarse = [round(t, q.tolerance.decimals - 1) for t in truths]
        typed = ", ".join(f"{c:.{q.tolerance.decimals - 1}f}" for c in coarse)
        # each entry against its truth or a value the question also accepts there (q.other_accepted: whole vectors in a row)
        inside = all(any(abs(c - v) <= q.tolerance.allowed(v) for v in (t, *stepped(t, q.tolerance), *q.other_accepted[i::len(truths)]))
                     for i, (c, t) in enumerate(zip(coarse, truths)))
        assert grade(typed, q).outcome == ("correct" if inside else "imprecise"), (seed, typed, q.answer)


@pytest.mark.parametrize("name", NAMES)
def test_same_seed_same_question_and_seeds_vary(name):
    checker = registry.get(name)
    assert checker.generate(7) == checker.generate(7)
    assert len({json.dumps(checker.generate(s).to_dict(), ensure_ascii=False) for s in range(20)}) > 5


@pytest.mark.parametrize("name", NAMES)
def test_question_inputs_round_trip_through_yaml_strings(name):
    checker = registry.get(name)
    for seed in range(30):
        q = checker.generate(seed)
        json.dumps(q.to_dict())  # JSON-able
        assert set(q.to_dict()) >= {"prompt", "inputs", "answer", "tolerance", "solution"}
        assert any(words in q.prompt for words in ("decimal place", "exact integer", "relative error", "significant digit"))
        again = checker.solve(checker.Inputs.model_validate(as_yaml_strings(q.inputs)))
        assert again == pytest.approx(q.answer, rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("name", NAMES)
def test_params_have_defaults_forbid_extras_and_accept_strings(name):
    checker = registry.get(name)
    defaults = checker.Params()
    assert checker.Params.model_validate(as_yaml_strings(defaults.model_dump())) == defaults
    with pytest.raises(ValidationError):
        checker.Params.model_validate({"no_such_param": "1"})
    with pytest.raises(ValidationError):
        checker.Inputs.model_validate({"no_such_input": "1"})


@pytest.mark.parametrize("variant", ["padding", "causal", "unmasked"])
def test_masked_softmax_variants(variant):
    checker = registry.get("masked_softmax")
    params = checker.Params.model_validate({"variant": variant, "min_len": "4", "max_len": "7"})
    for seed in SEEDS:
        q = checker.generate(seed, params)
        mask, weights = q.inputs["mask"], q.answer
        assert 4 <= len(mask) <= 7 and 1 in mask
        assert all(w == 0.0 for w, m in zip(weights, mask) if m == 0)
        assert math.isclose(sum(weights), 1.0, rel_tol=1e-12)
        first_zero = mask.index(0) if 0 in mask else len(mask)
        assert mask == [1] * first_zero + [0] * (len(mask) - first_zero)  # keep a prefix
        if variant == "unmasked":
            assert 0 not in mask and "PAD" in q.prompt
        if variant == "padding":
            assert 0 in mask


def test_masked_softmax_rejects_fully_masked_and_mismatched_rows():
    inputs = registry.get("masked_softmax").Inputs
    with pytest.raises(ValidationError, match="fully masked"):
        inputs.model_validate({"scores": ["1", "2"], "mask": ["0", "0"]})
    with pytest.raises(ValidationError):
        inputs.model_validate({"scores": ["1", "2"], "mask": ["1"]})


def test_course_examples_through_solve():
    solve = lambda name, raw: registry.get(name).solve(registry.get(name).Inputs.model_validate(raw))  # noqa: E731
    assert solve("mlm_loss", {"probs": ["0.62"]}) == pytest.approx(0.478, abs=5e-4)
    assert solve("mlm_loss", {"probs": ["0.62", "0.01"], "position": "1"}) == pytest.approx(-math.log(0.01))
    assert solve("nsp_loss", {"p_isnext": "0.8", "label": "NotNext"}) == pytest.approx(-math.log(0.2))
    assert solve("masking_budget", {"tokens": "1000"}) == pytest.approx([150, 120, 15, 15])
    assert solve("param_count", {"model": "bert-base-uncased"}) == 109_482_240
    assert solve("param_count", {"model": "gpt2"}) == 124_439_808
    assert solve("param_count", {"model": "bert-base-uncased", "vocab": "21128"}) == solve(
        "param_count", {"model": "bert-base-chinese"}
    )
    explicit = {"family": "bert", "layers": "12", "hidden": "768", "vocab": "30522", "convention": "textbook"}
    assert solve("param_count", explicit) == 108_770_304
    share = solve("param_count", {**explicit, "component": "embedding_share"})
    assert share == pytest.approx(23_835_648 / 108_770_304)  # the course's "about 21%"
    assert solve("scaled_scores", {"q": ["1", "0"], "k": [["2", "0"], ["0", "1"]]}) == pytest.approx([2 / math.sqrt(2), 0])
    logits = {"logits": [["1", "2", "0"], ["3", "0", "0"]], "labels": ["1", "-100"]}
    assert solve("mlm_loss", logits) == pytest.approx(-math.log(math.exp(2) / (math.e + math.exp(2) + 1)))


def test_param_count_rejects_parts_a_model_lacks():
    inputs = registry.get("param_count").Inputs
    for raw in (
        {"model": "gpt2", "component": "segment_embedding"},
        {"model": "gpt2", "component": "mlm_head"},
        {"model": "distilbert-base-uncased", "component": "pooler"},
        {"model": "no-such-model"},
        {"family": "bert", "layers": "2"},
    ):
        with pytest.raises(ValidationError):
            inputs.model_validate(raw)


def test_param_count_relative_precision():
    checker = registry.get("param_count")
    params = checker.Params.model_validate({"precision": "relative", "relative": "0.01", "components": ["total"]})
    for seed in range(50):
        q = checker.generate(seed, params)
        assert grade(fine(q.answer * 1.0099), q).outcome == "correct"
        assert grade(fine(q.answer * 1.0101), q).outcome == "wrong"


CORRECT_SOFTMAX = ["0.0307", "0.0113", "0.0835", "0.0307", "0.2269", "0.6169"]


def test_check_example_passes_correct_stated_values():
    unmasked = {"scores": ["2", "1", "3", "2", "4", "5"], "mask": ["1"] * 6}
    assert check_example("masked_softmax", unmasked, CORRECT_SOFTMAX) is None
    assert check_example("mlm_loss", {"probs": ["0.62"]}, "0.478") is None
    assert check_example("param_count", {"model": "bert-base-uncased"}, "109482240") is None
    embeddings = {"token": ["0.6", "-0.2", "0.3", "0.5"], "position": ["0.25", "-0.15", "0.20", "0.10"], "segment": ["-0.1"] * 4}
    assert check_example("embedding_sum", embeddings, ["0.75", "-0.45", "0.40", "0.50"]) is None


def test_check_example_fails_values_off_by_5_percent():
    message = check_example("mlm_loss", {"probs": ["0.62"]}, "0.502")
    assert message and "0.502" in message and "0.4780" in message
    off = CORRECT_SOFTMAX[:4] + ["0.2155", "0.6169"]
    message = check_example("masked_softmax", {"scores": ["2", "1", "3", "2", "4", "5"], "mask": ["1"] * 6}, off)
    assert message == "stated 0.2155 but the reference gives 0.226931 (index 4)"
    two = check_example("masked_softmax", {"scores": ["2", "1", "3", "2", "4", "5"], "mask": ["1"] * 6},
                        CORRECT_SOFTMAX[:3] + ["0.0900", "0.2155", "0.6169"])
    i18n.use("zh")  # lint shows the reasons in the interface language, each one translated
    try:
        assert i18n.translate_checker_message(message) == "写的是 0.2155，参考实现给出 0.226931（下标 4）"
        assert i18n.translate_checker_message(two).count("写的是") == 2 and "、" in i18n.translate_checker_message(two)
    finally:
        i18n.use("en")
    assert check_example("param_count", {"model": "bert-base-uncased"}, "104008128")
    assert check_example("param_count", {"model": "bert-base-uncased"}, "110000000")  # trailing zeros are exact


def test_check_example_reports_bad_requests():
    assert "unknown checker" in check_example("nope", {}, "1")
    assert "bad inputs" in check_example("mlm_loss", {"probs": ["0.62"], "extra": "1"}, "0.478")
    assert "list of 6" in check_example("masked_softmax", {"scores": ["2"] * 6, "mask": ["1"] * 6}, ["0.1", "0.2"])
    assert "cannot read" in check_example("mlm_loss", {"probs": ["0.62"]}, "about half")


def test_generated_questions_are_never_trivial():
    """A logits MLM question has an ignored and a selected position; a causal row sees more than itself."""
    mlm, softmax = registry.get("mlm_loss"), registry.get("masked_softmax")
    for seed in SEEDS:
        q = mlm.generate(seed, {"form": "logits", "min_len": 2})
        assert -100 in q.inputs["labels"] and any(y != -100 for y in q.inputs["labels"])
        q = softmax.generate(seed, {"variant": "causal"})
        assert sum(q.inputs["mask"]) >= 2
        q = softmax.generate(seed, {"variant": "padding"})  # about 23% kept one token before min_kept
        assert sum(q.inputs["mask"]) >= 2 and 0 in q.inputs["mask"]


@pytest.mark.parametrize("name, params", [("sampling", None), ("masked_softmax", None),
                                          ("masked_softmax", {"variant": "unmasked", "min_kept": 2, "decimals": 4})])
def test_a_learner_rounding_the_worked_tables_weights_is_right(name, params):
    """The weights were shown to 4 places: 0.71645 read 0.7165, and the learner who rounded the
    table to the 3 places asked answered 0.717, graded wrong against 0.716. Rounding any weight of
    the table (half up, as a learner does) to the places asked is graded right. A card asking 4
    places (bert-no-mask-softmax's params) showed 0.00445 for an answer of 0.0044: the table has
    two places more than the answer, whatever it asks."""
    import re
    from decimal import ROUND_HALF_UP, Decimal

    checker = registry.get(name)
    for seed in range(60):
        question = checker.generate(seed, params)
        table = question.solution.split("| weight = exp / Σ |")[-1]
        shown = re.findall(r"^\| \d+ \| [^|]+ \| [^|]+ \| ([0-9.]+) \|$", table, re.MULTILINE)
        assert shown, question.solution
        assert all(len(weight.partition(".")[2]) == question.tolerance.decimals + 2 for weight in shown if weight != "0"), shown
        places = Decimal(1).scaleb(-question.tolerance.decimals)
        rounded = [str(Decimal(weight).quantize(places, ROUND_HALF_UP)) for weight in shown]
        if isinstance(question.answer, list) and len(rounded) == len(question.answer):
            assert grade("[" + ", ".join(rounded) + "]", question).outcome == "correct", (seed, rounded, question.answer)
    off_by_one = registry.get("masked_softmax").generate(27)  # 0.2594964…: the table's 0.25950 rounds to 0.260
    assert grade("[0.035, 0.260, 0.705, 0, 0]", off_by_one).outcome == "correct"
    assert grade("[0.035, 0.258, 0.705, 0, 0]", off_by_one).outcome == "wrong"  # the other side is no rounding


def test_a_two_step_rounding_is_accepted_only_next_to_a_half():
    from checkers.base import Tolerance
    from checkers.grading import stepped

    three = Tolerance("decimals", 3)
    assert stepped(0.71645, three) == (0.717,)  # 0.7165, then 0.717
    assert stepped(0.2594964, three) == (0.26,)  # 0.25950 (two places more), then 0.260
    assert stepped(0.71612, three) == ()  # nowhere near a half: one rounding, one value
    assert stepped(0.71645, Tolerance("relative", relative=0.01)) == ()
