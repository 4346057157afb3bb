"""The exam in a browser: ``quizzer.app.exam``'s state machine, one sitting per browser session.

The time is the server's: the paper's deadline is stored with it, and an answer sent after it is
cut off there (``ExamSession`` keeps what was typed), so a reload, a lost connection or a page
left open changes nothing. A sitting lost (a restart) is taken up again with Resume, from the
store, as ``quiz exam --resume`` does."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from quizzer.app.collection import Collection
from quizzer.app.exam import ExamSession
from quizzer.app.exam_views import (
    AllMarked,
    Answer,
    Event,
    HandIn,
    Leave,
    Mark,
    MarkView,
    QuestionView,
    Report,
    SeeReport,
    TimeUp,
    UndoMark,
    View,
)
from quizzer.base.defaults import EXAM_COUNT, EXAM_MAX_MINUTES, EXAM_MIN_MINUTES, EXAM_MINUTES
from quizzer.base.errors import UsageError
from quizzer.base.i18n import _
from quizzer.settings import Settings
from quizzer.web.kept import Kept
from quizzer.web.pages import patience

KEPT = 16  # sittings held at most; the least recently used goes first
MAX_COUNT = 200
EVENTS: dict[str, Event] = {"skip": Answer(""), "handin": HandIn(), "leave": Leave(), "undomark": UndoMark(),
                            "report": SeeReport()}


@dataclass
class Sitting:
    machine: ExamSession
    views: list[View] = field(default_factory=list)

    @property
    def shown(self) -> View:
        return self.views[-1]

    def take(self, views: list[View]) -> None:
        self.views = views
        if isinstance(self.shown, QuestionView):
            self.machine.prepare()


def event_of(form: Any) -> Event | None:
    """The event an exam form sends (``action``: answer, skip, handin, leave, mark, undomark, report)."""
    action = form.get("action")
    answer = form.get("answer", "")
    if action == "answer" and isinstance(answer, str):
        return Answer(answer)
    if action == "mark":  # the key points ticked; none ticked is none covered
        return Mark(" ".join(str(point) for point in form.getlist("point")))
    return EVENTS.get(str(action))


@dataclass
class Sittings:
    collection: Collection
    settings: Settings
    held: Kept[Sitting] = field(default_factory=lambda: Kept(KEPT))

    def get(self, session: str) -> Sitting | None:
        sitting = self.held.get(session)
        if sitting is not None:
            if isinstance(sitting.shown, QuestionView) and sitting.machine.seconds_left() <= 0:
                sitting.take(sitting.machine.handle(TimeUp()))  # the page was left open past the deadline
        return sitting

    def unfinished(self) -> Any:
        return ExamSession.unfinished(self.collection)

    def start(self, session: str, form: Any) -> None:
        """A new paper of ``count`` questions in ``minutes`` (the form's, else the defaults)."""
        count = _number(form.get("count"), EXAM_COUNT, 1, MAX_COUNT, _("questions"))
        minutes = _number(form.get("minutes"), EXAM_MINUTES, EXAM_MIN_MINUTES, EXAM_MAX_MINUTES, _("minutes"))
        spec = self.collection.card_filter().paper(int(count))
        self._hold(session, ExamSession.start(self.collection, spec, None, minutes, settings=self.settings,
                                              pauses=True))

    def resume(self, session: str) -> None:
        self._hold(session, ExamSession.resume(self.collection, settings=self.settings, pauses=True))

    def handle(self, sitting: Sitting, event: Event) -> None:
        sitting.take(sitting.machine.handle(event))

    def _hold(self, session: str, machine: ExamSession) -> None:
        machine.waiting = patience(self.settings.server_retry_seconds)
        sitting = Sitting(machine)
        sitting.take(machine.begin())
        self.held.keep(session, sitting)


def _number(sent: object, default: float, low: float, high: float, what: str) -> float:
    if sent in (None, ""):
        return default
    try:
        value = float(str(sent))
    except ValueError:
        value = float("nan")
    if not low <= value <= high:  # also NaN
        raise UsageError(_("{what} must be from {low:g} to {high:g}, not {value}").format(
            what=what, low=low, high=high, value=sent))
    return value


def page_of(sitting: Sitting) -> dict[str, Any]:
    """What the exam page draws: the view waiting, and the notices before it."""
    shown = sitting.shown
    return {"notices": sitting.views[:-1], "question": shown if isinstance(shown, QuestionView) else None,
            "mark": shown if isinstance(shown, MarkView) else None, "all_marked": isinstance(shown, AllMarked),
            "report": shown if isinstance(shown, Report) else None, "shown": shown}
