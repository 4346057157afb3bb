"""What a mock interview (``ExamSession``, ``quizzer.app.exam``) takes and gives: the events a
front end sends (an answer, a hand-in, leaving, the clock running out, a mark, taking a mark back)
and the views it draws (the question, marking, the report), as plain data."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Union

from quizzer.app.views import Retry
from quizzer.store.records import ExamRecord, QuestionRecord

WRONG_BELOW = 0.5


# ------------------------------------------------------------------ events and views


@dataclass(frozen=True)
class Answer:
    text: str  # empty: skip


@dataclass(frozen=True)
class HandIn:
    pass


@dataclass(frozen=True)
class Leave:
    pass


@dataclass(frozen=True)
class TimeUp:
    """The clock ran out while the learner was typing ``text`` (perhaps nothing)."""

    text: str = ""


@dataclass(frozen=True)
class Mark:
    text: str  # the key points covered: "1 3", "a" for all, empty for none


@dataclass(frozen=True)
class UndoMark:
    """Take back the last mark given (its review, its score, the mistake it noted) and mark again."""


@dataclass(frozen=True)
class SeeReport:
    """Every answer is marked: on to the report (a pause ``pauses`` makes, for a last undo)."""


Event = Union[Answer, HandIn, Leave, TimeUp, Mark, UndoMark, SeeReport]


@dataclass(frozen=True)
class QuestionView:
    position: int
    number: int  # 1-based, as shown
    total: int
    seconds_left: float
    card_id: str
    deck_title: str  # "§4.3" alone could be either chapter's
    kind: str
    source: str
    front: str
    hint: str
    earlier_answer: str | None


@dataclass(frozen=True)
class GoingRound:
    """Skipped questions come round again."""

    skipped: int


@dataclass(frozen=True)
class TimeIsUp:
    at_start: bool  # the exam's time had already run out when it was resumed


@dataclass(frozen=True)
class HandedIn:
    """A resumed exam had been handed in (or its time was up) before it was left: the marking goes on."""

    time_up: bool = False  # its answering ended with the clock, not a hand-in


@dataclass(frozen=True)
class LeftUnfinished:
    exam_id: int
    deadline: datetime
    expired: bool
    marking: bool = False  # left during the marking, after the hand-in


@dataclass(frozen=True)
class MarkView:
    """A free-text answer to mark against its key points."""

    position: int
    card_id: str
    question: str  # as it was asked: a paper of 15 is not marked from memory
    answer_text: str | None
    model_answer: str | None
    points: list[str]
    cut_off: bool = False  # the answer was being typed when time ran out
    undoable: bool = False  # a mark given in this session can be taken back


@dataclass(frozen=True)
class AllMarked:
    """The last answer is marked; the report follows once the learner has seen this (or taken a mark back)."""


@dataclass(frozen=True)
class ReportRow:
    position: int
    card_id: str
    kind: str
    deck: str
    source: str
    tags: list[str]
    status: str
    answer_text: str | None
    cut_off: bool  # ``answer_text`` is what was typed when time ran out
    duration_ms: int
    score: float
    text: str  # the question as it was asked
    right_answer: str | None  # None: the solution ends with it
    solution: str | None
    missed: list[str] = field(default_factory=list)  # a marked answer's key points not covered
    verdict: str | None = None  # a graded answer's verdict, as study gives it ("blank 2 wrong; ...")


@dataclass
class Report:
    exam: ExamRecord
    rows: list[ReportRow] = field(default_factory=list)

    @property
    def answered(self) -> int:
        return sum(row.status == "answered" for row in self.rows)

    @property
    def cut_off(self) -> int:
        return sum(row.cut_off for row in self.rows)

    @property
    def noted(self) -> int:
        """Questions the mistakes notebook took: asked, and scored below WRONG_BELOW."""
        return sum(row.score < WRONG_BELOW and not never_asked(row) for row in self.rows)

    def by(self, key: Callable[[ReportRow], str | list[str]]) -> list[tuple[str, float, int]]:
        """(group, mean score in percent, questions) grouped by ``key(row)`` (a str or list)."""
        groups: dict[str, list[float]] = {}
        for row in self.rows:
            keys = key(row)
            for k in [keys] if isinstance(keys, str) else keys:
                groups.setdefault(k, []).append(row.score)
        return [(k, 100.0 * sum(v) / len(v), len(v)) for k, v in sorted(groups.items())]


View = Union[QuestionView, Retry, GoingRound, TimeIsUp, HandedIn, LeftUnfinished, MarkView, AllMarked, Report]


def never_asked(question: QuestionRecord | ReportRow) -> bool:
    """Never shown: no time was spent on it and nothing typed (a shown question's time is saved
    whenever it is left: answered, skipped, left, handed in or cut off)."""
    return question.status == "unanswered" and not question.answer_text and question.duration_ms == 0

