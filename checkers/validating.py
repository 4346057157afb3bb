"""pydantic models built from dataclasses, for untrusted data only: one model per class, built
on first use from the dataclass's own annotations (read with the caller's meaning of the names in
them) and its defaults, so code that builds the dataclasses directly never loads pydantic.

The checkers' Params and Inputs (a card's ``params:``, a worked example's ``inputs:``) are read
here with ``Field(...)`` as pydantic's; their rules across fields are the dataclass's ``check``,
run once every field is valid, so a broken rule reads as pydantic's value error. quizzer's card
shapes are built by the same :func:`pydantic_model` (``quizzer.kinds.pydantic_models``)."""

from __future__ import annotations

import typing
from collections.abc import Mapping
from dataclasses import MISSING, fields
from dataclasses import Field as DataclassField
from typing import Any, ClassVar, Self, TypeVar

from pydantic import BaseModel, ConfigDict, Field, create_model, model_validator

S = TypeVar("S")
M = TypeVar("M", bound=BaseModel)


class Exact(BaseModel):
    """Base of the models: unknown keys are errors, and a model is frozen; lax, so YAML's "4" becomes 4."""

    model_config = ConfigDict(extra="forbid", frozen=True)


def pydantic_model(shape: type, names: Mapping[str, Any], base: type[M], doc: str | None = None) -> type[M]:
    """The pydantic model of the dataclass ``shape``: its fields in order with their annotations
    (the names in them read as ``names`` says) and defaults, on ``base``, described by ``doc``."""
    hints = typing.get_type_hints(shape, localns=dict(names), include_extras=True)
    declared: dict[str, Any] = {f.name: (hints[f.name], _default(f)) for f in fields(shape)}
    return create_model(shape.__name__, __base__=base, __doc__=doc, **declared)


def _default(declared: DataclassField[Any]) -> Any:
    if declared.default is not MISSING:
        return declared.default
    if declared.default_factory is not MISSING:
        return declared.default_factory()  # pydantic copies a mutable default for each instance
    return ...


class Checked(Exact):
    """A checker's Params or Inputs: valid once the dataclass accepts the fields (its check())."""

    shape: ClassVar[type]

    @model_validator(mode="after")
    def _across(self) -> Self:
        self.shape(**dict(self))  # the dataclass runs its check()
        return self


_MODELS: dict[type, type[Checked]] = {}


def model(shape: type) -> type[Checked]:
    """The pydantic model of a checker's Params or Inputs (built once)."""
    if shape not in _MODELS:
        built = pydantic_model(shape, {"Field": Field}, Checked)
        built.shape = shape
        _MODELS[shape] = built
    return _MODELS[shape]


def validate(shape: type[S], data: Any) -> S:
    """``data`` as ``shape``; raises pydantic's ValidationError."""
    return shape(**dict(model(shape).model_validate(data)))
