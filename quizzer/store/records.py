"""What the store hands out: frozen dataclasses, never database rows, so nothing above the store
depends on SQLAlchemy (or on which database it talks to)."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from datetime import datetime, timedelta
from typing import Literal

from quizzer.base.defaults import EXAM_MAX_MINUTES

NEW, LEARNING, REVIEW, RELEARNING = 0, 1, 2, 3  # fsrs.State values, plus NEW for a card never reviewed
STATE_NAMES = {NEW: "new", LEARNING: "learning", REVIEW: "review", RELEARNING: "relearning"}
PRACTICE = "practice"  # a review's mode when it was practice (``scheduling.memory``'s practice rule)
LEECH_TAG = "leech"
MODES = ("study", "exam")


@dataclass(frozen=True)
class MemoryState:
    """Every card column an answer changes: enough for undo to restore exactly."""

    state: int
    step: int | None
    stability: float | None
    difficulty: float | None
    due: datetime | None
    last_review: datetime | None
    lapses: int
    leech: bool


@dataclass(frozen=True)
class CardRecord:
    """A card as the store knows it: where it comes from, its flags and its memory."""

    id: str
    deck: str
    kind: str
    position: int
    content_hash: str
    tags: tuple[str, ...]
    active: bool
    suspended: bool
    buried_until: datetime | None
    first_seen: datetime
    memory: MemoryState


@dataclass(frozen=True)
class ReviewRecord:
    id: int
    card_id: str
    reviewed_at: datetime
    rating: int
    duration_ms: int | None
    mode: str
    answer_text: str | None
    correct: bool | None
    seed: int | None
    state_before: int
    scheduled: bool


@dataclass(frozen=True)
class NewReview:
    """One answer as the scheduler hands it to the store."""

    rating: int
    reviewed_at: datetime
    duration_ms: int | None
    mode: str = "study"
    answer_text: str | None = None
    correct: bool | None = None
    seed: int | None = None


@dataclass(frozen=True)
class Decision:
    """What the scheduler decided for one answer, given the card's memory before it."""

    after: MemoryState
    scheduled: bool  # False for an ahead (practice) review that leaves the state alone
    became_leech: bool


@dataclass(frozen=True)
class Answered:
    review_id: int
    card_id: str
    previous: MemoryState
    current: MemoryState
    became_leech: bool
    scheduled: bool


@dataclass(frozen=True)
class DueRow:
    """A review card due soon, with what ordering by recall needs."""

    id: str
    stability: float
    last_review: datetime
    due: datetime


@dataclass(frozen=True)
class PaperSpec:
    """What an exam paper is drawn from; stored with the exam so ``--seed`` can give it again."""

    count: int
    decks: list[str] | None = None
    tags: list[str] | None = None
    kinds: list[str] | None = None

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)


@dataclass(frozen=True)
class ExamRecord:
    id: int
    seed: int
    started_at: datetime
    minutes: float
    filters: str
    finished_at: datetime | None
    score: float | None  # percent, once finished
    handed_in_at: datetime | None = None  # the answering ended (handed in, or time up): only marking is left

    @property
    def deadline(self) -> datetime:
        """When time is up. A time allowed out of range (written by another tool or an older quiz,
        which took ``--minutes inf``; `quiz check` names it) counts as the longest allowed."""
        minutes = self.minutes if 0 < self.minutes <= EXAM_MAX_MINUTES else EXAM_MAX_MINUTES
        return self.started_at + timedelta(minutes=minutes)

    def left_to_do(self, now: datetime) -> Literal["marking", "scoring", "answering"]:
        """What taking this unfinished exam up does: mark its answers (it was handed in), score
        them (its time is up), or go on answering."""
        if self.handed_in_at is not None:
            return "marking"
        return "scoring" if self.deadline <= now else "answering"


def cut_off(status: str, answer_text: str | None) -> bool:
    """Whether an exam question holds the text being typed when time ran out: it is scored and
    marked as given, so it counts with the answered."""
    return status == "unanswered" and bool(answer_text)


@dataclass(frozen=True)
class QuestionRecord:
    exam_id: int
    position: int
    card_id: str
    kind: str
    seed: int | None
    status: str  # unanswered, skipped, answered
    answer_text: str | None
    duration_ms: int
    covered: list[int] | None
    score: float | None
    review_id: int | None


@dataclass(frozen=True)
class ExamMark:
    """What scoring writes for a question, with its exam review, in the same transaction."""

    exam_id: int
    position: int
    score: float
    covered: list[int] | None
    wrong: bool  # goes into the mistakes notebook


@dataclass(frozen=True)
class MistakeRecord:
    card_id: str
    times_wrong: int
    last_wrong_at: datetime
    last_wrong_answer: str | None
    last_wrong_seed: int | None  # a numeric card's question got wrong (its review's seed)


@dataclass(frozen=True)
class ReviewSince:
    """A review given after a card's last mistake (for the notebook's exit rule)."""

    card_id: str
    reviewed_at: datetime
    rating: int
    correct: bool | None
    answer_text: str | None
    seed: int | None
