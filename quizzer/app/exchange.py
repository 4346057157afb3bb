"""Cards in and out of quizzer as files: an Anki package, a printable review sheet, a course
chapter turned into a deck, and the FSRS review log read (``quizzer.transfer`` knows the
formats; each is imported when asked for, so one command does not load another's)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

if TYPE_CHECKING:
    from quizzer.decks import LoadedDeck
    from quizzer.transfer.anki import AnkiPackage
    from quizzer.transfer.chapter import ImportReport
    from quizzer.transfer.fsrs_csv import LoggedReview


def anki_package(decks: Sequence[LoadedDeck], now: datetime) -> AnkiPackage:
    """The ``.apkg`` of ``decks``, its notes dated ``now`` (a pinned clock gives the same file)."""
    from quizzer.transfer.anki import package

    return package(decks, now.timestamp())


def save_anki_package(target: Path, exported: AnkiPackage) -> None:
    """``exported`` written as ``target`` only once it reads back whole as a package Anki opens
    (``quizzer.files.write_whole``): a failure leaves no file there and says why."""
    from quizzer.files import write_whole
    from quizzer.transfer.anki import read_back

    write_whole(target, exported.data, read_back)


def review_sheet(title: str, cards: Sequence[Any]) -> str:
    """A printable sheet of ``cards`` in Markdown: the questions, then the answers."""
    from quizzer.transfer.sheet import review_sheet as sheet

    return sheet(title, cards)


def import_chapter(path: Path, deck_id: str | None = None, out: Path | None = None,
                   stream: BinaryIO | None = None) -> ImportReport:
    """A course chapter (``path``, or ``stream`` read in its name) as a deck: with ``out``, written
    there or added to the deck already there."""
    from quizzer.transfer.chapter import import_chapter as run

    return run(path, deck_id, out, stream)


def read_review_log(path: Path, now: datetime, stream: BinaryIO | None = None) -> list[LoggedReview]:
    """Every row of an FSRS review log, checked before anything is changed (the first bad one is
    an error naming its line; a review later than ``now`` too)."""
    from quizzer.transfer.fsrs_csv import read_review_log as read

    return read(path, now=now, stream=stream)
