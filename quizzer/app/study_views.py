"""What the daily drill (``StudySession``, ``quizzer.app.study``) takes and gives: the events a
front end sends (reveal, rate, answer, undo, bury, suspend, edited, next, quit) and the views it
draws (the card, its back, a verdict, notices, the summary), as plain data."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Literal, Union

from quizzer.app.views import Retry


# -- events ------------------------------------------------------------------


@dataclass(frozen=True)
class Reveal:
    pass


@dataclass(frozen=True)
class Rate:
    rating: int


@dataclass(frozen=True)
class Answer:
    text: str


@dataclass(frozen=True)
class Next:
    """Go on after reading the feedback."""


@dataclass(frozen=True)
class Undo:
    pass


@dataclass(frozen=True)
class Bury:
    pass


@dataclass(frozen=True)
class Suspend:
    pass


@dataclass(frozen=True)
class Edited:
    """The learner edited the current card's deck: reload the decks."""


@dataclass(frozen=True)
class Quit:
    pass


@dataclass(frozen=True)
class Look:
    """The card on screen may have been taken by another session meanwhile (a browser answered,
    buried or suspended it): if it was, the next card, with a notice saying so; nothing is saved."""


Event = Union[Reveal, Rate, Answer, Next, Undo, Bury, Suspend, Edited, Quit, Look]


# -- views -------------------------------------------------------------------


@dataclass(frozen=True)
class Remaining:
    """The cards still to show, the one on screen included, by what they are now, as Anki's three
    counts (new, learning, to review): a failed card is learning at once, since it comes back."""

    new: int = 0
    learning: int = 0
    review: int = 0

    @property
    def total(self) -> int:
        return self.new + self.learning + self.review


@dataclass(frozen=True)
class CardView:
    """A card's front, waiting for Reveal (self-rated) or an Answer (graded)."""

    card_id: str
    deck_title: str
    kind: str
    source: str
    done: int
    remaining: Remaining
    front: str
    graded: bool
    hint: str  # graded: what to type
    picks: tuple[str, ...] = ()  # answers to pick instead of typing (a choice card's letters)
    several: bool = False  # several picks go together

    @property
    def left(self) -> int:
        return self.remaining.total


@dataclass(frozen=True)
class BackView:
    """A self-rated card's back, waiting for a Rate. ``intervals``: how long until the card is
    due again after Again, Hard, Good and Easy (whole study days for a review, fuzz included;
    a practice review ahead of its day keeps its due date unless answered Again)."""

    card_id: str
    back: str
    intervals: tuple[timedelta, ...] = ()


@dataclass(frozen=True)
class Feedback:
    """The verdict on a graded answer (already saved), waiting for Next."""

    card_id: str
    correct: bool
    message: str
    rating: int
    solution: str | None  # shown in full when the answer was wrong
    explanation: str | None  # shown when right
    interval: timedelta | None = None  # until the card is due again after ``rating``
    solution_title: str = ""  # the solution's heading, translated: a worked solution or an explanation


@dataclass(frozen=True)
class Continue:
    """Feedback was shown: waiting for Next (Undo and Quit work too), or another rating, with
    when each would bring the card back (``intervals``, as the rating buttons show them)."""

    intervals: tuple[timedelta, ...] = ()


@dataclass(frozen=True)
class QueueEnd:
    """No card is left, and the last thing done (a self-rating, a bury, a suspend) had no pause
    after it: waiting for Next or Quit (the summary) or Undo, so a slip on the last card can
    still be taken back, as Anki's undo works on its "Congratulations" screen."""


NoticeKind = Literal["saved", "undone", "nothing_to_undo", "buried", "suspended", "edit_failed", "skipped_gone",
                     "reviewed_elsewhere", "answered_elsewhere", "set_aside_elsewhere"]


@dataclass(frozen=True)
class Notice:
    kind: NoticeKind
    card_id: str = ""
    rating: int = 0
    detail: str = ""
    # "saved": until the card is due again. Not part of equality: it says when, the notice what.
    due_in: timedelta | None = field(default=None, compare=False)


@dataclass
class Summary:
    reviewed: int = 0
    correct: int = 0
    seconds: float = 0.0
    leeches: list[str] = field(default_factory=list)
    ratings: dict[int, int] = field(default_factory=dict)
    forecast: list[tuple[date, int]] = field(default_factory=list)


View = Union[CardView, BackView, Feedback, Continue, QueueEnd, Retry, Notice, Summary]
