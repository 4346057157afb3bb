"""pydantic's reading of the card shapes: the models that validate deck files and write the deck
format's JSON Schema, built on first use from the shapes' own annotations.

The shapes (``quizzer.kinds.fields``) are the one declaration of the format; their annotations
stay text at run time and are read here with :data:`VOCABULARY`, pydantic's meaning of the
field types. A shape named in an annotation (``example: Example | None``) reads as its model,
``CardBase`` as a card of any kind. Only lint and deck parsing import this module, so study
and the deck cache never load pydantic. Scalars reach these models as the exact text the author
wrote (see ``quizzer.decks.yamlsource``). The models are built as the checkers' are
(``checkers.validating.pydantic_model``).
"""

from __future__ import annotations

import inspect
import re
import sys
from functools import cache
from typing import Annotated, Any, TypeVar, Union

from pydantic import AfterValidator, BaseModel, BeforeValidator, Field, WithJsonSchema

from checkers.validating import Exact, pydantic_model
from quizzer import kinds
from quizzer.kinds.fields import (
    ID_MAX,
    ID_PATTERN,
    LETTER_PATTERN,
    MATH_DEPTH,
    NUMBER_PATTERN,
    TAG_MAX,
    CardBase,
    Shape,
    math_depth,
)

S = TypeVar("S", bound=Shape)


_FILLERS = "\u115f\u1160\u3164\uffa0"  # Hangul fillers: letters to Unicode, shown as nothing


def _text(text: str) -> str:
    """Not blank (a zero-width space or a filler alone shows nothing either), and its formulas
    nested no deeper than MATH_DEPTH braces."""
    if not any(char.isprintable() and not char.isspace() and char not in _FILLERS for char in text):
        raise ValueError("text is empty")
    if "$" in text and math_depth(text) > MATH_DEPTH:
        raise ValueError("a formula nests braces more than 10 deep")  # messages.VALUE_ERRORS
    return text


NUMBER_SCHEMA = {"anyOf": [{"type": "number"}, {"type": "string", "pattern": NUMBER_PATTERN}]}
Text = Annotated[str, AfterValidator(_text)]
Id = Annotated[str, Field(pattern=ID_PATTERN, max_length=ID_MAX,
                          description="lowercase a-z, 0-9 and '-'; never change it")]
Tag = Annotated[str, Field(pattern=ID_PATTERN, max_length=TAG_MAX)]
Section = Annotated[str, Field(pattern=r"^\S+$", description='course section, quoted: "8.6"')]
Number = Annotated[str, Field(pattern=NUMBER_PATTERN), WithJsonSchema(NUMBER_SCHEMA)]
Letter = Annotated[str, Field(pattern=LETTER_PATTERN)]


class OneOrMany:
    """``OneOrMany[item]``: a field written either as one value or as a list; validated as a list.

    One list type (rather than a union) gives one clear error instead of one per branch.
    """

    def __class_getitem__(cls, item: Any) -> Any:
        item_schema = NUMBER_SCHEMA if item is Number else {"type": "string", "pattern": LETTER_PATTERN}
        return Annotated[
            list[item],
            BeforeValidator(lambda v: [v] if isinstance(v, str) else v),
            Field(min_length=1),
            WithJsonSchema({"anyOf": [item_schema, {"type": "array", "items": item_schema, "minItems": 1}]}),
        ]


VOCABULARY: dict[str, Any] = {
    "Text": Text, "Id": Id, "Tag": Tag, "Section": Section, "Number": Number, "Letter": Letter,
    "OneOrMany": OneOrMany, "Field": Field, "AfterValidator": AfterValidator,
}
_NAME = re.compile(r"[A-Za-z_]\w*")
_MODELS: dict[type[Shape], type[BaseModel]] = {}


def model(shape: type[Shape]) -> type[BaseModel]:
    """The pydantic model of ``shape`` (built once): its fields in order, their defaults, its docstring."""
    if shape not in _MODELS:
        _MODELS[shape] = pydantic_model(shape, _names(shape), Exact, _doc(shape))
    return _MODELS[shape]


def validate(shape: type[S], data: Any) -> S:
    """``data`` (as YAML gave it) as ``shape``, through the JSON the deck cache holds, so a deck
    validated now and one read from the cache are the same; raises pydantic's ValidationError."""
    return shape.from_json(model(shape).model_validate(data).model_dump(mode="json"))


@cache
def _any_card() -> Any:
    return Annotated[Union[tuple(model(shape) for shape in kinds.models())], Field(discriminator="kind")]


def _names(shape: type[Shape]) -> dict[str, Any]:
    """What the annotations of ``shape`` and its bases name, as pydantic reads them."""
    names = dict(VOCABULARY)
    for klass in shape.__mro__:
        module = vars(sys.modules[klass.__module__])
        for annotation in inspect.get_annotations(klass).values():
            for name in _NAME.findall(str(annotation)):
                value = module.get(name)
                if value is CardBase:
                    names[name] = _any_card()
                elif isinstance(value, type) and issubclass(value, Shape) and name not in VOCABULARY:
                    names[name] = model(value)
    return names


def _doc(shape: type[Shape]) -> str | None:
    """The shape's docstring (the schema's description); a dataclass without one has its
    signature as ``__doc__``, which is no description."""
    doc = shape.__doc__
    return None if doc is None or doc.startswith(shape.__name__ + "(") else doc
