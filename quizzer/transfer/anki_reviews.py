"""Reviews made in Anki, read back from an Anki file: a package (``.apkg``, ``.colpkg``) or a
collection (``collection.anki2``).

A package holds the collection as ``collection.anki21b`` (zstd, Anki 2.1.50+),
``collection.anki21`` or ``collection.anki2``; the newest one is
read. Its review log (``revlog``) rows of notes whose GUID is one quizzer's export gave a card
(``note_guids``) become that card's reviews (every variant of a numeric card is the card):
the row id is the time in ms, ``ease`` the rating, ``time`` the duration. A row of Anki's
cramming (``type`` 3, filtered, with ``factor`` 0: answered in a filtered deck that does not
reschedule, which Anki's FSRS leaves out) is a practice review, as quizzer's export writes one;
an early review in a rescheduling filtered deck (``type`` 3 with a factor) moved the schedule
and is a study review. Rows of other notes
are skipped and counted: notes of another note type (not from quizzer), notes of quizzer's note
types whose card no deck has now, and rows that are no review (a manual or bulk reschedule,
ease 0). Nothing is written here; a file that is not such a collection is a HistoryFileError.
"""

from __future__ import annotations

import io
import sqlite3
import tempfile
import zipfile
from collections.abc import Mapping
from contextlib import closing
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path

from quizzer.base.errors import HistoryFileError
from quizzer.base.i18n import _
from quizzer.store.history import LoggedReview
from quizzer.transfer.anki import NOTE_TYPES
from quizzer.transfer.anki_schedule import FILTERED_KIND
from quizzer.transfer.fsrs_csv import CLOCK_SKEW, EPOCH, MAX_DURATION_MS, MAX_LOG_BYTES, log_bytes

SUFFIXES = (".apkg", ".colpkg", ".anki2", ".anki21")
COLLECTIONS = ("collection.anki21b", "collection.anki21", "collection.anki2")  # newest first
SQLITE_MAGIC = b"SQLite format 3\x00"
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
MANUAL_KINDS = (4, 5)  # revlog.type: a manual reschedule, a bulk reschedule


@dataclass
class AnkiReviews:
    """What an Anki file holds for quizzer."""

    reviews: list[LoggedReview] = field(default_factory=list)  # of quizzer's cards, by card id
    not_from_quizzer: int = 0  # review rows of notes of other note types
    not_in_decks: int = 0  # review rows of quizzer notes whose card no deck has now
    not_reviews: int = 0  # rows that record a reschedule, not an answer
    edited: list[str] = field(default_factory=list)  # card ids whose note text differs from ``fields_of``


def is_anki_file(path: Path) -> bool:
    return path.suffix.lower() in SUFFIXES


def read_anki_reviews(path: Path, note_guids: Mapping[str, str], now: datetime,
                      fields_of: Mapping[str, str] | None = None) -> AnkiReviews:
    """The reviews ``path`` holds of the notes in ``note_guids`` (GUID -> card id); with
    ``fields_of`` (GUID -> the note's fields as an export writes them, 0x1f between them), the
    cards whose note text is not that (edited in Anki since the export, or the deck since)."""
    shown = str(path)
    data = log_bytes(path, None, shown)
    with tempfile.TemporaryDirectory() as scratch:
        db_path = Path(scratch) / "collection.sqlite"
        db_path.write_bytes(_collection_bytes(data, shown))
        try:
            with closing(sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)) as db:
                db.text_factory = _text  # a damaged file's text may be no UTF-8
                return _reviews(db, note_guids, now, fields_of or {}, shown)
        except (sqlite3.Error, UnicodeDecodeError) as exc:  # a damaged schema's text may be no UTF-8 either
            raise HistoryFileError(_("{file}: not an Anki collection: {reason}").format(file=shown, reason=exc),
                                   _("export the collection or deck from Anki as a package (.apkg or .colpkg)")) from None


def _text(raw: bytes) -> str:
    return raw.decode("utf-8", "replace")


def _collection_bytes(data: bytes, shown: str) -> bytes:
    """The SQLite database in ``data``: the file itself, or the newest collection in a package."""
    if data.startswith(SQLITE_MAGIC):
        return data
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            names = set(archive.namelist())
            name = next((n for n in COLLECTIONS if n in names), None)
            if name is None:
                raise HistoryFileError(_("{file}: an archive without an Anki collection in it").format(file=shown),
                                       _("export the collection or deck from Anki as a package (.apkg or .colpkg)"))
            info = archive.getinfo(name)
            if info.file_size > MAX_LOG_BYTES:
                raise HistoryFileError(_("{file}: larger than {limit} MB, more than any review log needs").format(
                    file=shown, limit=MAX_LOG_BYTES // 2**20), _("export only the decks from quizzer"))
            inner = archive.read(name)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, OSError, NotImplementedError) as exc:
        raise HistoryFileError(_("{file}: neither an Anki package nor a collection ({reason})").format(
            file=shown, reason=exc), _("export the collection or deck from Anki as a package (.apkg or .colpkg)")) from None
    if inner.startswith(ZSTD_MAGIC):
        inner = _unzstd(inner, shown)
    if not inner.startswith(SQLITE_MAGIC):
        raise HistoryFileError(_("{file}: the Anki collection in it is damaged").format(file=shown),
                               _("export the collection or deck from Anki again"))
    return inner


def _unzstd(data: bytes, shown: str) -> bytes:
    import zstandard  # type: ignore[import-not-found,unused-ignore]  # only for Anki's zstd form

    try:
        reader = zstandard.ZstdDecompressor().stream_reader(io.BytesIO(data))
        out = reader.read(MAX_LOG_BYTES + 1)
    except zstandard.ZstdError as exc:
        raise HistoryFileError(_("{file}: the Anki collection in it is damaged").format(file=shown) + f" ({exc})",
                               _("export the collection or deck from Anki again")) from None
    if len(out) > MAX_LOG_BYTES:
        raise HistoryFileError(_("{file}: larger than {limit} MB, more than any review log needs").format(
            file=shown, limit=MAX_LOG_BYTES // 2**20), _("export only the decks from quizzer"))
    return bytes(out)


def _mode_of(kind: object, factor: object) -> str:
    """The mode of a review by its revlog ``type`` and ``factor``: practice for cramming (a
    filtered-deck answer that left the schedule alone), else study."""
    return "practice" if kind == FILTERED_KIND and factor == 0 else "study"


def _reviews(db: sqlite3.Connection, note_guids: Mapping[str, str], now: datetime, fields_of: Mapping[str, str],
             shown: str) -> AnkiReviews:
    quizzer_types = {note_type.model_id for note_type in NOTE_TYPES.values()}
    found = AnkiReviews()
    edited: dict[str, None] = {}
    rows = db.execute("SELECT revlog.id, revlog.ease, revlog.time, revlog.type, revlog.factor, notes.guid, notes.mid "
                      "FROM revlog JOIN cards ON cards.id = revlog.cid JOIN notes ON notes.id = cards.nid "
                      "ORDER BY revlog.id")
    for revlog_id, ease, duration, kind, factor, guid, model_id in rows:
        card_id = note_guids.get(guid) if isinstance(guid, str) else None
        if card_id is None:
            if model_id in quizzer_types:
                found.not_in_decks += 1
            else:
                found.not_from_quizzer += 1
            continue
        if kind in MANUAL_KINDS or ease == 0:
            found.not_reviews += 1
            continue
        if not isinstance(revlog_id, int) or not isinstance(ease, int) or not 1 <= ease <= 4:
            raise HistoryFileError(_("{file}: review {id} has the rating {rating}, not 1 to 4").format(
                file=shown, id=revlog_id, rating=ease), _("export the collection or deck from Anki again"))
        try:
            reviewed_at = EPOCH + timedelta(milliseconds=revlog_id)
        except OverflowError:
            reviewed_at = datetime.max.replace(tzinfo=EPOCH.tzinfo)
        if revlog_id < 0 or reviewed_at > now + CLOCK_SKEW:
            raise HistoryFileError(_("{file}: review {id} is dated {time}, not between 1970 and now").format(
                file=shown, id=revlog_id, time=reviewed_at.isoformat()), _("check the device's clock"))
        ms = duration if isinstance(duration, int) and 0 <= duration <= MAX_DURATION_MS else None
        found.reviews.append(LoggedReview(card_id, ease, reviewed_at, ms, _mode_of(kind, factor)))
    for guid, fields in db.execute("SELECT guid, flds FROM notes ORDER BY id"):
        if guid in fields_of and fields != fields_of[guid]:
            edited[note_guids[guid]] = None
    found.edited = list(edited)
    return found
