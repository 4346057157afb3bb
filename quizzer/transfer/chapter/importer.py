"""``quiz import chapter``: a chapter turned into a deck draft, written to ``--out`` or merged into
the deck already there."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from quizzer.decks import DECK_SUFFIXES, asked_elsewhere, display, yamlsource
from quizzer.base.defaults import ARCHIVE_DECK, ARCHIVE_TAKEN
from quizzer.base.errors import QuizError, UsageError
from quizzer.base.i18n import _
from quizzer.kinds.fields import ID_MAX, ID_PATTERN
from quizzer.transfer.chapter.convert import Chapter, read_chapter, shown_name
from quizzer.transfer.chapter.merge import Changed, existing_deck, merged
from quizzer.transfer.chapter.write import drafted, write_deck
from quizzer.transfer.chapter.yaml_out import deck_yaml


@dataclass(frozen=True)
class ImportReport:
    """What an import did: the deck text (what is or would be in the file) and how its cards compare."""

    text: str
    deck_id: str
    added: list[str]
    changed: list[Changed]
    unchanged: list[str]
    deck_only: list[str]  # cards the deck has and the chapter does not: kept
    warnings: list[str]
    duplicates: list[tuple[str, str]]  # (chapter card, the deck's card with the same question): not added
    written: bool  # the file was written (a re-import that adds nothing leaves it alone)
    created: bool  # the file did not exist before


_SAYS_NOTHING = re.compile(r"\d+|[0-9a-f]{8,}")  # a file name's numbers and hashes


def default_deck_id(path: Path | None, chapter: Chapter) -> str:
    """From the file name (``attention.md``: ``attention``); one of numbers and hashes only
    (``000_54c1e0fa0697e990.txt``), or none (standard input), says nothing, so then from the
    chapter's number (``ch08``)."""
    words = re.findall(r"[a-z0-9]+", path.stem.lower()) if path is not None else []
    if chapter.number and all(_SAYS_NOTHING.fullmatch(word) for word in words):
        return f"ch{chapter.number:0>2}"
    return "-".join(words) or "chapter"


def import_chapter(path: Path, deck_id: str | None = None, out: Path | None = None,
                   stream: BinaryIO | None = None) -> ImportReport:
    """Turn ``path`` (or ``stream``, as ``read_chapter``) into a deck; with ``out``, write it there
    or add the chapter's new cards to the deck already there (its cards, edited or not, stay as
    they are)."""
    if deck_id is not None and (not re.fullmatch(ID_PATTERN, deck_id) or len(deck_id) > ID_MAX):
        raise UsageError(_("--deck '{name}' is not a deck id").format(name=deck_id), _("lowercase a-z, 0-9 and '-', e.g. ch09-gpt"))
    if deck_id == ARCHIVE_DECK:
        raise UsageError(_(ARCHIVE_TAKEN).format(id=ARCHIVE_DECK), _("e.g. --deck ch09-gpt"))
    if out is not None and out.suffix not in DECK_SUFFIXES:
        raise UsageError(_("--out {path} is not a .yaml file").format(path=out), _("deck files end in .yaml"))
    if out is not None and not out.parent.is_dir():
        raise UsageError(_("--out {path}: the folder does not exist").format(path=out), _("create it first"))
    chapter = read_chapter(path, stream)
    if not chapter.cards:
        raise QuizError(_("{file}: no interview, quiz, warning or key blocks to make cards from").format(
            file=shown_name(path, stream)))
    _within_a_deck(chapter, shown_name(path, stream))
    existing = existing_deck(out) if out is not None and os.path.lexists(out) else None
    if existing is not None:
        if deck_id is not None and deck_id != existing.deck_id:
            raise UsageError(_("--deck {name} but {path} holds deck {other}").format(name=deck_id, path=out, other=existing.deck_id),
                             _("leave out --deck to add to that deck"))
        deck_id = existing.deck_id
    deck_id = deck_id or default_deck_id(None if stream is not None else path, chapter)
    target = out or Path(f"{deck_id}.yaml")
    fresh_text = deck_yaml(chapter, deck_id)
    drafted(fresh_text, target, shown_name(path, stream))
    if out is not None:
        chapter.warnings.extend(_("card {id} asks the same question as card {twin} in {other}").format(
            id=card_id, twin=twin, other=display(other)) for card_id, twin, other in asked_elsewhere(chapter.cards, out))
    if existing is None:
        if out is not None:
            write_deck(out, fresh_text)
        return ImportReport(fresh_text, deck_id, [c["id"] for c in chapter.cards], [], [], [], chapter.warnings, [],
                            out is not None, out is not None)
    assert out is not None
    merge = merged(chapter, existing)
    if merge.added:
        drafted(merge.text, out, shown_name(path, stream))
        write_deck(out, merge.text)
    return ImportReport(merge.text, existing.deck_id, merge.added, merge.changed, merge.unchanged, merge.deck_only,
                        chapter.warnings, merge.duplicates, bool(merge.added), False)


def _within_a_deck(chapter: Chapter, shown: str) -> None:
    """Refuse a chapter whose cards alone hold more values than one deck file may, before its
    YAML is written (writing it is the slow part: seconds for 20,000 cards)."""
    values = sum(_values(card) for card in chapter.cards)
    if values > yamlsource.MAX_VALUES:
        raise QuizError(_("{file}: its {cards} cards would make a deck of more than {count} values, more than one deck "
                          "file may hold").format(file=shown, cards=f"{len(chapter.cards):,}", count=f"{yamlsource.MAX_VALUES:,}"),
                        _("split the chapter and import the parts one by one; nothing was written"))


def _values(data: Any) -> int:
    """Values as a deck file's reader counts them: every scalar and collection, keys included."""
    if isinstance(data, dict):
        return 1 + sum(1 + _values(value) for value in data.values())
    if isinstance(data, list):
        return 1 + sum(_values(item) for item in data)
    return 1
