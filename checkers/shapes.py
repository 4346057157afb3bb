"""The base of every checker's Params and Inputs: frozen dataclasses whose annotations are the one
declaration of their shape, read without pydantic wherever the data is plain.

A field's annotation is its type, optionally ``Annotated`` with pydantic's ``Field(...)`` limits
(``ge``, ``gt``, ``le``, ``lt``, ``min_length``). Annotations stay text at run time (``from
__future__ import annotations``) and are read twice from that one text: here, with ``Field``
standing for the mapping of its limits, and by ``checkers.validating`` with pydantic's meaning.

- Built directly (composing a question): trusted, so only ``check``, the rules across fields,
  runs; an int given for a float is stored as a float, as pydantic stores it.
- ``model_validate`` (a card's ``params:`` at every showing, a worked example's ``inputs:``):
  data whose every value has a plain form (a number, a number as YAML text such as "4" or
  "0.05", an option word, a list of these) within its limits is read here, where pydantic would
  read it to the same value; anything else goes to pydantic, which reads it or words the error.
"""

from __future__ import annotations

import operator
import re
import typing
from dataclasses import MISSING, asdict, dataclass, fields, replace
from types import UnionType
from typing import Any, Literal, Self

from checkers.said import Said

INTEGER = re.compile(r"-?[0-9]{1,18}")  # text that int() and pydantic read to the same number
DECIMAL = re.compile(r"-?[0-9]{1,18}(\.[0-9]{1,18})?")  # likewise for float()
BOOLEAN = {"true": True, "false": False}  # YAML's words as the deck text keeps them
COMPARE = {"ge": operator.ge, "gt": operator.gt, "le": operator.le, "lt": operator.lt}
LARGEST = 10**12  # the largest whole number a field takes (a count of parameters: 70B is 7e10)
LAYERS_MAX = 1_000  # layers a model in a question has at most (real ones: up to ~130); the reference builds each


class NotPlain(Exception):
    """A value (or a limit) not read here: pydantic decides."""


class Limits(dict[str, Any]):
    """``Field(...)`` in an annotation, as read here: its keyword arguments."""

    def __init__(self, **limits: Any) -> None:
        super().__init__(limits)


@dataclass(frozen=True)
class Declared:
    """One field as its annotation declares it."""

    hint: Any  # the type, without Annotated
    limits: dict[str, Any]
    required: bool


@dataclass(frozen=True, kw_only=True)
class Strict:
    """Base for Params/Inputs (see the module's docstring)."""

    def __post_init__(self) -> None:
        for name, field in declared(type(self)).items():
            try:
                object.__setattr__(self, name, read(field.hint, getattr(self, name)))
            except NotPlain:
                pass  # trusted: kept as given
            _sized(name, getattr(self, name))
        self.check()

    def check(self) -> None:
        """The rules across fields; a ValueError here is pydantic's value error when validating."""

    @classmethod
    def model_validate(cls, data: Any) -> Self:
        """``data`` (as YAML gave it) validated; raises pydantic's ValidationError."""
        try:
            return cls(**plain(cls, data))
        except (NotPlain, ValueError):  # not plain, out of its limits, or breaking check()
            from checkers.validating import validate

            return validate(cls, data)

    def model_dump(self, exclude_none: bool = False) -> dict[str, Any]:
        """The fields as JSON-able data (lists copied), in declaration order."""
        return {k: v for k, v in asdict(self).items() if not (exclude_none and v is None)}

    def model_copy(self, update: dict[str, Any] | None = None) -> Self:
        """A copy with some fields changed (the rules across fields run again)."""
        return replace(self, **(update or {}))


def _sized(name: str, value: Any) -> None:
    """A ValueError for a whole number (alone or in a list) past ``LARGEST``: any field of any
    checker, so a card's params or an example's inputs cannot hand the reference a number torch
    cannot hold or float() cannot convert."""
    for number in value if isinstance(value, list) else [value]:
        if type(number) is int and abs(number) > LARGEST:
            raise ValueError(Said("{name}: larger than {limit}", name=name, limit=format(LARGEST, ",")))


def declared(shape: type[Strict]) -> dict[str, Declared]:
    """Each field of ``shape`` in order: its type and limits (read once)."""
    if shape not in _DECLARED:
        hints = typing.get_type_hints(shape, localns={"Field": Limits}, include_extras=True)
        found: dict[str, Declared] = {}
        for field in fields(shape):
            hint, limits = hints[field.name], {}
            if typing.get_origin(hint) is typing.Annotated:
                hint, *metadata = typing.get_args(hint)
                for more in metadata:
                    limits.update(more)
            found[field.name] = Declared(hint, limits, field.default is MISSING and field.default_factory is MISSING)
        _DECLARED[shape] = found
    return _DECLARED[shape]


_DECLARED: dict[type[Strict], dict[str, Declared]] = {}


def plain(shape: type[Strict], data: Any) -> dict[str, Any]:
    """``data``'s fields read as pydantic reads them, when all are plain and within their limits."""
    fields_ = declared(shape)
    if type(data) is not dict or not data.keys() <= fields_.keys():
        raise NotPlain
    if any(field.required and name not in data for name, field in fields_.items()):
        raise NotPlain
    values = {name: read(fields_[name].hint, value) for name, value in data.items()}
    for name, value in values.items():
        within(value, fields_[name].limits)
    return values


def read(hint: Any, value: Any) -> Any:
    """``value`` as pydantic's lax mode reads it into type ``hint``, for the plain forms; else NotPlain."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if hint is int and (type(value) is int or (type(value) is str and INTEGER.fullmatch(value))):
        return int(value)
    if hint is float and (type(value) in (int, float) or (type(value) is str and DECIMAL.fullmatch(value))):
        return float(value)
    if hint in (str, bool) and type(value) is hint:
        return value
    if hint is bool and type(value) is str and value in BOOLEAN:
        return BOOLEAN[value]
    if origin is Literal and type(value) is str and value in args:
        return value
    if origin is list and type(value) is list:
        return [read(args[0], item) for item in value]
    if origin in (UnionType, typing.Union) and len(args) == 2 and type(None) in args:  # X | None
        return None if value is None else read(next(a for a in args if a is not type(None)), value)
    raise NotPlain


def within(value: Any, limits: dict[str, Any]) -> None:
    """NotPlain unless ``value`` keeps its limits (None keeps any: the limits are the other branch's)."""
    for key, bound in limits.items():
        if value is None:
            continue
        if key == "min_length":
            kept = len(value) >= bound
        elif key in COMPARE:
            kept = COMPARE[key](value, bound)
        else:
            raise NotPlain  # a limit not read here
        if not kept:
            raise NotPlain


@dataclass(frozen=True, kw_only=True)
class LengthBounds(Strict):
    """Params mixin: a drawn length in [min_len, max_len]."""

    min_len: int = 3
    max_len: int = 6

    def check(self) -> None:
        if not 1 <= self.min_len <= self.max_len <= 12:
            raise ValueError(Said("need 1 <= min_len <= max_len <= 12"))
