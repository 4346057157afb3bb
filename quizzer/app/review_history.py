"""``quiz history``: review history in and out of the collection, in the FSRS CSV form
(``quizzer.transfer.fsrs_csv`` reads and writes the files)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TextIO

from quizzer import clock
from quizzer.app.collection import Collection
from quizzer.settings import Settings
from quizzer.transfer.fsrs_csv import HistoryExport, HistoryImport, LoggedReview, export_history, import_history


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
    from quizzer import backup
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
