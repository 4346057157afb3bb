"""The deck file format: one set of pydantic models that both validates decks and generates
``decks/schema.json`` for editors, so the two can never disagree.

A deck's cards are the union of the kinds' own models (``quizzer.kinds``), told apart by
``kind``. Scalars reach these models as the exact text the author wrote (see
``yamlsource``); pydantic's lax mode turns numeric text into numbers where a field wants one.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated, Any, Union

from pydantic import Field

from quizzer import kinds
from quizzer.kinds.fields import CardBase, Id, Strict, Text

if TYPE_CHECKING:  # the union is built from the registry at run time; to a type checker a card is a CardBase
    Card = CardBase
else:
    Card = Annotated[Union[tuple(kinds.models())], Field(discriminator="kind")]


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
    schema: dict[str, Any] = Deck.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "quizzer deck"
    return json.dumps(schema, ensure_ascii=False, indent=2) + "\n"
