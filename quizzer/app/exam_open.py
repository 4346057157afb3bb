"""Which paper ``quiz exam`` opens, and the exams' history as data.

A new paper is drawn unless an exam is unfinished: then the learner is offered that one first
(one unfinished paper at a time where there is someone to ask; a script's new paper goes ahead).
``--resume`` takes up the unfinished one."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from quizzer.app.collection import Collection
from quizzer.app.exam import ExamSession
from quizzer.base.errors import NoDecks
from quizzer.settings import DEFAULTS, Settings
from quizzer.store.records import ExamRecord


@dataclass(frozen=True)
class NewPaper:
    """The paper asked for: ``count`` questions from the cards of these decks, tags and kinds (None:
    all), ``minutes`` to answer them, drawn from ``seed`` (None: a fresh one)."""

    count: int
    minutes: float
    seed: int | None = None
    decks: list[str] | None = None
    tags: list[str] | None = None
    kinds: list[str] | None = None


@dataclass(frozen=True)
class Offer:
    """An unfinished exam stands before the new paper asked for: take it up, or start the new one."""

    waiting: ExamRecord
    collection: Collection
    wanted: NewPaper
    options: dict[str, Any] = field(default_factory=dict)

    def to_do(self, now: datetime) -> str:
        """What taking it up does: ``marking``, ``scoring`` or ``answering``."""
        return self.waiting.left_to_do(now)

    def take_up(self) -> ExamSession:
        return ExamSession.resume(self.collection, **self.options)

    def start_new(self) -> ExamSession:
        return _start(self.collection, self.wanted, self.options)


def open_paper(collection: Collection, wanted: NewPaper, resume: bool, *, settings: Settings = DEFAULTS,
               pauses: bool = False) -> Offer | ExamSession:
    """The exam to sit: the unfinished one (``resume``; NoUnfinishedExam if none), else an Offer of
    the unfinished one, else a new paper (NoDecks without decks; an unknown deck, tag or kind is an
    error naming the known ones; NothingToExamine when no card matches)."""
    options: dict[str, Any] = dict(settings=settings, pauses=pauses)
    if resume:
        return ExamSession.resume(collection, **options)
    if not collection.decks:
        raise NoDecks()
    waiting = ExamSession.unfinished(collection)
    if waiting is not None:
        return Offer(waiting, collection, wanted, options)
    return _start(collection, wanted, options)


def _start(collection: Collection, wanted: NewPaper, options: dict[str, Any]) -> ExamSession:
    chosen = collection.card_filter(wanted.decks, wanted.tags, wanted.kinds)
    return ExamSession.start(collection, chosen.paper(wanted.count), wanted.seed, wanted.minutes, **options)


def history_dicts(past: list[tuple[ExamRecord, int, int]], now: datetime) -> list[dict[str, Any]]:
    """The exams as ``quiz exam --history --json`` gives them."""
    return [
        {"id": exam.id, "seed": exam.seed, "started_at": exam.started_at, "finished_at": exam.finished_at,
         "minutes": exam.minutes, "questions": total, "answered": answered,
         "score": exam.score if exam.finished_at is not None else None,
         "unfinished": exam.finished_at is None, "resumable": exam.finished_at is None and exam.deadline > now,
         "filters": _filters(exam.filters)}
        for exam, total, answered in past
    ]


def _filters(text: str) -> Any:
    """An exam's stored filters as JSON data; a text that is not JSON, as it is."""
    try:
        return json.loads(text)
    except ValueError:
        return text
