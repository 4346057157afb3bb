"""Decks to an Anki package (``.apkg``) through genanki, for learners who also study on a phone.

Every card kind has its own note type with a fixed model id, and every note's GUID comes from
its card id (``genanki.guid_for``), so importing a newer package into Anki updates the notes it
already has instead of adding copies. A cloze card becomes a note of Anki's cloze type; a
generated kind (numeric) becomes a few notes, one per fixed seed, each with its worked solution.
What a note shows comes from the kind's interface (front, back, solution), turned from Markdown
into plain HTML with ``$...$`` / ``$$...$$`` rewritten for Anki's MathJax.
"""

from __future__ import annotations

import errno
import hashlib
import html
import io
import re
import tempfile
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from quizzer import kinds
from quizzer.base import markup
from quizzer.decks import LoadedDeck
from quizzer.base.i18n import _
from quizzer.kinds.base import Asked, Kind

VARIANT_SEEDS = (1, 2, 3)  # the questions a generated card is exported as; fixed, so exports repeat


@dataclass(frozen=True)
class NoteType:
    """An Anki note type: its id must never change, or Anki sees a new type on re-import."""

    model_id: int
    cloze: bool = False


NOTE_TYPES: dict[str, NoteType] = {
    "qa": NoteType(1_733_100_001),
    "choice": NoteType(1_733_100_002),
    "mistake": NoteType(1_733_100_003),
    "numeric": NoteType(1_733_100_004),
    "cloze": NoteType(1_733_100_005, cloze=True),
}
BASIC_FIELDS = ("Question", "Answer", "Solution", "Section", "Deck", "Card")
CLOZE_FIELDS = ("Text", "Extra", "Section", "Deck", "Card")
CSS = """.card { font-family: sans-serif; font-size: 20px; text-align: left; }
.meta { color: #888; font-size: 14px; }
.solution { margin-top: 1em; }
table { border-collapse: collapse; } td, th { border: 1px solid #aaa; padding: 2px 6px; }
"""
META = '<div class="meta">{{Deck}} · {{Section}} · {{Card}}</div>'

_BLANK = re.compile(r"`［(\d+)(?:：(.*?))?］`")  # a cloze blank as the cloze kind's front shows it


def to_html(text: str) -> str:
    """Card Markdown as simple HTML (``quizzer.base.markup``), math as MathJax."""
    return markup.to_html(text, _mathjax)


def _mathjax(tex: str, display: bool) -> str:
    return html.escape(r"\[" + tex + r"\]" if display else r"\(" + tex + r"\)", quote=False)


def cloze_text(front: str, back: str) -> str:
    """Anki cloze text (``{{c1::answer::hint}}``) from a cloze card's two sides: the front marks
    blank n as ```［n：hint］```, the back holds each answer in a code span at the same place."""
    parts = _BLANK.split(front)  # literal, number, hint, literal, number, hint, ..., literal
    literals, numbers, hints = parts[0::3], parts[1::3], parts[2::3]
    pattern = "`(.*?)`".join(re.escape(literal) for literal in literals)
    found = re.fullmatch(pattern, back, re.DOTALL)
    if not numbers or found is None:
        raise ValueError(f"not a cloze card's front and back: {front!r}")
    text = literals[0]
    for i, (number, hint) in enumerate(zip(numbers, hints)):
        text += "{{c" + number + "::" + found[i + 1] + (f"::{hint}" if hint else "") + "}}" + literals[i + 1]
    return text


def _models() -> dict[str, Any]:
    import genanki

    models: dict[str, Any] = {}
    for name, note_type in NOTE_TYPES.items():
        if note_type.cloze:
            models[name] = genanki.Model(
                note_type.model_id, f"quizzer {name}", fields=[{"name": f} for f in CLOZE_FIELDS],
                templates=[{"name": "Cloze", "qfmt": "{{cloze:Text}}" + META,
                            "afmt": "{{cloze:Text}}" + META + '<div class="solution">{{Extra}}</div>'}],
                css=CSS, model_type=genanki.Model.CLOZE)
        else:
            models[name] = genanki.Model(
                note_type.model_id, f"quizzer {name}", fields=[{"name": f} for f in BASIC_FIELDS],
                templates=[{"name": "Card 1", "qfmt": "{{Question}}" + META,
                            "afmt": '{{FrontSide}}<hr id="answer">{{Answer}}'
                                    '{{#Solution}}<div class="solution">{{Solution}}</div>{{/Solution}}'}],
                css=CSS)
    return models


def deck_id(deck: str) -> int:
    """A stable Anki deck id for a quizzer deck id (Anki ids are positive 63-bit integers)."""
    return int.from_bytes(hashlib.sha256(f"quizzer deck {deck}".encode()).digest()[:7], "big")


def _notes(kind: Kind[Any], card: Any, deck: LoadedDeck, model: Any) -> list[Any]:
    """The notes of one card: one, or one per variant seed for a generated kind."""
    import genanki

    note_type = NOTE_TYPES[kind.name]
    shown: list[tuple[Asked, str, str]] = (
        [(kind.ask(card, seed), genanki.guid_for(card.id, seed), f"{card.id} (seed {seed})") for seed in VARIANT_SEEDS]
        if kind.generated else [(kind.ask(card), genanki.guid_for(card.id), card.id)]
    )
    notes = []
    for asked, guid, label in shown:
        solution = kind.solution(asked)
        extra = to_html(solution) if solution else ""
        meta = [html.escape(card.source), html.escape(deck.deck.id), html.escape(label)]
        fields = ([to_html(cloze_text(kind.front(asked), kind.back(asked))), extra, *meta] if note_type.cloze
                  else [to_html(kind.front(asked)), to_html(kind.back(asked)), extra, *meta])
        notes.append(genanki.Note(model=model, fields=fields, tags=list(card.tags), guid=guid))
    return notes


def exported_notes(decks: Sequence[LoadedDeck]) -> dict[str, tuple[str, str]]:
    """GUID -> (card id, the note's fields as Anki stores them: joined by 0x1f) of every note an
    export of ``decks`` writes."""
    models = _models()
    notes: dict[str, tuple[str, str]] = {}
    for loaded in decks:
        for card in loaded.deck.cards:
            kind = kinds.of(card)
            for note in _notes(kind, card, loaded, models[kind.name]):
                notes[note.guid] = (card.id, "\x1f".join(note.fields))
    return notes


@dataclass(frozen=True)
class AnkiPackage:
    data: bytes  # the .apkg file
    notes: int
    cards: int  # deck cards exported (a generated one gives several notes)
    card_of_note: dict[str, str] = field(default_factory=dict)  # a note's GUID: the id of its quizzer card
    scheduled_cards: int = 0  # deck cards carrying a schedule (``quizzer.transfer.anki_schedule``)
    reviews: int = 0  # their reviews, each in the log of every note of its card


def package(decks: Sequence[LoadedDeck], timestamp: float) -> AnkiPackage:
    """The ``.apkg`` of ``decks`` (one Anki deck each, named by its title); ``timestamp`` dates
    the notes (pass the clock's now, so a pinned clock gives the same file)."""
    import genanki

    models = _models()
    anki_decks = []
    notes = cards = 0
    card_of_note: dict[str, str] = {}
    for loaded in decks:
        anki_deck = genanki.Deck(deck_id(loaded.deck.id), loaded.deck.title)
        for card in loaded.deck.cards:
            kind = kinds.of(card)
            for note in _notes(kind, card, loaded, models[kind.name]):
                anki_deck.add_note(note)
                card_of_note[note.guid] = card.id
                notes += 1
            cards += 1
        anki_decks.append(anki_deck)
    buffer = io.BytesIO()
    with tempfile.TemporaryDirectory() as scratch:  # genanki leaves its SQLite file in the temp folder
        previous, tempfile.tempdir = tempfile.tempdir, scratch
        try:
            genanki.Package(anki_decks).write_to_file(buffer, timestamp=timestamp)
        finally:
            tempfile.tempdir = previous
    return AnkiPackage(deflated(buffer.getvalue()), notes, cards, card_of_note)


def read_back(written: Path) -> None:
    """Raise OSError unless the written package opens as Anki opens one: a zip whose every entry
    reads back whole, the collection among them."""
    try:
        with zipfile.ZipFile(written) as archive:
            if "collection.anki2" not in archive.namelist() or archive.testzip() is not None:
                raise zipfile.BadZipFile
    except zipfile.BadZipFile:
        raise OSError(errno.EIO, _("the package read back is not a whole Anki package")) from None


def deflated(stored: bytes) -> bytes:
    """The package with its files compressed, as Anki writes its own: genanki stores them as
    they are, and the bundled decks' package is a seventh of the size deflated (90 KB, not 650)."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(stored)) as source, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
        for entry in source.infolist():
            target.writestr(entry, source.read(entry), zipfile.ZIP_DEFLATED)
    return out.getvalue()
