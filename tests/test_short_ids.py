"""Short ids where digests collide: each is the shortest start of its id's SHA-1, 4 digits at
least, that no other card's SHA-1 and no other card's id starts with. The expected ids come from
hashlib and a search over every other card, not from quizzer's sorted lists."""

from __future__ import annotations

import hashlib
import json
from itertools import count

from typer.testing import CliRunner

from conftest import MINI_DECK
from quizzer.app.short_ids import ShortIds, of_collection
from quizzer.cli import app


def sha1(card_id: str) -> str:
    return hashlib.sha1(card_id.encode()).hexdigest()


def crafted_ids() -> list[str]:
    """Ids whose SHA-1s share exactly 4, 5 and 6 leading digits in pairs (and three that share 4),
    hexadecimal ids that are the start of another card's SHA-1 (5, 6 and 8 digits), an id that
    starts with its own SHA-1's first 4 digits beside another id that starts with them, and others."""
    by_start: dict[str, list[str]] = {}
    for n in range(60_000):
        by_start.setdefault(sha1(f"c{n}")[:6], []).append(f"c{n}")
    sharing: dict[int, list[str]] = {}
    for group in (group for group in by_start.values() if len(group) > 1):
        sharing.setdefault(6, group[:2])
    by_four: dict[str, list[str]] = {}
    for start, group in by_start.items():
        by_four.setdefault(start[:4], []).append(group[0])
    for group in by_four.values():
        if len(group) >= 2 and sha1(group[0])[4] != sha1(group[1])[4]:
            sharing.setdefault(4, group[:3])
        five = [one for one in group if sha1(one)[4] == sha1(group[0])[4]]
        if len(five) >= 2 and sha1(five[0])[5] != sha1(five[1])[5]:
            sharing.setdefault(5, five[:2])
    crafted = [one for length in (4, 5, 6) for one in sharing[length]]
    starts = [sha1("prefixed-5")[:5], sha1("prefixed-6")[:6], sha1("prefixed-8")[:8]]
    itself = next(f"abcd-{n}" for n in count() if sha1(f"abcd-{n}").startswith("abcd"))
    return [*crafted, *starts, "prefixed-5", "prefixed-6", "prefixed-8", itself, "abcd-x",
            *(f"card-{n}" for n in range(150))]


def expected(card_id: str, ids: list[str]) -> str:
    hexed = sha1(card_id)
    others = [(other, sha1(other)) for other in ids if other != card_id]
    for length in range(4, len(hexed)):
        start = hexed[:length]
        if not any(digest.startswith(start) or other.startswith(start) for other, digest in others):
            return start
    return hexed


def test_the_crafted_ids_collide_as_meant():
    ids = crafted_ids()
    lengths = {len(expected(card_id, ids)) for card_id in ids}
    assert {5, 6, 7} <= lengths and max(lengths) >= 9  # 8 digits of prefixed-8's SHA-1 are an id


def test_quiz_cards_shows_the_short_ids_hashlib_gives_where_digests_collide(deck_folder):
    ids = crafted_ids()
    deck = MINI_DECK + "".join(f'  - {{id: {card_id}, kind: qa, source: "1.1", question: q, answer: a, points: [p]}}\n'
                               for card_id in ids)
    result = CliRunner().invoke(app, ["cards", "--json", "--decks", str(deck_folder(deck))],
                                env={"QUIZ_NOW": "2026-01-05T10:00"})
    assert result.exit_code == 0, result.output
    shown = {row["id"]: row["short_id"] for row in json.loads(result.stdout)}
    assert shown == {card_id: expected(card_id, ids) for card_id in ids}


def test_cards_no_longer_in_the_collection_count_as_its_own():
    ids = crafted_ids()
    kept, removed = ids[::2], ids[1::2][:20]
    shortened = of_collection(ShortIds(kept), removed)
    together = kept + removed
    assert {card_id: shortened[card_id] for card_id in together} == {card_id: expected(card_id, together)
                                                                     for card_id in together}
    assert set(shortened) == set(together) and len(shortened) == len(together)


def test_an_id_that_is_another_cards_whole_digest_leaves_it_the_whole_digest():
    shortened = ShortIds(["x", sha1("x")])
    assert shortened["x"] == sha1("x")
    assert shortened[sha1("x")] == sha1(sha1("x"))[:4]
