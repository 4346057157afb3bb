"""Which card a study session (``StudySession``, ``quizzer.app.study``) shows and which come
next: the queue and the card on screen with its views, cards in learning brought back as their
step comes due (before the rest, as in Anki), a new card in place of one set aside, and the end
of the session's summary."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Literal

from quizzer import kinds
from quizzer.base import clock
from quizzer.app.auto_rating import Unrated
from quizzer.app.busy import Waiting
from quizzer.app.collection import Collection
from quizzer.app.study_load import DayLoad
from quizzer.app.study_views import BackView, CardView, Continue, NoticeKind, QueueEnd, Remaining, Summary, View
from quizzer.base.errors import DatabaseError
from quizzer.kinds.base import Asked
from quizzer.scheduling import queue as queues
from quizzer.scheduling.learner import schedule_of
from quizzer.scheduling.memory import Placement
from quizzer.scheduling.summary import due_forecast
from quizzer.settings import DEFAULTS, Settings
from quizzer.store import cards as card_store
from quizzer.store.filter import EVERYTHING, CardFilter
from quizzer.store.records import NEW, REVIEW, Answered


@dataclass(frozen=True)
class Done:
    """One answer of this session, for undo, another rating and the summary; a graded answer's
    text and verdict, time and duration, to save it again under another rating."""

    answered: Answered
    rating: int
    answer_text: str | None
    correct: bool | None
    reviewed_at: datetime
    duration_ms: int
    placement: Placement  # where its day was placed from: another rating lands as the buttons said
    seed: int | None  # the question a generated card drew: undo asks the same one again


@dataclass(frozen=True)
class SetAside:
    """A bury or suspend of this session, for undo: the card's flags before it."""

    card_id: str
    suspended: bool
    buried_until: datetime | None
    replacement: str | None = None  # the new card that took a new card's place (``refill``)


class StudyOrder:
    """A session's cards in the order it shows them, and the card on screen; ``StudySession``
    adds what the learner does to it."""

    def __init__(
        self,
        collection: Collection,
        queue: list[str],
        *,
        chosen: CardFilter = EVERYTHING,
        only_queued: bool = False,
        pauses: bool = True,
        tick: Callable[[], float] = time.monotonic,
        settings: Settings = DEFAULTS,
        refills: bool = False,
    ) -> None:
        self.collection = collection
        self.chosen = chosen
        self.settings = settings
        schedule = schedule_of(collection.store, settings)
        self.scheduler, self.interview = schedule.scheduler, schedule.interview
        self.load = DayLoad(collection.store, settings.day_start_hour)  # where a review lands: the days' load
        self.known_states: dict[str, int] = {}  # the counts' cards by state, kept between views (``_states``)
        self.seen_review: int | None = None  # the log's latest review when they were last looked at
        self.scope = set(queue) if only_queued else None  # a drill brings back only its own cards
        self.pauses = pauses
        self.tick = tick
        self.queue = [card_id for card_id in queue if card_id in collection.cards]
        self.position = 0  # the card on screen (or, in feedback, the one after the card answered)
        self.phase: Literal["front", "back", "feedback", "end", "done"] = "front"
        self.asked: Asked | None = None
        self.undone_graded: set[str] = set()  # their next answer is rated by the learner (``Unrated``)
        self.unrated: Unrated | None = None  # the verdict on screen as a back, waiting for a Rate
        self.back_text = ""  # that verdict's back
        self.intervals: tuple[timedelta, ...] = ()  # the back on screen: after each rating
        self.shown_at = tick()
        self.started = tick()
        self.opened_at = clock.now()  # a card reviewed after this, not by this session, was studied elsewhere
        self.history: list[Done | SetAside] = []  # what undo takes back, the latest last
        self.set_aside: set[str] = set()  # buried or suspended in this session
        self.summary = Summary()
        self.warmed = False  # torch prewarmed (after the first card is on screen)
        self.waiting: Waiting | None = None  # the screen's, while an answer waits for the write lock
        # a new card set aside does not count as studied, so, as in Anki, the next one today's study
        # offers comes in its place (not when the command set its own count: --new, --limit)
        self.refills = refills

    # -- the card on screen and the ones to come ----------------------------

    def _card_id(self) -> str:
        return self.queue[self.position]

    def _kind(self) -> Any:
        return kinds.of(self.collection.cards[self._card_id()])

    def _asked(self) -> Asked:
        assert self.asked is not None, "a card is on screen"
        return self.asked

    def _back(self) -> BackView:
        back = self.back_text if self.unrated is not None else self._kind().back(self._asked())
        return BackView(self._card_id(), back, self.intervals)

    def _current(self) -> View:
        if self.phase == "back":
            return self._back()
        if self.phase == "feedback":
            return Continue(self.intervals)
        if self.phase == "end":
            return QueueEnd()
        return self._view()

    def _view(self) -> CardView:
        card = self.collection.cards[self._card_id()]
        kind = kinds.of(card)
        asked = self._asked()
        return CardView(card.id, self.collection.deck_of(card.id).title, card.kind, card.source,
                        self.position, self._remaining(), kind.front(asked),
                        kind.graded, kind.hint(asked) if kind.graded else "", *kind.picks(asked))

    def _remaining(self) -> Remaining:
        """The queue from the card on screen on, and the cards in learning the session will still
        show (those ``_requeue_learning`` brings back, failed now or in an earlier session) though
        not yet queued: Anki counts them as left at once, so "0 left" does not precede a card."""
        ahead = self.queue[self.position:]
        queued = set(ahead)
        coming_back = [card_id for card_id in self._learning_due(clock.now() + queues.LEARN_AHEAD) if card_id not in queued]
        states = self._states(ahead)
        by_state = Counter(states.get(card_id, NEW) for card_id in ahead)
        return Remaining(new=by_state[NEW], review=by_state[REVIEW],
                         learning=len(ahead) - by_state[NEW] - by_state[REVIEW] + len(coming_back))

    def _states(self, card_ids: list[str]) -> dict[str, int]:
        """The states of ``card_ids`` (and others): kept from one view to the next, and read again
        for the cards reviewed since (by any session: one look at the log's latest rows) and those
        not read yet. A review taken back as the log's latest (this session's undo, mostly) reads
        them all again; one another session takes back under a later review leaves its card
        counted by the state that review gave it until the card is reviewed again."""
        latest, changed = card_store.reviewed_after(self.collection.store, self.seen_review)
        if self.seen_review is not None and latest < self.seen_review:
            self.known_states.clear()
        self.seen_review = latest
        for card_id in changed:
            self.known_states.pop(card_id, None)
        missing = [card_id for card_id in card_ids if card_id not in self.known_states]
        if missing:
            self.known_states.update(card_store.states(self.collection.store, missing))
        return self.known_states

    def _show_next(self) -> View:
        while self.position < len(self.queue) or self._requeue_learning():
            card = self.collection.cards.get(self._card_id())
            if card is None or self._taken_elsewhere(card.id):  # undone, then edited away; or studied, buried
                del self.queue[self.position]  # or suspended in another session meanwhile (a card due again
                continue  # comes back through the learning requeue)
            self.asked = kinds.of(card).ask(card)
            self.phase, self.unrated = "front", None
            self.shown_at = self.tick()
            return self._view()
        if self.pauses and self.history and self.phase != "feedback":
            self.phase = "end"  # (after a verdict's pause, Next means the learner has seen it)
            return QueueEnd()
        return self._finish()

    def _taken_elsewhere(self, card_id: str) -> NoticeKind | None:
        """How another session (a terminal, a browser) took ``card_id`` since this one began: it
        answered it (showing it again would review it twice), or it buried or suspended it (not
        this one: a card it sets aside leaves its queue); None: it did not. One query."""
        last, suspended, buried_until = card_store.standing(self.collection.store, card_id)
        if (last is not None and last > self.opened_at
                and not any(isinstance(done, Done) and done.answered.card_id == card_id for done in self.history)):
            return "answered_elsewhere"
        if card_id not in self.set_aside and (suspended or (buried_until is not None and buried_until > clock.now())):
            return "set_aside_elsewhere"
        return None

    def _learning_due(self, until: datetime) -> list[str]:
        """This session's cards in learning due by ``until``, soonest first: a drill's own only."""
        return [c for c in queues.learning_due(self.collection.store, until, self.chosen)
                if c in self.collection.cards and (self.scope is None or c in self.scope)]

    def _learning_first(self) -> None:
        """Cards in learning whose step is due now go next, before the rest of the queue (Anki)."""
        due = self._learning_due(clock.now())
        if due:
            self.queue[self.position:] = due + [c for c in self.queue[self.position:] if c not in due]

    def _requeue_learning(self) -> bool:
        """At the end of the queue, bring back cards in learning due within LEARN_AHEAD."""
        self.queue[self.position:] = self._learning_due(clock.now() + queues.LEARN_AHEAD)
        return self.position < len(self.queue)

    def _shown_once(self) -> None:
        """The card at ``position`` is not queued again after it: the answer taken back may have
        queued it (a learning step due now, or brought back at the queue's end)."""
        card_id = self.queue[self.position]
        self.queue[self.position + 1:] = [c for c in self.queue[self.position + 1:] if c != card_id]

    def _replacement(self) -> str | None:
        """The first new card today's study offers that the session has not queued."""
        if not self.refills:
            return None
        offered = queues.new_offered(self.collection.store, clock.now(), new_per_day=self.settings.new_per_day,
                                     chosen=self.chosen, rollover_hour=self.settings.day_start_hour,
                                     deck_new_per_day=self.settings.deck_new_per_day, interview=self.interview)
        ahead = set(self.queue[self.position:]) | self.set_aside
        return next((c for c in offered if c not in ahead and c in self.collection.cards), None)

    def _finish(self) -> Summary:
        self.phase = "done"
        self.summary.seconds = self.tick() - self.started
        try:
            self.summary.forecast = due_forecast(self.collection.store, clock.now(),
                                                 rollover_hour=self.settings.day_start_hour)
        except DatabaseError:  # the server went down: what was done is said all the same (every answer
            pass  # shown as saved was), without what is coming
        return self.summary
