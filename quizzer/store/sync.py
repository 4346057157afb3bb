"""Deck sync: make the cards table mirror the decks without losing history.

Identity is the card id.  Edited cards keep their memory state and reviews;
cards gone from the decks are only marked inactive, so they resume with their
old state when they come back.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy import Connection, delete, insert, select, update

from quizzer.base import clock
from quizzer.store.engine import Store
from quizzer.store.models import SYSTEM_TAGS, card_tags, cards, in_chunks, meta, update_by_id

FINGERPRINT_KEY = "sync_fingerprint"


@dataclass(frozen=True)
class CardRef:
    """A card as the decks define it (built by the deck loader)."""

    id: str
    deck: str
    kind: str
    position: int
    content_hash: str
    tags: tuple[str, ...] = ()


@dataclass
class SyncResult:
    added: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    deactivated: list[str] = field(default_factory=list)
    reactivated: list[str] = field(default_factory=list)
    unchanged: bool = False  # True when the fingerprint matched and nothing was read


def fingerprint(refs: list[CardRef]) -> str:
    digest = hashlib.sha256()
    for ref in sorted(refs, key=lambda r: r.id):
        digest.update(repr((ref.id, ref.deck, ref.kind, ref.position, ref.content_hash,
                            sorted(set(ref.tags)))).encode())
    return digest.hexdigest()


def sync_cards(store: Store, refs: list[CardRef], now: datetime | None = None) -> SyncResult:
    """Apply the full current set of deck cards; cheap (one lookup) when unchanged."""
    return sync_if_changed(store, fingerprint(refs), lambda: refs, now)


def sync_if_changed(store: Store, digest: str, refs: Callable[[], list[CardRef]],
                    now: datetime | None = None) -> SyncResult:
    """``sync_cards`` for a caller that has a digest of the decks already: the card list is
    only built when the digest differs from the last sync's."""
    now = clock.now() if now is None else now
    with store.write() as conn:
        stored = conn.scalar(select(meta.c.value).where(meta.c.key == FINGERPRINT_KEY))
        if stored == digest:
            return SyncResult(unchanged=True)
        result = _apply(conn, {ref.id: ref for ref in refs()}, now)
        if stored is None:
            conn.execute(insert(meta).values(key=FINGERPRINT_KEY, value=digest))
        else:
            conn.execute(update(meta).where(meta.c.key == FINGERPRINT_KEY).values(value=digest))
    return result


def _apply(conn: Connection, refs: dict[str, CardRef], now: datetime) -> SyncResult:
    result = SyncResult()
    existing = {c.id: c for c in conn.execute(
        select(cards.c.id, cards.c.deck, cards.c.kind, cards.c.position, cards.c.content_hash, cards.c.active))}
    tags: dict[str, set[str]] = defaultdict(set)
    for card_id, tag in conn.execute(select(card_tags.c.card_id, card_tags.c.tag)):
        if tag not in SYSTEM_TAGS:
            tags[card_id].add(tag)

    new_rows = []
    reactivated, edited = [], []
    for ref in refs.values():
        card = existing.get(ref.id)
        if card is None:
            new_rows.append(dict(id=ref.id, deck=ref.deck, kind=ref.kind, position=ref.position,
                                 content_hash=ref.content_hash, first_seen=now))
            result.added.append(ref.id)
            continue
        if not card.active:
            reactivated.append(dict(id=ref.id, active=True))
            result.reactivated.append(ref.id)
        wanted = (ref.deck, ref.kind, ref.position, ref.content_hash)
        if wanted != (card.deck, card.kind, card.position, card.content_hash) or set(ref.tags) != tags[ref.id]:
            edited.append(dict(id=ref.id, deck=ref.deck, kind=ref.kind, position=ref.position,
                               content_hash=ref.content_hash))
            result.updated.append(ref.id)
    if new_rows:
        conn.execute(insert(cards), new_rows)
    update_by_id(conn, cards, reactivated)
    update_by_id(conn, cards, edited)
    _replace_tags(conn, refs, tags, set(result.added) | set(result.updated))

    result.deactivated = [cid for cid, card in existing.items() if card.active and cid not in refs]
    for card_ids in in_chunks(result.deactivated):
        conn.execute(update(cards).where(cards.c.id.in_(card_ids)).values(active=False))
    return result


def _replace_tags(conn: Connection, refs: dict[str, CardRef], current: dict[str, set[str]],
                  changed: set[str]) -> None:
    for stale in in_chunks([cid for cid in changed if current.get(cid)]):
        conn.execute(delete(card_tags).where(card_tags.c.card_id.in_(stale), card_tags.c.tag.not_in(SYSTEM_TAGS)))
    rows = [dict(card_id=cid, tag=tag) for cid in changed for tag in sorted(set(refs[cid].tags) - SYSTEM_TAGS)]
    if rows:
        conn.execute(insert(card_tags), rows)

