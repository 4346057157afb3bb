"""Answer parsing and grading at exactly the precision a question asks for."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from checkers.base import Question, Tolerance
from checkers.grading import AnswerFormatError, grade, read_number, stepped


def question(answer, tolerance: Tolerance) -> Question:
    return Question("test", 0, "", {}, answer, tolerance, "", tolerance.format(answer))


@pytest.mark.parametrize(
    "text, value",
    [
        ("0.478", 0.478),
        ("+2", 2.0),
        ("-0.5", -0.5),
        ("−0.5", -0.5),  # Unicode minus
        (".5", 0.5),
        ("1.2e-3", 0.0012),
        ("1.09E8", 1.09e8),
        ("1.09×10^8", 1.09e8),
        ("21.7%", 0.217),
        ("２１．７％", 0.217),  # full-width
        ("110M", 110e6),
        ("110 M", 110e6),
        ("2.5k", 2500.0),
        ("1B", 1e9),
        ("1.1亿", 1.1e8),
        ("3万", 30000.0),
        ("3/4", 0.75),
        ("-1/8", -0.125),
        ("109,482,240", 109482240.0),
        ("≈0.48", 0.48),
        ("0.5。", 0.5),  # the full stop a Chinese input method adds
        ("约 0.8。", 0.8),
        ("大约是0.5", 0.5),
        ("大概 1.1亿", 1.1e8),
        ("2千", 2000.0),
        ("2.5 千", 2500.0),
        ("2^11", 2048.0),  # a power as an interviewer writes it
        ("2**30", 2.0**30),
        ("10²", 100.0),  # a power, never 102 (digits glued on)
        ("2^(-3)", 0.125),
        ("[0.1, 0.2]。", None),
    ],
)
def test_parse_numbers(text, value):
    if value is None:  # a vector: it grades as one
        assert grade(text, question([0.1, 0.2], Tolerance("decimals", 1))).outcome == "correct"
        return
    assert read_number(text).value == pytest.approx(value, rel=1e-15)


@pytest.mark.parametrize(
    "text, values",
    [
        ("[0.1, 0.2, -0.3]", [0.1, 0.2, -0.3]),
        ("0.1, 0.2, -0.3", [0.1, 0.2, -0.3]),
        ("0.1 0.2 -0.3", [0.1, 0.2, -0.3]),
        ("（0.1，0.2，−0.3）", [0.1, 0.2, -0.3]),
        ("[0.1,0.2;-0.3]", [0.1, 0.2, -0.3]),
        ("[5]", [5.0]),
        ("[1/2, 50%]", [0.5, 0.5]),
    ],
)
def test_parse_vectors(text, values):
    assert grade(text, question(values, Tolerance("decimals", 3))).outcome == "correct"
    assert grade(text, question([v + 1 for v in values], Tolerance("decimals", 3))).outcome == "wrong"


@pytest.mark.parametrize("text", ["", "abc", "0.4.7", "1e", "[]", "1/0", "--1", "0.5x", "。", "0.5。。", "约", "是0.5", "9^999", "0^-1", "2^", "^3", "2.5^2"])
def test_unparseable_raises_with_hint(text):
    with pytest.raises(AnswerFormatError) as err:
        read_number(text)
    assert err.value.hint
    assert grade(text, question(0.5, Tolerance("decimals", 1))).outcome == "format"


def test_two_decimals_accepts_0_23_for_0_2269():
    assert grade("0.23", question(0.2269, Tolerance("decimals", 2))).outcome == "correct"
    assert grade("0.2269", question(0.2269, Tolerance("decimals", 2))).outcome == "correct"
    assert grade("0.22", question(0.2269, Tolerance("decimals", 2))).outcome == "wrong"


def test_decimal_bound_is_half_a_unit_in_the_last_asked_place():
    q = question(0.2269, Tolerance("decimals", 3))
    assert grade("0.2274", q).outcome == "correct"  # 0.0005 away
    assert grade("0.22741", q).outcome == "wrong"  # just outside, written finer than asked
    assert grade("0.2264", q).outcome == "correct"
    assert grade("0.22639", q).outcome == "wrong"


def test_fewer_digits_than_asked_is_imprecise_not_wrong():
    q = question(0.2269, Tolerance("decimals", 3))
    grade_ = grade("0.23", q)
    assert grade_.outcome == "imprecise"
    assert "3 decimal places" in grade_.message  # checkers write English; the interface translates
    assert q.answer_text not in grade_.message  # asked again, so the answer stays hidden
    assert grade("0.2", q).outcome == "imprecise"
    assert grade("0.3", q).outcome == "wrong"  # wrong even at its own precision
    assert grade("22.7%", q).outcome == "correct"


def test_exact_count_rejects_110m_for_109482240():
    q = question(109_482_240, Tolerance("exact"))
    assert grade("110M", q).outcome == "imprecise"  # two significant digits, like 1.1亿
    assert grade("111M", q).outcome == "wrong"  # three digits, and the third is wrong
    assert grade("109M", q).outcome == "imprecise"
    assert grade("1.09e8", q).outcome == "imprecise"
    assert grade("1.1亿", q).outcome == "imprecise"  # right to its two significant digits
    assert grade("109482240", q).outcome == "correct"
    assert grade("109,482,240", q).outcome == "correct"
    assert grade("109482241", q).outcome == "wrong"
    assert grade("120M", q).outcome == "wrong"
    assert grade("110000000", q).outcome == "wrong"  # an integer is read as exact


def test_relative_tolerance_for_approximate_counts():
    q = question(109_482_240, Tolerance("relative", relative=0.01))
    assert grade("110M", q).outcome == "correct"
    assert grade("108.4M", q).outcome == "correct"
    assert grade("108.3M", q).outcome == "wrong"


def test_vectors_grade_elementwise_and_length_is_a_format_error():
    q = question([0.0307, 0.0113, 0.0835, 0.0307, 0.0, 0.0], Tolerance("decimals", 3))
    assert grade("[0.031, 0.011, 0.084, 0.031, 0, 0]", q).outcome == "correct"
    assert grade("0.031 0.011 0.084 0.031 0.000 0.000", q).outcome == "correct"
    wrong = grade("[0.031, 0.011, 0.084, 0.031, 0.2, 0]", q)
    assert wrong.outcome == "wrong" and "position(s) 5." in wrong.message
    assert grade("[0.03, 0.01, 0.08, 0.03, 0, 0]", q).outcome == "imprecise"
    short = grade("[0.031, 0.011]", q)
    assert short.outcome == "format" and "6" in short.message


def test_scalar_expected_but_vector_given_is_a_format_error():
    q = question(0.478, Tolerance("decimals", 3))
    assert grade("0.478, 0.5", q).outcome == "format"
    assert grade("[0.478]", q).outcome == "correct"
    assert grade("hello", q).outcome == "format"


def test_probability_as_percent_or_fraction():
    q = question(0.75, Tolerance("decimals", 2))
    assert grade("75%", q).outcome == "correct"
    assert grade("3/4", q).outcome == "correct"
    assert grade("2/3", q).outcome == "wrong"


@given(st.floats(-1e6, 1e6, allow_nan=False), st.integers(0, 6))
def test_displayed_value_always_grades_correct_and_the_next_step_wrong(truth, decimals):
    tolerance = Tolerance("decimals", decimals)
    q = question(truth, tolerance)
    assert grade(q.answer_text, q).outcome == "correct"
    step = 10.0**-decimals
    highest = max([read_number(q.answer_text).value, *stepped(truth, tolerance)])  # a two-step rounding is right too
    assert grade(f"{highest + 1.5 * step:.{decimals + 1}f}", q).outcome == "wrong"


def test_huge_exponents_are_format_errors_not_crashes():
    q = question(0.2269, Tolerance("decimals", 3))
    for text in ("1e400", "1/1e400", "[1e999, 0]"):
        assert grade(text, q).outcome == "format"


def test_a_coarse_guess_is_wrong_not_imprecise():
    """Right to its own digit but saying nothing: '0' for 0.174, '1亿' for 84,934,656."""
    assert grade("0", question(0.174, Tolerance("decimals", 3))).outcome == "wrong"
    assert grade("1亿", question(84934656, Tolerance("exact"))).outcome == "wrong"
    assert grade("8493万", question(84934656, Tolerance("exact"))).outcome == "imprecise"
    assert grade("0.1", question(0.07, Tolerance("decimals", 2))).outcome == "imprecise"  # one digit short
    vector = question([0.269, 0.731, 0.0], Tolerance("decimals", 3))
    assert grade("[0, 1, 0]", vector).outcome == "wrong"
    assert grade("[0.3, 0.7, 0]", vector).outcome == "imprecise"


# -- estimates, units, averaged roundings, separators ---------------------------------------


def test_estimates_accept_what_an_interviewer_accepts():
    """"约多少" to 2 significant digits: 110M, 1.1亿 and 109.5M for 109,482,240; 120M is not."""
    q = question(109_482_240, Tolerance("significant", 2))
    for typed in ("110M", "1.1亿", "109.5M", "109,482,240", "1.1e8", "11000万"):
        assert grade(typed, q).outcome == "correct", typed
    assert grade("120M", q).outcome == "wrong"
    assert q.answer_text == "110M"
    magnitude = question(333_770_752, Tolerance("significant", 1))  # "数量级": BERT-large is 3亿, 340M is fine
    assert grade("340M", magnitude).outcome == "correct" and grade("3亿", magnitude).outcome == "correct"
    assert grade("400M", magnitude).outcome == "wrong" and grade("110M", magnitude).outcome == "wrong"


def test_an_estimate_in_millions_to_one_decimal():
    q = question(109_482_240, Tolerance("unit", 1, unit="M"))
    assert q.answer_text == "109.5M" and "M" in q.tolerance.phrase() and "1 decimal place" in q.tolerance.phrase()
    for typed in ("109.5M", "1.095亿", "109,482,240", "109.48M"):
        assert grade(typed, q).outcome == "correct", typed
    assert grade("109.4M", q).outcome == "wrong"
    assert grade("109M", q).outcome == "imprecise"  # right to the million, one digit short
    assert grade("110M", q).outcome == "imprecise"  # 1.1亿 written in M: the same two digits


@pytest.mark.parametrize("truth", [30_098_688, 30_104_999, 30_110_000, 84_934_656, 23_440_896, 393_216, 7_077_888])
@pytest.mark.parametrize("tolerance", [Tolerance("exact"), Tolerance("unit", 2, unit="M"), Tolerance("significant", 4)])
def test_equal_roundings_in_different_units_get_one_verdict(truth, tolerance):
    """The same rounding written in 万, M, 亿 or K is graded the same ("3010万" and "30.1M")."""
    q = question(truth, tolerance)
    for digits in (2, 3, 4):
        mantissa = round(truth, digits - 1 - (len(str(truth)) - 1))  # truth rounded to `digits` significant digits
        forms = [f"{mantissa / 10**p:g}{unit}" for unit, p in (("万", 4), ("M", 6), ("亿", 8), ("K", 3))]
        assert len({grade(text, q).outcome for text in forms}) == 1, (digits, forms, [grade(t, q).outcome for t in forms])


def test_exact_answers_show_thousands_separators_and_read_back():
    q = question(16_226_304, Tolerance("exact"))
    assert q.answer_text == "16,226,304"
    assert grade(q.answer_text, q).outcome == "correct"
    assert "16,226,304" in grade("1", q).message  # the verdict shows the grouped answer
    vector = question([1234.5, 0.25], Tolerance("decimals", 2))
    assert vector.answer_text == "[1234.50, 0.25]"  # no separators inside a vector: the comma splits entries
    assert grade(vector.answer_text, vector).outcome == "correct"


@pytest.mark.parametrize("seeds", [range(30), pytest.param(range(300), marks=pytest.mark.slow)], ids=["30", "300"])
def test_a_mean_accepts_the_careful_learners_rounding(seeds):
    """A learner who rounds each position's loss to the asked decimals and then averages may land
    one step away from the exact mean's rounding; that answer is right too. (Each question costs
    a torch computation: the fast suite asks 30, the slow one 300.)"""
    import math

    from checkers import registry

    checker = registry.get("mlm_loss")
    params = {"form": "probs", "target": "mean", "min_len": 2, "max_len": 4, "decimals": 3}
    split = 0
    for seed in seeds:
        q = checker.generate(seed, params)
        losses = [-math.log(p) for p in q.inputs["probs"]]
        exact = sum(losses) / len(losses)
        careful = sum(round(x, 3) for x in losses) / len(losses)
        assert q.answer == pytest.approx(exact, rel=1e-12)
        typed = f"{careful:.3f}"
        assert grade(typed, q).outcome == "correct", (seed, typed, q.answer_text)
        assert grade(f"{max(exact, careful) + 0.0011:.4f}", q).outcome == "wrong"
        split += typed != q.answer_text
    assert split >= len(seeds) // 30  # the case the rule is for does occur


@pytest.mark.parametrize("measure, typed", [
    ("GB", "12.80 GB"), ("GB", "12.8GB"), ("GB", "１２.８０ ｇｂ"), ("GB", "约 12.8 GB。"),
    ("GiB", "12.80 GiB"), ("FLOPs", "12.8 FLOPs"), ("bytes", "12.8 字节"), ("bytes", "12.8B"), ("bytes", "12.8 bytes"),
])
def test_an_answer_may_name_the_unit_its_question_counts_in(measure, typed):
    """"5.44 GB" to "how many GB" read "Cannot read 'GB'", and "327,680B" to "how many bytes"
    "One number is wanted here; you gave 2": the unit an interviewer says after the number."""
    assert grade(typed, question(12.8, Tolerance("decimals", 2, measure=measure))).outcome == "correct"


@pytest.mark.parametrize("measure, typed, said", [
    ("GB", "12.8 GiB", "The question counts in GB: write the number in GB ('GiB' is another unit)."),
    ("bytes", "12.8 MB", "The question counts in bytes: write the number in bytes ('MB' is another unit)."),
    ("", "12.8 GB", "The question asks for a number without a unit: leave out 'GB'."),
])
def test_another_unit_is_a_format_error_that_names_the_one_asked(measure, typed, said):
    grade_ = grade(typed, question(12.8, Tolerance("decimals", 2, measure=measure)))
    assert grade_.outcome == "format" and grade_.message == said


def test_a_billion_stays_a_billion_where_the_question_counts_no_bytes():
    assert grade("1.1B", question(1.1e9, Tolerance("relative", relative=0.01))).outcome == "correct"
    assert grade("1.1B", question(1.1, Tolerance("decimals", 1, measure="bytes"))).outcome == "correct"


@pytest.mark.parametrize("checker, params, measure", [
    ("training_memory", {}, "GB"), ("kv_cache", {"target": "per_token"}, "bytes"), ("kv_cache", {"target": "total"}, "GiB"),
    ("flops_per_token", {}, "FLOPs"),
])
def test_the_checkers_that_ask_in_a_unit_take_it_after_the_answer(checker, params, measure):
    from checkers import registry

    asked = registry.get(checker).generate(1, params)
    assert measure in asked.prompt and asked.tolerance.measure == measure
    assert grade(f"{asked.answer_text} {measure}", asked).outcome == "correct"


@pytest.mark.parametrize("typed, truth, tolerance", [
    ("[0.01, 0.01, 0.01, 0.98]", [0.0066, 0.0066, 0.0066, 0.9802], Tolerance("decimals", 4)),
    ("0", 0.174, Tolerance("decimals", 3)),
    ("1亿", 84934656, Tolerance("exact")),
])
def test_a_guess_too_coarse_to_judge_says_so(typed, truth, tolerance):
    """"0.01" for 0.0066 (four places asked) is wrong, not imprecise (its digit says nothing), but
    the verdict read "wrong at positions 1, 2, 3" as if the working were: it names the digits."""
    graded = grade(typed, question(truth, tolerance))
    assert graded.outcome == "wrong" and graded.message.startswith("Wrong: too few digits to tell (the question asks for ")


def test_a_wrong_number_among_coarse_ones_is_named_by_position():
    graded = grade("[0.01, 0.02]", question([0.0066, 0.0066], Tolerance("decimals", 4)))
    assert graded.message.startswith("Wrong at position(s) 1, 2.")
