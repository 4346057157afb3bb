"""Learner-level state: the FSRS parameters ``quiz optimize`` fitted and the interview ``quiz plan``
aims at, one row (id 1) in the learner's collection (on a server, their own schema)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import date, datetime

from typing import Any

from sqlalchemy import Connection, insert, select, update

from quizzer.store.engine import Store
from quizzer.store.models import learner

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
    with store.read() as conn:
        row = conn.execute(select(learner).where(learner.c.id == LEARNER_ID)).first()
    if row is None:
        return LearnerRecord()
    parameters = tuple(float(p) for p in json.loads(row.parameters)) if row.parameters else None
    interview = None
    if row.interview_day is not None and row.interview_retention is not None:
        decks = tuple(json.loads(row.interview_decks)) if row.interview_decks else None
        interview = InterviewRecord(row.interview_day, row.interview_retention, decks)
    return LearnerRecord(parameters, row.fitted_at, interview)


def _save(conn: Connection, **values: Any) -> None:
    """Set columns of the learner's row, created on first use; the row is locked until commit."""
    this = learner.c.id == LEARNER_ID
    if conn.execute(select(learner.c.id).where(this).with_for_update()).first() is None:
        conn.execute(insert(learner).values(id=LEARNER_ID, **values))
    else:
        conn.execute(update(learner).where(this).values(**values))


def save_parameters(store: Store, parameters: tuple[float, ...] | None, fitted_at: datetime | None) -> None:
    """Store fitted parameters (None: back to the defaults)."""
    with store.write() as conn:
        _save(conn, parameters=json.dumps(list(parameters)) if parameters is not None else None,
              fitted_at=fitted_at if parameters is not None else None)


def save_interview(store: Store, interview: InterviewRecord | None) -> None:
    """Set the interview, or remove it with None."""
    with store.write() as conn:
        _save(conn, interview_day=interview.day if interview else None,
              interview_retention=interview.retention if interview else None,
              interview_decks=json.dumps(list(interview.decks)) if interview and interview.decks else None)
