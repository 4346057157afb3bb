"""Parse a typed answer and grade it against a Question at exactly the precision it asked for.

Every parsed number keeps its *resolution*: half a unit in its last written digit ("0.23" ->
0.005, "110M" -> 0.5M, "3/4" -> exact). That is what tells "imprecise" (right to the digits
written, but fewer digits than asked) from "wrong".
"""

from __future__ import annotations

import math
import re
import unicodedata
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from typing import Literal

from checkers.base import Question, Tolerance, float_slack
from checkers.said import N_, Said

Outcome = Literal["correct", "wrong", "imprecise", "format"]

# what a Chinese sentence puts around a number: "约 0.8", "大约是 0.5", and the full stop an input
# method adds ("0.5。")
_SAID_AROUND = re.compile(r"^(?:≈|~|大约|大概|约)(?:是|为)?\s*|\s*。$")

HINT = Said("Numbers: 0.478, -1.2e-3, 1.09×10^8, 21.7%, 110M, 3/4; vectors: [0.1, 0.2] or 0.1 0.2")

# Limits on untrusted text, all checked on the text before any int()/float() conversion.
MAX_VECTOR_LEN = 64  # numbers in one vector answer (the checkers ask for at most 12)
MAX_ANSWER_CHARS = 16 * MAX_VECTOR_LEN  # 1024 after normalising: 64 numbers like "-1234.567890, " fit
MAX_EXPONENT = 300  # past float range a typed number is a typo, not an answer
MAX_DIGITS = MAX_EXPONENT + 20  # per number: Tolerance.format shows 1e300 as 301 digits + 6 decimals
IMPRECISE_AT_MOST = 0.25  # an imprecise answer's last digit is worth at most a quarter of the truth

_NUMBER = re.compile(r"([+-]?)([0-9]+)?(?:\.([0-9]*))?(?:e([+-]?[0-9]+))?", re.IGNORECASE)
_SHIFT = {"%": -2, "k": 3, "m": 6, "b": 9, "千": 3, "万": 4, "亿": 8}  # powers of ten, so "1.1亿" is exact
UNIT_SUFFIXES = {"k", "m", "b", "千", "万", "亿"}
_THOUSANDS = re.compile(r"[+-]?[0-9]{1,3}(,[0-9]{3})+(\.[0-9]+)?")
_TIMES_TEN = re.compile(r"(?<=[0-9.])\s*[×xX*]\s*10\s*\^\s*\(?([+-]?[0-9]+)\)?")
_SUPERSCRIPT = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻", "0123456789+-")
_SUPERSCRIPTS = re.compile("[⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻]+")
_SHOWN_CHARS = 40  # how much of a bad token a hint quotes back
# what a question counts in (Tolerance.measure) and how an answer may say it after its number, any
# case; "B" alone is a byte only where the question counts bytes (elsewhere a billion: "1.1B")
MEASURES = {N_("bytes"): ("字节", "bytes", "byte", "B"), "GB": ("GB",), "GiB": ("GiB",), "FLOPs": ("FLOPs", "FLOP")}
OTHER_MEASURES = ("KB", "MB", "TB", "KiB", "MiB", "TiB", "bytes", "byte", "字节", "GB", "GiB", "FLOPs", "FLOP")
_WORD_AFTER = re.compile(r"(?<=[0-9.])\s*(字节|[a-z]+)$", re.IGNORECASE)


class AnswerFormatError(ValueError):
    """The text is not a number / vector of the right length; `hint` says what to type."""

    def __init__(self, hint: Said):
        super().__init__(hint)
        self.hint = hint


@dataclass(frozen=True)
class Number:
    value: float
    resolution: float  # half a unit in the last written digit; 0.0 for an exact fraction


@dataclass(frozen=True)
class Grade:
    outcome: Outcome
    message: Said


def _shown(text: str) -> str:
    """Typed text as a hint quotes it: cut short, invisible / unprintable characters escaped."""
    if len(text) > _SHOWN_CHARS:
        text = text[: _SHOWN_CHARS - 1] + "…"
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in text)


def _too_long(length: int) -> AnswerFormatError:
    return AnswerFormatError(Said(
        "The answer is too long ({length} characters): at most {limit} characters, and {numbers} numbers in a vector. {hint}",
        length=length, limit=MAX_ANSWER_CHARS, numbers=MAX_VECTOR_LEN, hint=HINT))


def _ascii_digits(text: str) -> str:
    """Decimal digits of any script ("٣", "३", "𝟑") as ASCII, so the grammar reads one set of digits."""
    if text.isascii():
        return text
    return "".join(str(unicodedata.decimal(c)) if not c.isascii() and unicodedata.category(c) == "Nd" else c for c in text)


def _normalise(text: str) -> str:
    """Full-width forms (，％１) to ASCII via NFKC, Unicode minus to '-', 'a×10^n' to 'aen'.

    Invisible format characters (BOM, zero-width space, LTR/RTL marks) are dropped; any
    script's decimal digits read as 0-9; superscripts are an exponent ("1.09×10⁸"), never
    digits glued on ("10²" is not 102); other digit-like symbols ("①", "₂", "½") are errors.
    """
    if len(text) > 4 * MAX_ANSWER_CHARS:  # before NFKC, which may lengthen the text
        raise _too_long(len(text))
    if not text.isascii():
        text = _SUPERSCRIPTS.sub(lambda m: f"^({m.group().translate(_SUPERSCRIPT)})", text)
        kept = []
        for c in text:
            category = unicodedata.category(c)
            if category == "Cf":
                continue
            if category == "No":
                raise AnswerFormatError(Said("Cannot read '{text}': write digits as 0-9 (full-width ones too). {hint}",
                                             text=_shown(c), hint=HINT))
            kept.append(c)
        text = "".join(kept)
    text = unicodedata.normalize("NFKC", text).replace("\u2212", "-").strip()
    if len(text) > MAX_ANSWER_CHARS:
        raise _too_long(len(text))
    text = _ascii_digits(text)
    text = _SAID_AROUND.sub("", text)
    text = _TIMES_TEN.sub(lambda m: f"e{m.group(1)}", text)
    return re.sub(r"(?<=[0-9.])\s+(?=[%kKmMbB千万亿])", "", text)


def _parse_decimal(token: str) -> Number:
    """One number without '/': sign, decimals, e-notation, %, K/M/B, 千/万/亿."""
    token = token.strip()
    shift = _SHIFT.get(token[-1:].lower())
    match = _NUMBER.fullmatch(token if shift is None else token[:-1])
    if not match or not (match.group(2) or match.group(3)):
        raise AnswerFormatError(Said("Cannot read '{text}'. {hint}", text=_shown(token), hint=HINT))
    sign, whole, frac, exp = match.groups()
    if len(whole or "") + len(frac or "") > MAX_DIGITS:
        raise AnswerFormatError(Said("'{text}' has too many digits: at most {limit} in one number. {hint}",
                                     text=_shown(token), limit=MAX_DIGITS, hint=HINT))
    out_of_range = _out_of_range(token)
    if len((exp or "0").lstrip("+-").lstrip("0")) > len(str(MAX_EXPONENT)):  # before int(): no 4,300-digit parse
        raise out_of_range
    exponent = int(exp or 0) + (shift or 0)
    if abs(exponent) > MAX_EXPONENT:
        raise out_of_range
    value = float(f"{sign}{whole or 0}.{frac or 0}e{exponent}")
    if not math.isfinite(value):  # "9"*320 fits MAX_DIGITS but not a float
        raise out_of_range
    return Number(value, 0.5 * 10.0 ** (exponent - len(frac or "") + _unit_zeros(token, whole, frac, exp)))


def _out_of_range(token: str) -> AnswerFormatError:
    return AnswerFormatError(Said("'{text}' is out of range: the exponent is at most ±{limit}.", text=_shown(token),
                                  limit=MAX_EXPONENT))


def _unit_zeros(token: str, whole: str | None, frac: str | None, exp: str | None) -> int:
    """Trailing zeros of a whole number before a unit say nothing about precision: "3010万" is
    the same three-digit rounding as "30.1M", and "110M" the same as "1.1亿". A bare integer
    ("110000000") stays exact, and a written point ("110.M") makes the zeros count."""
    if token[-1:].lower() not in UNIT_SUFFIXES or frac is not None or exp or not (whole or "").strip("0"):
        return 0
    return len(whole or "") - len((whole or "").rstrip("0"))


def parse_number(token: str) -> Number:
    """One number: sign, decimals, e-notation, %, K/M/B, 千/万/亿, a fraction a/b (one '/'), or
    a whole number's power (2^11)."""
    if len(token) > MAX_ANSWER_CHARS:
        raise _too_long(len(token))
    token = _ascii_digits(token.strip())
    if (power := _POWER.fullmatch(token)) is not None:
        return _power(token, int(power.group(1)), int(power.group(2)))
    if "/" not in token:
        return _parse_decimal(token)
    if token.count("/") > 1:
        raise AnswerFormatError(Said("Cannot read '{text}': a fraction has one '/', as in 3/4. {hint}",
                                     text=_shown(token), hint=HINT))
    top, _, bottom = token.partition("/")
    a, b = _parse_decimal(top), _parse_decimal(bottom)
    if b.value == 0:
        raise AnswerFormatError(Said("The denominator cannot be 0: '{text}'", text=_shown(token)))
    value = a.value / b.value
    if not math.isfinite(value):  # 1e300/1e-300
        raise _out_of_range(token)
    return Number(value, 0.0)


_POWER = re.compile(r"([0-9]{1,6})\s*(?:\^|\*\*)\s*\(?([+-]?[0-9]{1,4})\)?")  # 2^11, 2**30, 2¹¹: exact


def _power(token: str, base: int, exponent: int) -> Number:
    """A whole number to a whole power, exact: what an interviewer writes for 2048 or 1 GiB."""
    if base == 0 and exponent < 0:
        raise AnswerFormatError(Said("The denominator cannot be 0: '{text}'", text=_shown(token)))
    if base > 1 and abs(exponent) * math.log10(base) > MAX_EXPONENT:
        raise _out_of_range(token)
    return Number(float(base) ** exponent, 0.0)


def read_number(text: str) -> Number:
    """One typed number in any form the grammar knows ("15%", "0.15", "110M", "1.1亿", "3/4")."""
    parsed = _parse(text, vector=False)
    if isinstance(parsed, list):
        raise _one_wanted(len(parsed))
    return parsed


def _one_wanted(count: int) -> AnswerFormatError:
    return AnswerFormatError(Said("One number is wanted here; you gave {count}.", count=count))


def _without_measure(text: str, measure: str) -> str:
    """The answer without the unit the question counts in ("5.44 GB" for GB); another unit
    ("5.44 GiB" for GB, "5.44 GB" where the question counts none) is a format error."""
    word = _WORD_AFTER.search(text)
    if word is None:
        return text
    said = word.group(1).casefold()
    if said in (spelling.casefold() for spelling in MEASURES.get(measure, ())):
        return text[:word.start()]
    if said in (other.casefold() for other in OTHER_MEASURES):
        if measure:
            raise AnswerFormatError(Said("The question counts in {measure}: write the number in {measure} "
                                         "('{unit}' is another unit).", measure=Said(measure), unit=word.group(1)))
        raise AnswerFormatError(Said("The question asks for a number without a unit: leave out '{unit}'.",
                                     unit=word.group(1)))
    return text


def _parse(text: str, vector: bool, measure: str = "") -> Number | list[Number]:
    """For a scalar (vector=False), "1,234,567" (3-digit groups) reads as one number; a scalar
    may name the ``measure`` its question counts in after it.

    Bounded: at most MAX_ANSWER_CHARS characters, MAX_VECTOR_LEN numbers, MAX_DIGITS digits
    each; every failure is an AnswerFormatError."""
    text = _normalise(text)
    if not vector:
        text = _without_measure(text, measure).rstrip()
    if not text:
        raise AnswerFormatError(Said("The answer is empty. {hint}", hint=HINT))
    if not vector and _THOUSANDS.fullmatch(text):
        return parse_number(text.replace(",", ""))
    bracketed = text[:1] in "[(" and text[-1:] in "])"
    body = text[1:-1] if bracketed else text
    tokens = [t for t in re.split(r"[,;、\s]+", body) if t]
    if not tokens:
        raise AnswerFormatError(Said("The vector is empty. {hint}", hint=HINT))
    if len(tokens) > MAX_VECTOR_LEN:
        raise AnswerFormatError(Said("A vector has at most {limit} numbers; you gave {count}. {hint}",
                                     limit=MAX_VECTOR_LEN, count=len(tokens), hint=HINT))
    numbers = [parse_number(t) for t in tokens]
    return numbers if bracketed or len(numbers) > 1 else numbers[0]


def judge(number: Number, truth: float, tolerance: Tolerance) -> Outcome:
    """correct within the asked bound; imprecise if right only to the coarser digits written,
    and only when those digits say something (one digit short of what was asked, or a last
    digit worth at most a quarter of the truth): "0" for 0.174 or "1亿" for 84,934,656 is
    right to its own coarse digit but is a guess, not an approximation, so it is wrong."""
    error, allowed = abs(number.value - truth), tolerance.allowed(truth)
    if error <= allowed:
        return "correct"
    informative = number.resolution <= max(10 * allowed, IMPRECISE_AT_MOST * abs(truth))
    if informative and number.resolution > allowed and error <= number.resolution + float_slack(truth):
        return "imprecise"
    return "wrong"


def _shape(parsed: Number | list[Number], truth: int | float | list[float]) -> list[Number]:
    """Line the parsed numbers up with the truth, or raise a FORMAT error saying what was expected."""
    numbers = parsed if isinstance(parsed, list) else [parsed]
    if not isinstance(truth, list):
        if len(numbers) != 1:
            raise _one_wanted(len(numbers))
    elif len(numbers) != len(truth):
        raise AnswerFormatError(Said("A vector of {wanted} numbers is wanted; you gave {count}.",
                                     wanted=len(truth), count=len(numbers)))
    return numbers


def _best(found: set[Outcome]) -> Outcome:
    return next(o for o in ("correct", "imprecise", "wrong") if o in found)


def stepped(truth: float, tolerance: Tolerance) -> tuple[float, ...]:
    """``truth`` rounded to the asked places through one or two more, half up, as a learner rounds
    a worked solution's table (0.71645 is shown 0.7165 and rounded to 0.717, where the answer is
    0.716): the last digit one off, and only when the places between fall on a half."""
    if tolerance.kind != "decimals" or not math.isfinite(truth) or abs(truth) >= 10.0 ** (13 - tolerance.decimals):
        return ()  # past a float's 15 digits the places between say nothing (and Decimal's 28 would overflow)
    exact, asked = Decimal(repr(truth)), Decimal(1).scaleb(-tolerance.decimals)
    direct = exact.quantize(asked, ROUND_HALF_UP)
    found = {exact.quantize(asked.scaleb(-extra), ROUND_HALF_UP).quantize(asked, ROUND_HALF_UP) for extra in (1, 2)}
    return tuple(float(value) for value in sorted(found - {direct}))


def grade(text: str, question: Question) -> Grade:
    truth = question.answer
    truths = truth if isinstance(truth, list) else [truth]
    try:
        numbers = _shape(_parse(text, vector=isinstance(truth, list), measure=question.tolerance.measure), truth)
    except AnswerFormatError as err:
        return Grade("format", err.hint)
    # each number against its truth, a careful learner's rounding of it in two steps, or any other
    # value the question accepts (question.other_accepted; for a vector, whole vectors one after another, so
    # entry i has also[i::len]), whichever grades best
    size = len(truths)
    outcomes = [_best({judge(n, value, question.tolerance)
                       for value in (t, *stepped(t, question.tolerance), *question.other_accepted[i::size])})
                for i, (n, t) in enumerate(zip(numbers, truths))]
    answer = question.answer_text
    if "wrong" in outcomes:
        wrong = [i for i, o in enumerate(outcomes) if o == "wrong"]
        if all(_rounds_to(numbers[i], truths[i], question.tolerance) for i in wrong):  # "0.01" for 0.0066
            return Grade("wrong", Said("Wrong: too few digits to tell (the question asks for {precision}). The answer is "
                                       "{answer}", precision=precision(question.tolerance), answer=answer))
        if len(outcomes) > 1:
            return Grade("wrong", Said("Wrong at position(s) {positions}. The answer is {answer}",
                                       positions=[i + 1 for i in wrong], answer=answer))
        return Grade("wrong", Said("Wrong. The answer is {answer}", answer=answer))
    if "imprecise" in outcomes:
        # no answer shown: the learner is asked again, at the precision the question wants
        return Grade("imprecise", Said("Not precise enough: the question asks for {precision}; work it out more exactly.",
                                       precision=precision(question.tolerance)))
    return Grade("correct", Said("✓ right: {answer}", answer=answer))


def _rounds_to(number: Number, truth: float, tolerance: Tolerance) -> bool:
    """The truth rounds to ``number`` at its own, coarser digits, too few to be judged (``judge``
    calls that a guess): a verdict of plain "wrong" read as a mistake in the working."""
    return number.resolution > tolerance.allowed(truth) and abs(number.value - truth) <= number.resolution + float_slack(truth)


def precision(tolerance: Tolerance) -> Said:
    """What ``tolerance`` asks for, as a verdict names it."""
    if tolerance.kind == "exact":
        return Said("exact integers") if tolerance.vector else Said("an exact integer")
    if tolerance.kind == "decimals":
        return Said("{count} decimal places", count=tolerance.decimals) if tolerance.decimals != 1 else \
            Said("{count} decimal place", count=1)
    if tolerance.kind == "unit":
        return Said("{count} decimal places in {unit}", count=tolerance.decimals, unit=tolerance.unit) \
            if tolerance.decimals != 1 else Said("{count} decimal place in {unit}", count=1, unit=tolerance.unit)
    if tolerance.kind == "significant":
        return Said("{count} significant digits", count=tolerance.decimals) if tolerance.decimals != 1 else \
            Said("{count} significant digit", count=1)
    percent = f"{tolerance.relative * 100:g}"
    return Said("a relative error of at most {percent}%", percent=percent)
