"""The cards due on each coming study day as a study session's (or an exam's) load balancer reads them (where a
review lands: ``scheduling.answer.placement_for``): read from the store once per study day and
then kept by the session's own answers, as Anki builds its load balancer with the day's queues
and tells it of each answer, rather than counting the whole collection again for every card.
An undo, a bury, a suspend or an edit reads them again; another session's answers meanwhile
count from the next read."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date

from quizzer.base.clock import study_day
from quizzer.scheduling.answer import day_load
from quizzer.store.engine import Store
from quizzer.store.records import NEW, Answered, MemoryState


@dataclass
class DayLoad:
    """``placement_for``'s ``load_of``, kept: ``counts[i]`` cards due on study day ``day`` + i."""

    store: Store
    rollover_hour: int
    day: date | None = None  # the day the counts start on; None: to be read
    counts: list[int] = field(default_factory=list)

    def __call__(self, today: date) -> list[int]:
        if today != self.day:
            self.counts, self.day = list(day_load(self.store, self.rollover_hour)(today)), today
        return self.counts

    def answered(self, answer: Answered) -> None:
        """``answer``'s card counts on the day it is now due, not on the one it was."""
        if self.day is not None:
            self._count(answer.previous, -1)
            self._count(answer.current, +1)

    def taken_back(self, answer: Answered) -> None:
        """``answer`` undone: its card counts on the day it was due before it."""
        if self.day is not None:
            self._count(answer.current, -1)
            self._count(answer.previous, +1)

    def forget(self) -> None:
        """Read the counts again at the next answer (the session changed cards in other ways)."""
        self.day = None

    def _count(self, memory: MemoryState, sign: int) -> None:
        if memory.state == NEW or memory.due is None or self.day is None:
            return
        offset = max(0, (study_day(memory.due, self.rollover_hour) - self.day).days)  # overdue: today
        if offset < len(self.counts):
            self.counts[offset] += sign
