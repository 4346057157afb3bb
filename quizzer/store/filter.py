"""One card filter (decks, tags, kinds) for the queue, the exam paper and the listings, with
its one SQL translation."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import datetime

from sqlalchemy import ColumnElement, or_, select

from quizzer.base.errors import UnknownName
from quizzer.store.models import card_tags, cards
from quizzer.store.records import PaperSpec


@dataclass(frozen=True)
class CardFilter:
    """None means no restriction; an empty tuple matches nothing."""

    decks: tuple[str, ...] | None = None
    tags: tuple[str, ...] | None = None
    kinds: tuple[str, ...] | None = None

    @classmethod
    def of(cls, decks: Iterable[str] | None = None, tags: Iterable[str] | None = None,
           kinds: Iterable[str] | None = None) -> CardFilter:
        """From option values, where an empty list means the option was not given."""
        return cls(tuple(decks) if decks else None, tuple(tags) if tags else None, tuple(kinds) if kinds else None)

    @classmethod
    def of_paper(cls, spec: PaperSpec) -> CardFilter:
        """The cards an exam's paper is drawn from."""
        return cls.of(spec.decks, spec.tags, spec.kinds)

    def paper(self, count: int) -> PaperSpec:
        """The spec an exam of ``count`` questions from these cards is stored with (JSON lists)."""
        return PaperSpec(count, list(self.decks) if self.decks else None, list(self.tags) if self.tags else None,
                         list(self.kinds) if self.kinds else None)

    def within(self, decks: tuple[str, ...] | None) -> CardFilter:
        """The cards it matches that are also in ``decks`` (None: all decks)."""
        if decks is None:
            return self
        return replace(self, decks=decks if self.decks is None else tuple(d for d in self.decks if d in decks))

    def validate(self, known_decks: Iterable[str], known_tags: Iterable[str], known_kinds: Iterable[str]) -> CardFilter:
        """Itself, or UnknownName for a deck, tag or kind the collection does not have (a typo
        must not look like "nothing due")."""
        for what, wanted, known in (("deck", self.decks, known_decks), ("tag", self.tags, known_tags),
                                    ("kind", self.kinds, known_kinds)):
            names = sorted(set(known))
            for name in wanted or ():
                if name not in names:
                    raise UnknownName(what, name, names)
        return self

    def clauses(self, now: datetime | None = None, *, only_active: bool = True) -> list[ColumnElement[bool]]:
        """The SQL conditions: matching cards, active ones unless ``only_active`` is off (history
        counts every card's reviews); with ``now``, also studiable then (not suspended, not buried)."""
        conditions: list[ColumnElement[bool]] = [cards.c.active.is_(True)] if only_active else []
        if now is not None:
            conditions += [cards.c.suspended.is_(False), or_(cards.c.buried_until.is_(None), cards.c.buried_until <= now)]
        if self.decks is not None:
            conditions.append(cards.c.deck.in_(self.decks))
        if self.kinds is not None:
            conditions.append(cards.c.kind.in_(self.kinds))
        if self.tags is not None:
            conditions.append(cards.c.id.in_(select(card_tags.c.card_id).where(card_tags.c.tag.in_(self.tags))))
        return conditions


EVERYTHING = CardFilter()
