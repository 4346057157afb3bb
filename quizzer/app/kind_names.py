"""The card kinds as a front end names and draws them: their ids, their titles in the interface
language, the TeX marks in a card's text, and pydantic's messages by their type (a front end words
a bad option value with them, as lint words a bad field). Light: no kind module is imported until one is asked for."""

from typing import Any

from quizzer.kinds import KINDS, title
from quizzer.kinds.fields import MATH


def pydantic_message(error: Any) -> str:
    """One pydantic error (an item of ``ValidationError.errors()``) worded by its type in the
    interface language (``kinds.messages``; imported on first use: it loads pydantic)."""
    from quizzer.kinds.messages import pydantic_message as worded

    return worded(error)


def solution_title(kind: str) -> str:
    """The heading of a kind's worked solution (a choice's is its explanation), as an English id."""
    from quizzer.kinds import get

    return get(kind).solution_title


__all__ = ["KINDS", "MATH", "pydantic_message", "solution_title", "title"]
