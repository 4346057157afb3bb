"""Views both state machines return."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Retry:
    """The answer could not be read (or is less precise than asked): type it again."""

    message: str
