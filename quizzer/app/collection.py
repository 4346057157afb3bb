"""The learner's collection: the decks on disk joined to their review history in the store.

Every command that studies or reports opens it the same way: load the decks (cached),
open the database (upgrading it if needed), back it up at most every 30 minutes of use,
and sync the cards so the store knows what the decks hold now.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from quizzer import clock
from quizzer.decks import LoadedDeck, deck_dirs, load_decks
from quizzer.kinds import KINDS
from quizzer.store import CardRef, Store, open_store, sync_cards
from quizzer.store.cards import deck_tags
from quizzer.store.filter import CardFilter


@dataclass
class Collection:
    store: Store
    decks: list[LoadedDeck]
    deck_dirs: list[Path]
    cards: dict[str, Any] = field(init=False)  # card id -> the deck's card model

    def __post_init__(self) -> None:
        self._index()

    def _index(self) -> None:
        self.cards = {card.id: card for loaded in self.decks for card in loaded.deck.cards}
        self._where = {card.id: (loaded, loaded.lines.get(card.id, 1)) for loaded in self.decks for card in loaded.deck.cards}

    def reload(self) -> None:
        """Re-read the decks (after an edit) and sync the store with them; DeckProblems if broken."""
        self.decks = load_decks(self.deck_dirs)
        sync(self.store, self.decks)
        self._index()

    def deck_of(self, card_id: str) -> LoadedDeck:
        return self._where[card_id][0]

    def location(self, card_id: str) -> tuple[Path, int]:
        """The deck file and line a card starts on (for an editor)."""
        loaded, line = self._where[card_id]
        return loaded.path, line

    def card_filter(self, decks: list[str] | None = None, tags: list[str] | None = None,
                    kinds: list[str] | None = None) -> CardFilter:
        """The filter the options ask for; an unknown deck, tag or kind is an error naming the known ones."""
        known_tags = {tag for card in self.cards.values() for tag in card.tags} | set(deck_tags(self.store))
        return CardFilter.of(decks, tags, kinds).validate([d.deck.id for d in self.decks], known_tags, KINDS)


def card_refs(decks: list[LoadedDeck]) -> list[CardRef]:
    """What the store needs to know of each card; the hash tells an edited card."""
    refs: list[CardRef] = []
    for loaded in decks:
        for card in loaded.deck.cards:
            content = json.dumps(card.model_dump(mode="json"), ensure_ascii=False, sort_keys=True)
            refs.append(CardRef(
                id=card.id, deck=loaded.deck.id, kind=card.kind, position=len(refs),
                content_hash=hashlib.sha256(content.encode()).hexdigest()[:16], tags=tuple(card.tags),
            ))
    return refs


def sync(store: Store, decks: list[LoadedDeck]) -> None:
    sync_cards(store, card_refs(decks), clock.now())


def open_collection(decks_option: Path | None, db: Path | None) -> Collection:
    from quizzer import backup

    dirs = deck_dirs(decks_option)
    decks = load_decks(dirs)
    store = open_store(db)
    if store.path is not None:
        backup.maybe_backup(store.path, clock.now())
    sync(store, decks)
    return Collection(store, decks, dirs)
