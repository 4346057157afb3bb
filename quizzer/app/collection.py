"""The learner's collection: the decks on disk joined to their review history in the store.

Every command that studies or reports opens it the same way: load the decks (cached),
open the database (upgrading it if needed), back it up at most every 30 minutes of use,
and sync the cards so the store knows what the decks hold now.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

from quizzer import clock
from quizzer.decks import LoadedDeck, deck_dirs, load_decks


@dataclass
class Collection:
    store: object  # quizzer.store.Store
    decks: list[LoadedDeck]
    deck_dirs: list[Path]

    def reload(self) -> list[LoadedDeck]:
        """Re-read the decks (after an edit) and sync the store with them."""
        self.decks = load_decks(self.deck_dirs)
        sync(self.store, self.decks)
        return self.decks


def card_refs(decks: list[LoadedDeck]):
    """What the store needs to know of each card; the hash tells an edited card."""
    from quizzer.store import CardRef

    refs = []
    for loaded in decks:
        for card in loaded.deck.cards:
            content = json.dumps(card.model_dump(mode="json"), ensure_ascii=False, sort_keys=True)
            refs.append(CardRef(
                id=card.id, deck=loaded.deck.id, kind=card.kind, position=len(refs),
                content_hash=hashlib.sha256(content.encode()).hexdigest()[:16], tags=tuple(card.tags),
            ))
    return refs


def sync(store, decks: list[LoadedDeck]) -> None:
    from quizzer.store import sync_cards

    sync_cards(store, card_refs(decks), clock.now())


def open_collection(decks_option: Path | None, db: Path | None) -> Collection:
    from quizzer import backup
    from quizzer.store import open_store

    dirs = deck_dirs(decks_option)
    decks = load_decks(dirs)
    store = open_store(db)
    if store.path is not None:
        backup.maybe_backup(store.path, clock.now())
    sync(store, decks)
    return Collection(store, decks, dirs)
