"""Field types every kind's deck model shares (ids, texts, stated numbers, option letters)."""

from __future__ import annotations

import string
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, WithJsonSchema

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
    """What every card has, whatever its kind."""

    id: Id
    kind: str
    source: Section
    tags: list[Tag] = []
