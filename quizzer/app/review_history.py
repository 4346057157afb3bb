"""``quiz history``: review history in and out of the collection, in the FSRS CSV form
(``quizzer.transfer.fsrs_csv`` reads and writes the files)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from quizzer.base import clock
from quizzer.app.collection import Collection
from quizzer.settings import Settings
from quizzer.transfer.fsrs_csv import HistoryExport, HistoryImport, LoggedReview, export_history, import_history

if TYPE_CHECKING:
    from quizzer.transfer.anki_reviews import AnkiReviews


@dataclass(frozen=True)
class Imported:
    """What the import added; ``saved``: the backup of the database as it was before (None when
    nothing was imported, or the database is no file)."""

    result: HistoryImport
    saved: Path | None


def import_reviews(collection: Collection, reviews: Sequence[LoggedReview], settings: Settings,
                   replayed: Callable[[int], None] | None = None) -> Imported:
    """Add the reviews (those already there are skipped), each card's memory replayed under the
    learner's FSRS settings, parameters and interview, as study schedules. An import cannot be taken
    back (its archived cards stay): the database is backed up first, the backup kept only when
    something was imported. ``replayed`` is told the reviews replayed so far."""
    from quizzer.store import backup
    from quizzer.scheduling.learner import schedule_of

    store = collection.store
    schedule = schedule_of(store, settings)
    saved = backup.backup_now(store.path, clock.wall()) if store.path is not None and reviews else None
    result = import_history(store, reviews, scheduler=schedule.scheduler, rollover_hour=settings.day_start_hour,
                            interview=schedule.interview, replayed=replayed)
    if saved is not None and not result.imported:  # every review was there: nothing to take back
        backup.remove_database(saved)
        saved = None
    return Imported(result, saved)


def export_reviews(collection: Collection, target: Path | TextIO, decks: list[str] | None,
                   since: datetime | None, form: str = "quizzer", rollover_hour: int = clock.ROLLOVER_HOUR) -> HistoryExport:
    """Write the reviews (of every card, or of ``decks``; from ``since`` on) to a file or stream,
    in ``form`` (``quizzer``, ``fsrs-rs`` or ``srs-benchmark``; study days from ``rollover_hour``).
    A deck is known when a deck file or the history has it (an archived card's deck is no deck file)."""
    from quizzer.store import history
    from quizzer.store.filter import CardFilter

    if decks:
        known = {*history.decks(collection.store), *(loaded.id for loaded in collection.decks)}
        CardFilter.of(decks).validate(known, (), ())
    return export_history(collection.store, target, decks or None, since, form, rollover_hour)


@dataclass(frozen=True)
class AnkiImported:
    """An import of the reviews made in Anki: what was added, and what the file held besides."""

    imported: Imported
    found: AnkiReviews


def is_anki_file(path: Path) -> bool:
    """Whether ``quiz history import`` reads ``path`` as an Anki package or collection (by its name)."""
    from quizzer.transfer.anki_reviews import is_anki_file as anki

    return anki(path)


def import_anki_reviews(collection: Collection, path: Path, settings: Settings,
                        replayed: Callable[[int], None] | None = None) -> AnkiImported:
    """Add the reviews an Anki file (package or collection) holds of the notes quizzer's export
    gives the decks' cards, as ``import_reviews`` adds a CSV's: reviews already there (Anki keeps
    their time to the millisecond) are skipped, each card's memory is replayed. The file is read
    whole before anything is written."""
    from quizzer.store import history
    from quizzer.transfer.anki import exported_notes
    from quizzer.transfer.anki_reviews import read_anki_reviews

    notes = exported_notes(collection.decks)
    found = read_anki_reviews(path, {guid: card_id for guid, (card_id, _fields) in notes.items()}, clock.now(),
                              {guid: fields for guid, (_card_id, fields) in notes.items()})
    reviews = at_logged_times(found.reviews, history.review_log(collection.store))
    return AnkiImported(import_reviews(collection, reviews, settings, replayed), found)


def at_logged_times(reviews: Sequence[LoggedReview], logged: Sequence[LoggedReview]) -> list[LoggedReview]:
    """``reviews`` (times to the ms) with each one quizzer has logged (the same card and rating,
    in the same ms or up to 2 ms later: an export moves a review in the same ms as another one ms
    on) at its logged time, so that the import finds it there; each logged review matches one."""
    from collections import defaultdict
    from dataclasses import replace

    def ms(at: datetime) -> int:
        return int(at.timestamp() * 1000)

    times: dict[tuple[str, int, int], list[datetime]] = defaultdict(list)
    for review in logged:
        times[(review.card_id, ms(review.reviewed_at), review.rating)].append(review.reviewed_at)
    placed = []
    for review in reviews:
        at = ms(review.reviewed_at)
        key = next((k for k in ((review.card_id, at - back, review.rating) for back in range(3)) if times.get(k)), None)
        placed.append(review if key is None else replace(review, reviewed_at=times[key].pop(0)))
    return placed
