"""Answer parsing and grading at exactly the precision a question asks for."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from checkers.base import Question, Tolerance
from checkers.grading import AnswerFormatError, grade, parse_answer


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
    ],
)
def test_parse_numbers(text, value):
    assert parse_answer(text) == pytest.approx(value, rel=1e-15)


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
    assert parse_answer(text) == pytest.approx(values)


@pytest.mark.parametrize("text", ["", "abc", "0.4.7", "1e", "[]", "1/0", "--1", "0.5x"])
def test_unparseable_raises_with_hint(text):
    with pytest.raises(AnswerFormatError) as err:
        parse_answer(text)
    assert err.value.hint


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
    assert "保留 3 位小数" in grade_.message
    assert q.answer_text not in grade_.message  # asked again, so the answer stays hidden
    assert grade("0.2", q).outcome == "imprecise"
    assert grade("0.3", q).outcome == "wrong"  # wrong even at its own precision
    assert grade("22.7%", q).outcome == "correct"


def test_exact_count_rejects_110m_for_109482240():
    q = question(109_482_240, Tolerance("exact"))
    assert grade("110M", q).outcome == "wrong"  # not even right to the million: that is 109M
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
    assert wrong.outcome == "wrong" and "第 5 个" in wrong.message
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


@settings(max_examples=300, deadline=None)
@given(st.floats(-1e6, 1e6, allow_nan=False), st.integers(0, 6))
def test_displayed_value_always_grades_correct_and_the_next_step_wrong(truth, decimals):
    tolerance = Tolerance("decimals", decimals)
    q = question(truth, tolerance)
    assert grade(q.answer_text, q).outcome == "correct"
    step = 10.0**-decimals
    assert grade(f"{float(q.answer_text) + 1.5 * step:.{decimals + 1}f}", q).outcome == "wrong"


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
