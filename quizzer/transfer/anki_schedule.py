"""Quizzer's schedule written into an Anki package, as Anki 23.10+ stores it, so that Anki's FSRS
goes on where quizzer stopped.

Each card of a note that came from a quizzer card (``AnkiPackage.card_of_note``: its GUID) gets
that card's state: ``type`` and ``queue`` (new, learning, review, relearning; suspended),
``due`` (a day number from the collection's creation day for a review or a learning step on a
later day, a time in seconds for a learning step due today), ``ivl`` in days, ``reps`` and
``lapses``, and its FSRS memory in the card's ``data`` JSON (``s`` stability, ``d`` difficulty,
``dr`` desired retention, ``decay``, ``lrt`` the last review in seconds). The collection is
created at the start of the export's study day, so day numbers count from today. Every review
becomes a ``revlog`` row (its time in ms as its id, the rating as ``ease``, the duration as
``time``); a practice review is a filtered-deck review that did not reschedule (``type`` 3,
``factor`` 0), which Anki's FSRS leaves out as quizzer does. The variants of a numeric card (and
the cards of a cloze note) all carry its schedule; its review log goes with the first of them
only, so that every review is one revlog row and comes back as one.
"""

from __future__ import annotations

import io
import json
import sqlite3
import tempfile
import zipfile
from collections.abc import Mapping, Sequence
from contextlib import closing
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path

from quizzer.base.clock import day_start, next_day_start, study_day
from quizzer.store.history import LoggedReview
from quizzer.store.records import LEARNING, NEW, RELEARNING, REVIEW, MemoryState
from quizzer.transfer.anki import AnkiPackage, deflated

COLLECTION = "collection.anki2"
NEW_QUEUE, LEARN_QUEUE, REVIEW_QUEUE, DAY_LEARN_QUEUE, SUSPENDED_QUEUE = 0, 1, 2, 3, -1
LEARN_KIND, REVIEW_KIND, RELEARN_KIND, FILTERED_KIND = 0, 1, 2, 3  # revlog.type
SCHEDULER_VERSION = 2
DEFAULT_EASE = 2500  # cards.factor in permille: Anki's starting ease, unused by FSRS


@dataclass(frozen=True)
class CardSchedule:
    """One quizzer card's schedule and history."""

    memory: MemoryState
    reviews: Sequence[LoggedReview]  # oldest first
    suspended: bool = False


@dataclass(frozen=True)
class ScheduleRules:
    """What Anki needs besides the cards: the study day, and the learner's FSRS settings."""

    now: datetime
    rollover_hour: int
    desired_retention: float
    decay: float  # FSRS-6's last parameter
    learning_steps: int
    relearning_steps: int


@dataclass(frozen=True)
class _AnkiCard:
    type: int
    queue: int
    due: int
    ivl: int
    left: int
    data: str


def _anki_card(memory: MemoryState, rules: ScheduleRules, suspended: bool) -> _AnkiCard | None:
    """The card's columns in Anki; None for a card never scheduled (it stays new)."""
    if memory.state == NEW or memory.due is None or memory.last_review is None:
        return None
    today = study_day(rules.now, rules.rollover_hour)
    due_day = study_day(memory.due, rules.rollover_hour)
    days = (due_day - today).days
    data = json.dumps(dict(s=memory.stability, d=memory.difficulty, dr=rules.desired_retention, decay=rules.decay,
                           lrt=int(memory.last_review.timestamp())), separators=(",", ":"))
    if memory.state == REVIEW:
        interval = max(1, (due_day - study_day(memory.last_review, rules.rollover_hour)).days)
        kind, queue, due, left = 2, REVIEW_QUEUE, days, 0
    else:
        steps = rules.learning_steps if memory.state == LEARNING else rules.relearning_steps
        remaining = max(1, steps - (memory.step or 0))
        intraday = memory.due < next_day_start(rules.now, rules.rollover_hour)
        kind = 1 if memory.state == LEARNING else 3
        queue, due = (LEARN_QUEUE, int(memory.due.timestamp())) if intraday else (DAY_LEARN_QUEUE, days)
        interval, left = (0 if memory.state == LEARNING else 1), remaining * 1000 + remaining
    return _AnkiCard(kind, SUSPENDED_QUEUE if suspended else queue, due, interval, left, data)


def _revlog_kind(review: LoggedReview) -> int:
    if review.mode == "practice":
        return FILTERED_KIND
    return {REVIEW: REVIEW_KIND, RELEARNING: RELEARN_KIND}.get(review.state_before or NEW, LEARN_KIND)


def with_schedule(exported: AnkiPackage, schedules: Mapping[str, CardSchedule], rules: ScheduleRules) -> AnkiPackage:
    """``exported`` with the schedule and review log of each card in ``schedules`` (by card id)."""
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / COLLECTION
        with zipfile.ZipFile(io.BytesIO(exported.data)) as archive:
            entries = [(info, archive.read(info)) for info in archive.infolist()]
        path.write_bytes(dict((info.filename, data) for info, data in entries)[COLLECTION])
        with closing(sqlite3.connect(path)) as db, db:
            _write(db, exported.card_of_note, schedules, rules)
        collection = path.read_bytes()
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as target:
        for info, data in entries:
            target.writestr(info, collection if info.filename == COLLECTION else data)
    return replace(exported, data=deflated(out.getvalue()),
                   scheduled_cards=sum(1 for schedule in schedules.values() if schedule.memory.state != NEW),
                   reviews=sum(len(schedule.reviews) for schedule in schedules.values()))


def _write(db: sqlite3.Connection, card_of_note: Mapping[str, str], schedules: Mapping[str, CardSchedule],
           rules: ScheduleRules) -> None:
    (conf,) = db.execute("SELECT conf FROM col").fetchone()
    # schedVer 2 and up: a learning step's ease is 1-4 (Anki reads the v1 scheduler's 3 as Easy)
    conf = json.dumps(json.loads(conf) | {"schedVer": SCHEDULER_VERSION})
    db.execute("UPDATE col SET crt = ?, conf = ?", (int(day_start(rules.now, rules.rollover_hour).timestamp()), conf))
    taken: set[int] = set()
    logged: set[str] = set()  # quizzer cards whose reviews are written
    for anki_id, guid in db.execute("SELECT cards.id, notes.guid FROM cards JOIN notes ON notes.id = cards.nid "
                                    "ORDER BY cards.id").fetchall():
        card_id = card_of_note.get(guid, "")
        schedule = schedules.get(card_id)
        if schedule is None:
            continue
        card = _anki_card(schedule.memory, rules, schedule.suspended)
        if card is not None:
            db.execute("UPDATE cards SET type = ?, queue = ?, due = ?, ivl = ?, factor = ?, reps = ?, lapses = ?, "
                       "left = ?, data = ? WHERE id = ?",
                       (card.type, card.queue, card.due, card.ivl, DEFAULT_EASE, len(schedule.reviews),
                        schedule.memory.lapses, card.left, card.data, anki_id))
        if card_id in logged:
            continue
        logged.add(card_id)
        for review in schedule.reviews:
            revlog_id = int(review.reviewed_at.timestamp() * 1000)
            while revlog_id in taken:  # ids are unique: a review in the same ms as another, a ms later
                revlog_id += 1
            taken.add(revlog_id)
            kind = _revlog_kind(review)
            db.execute("INSERT INTO revlog (id, cid, usn, ease, ivl, lastIvl, factor, time, type) "
                       "VALUES (?, ?, -1, ?, 0, 0, ?, ?, ?)",
                       (revlog_id, anki_id, review.rating, 0 if kind == FILTERED_KIND else DEFAULT_EASE,
                        review.duration_ms or 0, kind))
