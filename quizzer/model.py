"""The deck format: one set of pydantic models that both validates decks and generates
``decks/schema.json`` for editors, so the two can never disagree.

Scalars reach these models as the exact text the author wrote (see ``yamlsource``);
pydantic's lax mode turns numeric text into numbers where a field wants a number.
"""

from __future__ import annotations

import json
import string
from typing import Annotated, Any, Literal, Union

from pydantic import (
    AfterValidator,
    BeforeValidator,
    BaseModel,
    ConfigDict,
    Field,
    ValidationInfo,
    WithJsonSchema,
    field_validator,
)

ID_PATTERN = r"^[a-z0-9]+(-[a-z0-9]+)*$"
LETTERS = string.ascii_uppercase[:8]


def _not_blank(text: str) -> str:
    if not text.strip():
        raise ValueError("text is empty")
    return text


Text = Annotated[str, AfterValidator(_not_blank)]
Id = Annotated[str, Field(pattern=ID_PATTERN, description="lowercase a-z, 0-9 and '-'; never change it")]
Tag = Annotated[str, Field(pattern=ID_PATTERN)]
Section = Annotated[str, Field(pattern=r"^\S+$", description='course section, quoted: "8.6"')]
# Stated numbers stay text so that lint knows their precision ("0.478" means to 3 decimals).
NUMBER_PATTERN = r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$"
NUMBER_SCHEMA = {"anyOf": [{"type": "number"}, {"type": "string", "pattern": NUMBER_PATTERN}]}
Number = Annotated[str, Field(pattern=NUMBER_PATTERN), WithJsonSchema(NUMBER_SCHEMA)]
LETTER_PATTERN = f"^[{LETTERS}]$"
Letter = Annotated[str, Field(pattern=LETTER_PATTERN)]


def one_or_many(item: Any) -> Any:
    """A field written either as one value or as a list; validated as a list.

    One list type (rather than a union) gives one clear error instead of one per branch.
    """
    item_schema = NUMBER_SCHEMA if item is Number else {"type": "string", "pattern": LETTER_PATTERN}
    return Annotated[
        list[item],
        BeforeValidator(lambda v: [v] if isinstance(v, str) else v),
        Field(min_length=1),
        WithJsonSchema({"anyOf": [item_schema, {"type": "array", "items": item_schema, "minItems": 1}]}),
    ]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class CardBase(Strict):
    id: Id
    source: Section
    tags: list[Tag] = []


class QaCard(CardBase):
    """An interview question with a model answer and the points a good answer covers."""

    kind: Literal["qa"]
    question: Text
    answer: Text
    points: Annotated[list[Text], Field(min_length=1)]


class ChoiceCard(CardBase):
    """Multiple choice; options are lettered A, B, ... by position."""

    kind: Literal["choice"]
    question: Text
    options: Annotated[list[Text], Field(min_length=2, max_length=len(LETTERS))]
    answer: one_or_many(Letter)
    explanation: Text

    @field_validator("answer")
    @classmethod
    def _answer_is_an_option(cls, answer: list[str], info: ValidationInfo) -> list[str]:
        options = info.data.get("options")
        if options is None:
            return answer
        allowed = LETTERS[: len(options)]
        for letter in answer:
            if letter not in allowed:
                raise ValueError(f"answer {letter} is not one of the options {', '.join(allowed)}")
        if len(set(answer)) != len(answer):
            raise ValueError("answer repeats a letter")
        return answer

    @property
    def letters(self) -> str:
        return LETTERS[: len(self.options)]

    def pick(self, text: str) -> list[str] | None:
        """The letters a typed answer picks ("c, a" -> ["A", "C"]), None if it is not only option letters."""
        picked = [c for c in text.upper() if c not in " ,，、"]
        return sorted(set(picked)) if picked and all(c in self.letters for c in picked) else None


class MistakeCard(CardBase):
    """A common wrong claim: the learner says what is wrong with it."""

    kind: Literal["mistake"]
    claim: Text
    correction: Text
    why: Text


class Example(Strict):
    """The course's worked example; ``quiz lint`` recomputes ``answer`` from ``inputs``."""

    inputs: dict[str, Any]
    answer: one_or_many(Number)
    note: Text | None = None


class NumericCard(CardBase):
    """A calculation generated afresh by a checker (``quiz checkers``) on every review."""

    kind: Literal["numeric"]
    checker: Annotated[str, Field(description="a name from `quiz checkers`")]
    params: dict[str, Any] = {}
    prompt: Text | None = None
    example: Example | None = None

    @field_validator("checker")
    @classmethod
    def _known_checker(cls, name: str) -> str:
        from checkers import registry

        if name not in registry.names():
            raise ValueError(f"unknown checker '{name}'; known: {', '.join(registry.names())}")
        return name


Card = Annotated[Union[QaCard, ChoiceCard, MistakeCard, NumericCard], Field(discriminator="kind")]


class DeckSource(Strict):
    file: Text
    sections: Text


class Deck(Strict):
    id: Id
    title: Text
    language: Annotated[str, Field(pattern=r"^[a-z]{2}(-[A-Za-z]+)?$", description="e.g. zh, en")]
    source: DeckSource
    cards: Annotated[list[Card], Field(min_length=1)]


def json_schema() -> str:
    """``decks/schema.json``: the schema the YAML language server checks decks with."""
    schema = Deck.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "quizzer deck"
    return json.dumps(schema, ensure_ascii=False, indent=2) + "\n"
