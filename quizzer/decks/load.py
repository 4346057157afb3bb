"""Loading decks for study, through the deck cache.

A validated deck is cached by its file's content, so starting ``quiz`` does not re-parse YAML
that has not changed; a deck read from the cache is an index until a command needs more.
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable

from quizzer import kinds
from quizzer.decks import cache
from quizzer.decks.files import deck_files, decode, display, read_bytes
from quizzer.decks.problems import Problem, in_order
from quizzer.decks.validate import Checked, duplicate_ids, validate_text
from quizzer.base.errors import DeckProblems

if TYPE_CHECKING:
    from quizzer.decks import model


def _digest(entries: list[CardEntry]) -> str:
    digest = hashlib.sha256()
    for entry in entries:
        digest.update(repr((entry.id, entry.kind, entry.content_hash, sorted(set(entry.tags)))).encode())
    return digest.hexdigest()


def content_hash(card_json: dict[str, Any]) -> str:
    """A card's content as the store tells an edited card (its JSON, keys sorted)."""
    return hashlib.sha256(json.dumps(card_json, ensure_ascii=False, sort_keys=True).encode()).hexdigest()[:16]


@dataclass(frozen=True)
class CardEntry:
    """What every command needs of a card without validating it again."""

    id: str
    kind: str
    tags: tuple[str, ...]
    content_hash: str


_COLUMNS = ("ids", "kinds", "tags", "hashes", "lines")


@dataclass
class LoadedDeck:
    """A valid deck, the file it came from, the line each card starts on and the line of its id.

    A deck read from the cache is an index until a command needs more: ``ids``, ``tags`` and
    ``digest`` cost one small JSON read, ``entries`` and ``lines`` are built from the index on
    first use, ``card(id)`` builds one card from the cached JSON, and ``deck`` the whole deck,
    so listing, syncing and drawing the first card never validate 50,000 cards or build an
    object for each. The index keeps each per-card column as one string, a line per card in
    deck order (``columns``: ids, kinds, space-separated tags, content hashes, lines), which
    JSON reads at the speed of one string. The cached deck is JSON Lines (the deck without its
    cards, then a card per line in deck order), so a card is decoded alone: the browser's due
    cards of twelve large decks decode those cards, not every card of every deck."""

    path: Path
    id: str
    title: str
    language: str
    columns: dict[str, str] = field(repr=False)
    id_line: int = 1
    digest: str = ""  # of the entries in order: the store's sync compares it, not 50,000 cards
    data_file: Path | None = field(default=None, repr=False)  # the cached deck (JSON Lines), not read yet
    validated: model.Deck | None = field(default=None, repr=False)
    _cards: dict[str, Any] = field(default_factory=dict, repr=False)
    _raw: list[str] | None = field(default=None, repr=False)  # the cached deck's lines

    @classmethod
    def from_model(cls, path: Path, deck: model.Deck, lines: dict[str, int], id_line: int) -> LoadedDeck:
        entries = [CardEntry(c.id, c.kind, tuple(c.tags), content_hash(c.to_json())) for c in deck.cards]
        columns = {"ids": [e.id for e in entries], "kinds": [e.kind for e in entries],
                   "tags": [" ".join(e.tags) for e in entries], "hashes": [e.content_hash for e in entries],
                   "lines": [str(lines.get(e.id, 1)) for e in entries]}
        return cls(path, deck.id, deck.title, deck.language, {name: "\n".join(column) for name, column in columns.items()},
                   id_line, _digest(entries), validated=deck)

    @classmethod
    def from_index(cls, path: Path, index: dict[str, Any], data_file: Path) -> LoadedDeck:
        columns = {name: index[name] for name in _COLUMNS}
        if not all(isinstance(column, str) for column in columns.values()):
            raise TypeError("not an index of this version")
        return cls(path, index["id"], index["title"], index["language"], columns, index["id_line"], index["digest"],
                   data_file)

    def index(self) -> dict[str, Any]:
        return {"id": self.id, "title": self.title, "language": self.language, "id_line": self.id_line,
                "digest": self.digest, **self.columns}

    @cached_property
    def ids(self) -> list[str]:
        """The card ids in deck order (ids are single words: one line each)."""
        return self.columns["ids"].split("\n")

    @cached_property
    def tags(self) -> set[str]:
        """Every tag a card of this deck has."""
        return set(self.columns["tags"].split())

    @cached_property
    def entries(self) -> list[CardEntry]:
        columns = [self.columns[name].split("\n") for name in ("kinds", "tags", "hashes")]
        return [CardEntry(card_id, kind, tuple(tags.split()), hash_) for card_id, kind, tags, hash_ in zip(self.ids, *columns)]

    @cached_property
    def lines(self) -> dict[str, int]:
        """The line each card starts on."""
        return dict(zip(self.ids, map(int, self.columns["lines"].split("\n"))))

    @cached_property
    def _positions(self) -> dict[str, int]:
        return {card_id: i for i, card_id in enumerate(self.ids)}

    @property
    def deck(self) -> model.Deck:
        if self.validated is None:
            from quizzer.decks import model

            try:
                self.validated = model.Deck.from_json(self._data())
            except ValueError:  # a damaged cache line (pydantic's errors are ValueErrors too)
                self.validated = _load_one(self.path, use_cache=False).deck
        return self.validated

    def _lines(self) -> list[str]:
        """The cached deck's lines; if the cache lost them since, or has not a line per card of
        the index, the deck's own file is read again."""
        if self._raw is None:
            try:
                assert self.data_file is not None
                lines = self.data_file.read_text("utf-8").split("\n")
                if len(lines) != len(self.ids) + 1:
                    raise ValueError("not this index's cards")
            except (OSError, ValueError):
                lines = cache.data_lines(_load_one(self.path, use_cache=False).deck.to_json())
            self._raw = lines
        return self._raw

    def _data(self) -> dict[str, Any]:
        """The whole deck's JSON, from the cached lines."""
        lines = self._lines()
        data: dict[str, Any] = json.loads(lines[0])
        data["cards"] = [json.loads(line) for line in lines[1:]]
        return data

    def card(self, card_id: str) -> Any:
        """The card of ``card_id`` (a card of this deck), built from its cached line on first use;
        a line that is not that card (a damaged cache) gives way to the deck file."""
        if card_id not in self._cards:
            if self.validated is None:
                try:
                    raw = json.loads(self._lines()[self._positions[card_id] + 1])
                    if raw["id"] != card_id:
                        raise ValueError("another card's line")
                    self._cards[card_id] = kinds.get(raw["kind"]).model.from_json(raw)
                    return self._cards[card_id]
                except (ValueError, KeyError, TypeError):
                    self.validated = _load_one(self.path, use_cache=False).deck
            self._cards = {c.id: c for c in self.validated.cards}
        return self._cards[card_id]


def _loaded(checked: Checked, deck: model.Deck) -> LoadedDeck:
    return LoadedDeck.from_model(checked.path, deck, dict(checked.lines), checked.deck_id[1] if checked.deck_id else 1)


def _load_one(path: Path, use_cache: bool = True) -> LoadedDeck:
    raw = read_bytes(path)
    if isinstance(raw, str):
        raise DeckProblems([Problem(display(path), 1, 1, raw)])
    index_file, data_file = cache.paths(raw)
    if use_cache:
        try:
            cached = LoadedDeck.from_index(path, json.loads(index_file.read_text("utf-8")), data_file)
        except (OSError, ValueError, KeyError, TypeError):
            pass  # not cached yet, or cached by another format version: parse again
        else:
            cache.mark_used(index_file, data_file)
            return cached
    text, problems = decode(path, raw)  # only now: a cache hit needs the bytes, not the text
    if text is None:
        raise DeckProblems(problems)
    checked = validate_text(text, path, verify_examples=False)
    if checked.deck is None or checked.problems:
        raise DeckProblems(checked.problems)
    loaded = _loaded(checked, checked.deck)
    try:
        index_file.parent.mkdir(parents=True, exist_ok=True)
        cache.write_atomically(data_file, "\n".join(cache.data_lines(loaded.deck.to_json())))  # the data first:
        cache.write_atomically(index_file, json.dumps(loaded.index(), ensure_ascii=False))  # an index is trusted
        cache.prune(index_file.parent, time.time())  # on a miss only: a cache hit stays one read
    except OSError:
        pass  # an unwritable cache only costs speed
    return loaded


def load_decks(dirs: Iterable[Path]) -> list[LoadedDeck]:
    """All decks in ``dirs``; raises :class:`DeckProblems` listing the problems of unusable ones."""
    decks, problems = load_usable(dirs)
    if problems:
        raise DeckProblems(problems)
    return decks


def load_usable(dirs: Iterable[Path]) -> tuple[list[LoadedDeck], list[Problem]]:
    """The decks in ``dirs`` that can be used, and the problems of the files that cannot. An id
    two usable decks share is no one file's fault, and with no usable deck nothing can be done:
    both raise :class:`DeckProblems`."""
    decks: list[LoadedDeck] = []
    problems: list[Problem] = []
    for path in deck_files(dirs):
        try:
            decks.append(_load_one(path))
        except DeckProblems as err:
            problems += err.problems
    ids = [card_id for d in decks for card_id in d.ids]
    shared = duplicate_ids((d.path, d.lines.items()) for d in decks) if len(set(ids)) < len(ids) else []
    shared += duplicate_ids(((d.path, [(d.id, d.id_line)]) for d in decks), "deck")
    if shared or (problems and not decks):
        raise DeckProblems(in_order(problems + shared))
    return decks, in_order(problems)
