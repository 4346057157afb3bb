"""pydantic's reading of the checkers' Params and Inputs, for untrusted data only (a card's
``params:``, a worked example's ``inputs:``): one model per class, built on first use from the
dataclass's own annotations with their ``Field(...)`` constraints, so composing a question (the
dataclasses built directly) never loads pydantic. The rules across fields are the dataclass's
``check``, run once every field is valid, so a broken rule reads as pydantic's value error."""

from __future__ import annotations

import typing
from dataclasses import MISSING, fields
from dataclasses import Field as DataclassField
from typing import Any, ClassVar, Self, TypeVar

from pydantic import BaseModel, ConfigDict, Field, create_model, model_validator

from checkers.shapes import Strict

S = TypeVar("S", bound=Strict)
_MODELS: dict[type[Strict], type[Checked]] = {}


class Checked(BaseModel):
    """Base of the models: unknown keys are errors; lax, so YAML's "4" becomes 4."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    shape: ClassVar[type[Strict]]

    @model_validator(mode="after")
    def _across(self) -> Self:
        self.shape(**dict(self))  # the dataclass runs its check()
        return self


def model(shape: type[Strict]) -> type[Checked]:
    """The pydantic model of ``shape`` (built once): its fields in order, their defaults and constraints."""
    if shape not in _MODELS:
        hints = typing.get_type_hints(shape, localns={"Field": Field}, include_extras=True)
        declared: dict[str, Any] = {f.name: (hints[f.name], _default(f)) for f in fields(shape)}
        built = create_model(shape.__name__, __base__=Checked, **declared)
        built.shape = shape
        _MODELS[shape] = built
    return _MODELS[shape]


def validate(shape: type[S], data: Any) -> S:
    """``data`` as ``shape``; raises pydantic's ValidationError."""
    return shape(**dict(model(shape).model_validate(data)))


def _default(declared: DataclassField[Any]) -> Any:
    if declared.default_factory is not MISSING:
        return Field(default_factory=declared.default_factory)
    return ... if declared.default is MISSING else declared.default
