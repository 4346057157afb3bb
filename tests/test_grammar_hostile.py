"""The answer grammar under hostile input: whatever is typed or piped in, grading says "format"
with a hint and never raises; what the app displays reads back as correct; suffixes scale exactly."""

from __future__ import annotations

import sys
from decimal import Decimal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from checkers.base import Question, Tolerance
from checkers.grading import (
    MAX_ANSWER_CHARS,
    MAX_DIGITS,
    MAX_VECTOR_LEN,
    AnswerFormatError,
    Grade,
    grade,
    parse_number,
    read_number,
)

LARGE_DATA_ALLOWED = settings(suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def question(answer, tolerance: Tolerance) -> Question:
    return Question("test", 0, "", {}, answer, tolerance, "", tolerance.format(answer))


SCALAR = question(0.2269, Tolerance("decimals", 3))
VECTOR = question([0.269, 0.731, 0.0], Tolerance("decimals", 3))
COUNT = question(109_482_240, Tolerance("exact"))

# Every character, surrogates and controls included.
ANY_CHAR = st.characters(codec=None, exclude_categories=())
# Pieces of the grammar and of what breaks it, so random joins get deep into the parser.
PIECES = [
    "0", "1", "9", "12", "0.5", ".", "-", "+", "e", "E", "e-", "/", "%", "k", "M", "B", "万", "亿",
    "[", "]", "(", ")", ",", ";", "、", " ", "\t", "\n", "×10^", "x10^(", "^", "≈", "约",
    "１", "％", "，", "−", "٣", "३", "𝟑", "²", "⁸", "⁻", "₂", "①", "½",
    "\x00", "\ud800", "\udfff", "\u200f", "\u200e", "\u202e", "\ufeff", "\u200b", "😀", "\u3000",
]
JOINED = st.lists(st.sampled_from(PIECES), max_size=60).map("".join)


@st.composite
def repeated(draw) -> str:
    """A piece repeated up to a few thousand times: chains, nests, long runs of separators."""
    piece = draw(st.sampled_from(["1/", "[", "(", "[[1]]", ",", " ", ";", "1,", "9", "0", "e", "1e", "/", "-", "%", "×10^"]))
    body = piece * draw(st.integers(1, 3 * MAX_ANSWER_CHARS))
    return draw(st.sampled_from(["", "1", "1e", "[", "-"])) + body + draw(st.sampled_from(["", "1", "]", "%", "9" * 10]))


def exponent_chain(n: int) -> str:
    return "1e" + "9" * n


HOSTILE = st.one_of(
    st.text(ANY_CHAR, max_size=50),
    st.text(ANY_CHAR, min_size=MAX_ANSWER_CHARS - 10, max_size=5 * MAX_ANSWER_CHARS),
    JOINED,
    repeated(),
    st.integers(1, 3000).map(lambda n: "1/" * n + "1"),
    st.integers(1, 6000).map(exponent_chain),
    st.integers(1, 6000).map(lambda n: "1e-" + "0" * n + "5"),
    st.integers(1, 3000).map(lambda n: "[" * n + "1" + "]" * n),
    st.integers(1, 3000).map(lambda n: ", ".join(["1"] * n)),
)


def raises_only_format_errors(parse, text: str) -> None:
    try:
        parse(text)
    except AnswerFormatError as err:
        assert err.hint
        err.hint.encode("utf-8")  # the hint quotes the text back: it must still print


@LARGE_DATA_ALLOWED
@given(HOSTILE, st.sampled_from([SCALAR, VECTOR, COUNT]))
def test_grade_never_raises(text, q):
    result = grade(text, q)
    assert isinstance(result, Grade)
    assert result.outcome in ("correct", "wrong", "imprecise", "format")
    assert result.message
    result.message.encode("utf-8")  # printable on a UTF-8 terminal: no lone surrogates echoed


@LARGE_DATA_ALLOWED
@given(HOSTILE)
def test_parsers_raise_only_answer_format_errors(text):
    for parse in (parse_number, read_number):
        raises_only_format_errors(parse, text)


# -- what the app displays reads back as correct ----------------------------------------------

IN_RANGE = st.floats(-1e300, 1e300, allow_nan=False, allow_infinity=False).filter(lambda x: x == 0 or abs(x) >= 1e-300)
TOLERANCE = st.one_of(
    st.integers(0, 6).map(lambda d: Tolerance("decimals", d)),
    st.sampled_from([1e-5, 1e-4, 1e-3, 0.01, 0.05, 0.1]).map(lambda r: Tolerance("relative", relative=r)),
)


@LARGE_DATA_ALLOWED
@given(IN_RANGE, TOLERANCE)
def test_displayed_float_reads_back_correct(value, tolerance):
    q = question(value, tolerance)
    assert grade(q.answer_text, q).outcome == "correct", q.answer_text


@LARGE_DATA_ALLOWED
@given(st.one_of(st.integers(-(2**63), 2**63), st.integers(-(10**300), 10**300)))
def test_displayed_integer_reads_back_correct(value):
    q = question(value, Tolerance("exact"))
    assert grade(q.answer_text, q).outcome == "correct", q.answer_text


@LARGE_DATA_ALLOWED
@given(st.lists(st.floats(-1e4, 1e4).filter(lambda x: x == 0 or abs(x) >= 1e-300), min_size=1, max_size=MAX_VECTOR_LEN), TOLERANCE)
def test_displayed_vector_reads_back_correct(values, tolerance):
    q = question(values, tolerance)
    assert len(q.answer_text) <= MAX_ANSWER_CHARS
    assert grade(q.answer_text, q).outcome == "correct", q.answer_text
    spaced = q.answer_text.strip("[]").replace(", ", " ")  # the other vector form, "0.1 0.2"
    assert grade(spaced, q).outcome == "correct", spaced


def test_a_vector_one_longer_than_the_limit_is_a_format_error():
    q = question([0.5] * (MAX_VECTOR_LEN + 1), Tolerance("decimals", 1))
    result = grade(q.answer_text, q)
    assert result.outcome == "format" and str(MAX_VECTOR_LEN) in result.message


# -- suffixes scale exactly -------------------------------------------------------------------

SHIFTS = {"%": -2, "k": 3, "K": 3, "M": 6, "m": 6, "B": 9, "b": 9, "万": 4, "亿": 8}


@st.composite
def decimal_text(draw) -> str:
    """A plain decimal as a learner writes it: '-12.5', '0.478', '.5', '110'."""
    sign = draw(st.sampled_from(["", "-", "+"]))
    whole = draw(st.text("0123456789", max_size=12))
    frac = draw(st.text("0123456789", max_size=8))
    if not whole and not frac:
        whole = "0"
    return sign + whole + ("." + frac if frac or draw(st.booleans()) else "")


@LARGE_DATA_ALLOWED
@given(decimal_text(), st.sampled_from(sorted(SHIFTS)), st.sampled_from(["", " "]), st.integers(-20, 20))
def test_suffix_scales_the_plain_value_exactly(text, suffix, space, exponent):
    shift = SHIFTS[suffix]
    assert read_number(f"{text}{space}{suffix}").value == float(Decimal(text).scaleb(shift))
    assert read_number(f"{text}e{exponent}{suffix}").value == float(Decimal(text).scaleb(exponent + shift))
    if suffix == "%":
        assert read_number(f"{text}%").value == float(Decimal(text) / 100)
    number = read_number(f"{text}{suffix}")
    written = len(text.partition(".")[2])  # the last written digit fixes the resolution...
    digits = text.lstrip("+-")
    if suffix != "%" and "." not in digits and digits.strip("0"):
        written = len(digits.rstrip("0")) - len(digits)  # ...and "3010万" is the rounding "30.1M" is
    assert number.resolution == pytest.approx(float(Decimal("0.5").scaleb(shift - written)), rel=1e-12)


# -- the named crashers -----------------------------------------------------------------------


@pytest.fixture
def small_int_digit_limit():
    """Python's int-digit limit at its minimum, so an int() of a long exponent would raise."""
    if not hasattr(sys, "set_int_max_str_digits"):
        pytest.skip("no int-digit limit before Python 3.11")
    before = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(640)
    yield
    sys.set_int_max_str_digits(before)


CRASHERS = [
    "1/" * 1000 + "1",  # was RecursionError
    "1/" * 300 + "1",  # within the length limit: still one '/' at most
    "1/2/3",
    "1//2",
    "1e" + "9" * 4301,  # was ValueError: int digit limit
    "9" * 400,  # was inf
    "1" + "0" * (MAX_DIGITS + 1),
    "1e300/1e-300",  # was inf
    "[" * 1000,
    "[" * 400 + "1" + "]" * 400,
    "," * 5000,
    "\x00",
    "\ud800",
    "1\ud8000",
    "\u202e1.0",  # RTL override then a number: invisible, dropped; but alone it is no number
    "😀",
    "1₂",  # was read as 12
    "①②",
    " " * (5 * MAX_ANSWER_CHARS),
    "0.1 " * (MAX_VECTOR_LEN + 1),
]


@pytest.mark.parametrize("text", CRASHERS, ids=lambda t: repr(t[:12]) + f"…{len(t)}")
def test_crashers_are_format_errors_with_a_hint(text):
    if text == "\u202e1.0":  # an invisible mark does not hide a number
        assert grade(text, question(1.0, Tolerance("decimals", 1))).outcome == "correct"
        return
    for q in (SCALAR, VECTOR):
        result = grade(text, q)
        assert result.outcome == "format" and result.message
        result.message.encode("utf-8")
    for parse in (parse_number, read_number):
        with pytest.raises(AnswerFormatError) as err:
            parse(text)
        assert err.value.hint
        err.value.hint.encode("utf-8")


def test_long_exponent_is_refused_before_int_conversion(small_int_digit_limit):
    text = exponent_chain(MAX_ANSWER_CHARS - 10)  # under the length limit, over the int-digit limit
    assert grade(text, SCALAR).outcome == "format"
    with pytest.raises(AnswerFormatError, match="is out of range: the exponent is at most"):
        parse_number(text)


def test_length_limit_names_the_limit():
    result = grade("1" * (MAX_ANSWER_CHARS + 1), SCALAR)
    assert result.outcome == "format" and str(MAX_ANSWER_CHARS) in result.message


def test_fraction_with_two_slashes_says_one_slash():
    result = grade("1/2/3", SCALAR)
    assert result.outcome == "format" and "3/4" in result.message


def test_hint_quotes_hostile_text_escaped_and_short():
    hint = grade("\x00\u200f" + "z" * 500, SCALAR).message
    assert "\\x00" in hint and len(hint) < 200
    assert "\\ud800" in grade("\ud800", SCALAR).message


# -- digits of other scripts ------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, value",
    [
        ("１２３", 123.0),  # full-width: NFKC
        ("١٢٣", 123.0),  # Arabic-Indic: any script's decimal digits read as 0-9
        ("۱۲۳", 123.0),  # Extended Arabic-Indic
        ("१२३", 123.0),  # Devanagari
        ("𝟏𝟐𝟑", 123.0),  # mathematical digits (NFKC)
        ("٣/٤", 0.75),
        ("1٫5", None),  # the Arabic decimal separator is not a '.'
        ("1.09×10⁸", 1.09e8),  # superscripts are the exponent
        ("1.09×10⁻³", 1.09e-3),
        ("\ufeff0.478", 0.478),  # a BOM from a piped file
        ("0.4\u200b78", 0.478),  # a zero-width space is invisible
    ],
)
def test_digits_of_other_scripts(text, value):
    if value is None:
        with pytest.raises(AnswerFormatError):
            read_number(text)
    else:
        assert read_number(text).value == value
