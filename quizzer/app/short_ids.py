"""Short card ids, as git abbreviates a commit: the first hexadecimal digits of the SHA-1 of a
card's id, at least SHORTEST of them and as many more as make them unique in the collection.

A short id is what ``quiz cards`` shows where a whole id would not fit. Every command that takes
a card id takes, besides the id itself, a short id or the start of an id, when one card alone has
it (``resolve``). A short id is never the start of another card's id, so the one shown always
names its card; a collection that grows may need a digit more, as a git history does.
"""

from __future__ import annotations

import hashlib
import re
from bisect import bisect_left
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass

from quizzer.base.errors import CardNotFound, QuizError
from quizzer.base.i18n import _, join

SHORTEST = 4  # digits: 65,536 values, so a deck of a few hundred cards rarely needs a fifth
LISTED = 5  # candidates an ambiguous id's error names
_HEX = re.compile("[0-9a-f]+")
_HEX_START = re.compile(f"[0-9a-f]{{{SHORTEST}}}")  # an id a short id may be the start of


def digest(card_id: str) -> str:
    """The hexadecimal SHA-1 of a card id, whose start is its short id."""
    return hashlib.sha1(card_id.encode()).hexdigest()


class ShortIds(Mapping[str, str]):
    """Card id -> short id, over a set of card ids, each worked out when first asked for: the digests and
    the ids that start with hexadecimal digits are sorted once (50,000 ids: about 0.06 s), and a
    card's short id is read from its neighbours in them (a table of a hundred rows reads a hundred,
    not 50,000). ``with_others`` adds a few ids without sorting the many again."""

    def __init__(self, card_ids: Iterable[str], parts: tuple[_Sorted, ...] = ()) -> None:
        own = _Sorted.of(set(card_ids) - set().union(*(part.ids for part in parts)))
        self._parts = (*parts, own)

    def __getitem__(self, card_id: str) -> str:
        """``card_id``'s short id: the shortest start of its digest, SHORTEST digits at least,
        that no other id's digest starts with and no other id itself starts with (at most the
        whole digest); KeyError for an id not among them."""
        if card_id not in self:
            raise KeyError(card_id)
        hexed = digest(card_id)
        length = max(SHORTEST, *(part.shared(hexed) + 1 for part in self._parts))
        while length < len(hexed) and any(part.starts_another(hexed[:length], card_id) for part in self._parts):
            length += 1
        return hexed[:length]

    def __contains__(self, card_id: object) -> bool:
        return any(card_id in part.ids for part in self._parts)

    def __iter__(self) -> Iterator[str]:
        return (card_id for part in self._parts for card_id in part.ids)

    def __len__(self) -> int:
        return sum(len(part.ids) for part in self._parts)

    def with_others(self, card_ids: Iterable[str]) -> ShortIds:
        """The short ids of these ids and ``card_ids`` (a removed deck's cards, in the history)."""
        others = set(card_ids) - set().union(*(part.ids for part in self._parts))
        return ShortIds(others, self._parts) if others else self


@dataclass(frozen=True)
class _Sorted:
    """Ids with their digests sorted, and those ids that a short id could be the start of."""

    ids: frozenset[str]
    digests: list[str]
    hex_ids: list[str]  # the ids that start with SHORTEST hexadecimal digits, sorted

    @classmethod
    def of(cls, card_ids: set[str]) -> _Sorted:
        return cls(frozenset(card_ids), sorted(map(digest, card_ids)),
                   sorted(filter(_HEX_START.match, card_ids)))

    def shared(self, hexed: str) -> int:
        """The most leading digits ``hexed`` shares with a digest here other than itself: with the
        one just before it or just after it in sorted order."""
        at = bisect_left(self.digests, hexed)
        after = at + 1 if self.digests[at:at + 1] == [hexed] else at
        return max((_common(hexed, other) for other in (*self.digests[max(0, at - 1):at], *self.digests[after:after + 1])),
                   default=0)

    def starts_another(self, start: str, card_id: str) -> bool:
        """Whether an id here other than ``card_id`` starts with ``start`` (sorted: they follow
        one another from where ``start`` would go)."""
        at = bisect_left(self.hex_ids, start)
        return any(other != card_id and other.startswith(start) for other in self.hex_ids[at:at + 2])


def of_collection(card_ids: Iterable[str], shown: Iterable[str]) -> ShortIds:
    """The short ids of ``shown``, cards of the collection ``card_ids`` (its kept ``ShortIds``, or
    its ids) and cards no longer in it (a removed deck's, in the history): the collection's own as
    ``quiz cards`` shows them, whenever every shown card is in it."""
    known = card_ids if isinstance(card_ids, ShortIds) else ShortIds(card_ids)
    return known.with_others(shown)


class AmbiguousCard(QuizError):
    """A short id or an id's start that several cards have (exit 1, as an unknown card); the error
    lists them."""

    def __init__(self, typed: str, candidates: list[str]) -> None:
        listed = join(candidates[:LISTED]) + (" …" if len(candidates) > LISTED else "")
        super().__init__(_("'{typed}' names {count} cards: {ids}").format(typed=typed, count=len(candidates), ids=listed),
                         _("type more of the id"))


def resolve(typed: str, card_ids: Iterable[str]) -> str:
    """The card id ``typed`` names among ``card_ids``: itself, else the id whose short id or whose
    start it is, when one card alone has it; AmbiguousCard (exit 1) when several do, and
    CardNotFound (with the ids closest to it) when none does."""
    ids = set(card_ids)
    if typed in ids:
        return typed
    wanted = typed.strip().lower()
    if not wanted:
        raise CardNotFound(typed, ids)
    found = sorted(card_id for card_id in ids
                   if card_id.startswith(wanted) or (len(wanted) >= SHORTEST and _is_hex(wanted)
                                                     and digest(card_id).startswith(wanted)))
    if len(found) == 1:
        return found[0]
    if found:
        raise AmbiguousCard(typed, found)
    raise CardNotFound(typed, ids)


def _is_hex(text: str) -> bool:
    return _HEX.fullmatch(text) is not None


def _common(one: str, other: str) -> int:
    """How many leading characters two digests share."""
    shared = 0
    while shared < min(len(one), len(other)) and one[shared] == other[shared]:
        shared += 1
    return shared
