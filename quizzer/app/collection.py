"""The learner's collection: the decks on disk joined to their review history in the store.

Every command that studies or reports opens it the same way: load the decks (cached),
open the database (upgrading it if needed), back it up at most every 30 minutes of use,
and sync the cards so the store knows what the decks hold now. A deck file with problems is
left out (its cards are as if removed: inactive, their history kept, back once it is fixed), so
one broken file does not stop the study of the others; with no usable deck it is an error.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from quizzer.base import clock
from quizzer.decks import LoadedDeck, Problem, deck_dirs, load_usable
from quizzer.base.errors import BackupError, DeckProblems, UsageError
from quizzer.base.i18n import _
from quizzer.kinds import KINDS
from quizzer.store import LEECH_TAG, CardRef, Store, open_store, sync_if_changed
from quizzer.store.filter import CardFilter

if TYPE_CHECKING:
    from quizzer.app.short_ids import ShortIds


class CardIndex(Mapping[str, Any]):
    """Card id -> the deck's card, each built the first time it is looked up: a session draws
    a few dozen cards of tens of thousands."""

    def __init__(self, decks: list[LoadedDeck]) -> None:
        self.deck_of = {card_id: loaded for loaded in decks for card_id in loaded.ids}

    def __getitem__(self, card_id: str) -> Any:
        return self.deck_of[card_id].card(card_id)

    def __contains__(self, card_id: object) -> bool:
        return card_id in self.deck_of

    def __iter__(self) -> Iterator[str]:
        return iter(self.deck_of)

    def __len__(self) -> int:
        return len(self.deck_of)

    @cached_property
    def short_ids(self) -> ShortIds:
        """The cards' short ids, kept as long as these decks are: a reload makes a new index."""
        from quizzer.app.short_ids import ShortIds

        return ShortIds(self.deck_of)


@dataclass
class Collection:
    store: Store
    decks: list[LoadedDeck]
    deck_dirs: list[Path]
    left_out: list[Problem] = field(default_factory=list)  # the problems of the deck files not used
    backup_failed: BackupError | None = None  # the automatic backup's, which does not stop the work
    cards: CardIndex = field(init=False)

    def __post_init__(self) -> None:
        self._index()

    def _index(self) -> None:
        self.cards = CardIndex(self.decks)

    def reload(self) -> None:
        """Re-read the decks (after an edit) and sync the store with them; DeckProblems if a file
        used until now is broken (its cards stay as they were). The collection changes only once
        the store has them: a sync that failed is as if not tried."""
        decks, problems = load_usable(self.deck_dirs)
        before = {problem.file for problem in self.left_out}
        broken = [problem for problem in problems if problem.file not in before]
        if broken:
            raise DeckProblems(broken)
        sync(self.store, decks)
        self.left_out = problems
        self.decks = decks
        self._index()

    def deck_of(self, card_id: str) -> LoadedDeck:
        return self.cards.deck_of[card_id]

    def location(self, card_id: str) -> tuple[Path, int]:
        """The deck file and line a card starts on (for an editor)."""
        loaded = self.deck_of(card_id)
        return loaded.path, loaded.lines.get(card_id, 1)

    def card_filter(self, decks: list[str] | None = None, tags: list[str] | None = None,
                    kinds: list[str] | None = None, history: bool = False) -> CardFilter:
        """The filter the options ask for; an unknown deck, tag or kind is an error naming the known ones.
        ``history``: the decks of the stored cards count too (``archived``, a removed deck's), for
        figures of the review history, which keeps their reviews."""
        known_tags = set().union(*(loaded.tags for loaded in self.decks)) | {LEECH_TAG}
        known_decks = [d.id for d in self.decks]
        if history:
            from quizzer.store import history as stored

            known_decks += [deck for deck in stored.decks(self.store) if deck not in known_decks]
        missing = [deck for deck in decks or () if deck not in known_decks]
        if missing and self.left_out:  # perhaps the deck of the file left out: "no deck" alone misled
            raise UsageError(_("no deck '{name}' among the decks in use").format(name=missing[0]),
                             _("a deck file with problems is left out: the warning above names it"))
        return CardFilter.of(decks, tags, kinds).validate(known_decks, known_tags, KINDS)


def card_refs(decks: list[LoadedDeck]) -> list[CardRef]:
    """What the store needs to know of each card; the hash tells an edited card."""
    entries = [(loaded.id, entry) for loaded in decks for entry in loaded.entries]
    return [CardRef(id=entry.id, deck=deck, kind=entry.kind, position=position, content_hash=entry.content_hash,
                    tags=entry.tags) for position, (deck, entry) in enumerate(entries)]


def sync(store: Store, decks: list[LoadedDeck]) -> None:
    digest = hashlib.sha256("\n".join(f"{d.id}\0{d.digest}" for d in decks).encode()).hexdigest()
    sync_if_changed(store, digest, lambda: card_refs(decks), clock.now())


def load_decks(decks_option: Path | None) -> tuple[list[LoadedDeck], list[Problem]]:
    """The decks of ``--decks`` (else ``QUIZ_DECKS``, else the bundled ones) that can be used, and
    the problems of the deck files left out; no database needed."""
    return load_usable(deck_dirs(decks_option))


def open_database(db: str | Path | None, learner: str | None) -> Store:
    """The learner's database without the decks, for a command that needs no deck."""
    return open_store(db, learner)


def unknown_deck_limits(opened: Collection, deck_limits: Mapping[str, int]) -> list[str]:
    """The ``deck.ID.*`` settings whose ID names no deck in use: they change nothing. Said only
    where no deck file is left out (a deck left out still has its limits)."""
    from quizzer.settings import DECK_KEY

    if opened.left_out:
        return []
    ids = {loaded.id for loaded in opened.decks}
    return [key for key in deck_limits if (found := DECK_KEY.match(key)) and found.group(1) not in ids]


def open_collection(decks_option: Path | None, db: Path | None, learner: str | None = None,
                    day_start_hour: int = clock.ROLLOVER_HOUR) -> Collection:
    """The decks joined to ``learner``'s collection, backed up first if the last backup is half an
    hour old (thinned by the learner's study days). A backup that fails is kept for a warning: it
    stopped every command, even the export that would save the history elsewhere."""
    from quizzer.store import backup

    dirs = deck_dirs(decks_option)
    decks, left_out = load_usable(dirs)
    store = open_store(db, learner)
    failed = None
    if store.path is not None:
        try:
            backup.maybe_backup(store.path, clock.wall(), day_start_hour)
        except BackupError as err:
            failed = err
    sync(store, decks)
    return Collection(store, decks, dirs, left_out, failed)
