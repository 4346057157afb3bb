"""Deck example verification: recompute a card's worked example and compare it digit by digit.

A stated value passes when it agrees with the reference to its own last written digit
("0.478" within 0.0005; "109482240" exactly; "110000000" also exactly, trailing zeros are
not read as rounding). Every problem comes back as a short message (a ``grading.Said``, which
the interface translates); None means all good.
"""

from __future__ import annotations

from pydantic import ValidationError
from pydantic_core import ErrorDetails

from checkers import registry
from checkers.base import Tolerance
from checkers.grading import AnswerFormatError, Number, Said, judge, parse_number


def _shown(truth: float, stated: Number) -> str:
    """The true value with two digits more than the stated one, so the gap is visible."""
    if float(truth).is_integer():
        return f"{int(truth)}"
    digits = 0
    while 0.5 * 10.0**-digits > stated.resolution and digits < 10:
        digits += 1
    return f"{truth:.{digits + 2}f}"


def _errors(messages: list[ErrorDetails]) -> str:
    return "; ".join(f"{'.'.join(map(str, e['loc'])) or 'inputs'}: {e['msg']}" for e in messages)


def check_example(checker_name: str, inputs: dict, stated: str | list[str]) -> str | None:
    """None if every stated value matches the reference to its own last digit, else a message."""
    try:
        checker = registry.get(checker_name)
    except registry.UnknownChecker as err:
        return str(err)
    try:
        model = checker.Inputs.model_validate(inputs)
    except ValidationError as err:
        return Said("bad inputs for {checker}: {errors}", checker=checker_name, errors=_errors(err.errors(include_url=False)))
    try:
        truth = checker.solve(model)
    except (ArithmeticError, RuntimeError, TypeError, ValueError, MemoryError) as err:  # torch on inputs past its sizes
        reason = (str(err).splitlines() or [type(err).__name__])[0][:120]
        return Said("the reference cannot compute these inputs ({reason}); give sizes it can hold", reason=reason)
    truths = truth if isinstance(truth, list) else [truth]
    texts = stated if isinstance(stated, list) else [stated]
    if isinstance(truth, list) != isinstance(stated, list) or len(texts) != len(truths):
        if not isinstance(truth, list):
            return Said("{checker} answers a single value, but the example states {count}", checker=checker_name,
                        count=len(texts))
        if not isinstance(stated, list):
            return Said("{checker} answers a list of {n} values, but the example states one", checker=checker_name,
                        n=len(truths))
        return Said("{checker} answers a list of {n} values, but the example states {count}", checker=checker_name,
                    n=len(truths), count=len(texts))
    problems = []
    for i, (text, true) in enumerate(zip(texts, truths)):
        try:
            number = parse_number(str(text))
        except AnswerFormatError as err:
            return Said("cannot read stated value '{text}': {hint}", text=text, hint=err.hint)
        if judge(number, true, Tolerance("exact")) == "wrong":  # exact, or right to its own last digit
            problems.append(Said("stated {text} but the reference gives {truth} (index {index})", text=text,
                                 truth=_shown(true, number), index=i) if isinstance(truth, list) else
                            Said("stated {text} but the reference gives {truth}", text=text, truth=_shown(true, number)))
    return Said("{problems}", problems=problems) if problems else None
