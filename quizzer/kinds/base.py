"""The one interface every card kind implements, so that study, exam, lint and the report
never branch on a card's kind.

A kind is a card shape (a frozen dataclass, in the same module) plus a :class:`Kind` object that says
how a card of that kind is asked, read, scored and shown. Texts are Markdown with ``$LaTeX$``;
the front end decides how to draw them.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, Literal, TypeVar

from quizzer.base.i18n import N_, _
from quizzer.kinds.fields import CardBase

Outcome = Literal["correct", "imprecise", "wrong"]
C = TypeVar("C", bound=CardBase)
CardPath = tuple[str | int, ...]


@dataclass(frozen=True)
class Asked:
    """One showing of a card: the card and, for a generated kind, what was drawn for it."""

    card: Any  # the kind's card shape
    seed: int | None = None
    drawn: Any = None  # numeric: the Pending question drawn from ``seed`` (quizzer.kinds.numeric)


@dataclass(frozen=True)
class Reading:
    """A typed answer as its kind reads it: the answer to store, or why it cannot be read
    (a format problem, never a verdict: the learner is asked again)."""

    answer: str | None
    problem: str | None = None


@dataclass(frozen=True)
class Verdict:
    """How right an answer is: ``score`` 0..1 (exam), ``outcome`` and what to tell the learner."""

    score: float
    outcome: Outcome
    message: str

    @property
    def correct(self) -> bool:
        return self.outcome == "correct"


@dataclass(frozen=True)
class Issue:
    """A problem lint finds in a card that only its kind can judge; ``path`` is inside the card,
    ``line_offset`` counts lines inside a multi-line text."""

    path: CardPath
    message: str
    line_offset: int = 0
    prefer_key: bool = False  # point at the key (a missing or unknown field), not its value


class Kind(ABC, Generic[C]):
    """How cards of one kind behave. Subclasses set the class attributes."""

    name: ClassVar[str]  # what decks and --kind say
    title: ClassVar[str]  # what headers and reports say, in the interface language (untranslated here)
    model: ClassVar[type[CardBase]]
    graded: ClassVar[bool]  # True: the learner types an answer that is graded; False: reveal and rate
    solution_title: ClassVar[str] = N_("Explanation")  # the heading of ``solution`` (untranslated)
    solution_states_answer: ClassVar[bool] = False  # ``solution`` ends with the right answer: a report says it once

    def ask(self, card: C, seed: int | None = None) -> Asked:
        """What to show this time (a generated kind draws its question from ``seed``)."""
        return Asked(card)

    @property
    def generated(self) -> bool:
        """Whether every showing draws a fresh question (the seed is stored with the answer)."""
        return False

    @abstractmethod
    def front(self, asked: Asked) -> str:
        """The question side."""

    @abstractmethod
    def back(self, asked: Asked) -> str:
        """The answer side: what a self-rated card reveals, and the right answer in a report."""

    def solution(self, asked: Asked) -> str | None:
        """A worked solution or explanation, shown after a graded answer."""
        return None

    def model_answer(self, card: C) -> str | None:
        """The model answer shown beside a free-text answer while marking it (if any)."""
        return None

    def key_points(self, card: C) -> list[str]:
        """What an exam's free-text answer is marked against (ungraded kinds)."""
        return []

    def point_names(self, card: C) -> list[str]:
        """The key points as a report lists those not covered, under the right answer: the points
        themselves, unless they only restate that answer (then what each asks for)."""
        return self.key_points(card)

    def hint(self, asked: Asked) -> str:
        """What to type at the answer prompt: for a kind marked by the learner (an exam's qa and
        mistake), free text (the prompt read "answer (your answer)")."""
        return _("in your own words")

    def picks(self, asked: Asked) -> tuple[tuple[str, ...], bool]:
        """The answers a learner can pick instead of typing (a choice card's letters), and whether
        several go together; none for most kinds."""
        return (), False

    def prepare(self, asked: Asked) -> None:
        """Start what the answer will need while the learner reads (called once the card is on
        screen); nothing for most kinds."""

    def read(self, asked: Asked, text: str) -> Reading:
        """A typed answer, normalised for storage, or its format problem."""
        return Reading(text.strip())

    def score(self, asked: Asked, answer: str) -> Verdict:
        """The verdict on a stored answer (graded kinds)."""
        raise NotImplementedError(f"{self.name} cards are not graded")

    def texts(self, card: C) -> list[str]:
        """Every text of the card (search, lint's checks on text)."""
        return []

    def check(self, card: C, verify: bool, raw: dict[str, Any] | None = None) -> list[Issue]:
        """Problems beyond the deck model's own validation (lint); ``raw`` is the card as written,
        ``verify`` asks for the slow checks (recomputing worked examples)."""
        return []
