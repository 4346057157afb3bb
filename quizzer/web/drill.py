"""The study sessions the server holds, one per browser session: ``quizzer.app.study``'s state
machine, its last views kept so that a page drawn again (a reload) shows the same thing. Every
answer is saved by the machine before the next card is shown, so a session lost (the server
restarted, the oldest dropped) loses nothing but the place in the queue."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from quizzer.app.collection import Collection
from quizzer.app.queue import Planned, SessionPlan, plan_session
from quizzer.app.study import StudySession
from quizzer.app.study_views import (
    Answer,
    BackView,
    Bury,
    CardView,
    Event,
    Feedback,
    Next,
    Quit,
    Rate,
    Reveal,
    Suspend,
    Undo,
    View,
)
from quizzer.settings import Settings
from quizzer.web.forms import Chosen
from quizzer.web.kept import Kept
from quizzer.web.pages import patience

KEPT = 64  # study sessions held at most; the least recently used goes first
EVENTS: dict[str, Event] = {"reveal": Reveal(), "next": Next(), "undo": Undo(), "bury": Bury(),
                            "suspend": Suspend(), "quit": Quit()}


@dataclass
class Drill:
    """A browser's study session: the machine, what its last event gave, the card on screen
    (the back and the verdict are drawn under it) and the verdict on its answer."""

    machine: StudySession
    views: list[View] = field(default_factory=list)
    card: CardView | None = None
    feedback: Feedback | None = None

    def take(self, views: list[View]) -> None:
        self.views = views
        for view in views:
            if isinstance(view, CardView):
                self.card, self.feedback = view, None
            elif isinstance(view, Feedback):
                self.feedback = view

    @property
    def shown(self) -> View:
        """What waits for the next event."""
        return self.views[-1]

    @property
    def back(self) -> BackView | None:
        return self.shown if isinstance(self.shown, BackView) else None


def event_of(form: Any) -> Event | None:
    """The event a study form sends (``action``, with ``rating``, or the ``answer`` typed or the
    ``pick`` values picked); None: not one."""
    action = form.get("action")
    if action == "rate":
        rating = str(form.get("rating", ""))
        return Rate(int(rating)) if rating in ("1", "2", "3", "4") else None
    if action == "answer" and form.getlist("pick"):  # the letters picked: the answer they type
        return Answer("".join(str(pick) for pick in form.getlist("pick")))
    if action == "answer":
        answer = form.get("answer", "")
        return Answer(answer) if isinstance(answer, str) else None
    return EVENTS.get(str(action))


@dataclass
class Drills:
    """The study sessions by browser session id."""

    collection: Collection
    settings: Settings
    held: Kept[Drill] = field(default_factory=lambda: Kept(KEPT))

    def get(self, session: str) -> Drill | None:
        return self.held.get(session)

    def start(self, session: str, cards: Chosen, now: datetime) -> SessionPlan:
        """A new study session of the ``cards`` chosen (none chosen: every deck's) for ``session``,
        when one is due; the plan either way (its NothingDue says why none is)."""
        chosen = self.collection.card_filter(cards.decks or None, cards.tags or None, cards.kinds or None)
        planned = plan_session(self.collection, chosen, self.settings, now)
        if isinstance(planned, Planned):
            self._hold(session, StudySession(self.collection, planned.queue, chosen=chosen, settings=self.settings,
                                             refills=True))
        else:
            self.held.drop(session)
        return planned

    def start_notebook(self, session: str, queue: list[str]) -> None:
        """A drill of the mistakes notebook's cards ``queue`` (``quiz mistakes --drill``): only those."""
        self._hold(session, StudySession(self.collection, queue, only_queued=True, settings=self.settings))

    def _hold(self, session: str, machine: StudySession) -> None:
        machine.waiting = patience(self.settings.server_retry_seconds)
        drill = Drill(machine)
        drill.take(machine.start())
        machine.prepare()
        self.held.keep(session, drill)

    def handle(self, drill: Drill, event: Event) -> None:
        self._take(drill, drill.machine.handle(event))

    def catch_up(self, drill: Drill) -> None:
        """Before a page is drawn again: a card on screen that another session (a terminal, another
        browser) answered meanwhile gives way to the next."""
        views = drill.machine.catch_up()
        if views is not None:
            self._take(drill, views)

    def _take(self, drill: Drill, views: list[View]) -> None:
        drill.take(views)
        if isinstance(drill.shown, CardView):
            drill.machine.prepare()
