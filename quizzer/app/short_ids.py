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
from collections.abc import Iterable

from quizzer.base.errors import CardNotFound, QuizError
from quizzer.base.i18n import _, join

SHORTEST = 4  # digits: 65,536 values, so a deck of a few hundred cards rarely needs a fifth
LISTED = 5  # candidates an ambiguous id's error names
_HEX = re.compile("[0-9a-f]+")


def digest(card_id: str) -> str:
    """The hexadecimal SHA-1 of a card id, whose start is its short id."""
    return hashlib.sha1(card_id.encode()).hexdigest()


def short_ids(card_ids: Iterable[str]) -> dict[str, str]:
    """Each id's short id: the shortest start of its digest (SHORTEST digits at least) that no
    other id's digest starts with and no other id itself starts with (50,000 ids: 0.2 s, most of it SHA-1 and sorting)."""
    digests = sorted((digest(card_id), card_id) for card_id in set(card_ids))
    hexes = [hexed for hexed, _card in digests]
    shared = [0, *map(_common, hexes, hexes[1:]), 0]  # digits each digest shares with the next (distinct: SHA-1)
    starts: dict[str, set[str]] = {}  # the ids' hexadecimal starts: what another's short id must not be
    for _hexed, card_id in digests:
        length = SHORTEST
        while length <= len(card_id) and _is_hex(card_id[:length]):
            starts.setdefault(card_id[:length], set()).add(card_id)
            length += 1
    shortened = {}
    for index, (hexed, card_id) in enumerate(digests):
        length = max(SHORTEST, shared[index] + 1, shared[index + 1] + 1)
        while starts and starts.get(hexed[:length], {card_id}) - {card_id}:
            length += 1
        shortened[card_id] = hexed[:length]
    return shortened


def of_collection(card_ids: Iterable[str], shown: Iterable[str]) -> dict[str, str]:
    """The short ids of ``shown``, cards of the collection ``card_ids`` and cards no longer in it (a
    removed deck's, in the history): the collection's own as ``quiz cards`` shows them, whenever
    every shown card is in it."""
    return short_ids({*card_ids, *shown})


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
    """How many leading characters two different digests share."""
    shared = 0
    while one[shared] == other[shared]:
        shared += 1
    return shared
