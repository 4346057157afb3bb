"""A chapter merged into the deck file already at ``--out``: the cards the deck lacks are added at
its end, and the rest compared; the deck's own version of a card is kept."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from quizzer.decks import display, yamlsource
from quizzer.decks.lint import question_key
from quizzer.decks.files import read_file
from quizzer.base.errors import DeckProblems, QuizError
from quizzer.base.i18n import _
from quizzer.transfer.chapter.convert import Chapter
from quizzer.transfer.chapter.write import validated
from quizzer.transfer.chapter.yaml_out import cards_yaml, dump


@dataclass(frozen=True)
class Changed:
    card_id: str
    fields: list[str]  # the fields where the deck differs from the chapter


def _plain(value: Any) -> Any:
    """A card's data compared as its author sees it: texts without the line break a '|' block ends with."""
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


@dataclass(frozen=True)
class ExistingDeck:
    """The deck file already at ``--out``, as written."""

    text: str
    deck_id: str
    cards: dict[str, Any]  # id -> the card's data as written
    indent: int  # the column of the cards list's '-'


def existing_deck(out: Path) -> ExistingDeck:
    """The valid deck at ``out`` whose ``cards`` list comes last (new cards are added at its end)."""
    text, _raw, problems = read_file(out)
    if text is None:
        raise DeckProblems(problems)
    checked = validated(text, out)
    assert checked.deck is not None
    doc = yamlsource.parse(text)
    top = {path[0]: position for path, position in doc.keys.items() if len(path) == 1}
    start = doc.values.get(("cards",))
    if max(top.values()) != top["cards"] or start is None or text.splitlines()[start.line - 1][start.column - 1] != "-":
        raise QuizError(_("{path}: new cards can only be added to a deck whose 'cards' list comes last, one '- ' item per card").format(
            path=display(out)), _("move 'cards:' to the end of the file, or import into a new file"))
    return ExistingDeck(text, checked.deck.id, {card["id"]: card for card in doc.data["cards"]}, start.column - 1)


@dataclass(frozen=True)
class Merged:
    """A chapter compared with the deck already written: the deck's text with the new cards added
    at its end, and how each card compares."""

    text: str
    added: list[str]
    changed: list[Changed]
    unchanged: list[str]
    deck_only: list[str]  # cards the deck has and the chapter does not: kept
    duplicates: list[tuple[str, str]]  # (chapter card, the deck's card with the same question): not added


def merged(chapter: Chapter, existing: ExistingDeck) -> Merged:
    """Add the cards the deck lacks at its end; report the rest, the deck's version kept. A card
    whose question the deck already asks under another id is not added (Anki's duplicate check):
    a deck written by hand has its own ids."""
    fresh = {card["id"]: card for card in yamlsource.parse(dump(chapter.cards)).data}  # as the file would hold them
    asked = {key: card_id for card_id, card in existing.cards.items() if (key := question_key(card))}
    duplicates = [(c["id"], asked[key]) for c in chapter.cards
                  if c["id"] not in existing.cards and (key := question_key(c)) in asked]
    twins = {card_id for card_id, _twin in duplicates}
    added = [c for c in chapter.cards if c["id"] not in existing.cards and c["id"] not in twins]
    changed: list[Changed] = []
    unchanged: list[str] = []
    for card_id, card in fresh.items():
        if card_id in existing.cards:
            mine = existing.cards[card_id]
            differ = sorted(k for k in card.keys() | mine.keys() if _plain(card.get(k)) != _plain(mine.get(k)))
            if differ:
                changed.append(Changed(card_id, differ))
            else:
                unchanged.append(card_id)
    matched = {twin for _card, twin in duplicates}
    deck_only = [card_id for card_id in existing.cards if card_id not in fresh and card_id not in matched]
    text = existing.text
    if added:
        text = text + ("" if text.endswith("\n") else "\n") + "\n" + cards_yaml(chapter, added, existing.indent).rstrip("\n") + "\n"
    return Merged(text, [c["id"] for c in added], changed, unchanged, deck_only, duplicates)
