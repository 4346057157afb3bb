"""Cards in and out of quizzer as files: an Anki package, a printable review sheet, a course
chapter turned into a deck, and the FSRS review log read (``quizzer.transfer`` knows the
formats; each is imported when asked for, so one command does not load another's)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

if TYPE_CHECKING:
    from quizzer.app.collection import Collection
    from quizzer.decks import LoadedDeck
    from quizzer.settings import Settings
    from quizzer.transfer.anki import AnkiPackage
    from quizzer.transfer.anki_schedule import CardSchedule, ScheduleRules
    from quizzer.transfer.chapter import ImportReport
    from quizzer.transfer.fsrs_csv import LoggedReview


def anki_package(decks: Sequence[LoadedDeck], now: datetime, collection: Collection | None = None,
                 settings: Settings | None = None) -> AnkiPackage:
    """The ``.apkg`` of ``decks``, its notes dated ``now`` (a pinned clock gives the same file);
    with ``collection`` and the learner's ``settings``, each card that has reviews carries its
    schedule, memory and review log as Anki stores them (the others arrive new)."""
    from quizzer.transfer.anki import package

    exported = package(decks, now.timestamp())
    if collection is None or settings is None:
        return exported
    from quizzer.transfer.anki_schedule import with_schedule

    schedules = card_schedules(collection, decks)
    if not schedules:
        return exported
    return with_schedule(exported, schedules, schedule_rules(collection, settings, now))


def card_schedules(collection: Collection, decks: Sequence[LoadedDeck]) -> dict[str, CardSchedule]:
    """Card id -> its schedule and reviews, for the cards of ``decks`` that have reviews."""
    from collections import defaultdict

    from quizzer.store import history
    from quizzer.store.cards import card
    from quizzer.transfer.anki_schedule import CardSchedule

    reviews: dict[str, list[Any]] = defaultdict(list)
    for review in history.review_log(collection.store, [loaded.id for loaded in decks]):
        reviews[review.card_id].append(review)
    schedules = {}
    for card_id, logged in reviews.items():
        record = card(collection.store, card_id)
        schedules[card_id] = CardSchedule(record.memory, logged, record.suspended)
    return schedules


def schedule_rules(collection: Collection, settings: Settings, now: datetime) -> ScheduleRules:
    """The study day and FSRS settings an Anki package's schedule is written for."""
    from quizzer.scheduling.learner import schedule_of
    from quizzer.transfer.anki_schedule import ScheduleRules

    scheduler = schedule_of(collection.store, settings).scheduler
    return ScheduleRules(now, settings.day_start_hour, scheduler.desired_retention, scheduler.parameters[-1],
                         len(settings.learning_steps), len(settings.relearning_steps))


def save_anki_package(target: Path, exported: AnkiPackage) -> None:
    """``exported`` written as ``target`` only once it reads back whole as a package Anki opens
    (``quizzer.base.files.write_whole``): a failure leaves no file there and says why."""
    from quizzer.base.files import write_whole
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
