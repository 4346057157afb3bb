"""The reads the card browser needs: every card a filter matches, with its tags and memory, in
two queries (however many cards there are), narrowed in SQL to a state when one is asked for."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ColumnElement, or_, select

from quizzer.store.cards import card_record
from quizzer.store.engine import Store
from quizzer.store.filter import EVERYTHING, CardFilter
from quizzer.store.models import card_tags, cards
from quizzer.store.records import LEARNING, LEECH_TAG, NEW, RELEARNING, REVIEW, CardRecord


def in_state(state: str | None, now: datetime, end: datetime) -> list[ColumnElement[bool]]:
    """SQL for the browser's ``--state`` (``end``: when the study day ends); none for
    ``mistake``, which the notebook's rule decides above the store."""
    buried = cards.c.buried_until > now
    conditions: dict[str, list[ColumnElement[bool]]] = {
        "new": [cards.c.state == NEW],
        "learning": [cards.c.state.in_((LEARNING, RELEARNING))],
        "review": [cards.c.state == REVIEW],
        # the three seen states by name (not ``!= NEW``), so the (state, due) index finds the due cards
        "due": [cards.c.state.in_((LEARNING, REVIEW, RELEARNING)), cards.c.due < end, cards.c.suspended.is_(False),
                or_(cards.c.buried_until.is_(None), cards.c.buried_until <= now)],
        "suspended": [cards.c.suspended.is_(True)],
        "buried": [buried],
        "leech": [cards.c.id.in_(select(card_tags.c.card_id).where(card_tags.c.tag == LEECH_TAG))],
    }
    return conditions.get(state or "", [])


def matching(store: Store, chosen: CardFilter = EVERYTHING,
             narrowed: list[ColumnElement[bool]] | None = None) -> list[CardRecord]:
    """The active cards ``chosen`` matches (suspended and buried ones included), in deck order;
    ``narrowed``: further conditions (``in_state``)."""
    where = [*chosen.clauses(), *(narrowed or [])]
    with store.read() as conn:
        rows = list(conn.execute(select(cards).where(*where)
                                 .order_by(cards.c.position, cards.c.deck, cards.c.id)))
        tags: dict[str, list[str]] = {}
        # in the database's order of tags; ``|| ''``: sorted by an index, SQLite would walk every tag
        # row rather than the chosen cards' tags
        for card_id, tag in conn.execute(
                select(card_tags.c.card_id, card_tags.c.tag).join(cards, cards.c.id == card_tags.c.card_id)
                .where(*where).order_by(card_tags.c.tag.concat(""))):
            tags.setdefault(card_id, []).append(tag)
        return [card_record(row, tuple(tags.get(row.id, ()))) for row in rows]
