"""A card drawn from the chapter before it has an id, and its id: the section and a short hash of
the question (``8-1-qa-3fa2c1``), so importing the chapter again finds the same cards and a card
edited by hand keeps its id and its review history."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Item:
    """One card drawn from the chapter, before it has an id."""

    origin: str  # interview, quiz, warning, key, table or worked: the block it came from (and its id's middle part)
    section: str
    heading: str
    stable: str  # the text its id's hash is taken from
    fields: dict[str, Any]
    kind: str = ""  # a table row's or worked example's card kind (else the block's: ``KIND_OF``)
    comment: str | None = None  # a line written above the card: what the course gets wrong


ID_PART = {"interview": "qa", "quiz": "quiz", "warning": "mistake", "key": "key", "table": "table", "worked": "num"}
KIND_OF = {"interview": "qa", "key": "qa", "quiz": "choice", "warning": "mistake"}


SLUG_MAX = 40  # characters of a section in a card id (an id may have 200; a heading of words can be longer)


def _slug(text: str) -> str:
    """A section as id text: ``8.1`` is ``8-1``; a section without ASCII words is a short hash.
    A long one is cut after a word, its hash added, so two long headings still differ."""
    slug = "-".join(re.findall(r"[a-z0-9]+", text.lower()))
    if len(slug) > SLUG_MAX:
        slug = slug[:SLUG_MAX].rsplit("-", 1)[0] + "-" + hashlib.sha256(text.encode()).hexdigest()[:4]
    return slug or "h" + hashlib.sha256(text.encode()).hexdigest()[:4]


def with_ids(items: list[Item]) -> list[tuple[str, Item]]:
    """Ids from the section and the hash of the stable text; a repeat gets -2, -3, ... in file order."""
    seen: dict[str, int] = {}
    named: list[tuple[str, Item]] = []
    for item in items:
        digest = hashlib.sha256(item.stable.encode()).hexdigest()[:6]
        card_id = f"{_slug(item.section)}-{ID_PART[item.origin]}-{digest}"
        seen[card_id] = seen.get(card_id, 0) + 1
        named.append((card_id if seen[card_id] == 1 else f"{card_id}-{seen[card_id]}", item))
    return named


def kind_of(item: Item) -> str:
    return item.kind or KIND_OF[item.origin]
