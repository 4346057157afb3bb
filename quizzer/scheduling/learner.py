"""The learner's own scheduling, read from the store once per command: their settings with
their fitted FSRS parameters (``quiz optimize``) and their interview (``quiz plan``), so study,
exams, history import and statistics all schedule the same way."""

from __future__ import annotations

from dataclasses import dataclass

import fsrs

from quizzer.scheduling.memory import scheduler_for
from quizzer.scheduling.plan import Interview, interview_on
from quizzer.settings import Settings
from quizzer.store import learner
from quizzer.store.engine import Store


@dataclass(frozen=True)
class Schedule:
    scheduler: fsrs.Scheduler
    interview: Interview | None  # None: no interview set (normal scheduling)


def schedule_of(store: Store, settings: Settings) -> Schedule:
    record = learner.load(store)
    interview = None
    if record.interview is not None:
        interview = interview_on(record.interview.day, record.interview.retention, record.interview.decks,
                                 settings.day_start_hour)
    return Schedule(scheduler_for(settings, record.parameters), interview)
