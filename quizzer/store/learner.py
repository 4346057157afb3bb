"""Learner-level state: the FSRS parameters ``quiz optimize`` fitted and the interview ``quiz plan``
aims at. One learner per database today (row id 1); the functions take the store only, so a
learner argument can be added in one place when a server holds several."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import date, datetime

from sqlalchemy.orm import Session

from quizzer.store.engine import Store
from quizzer.store.models import Learner

LEARNER_ID = 1


@dataclass(frozen=True)
class InterviewRecord:
    """The interview: its day, the recall it should reach, and its decks (None: every deck)."""

    day: date
    retention: float
    decks: tuple[str, ...] | None


@dataclass(frozen=True)
class LearnerRecord:
    """What the store keeps about the learner; ``parameters`` None means FSRS's defaults."""

    parameters: tuple[float, ...] | None = None
    fitted_at: datetime | None = None
    interview: InterviewRecord | None = None


def load(store: Store) -> LearnerRecord:
    """The learner's state (defaults and no interview when nothing was stored)."""
    with store.read() as session:
        row = session.get(Learner, LEARNER_ID)
        if row is None:
            return LearnerRecord()
        parameters = tuple(float(p) for p in json.loads(row.parameters)) if row.parameters else None
        interview = None
        if row.interview_day is not None and row.interview_retention is not None:
            decks = tuple(json.loads(row.interview_decks)) if row.interview_decks else None
            interview = InterviewRecord(row.interview_day, row.interview_retention, decks)
        return LearnerRecord(parameters, row.fitted_at, interview)


def _row(session: Session) -> Learner:
    row = session.get(Learner, LEARNER_ID, with_for_update=True)
    if row is None:
        row = Learner(id=LEARNER_ID)
        session.add(row)
    return row


def save_parameters(store: Store, parameters: tuple[float, ...] | None, fitted_at: datetime | None) -> None:
    """Store fitted parameters (None: back to the defaults)."""
    with store.write() as session:
        row = _row(session)
        row.parameters = json.dumps(list(parameters)) if parameters is not None else None
        row.fitted_at = fitted_at if parameters is not None else None


def save_interview(store: Store, interview: InterviewRecord | None) -> None:
    """Set the interview, or remove it with None."""
    with store.write() as session:
        row = _row(session)
        row.interview_day = interview.day if interview else None
        row.interview_retention = interview.retention if interview else None
        row.interview_decks = json.dumps(list(interview.decks)) if interview and interview.decks else None
