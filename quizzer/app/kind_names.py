"""The card kinds as a front end names and draws them: their ids, their titles in the interface
language, and the TeX marks in a card's text. Light: no kind module is imported until one is asked for."""

from quizzer.kinds import KINDS, title
from quizzer.kinds.fields import MATH


def solution_title(kind: str) -> str:
    """The heading of a kind's worked solution (a choice's is its explanation), as an English id."""
    from quizzer.kinds import get

    return get(kind).solution_title


__all__ = ["KINDS", "MATH", "solution_title", "title"]
