"""The card kinds: one module per kind, each holding its card shape and its behaviour.

Adding a kind is one module (a card shape, see ``quizzer.kinds.fields``, and a
:class:`~quizzer.kinds.base.Kind` named ``KIND``) plus one line here; the deck schema,
``--kind``, lint, study, exam and the README's deck table all follow from this registry. The
registry names modules instead of importing them, so the CLI can list the kinds without
loading any.
"""

from __future__ import annotations

import importlib
from functools import cache
from typing import TYPE_CHECKING, Any

from quizzer.base.i18n import _

if TYPE_CHECKING:
    from quizzer.kinds.base import Kind
    from quizzer.kinds.fields import CardBase

_MODULES = {
    "qa": "quizzer.kinds.qa",
    "choice": "quizzer.kinds.choice",
    "mistake": "quizzer.kinds.mistake",
    "numeric": "quizzer.kinds.numeric",
    "cloze": "quizzer.kinds.cloze",
}
KINDS: tuple[str, ...] = tuple(_MODULES)


@cache
def get(name: str) -> Kind[Any]:
    """The kind called ``name`` (one of KINDS); asked once per card of a listing, so kept."""
    kind: Kind[Any] = importlib.import_module(_MODULES[name]).KIND
    return kind


def title(name: str) -> str:
    """A kind as headers and reports name it, in the interface language (``choice`` is 选择题);
    one no module has (an imported history's cards are ``imported``) as it is stored."""
    return _(get(name).title) if name in _MODULES else name


def of(card: Any) -> Kind[Any]:
    """The kind of a deck card."""
    return get(card.kind)


def models() -> list[type[CardBase]]:
    """Every kind's card shape, in registry order."""
    return [get(name).model for name in KINDS]
