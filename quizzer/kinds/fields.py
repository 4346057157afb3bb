"""The card shapes' vocabulary: the field types every kind's card declares (ids, texts, stated
numbers, option letters) and the bases every shape extends.

A shape is a frozen dataclass, what study, exam and the renderer read; the deck cache builds
it from already-validated JSON without validating again, so showing a card never imports
pydantic. Its annotations are at the same time the deck format's one declaration: each
module says ``from __future__ import annotations``, so they stay text at run time, and
``quizzer.kinds.pydantic_models`` reads that text with pydantic's meaning of the names below (and
of ``Field`` and ``AfterValidator``) to validate deck files and to write the JSON Schema. Here
the names only tell a type checker what a field holds.
"""

from __future__ import annotations

import dataclasses
import string
from dataclasses import dataclass, field
from typing import Any, Self, TypeVar

from quizzer.base.markup import MATH

ID_PATTERN = r"^[a-z0-9]+(-[a-z0-9]+)*$"
ID_MAX, TAG_MAX = 200, 100  # characters: the database columns' lengths (a server refuses longer)
LETTERS = string.ascii_uppercase[:8]
# Stated numbers stay text so that lint knows their precision ("0.478" means to 3 decimals).
NUMBER_PATTERN = r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$"
LETTER_PATTERN = f"^[{LETTERS}]$"
MATH_DEPTH = 10  # braces one inside another in a formula (the decks' deepest: 2); deeper breaks the reader's recursion

_T = TypeVar("_T")
Text = str  # not blank
Id = str  # ID_PATTERN; never change it
Tag = str  # ID_PATTERN
Section = str  # a course section without spaces, quoted: "8.6"
Number = str  # NUMBER_PATTERN, or a number in the YAML
Letter = str  # an option letter, LETTER_PATTERN
OneOrMany = list[_T]  # written as one value or a list, validated as a non-empty list


def math_depth(text: str) -> int:
    """How deep braces nest in the text's formulas (0 without any)."""
    deepest = 0
    for match in MATH.finditer(text):
        depth = 0
        for char in match.group(1) or match.group(2):
            if char == "{":
                depth += 1
                deepest = max(deepest, depth)
            elif char == "}":
                depth -= 1
    return deepest


@dataclass(frozen=True, kw_only=True)
class Shape:
    """A part of a deck, built from its validated JSON (the deck cache's, or pydantic's dump)."""

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Self:
        """Trusted: ``data`` was validated (a shape holding shapes builds them itself)."""
        return cls(**data)

    def to_json(self) -> dict[str, Any]:
        """The JSON data ``from_json`` reads back. It shares the lists and mappings the shape
        holds (no deep copy: it is written out or hashed, never changed)."""
        return {f.name: _json(getattr(self, f.name)) for f in dataclasses.fields(self)}


def _json(value: Any) -> Any:
    if isinstance(value, Shape):
        return value.to_json()
    if isinstance(value, list) and value and isinstance(value[0], Shape):
        return [item.to_json() for item in value]
    return value


@dataclass(frozen=True, kw_only=True)
class CardBase(Shape):
    """What every card has, whatever its kind. In a field's annotation (``Deck.cards``) it stands
    for a card of any kind, told apart by ``kind``."""

    id: Id
    kind: str
    source: Section
    tags: list[Tag] = field(default_factory=list)
