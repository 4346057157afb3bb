"""The deck file format: one set of shapes (frozen dataclasses) that study reads, that
validates deck files through pydantic (``quizzer.kinds.pydantic_models``, loaded only then) and
that generates ``decks/schema.json`` for editors, so the three can never disagree.

A deck's cards are the kinds' own shapes (``quizzer.kinds``), told apart by ``kind``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any, Self

from quizzer import kinds
from quizzer.kinds.fields import CardBase, Id, Shape, Text

if TYPE_CHECKING:  # the annotations are read with pydantic's meaning only to validate (kinds.pydantic_models)
    from pydantic import Field


TITLE_MAX = 80  # characters: a title is a table's cell and a card's header (the bundled ones: under 30)


@dataclass(frozen=True, kw_only=True)
class DeckSource(Shape):
    file: Text
    sections: Text


@dataclass(frozen=True, kw_only=True)
class Deck(Shape):
    id: Id
    title: Annotated[Text, Field(max_length=TITLE_MAX)]
    language: Annotated[str, Field(pattern=r"^[a-z]{2}(-[A-Za-z]+)?$", description="e.g. zh, en")]
    source: DeckSource
    cards: Annotated[list[CardBase], Field(min_length=1)]

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Self:
        cards = [kinds.get(card["kind"]).model.from_json(card) for card in data["cards"]]
        return cls(**{**data, "source": DeckSource.from_json(data["source"]), "cards": cards})


def validate(data: Any) -> Deck:
    """A deck as YAML gave it, validated; raises pydantic's ValidationError."""
    from quizzer.kinds.pydantic_models import validate

    return validate(Deck, data)


def json_schema() -> str:
    """``decks/schema.json``: the schema the YAML language server checks decks with."""
    from quizzer.kinds.pydantic_models import model

    schema: dict[str, Any] = model(Deck).model_json_schema()
    _checkers_in(schema)
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "quizzer deck"
    return json.dumps(schema, ensure_ascii=False, indent=2) + "\n"


def _checkers_in(schema: dict[str, Any]) -> None:
    """A numeric card's ``checker`` as one of the names, and its ``params`` and example ``inputs``
    as that checker's (``if checker is X then params are X's``), so an editor completes and
    checks them as ``quiz lint`` does."""
    from checkers import registry
    from checkers.validating import model as checked

    definitions = schema["$defs"]
    numeric = definitions["NumericCard"]
    numeric["properties"]["checker"]["enum"] = registry.names()
    rules = []
    for name in registry.names():
        checker = registry.get(name)
        params, inputs = (checked(shape).model_json_schema(ref_template="#/$defs/{model}")
                          for shape in (checker.Params, checker.Inputs))
        for part in (params, inputs):
            definitions.update(part.pop("$defs", {}))
        rules.append({"if": {"properties": {"checker": {"const": name}}},
                      "then": {"properties": {"params": params, "example": {"properties": {"inputs": inputs}}}}})
    numeric["allOf"] = rules
