"""Parse a typed answer and grade it against a Question at exactly the precision it asked for.

Every parsed number keeps its *resolution*: half a unit in its last written digit ("0.23" ->
0.005, "110M" -> 0.5M, "3/4" -> exact). That is what tells "imprecise" (right to the digits
written, but fewer digits than asked) from "wrong".
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Literal

from checkers.base import Question, Tolerance, float_slack

Outcome = Literal["correct", "wrong", "imprecise", "format"]

HINT = "数字可写 0.478、-1.2e-3、1.09×10^8、21.7%、110M、1.1亿、3/4；向量写 [0.1, 0.2] 或 0.1 0.2"

_NUMBER = re.compile(r"([+-]?)(\d+)?(?:\.(\d*))?(?:e([+-]?\d+))?", re.IGNORECASE)
_SHIFT = {"%": -2, "k": 3, "m": 6, "b": 9, "万": 4, "亿": 8}  # powers of ten, so "1.1亿" is exact
MAX_EXPONENT = 300  # past float range a typed number is a typo, not an answer
IMPRECISE_AT_MOST = 0.25  # an imprecise answer's last digit is worth at most a quarter of the truth
_THOUSANDS = re.compile(r"[+-]?\d{1,3}(,\d{3})+(\.\d+)?")
_TIMES_TEN = re.compile(r"\s*[×xX*]\s*10\s*\^\s*\(?([+-]?\d+)\)?")


class AnswerFormatError(ValueError):
    """The text is not a number / vector of the right length; `hint` says what to type."""

    def __init__(self, hint: str):
        super().__init__(hint)
        self.hint = hint


@dataclass(frozen=True)
class Number:
    value: float
    resolution: float  # half a unit in the last written digit; 0.0 for an exact fraction


@dataclass(frozen=True)
class Grade:
    outcome: Outcome
    message: str


def _normalise(text: str) -> str:
    """Full-width forms (，％１) to ASCII via NFKC, Unicode minus to '-', 'a×10^n' to 'aen'."""
    text = unicodedata.normalize("NFKC", text).replace("\u2212", "-").strip()
    text = re.sub(r"^(≈|~|约)\s*", "", text)
    text = _TIMES_TEN.sub(lambda m: f"e{m.group(1)}", text)
    return re.sub(r"(?<=[\d.])\s+(?=[%kKmMbB万亿])", "", text)


def parse_number(token: str) -> Number:
    """One number: sign, decimals, e-notation, %, K/M/B, 万/亿, or a fraction a/b."""
    token = token.strip()
    if "/" in token:
        top, _, bottom = token.partition("/")
        a, b = parse_number(top), parse_number(bottom)
        if b.value == 0:
            raise AnswerFormatError(f"分母不能为 0：'{token}'")
        return Number(a.value / b.value, 0.0)
    shift = _SHIFT.get(token[-1:].lower())
    match = _NUMBER.fullmatch(token if shift is None else token[:-1])
    if not match or not (match.group(2) or match.group(3)):
        raise AnswerFormatError(f"无法识别 '{token}'。{HINT}")
    sign, whole, frac, exp = match.groups()
    exponent = int(exp or 0) + (shift or 0)
    if abs(exponent) > MAX_EXPONENT:
        raise AnswerFormatError(f"'{token}' 超出范围：指数最多 ±{MAX_EXPONENT}。")
    value = float(f"{sign}{whole or 0}.{frac or 0}e{exponent}")
    return Number(value, 0.5 * 10.0 ** (exponent - len(frac or "")))


def read_number(text: str) -> Number:
    """One typed number in any form the grammar knows ("15%", "0.15", "110M", "1.1亿", "3/4")."""
    parsed = _parse(text, vector=False)
    if isinstance(parsed, list):
        raise AnswerFormatError(f"这里要一个数，你给了 {len(parsed)} 个。")
    return parsed


def _parse(text: str, vector: bool | None = None) -> Number | list[Number]:
    """vector=None: guess from the text; "1,234,567" (3-digit groups) then reads as one number."""
    text = _normalise(text)
    if not text:
        raise AnswerFormatError(f"答案为空。{HINT}")
    if vector is not True and _THOUSANDS.fullmatch(text):
        return parse_number(text.replace(",", ""))
    bracketed = text[:1] in "[(" and text[-1:] in "])"
    body = text[1:-1] if bracketed else text
    tokens = [t for t in re.split(r"[,;、\s]+", body) if t]
    if not tokens:
        raise AnswerFormatError(f"向量是空的。{HINT}")
    numbers = [parse_number(t) for t in tokens]
    return numbers if bracketed or len(numbers) > 1 else numbers[0]


def parse_answer(text: str) -> float | list[float]:
    """A typed answer as a float or a list of floats; raises AnswerFormatError(hint)."""
    parsed = _parse(text)
    return [n.value for n in parsed] if isinstance(parsed, list) else parsed.value


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
            raise AnswerFormatError(f"这里要一个数，你给了 {len(numbers)} 个。")
    elif len(numbers) != len(truth):
        raise AnswerFormatError(f"需要 {len(truth)} 个数的向量，你给了 {len(numbers)} 个。")
    return numbers


def grade(text: str, question: Question) -> Grade:
    truth = question.answer
    truths = truth if isinstance(truth, list) else [truth]
    try:
        numbers = _shape(_parse(text, vector=isinstance(truth, list)), truth)
    except AnswerFormatError as err:
        return Grade("format", err.hint)
    outcomes = [judge(n, t, question.tolerance) for n, t in zip(numbers, truths)]
    shown = f"答案 {question.answer_text}"
    if "wrong" in outcomes:
        where = ""
        if len(outcomes) > 1:
            where = "第 " + "、".join(str(i + 1) for i, o in enumerate(outcomes) if o == "wrong") + " 个数不对。"
        return Grade("wrong", f"不对。{where}{shown}")
    if "imprecise" in outcomes:
        # no answer shown: the learner is asked again, at the precision the question wants
        return Grade("imprecise", f"精度不够：题目要求{question.tolerance.phrase()}，再算精确些。")
    return Grade("correct", f"正确！{shown}")
