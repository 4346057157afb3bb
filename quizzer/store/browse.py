"""The reads the card browser needs: every card a filter matches, with its tags and memory, in
two queries (however many cards there are)."""

from __future__ import annotations

from sqlalchemy import select

from quizzer.store.cards import _memory
from quizzer.store.engine import Store
from quizzer.store.filter import EVERYTHING, CardFilter
from quizzer.store.models import Card, CardTag
from quizzer.store.records import LEECH_TAG, CardRecord


def matching(store: Store, chosen: CardFilter = EVERYTHING) -> list[CardRecord]:
    """The active cards ``chosen`` matches (suspended and buried ones included), in deck order."""
    with store.read() as session:
        rows = list(session.scalars(select(Card).where(*chosen.where()).order_by(Card.position, Card.deck, Card.id)))
        tags: dict[str, list[str]] = {}
        for card_id, tag in session.execute(
                select(CardTag.card_id, CardTag.tag).join(Card, Card.id == CardTag.card_id)
                .where(*chosen.where()).order_by(CardTag.card_id, CardTag.tag)):
            tags.setdefault(card_id, []).append(tag)
        return [
            CardRecord(row.id, row.deck, row.kind, row.position, row.content_hash, tuple(tags.get(row.id, ())),
                       row.active, row.suspended, row.buried_until, row.first_seen,
                       _memory(row, LEECH_TAG in tags.get(row.id, ())))
            for row in rows
        ]
