"""The daily drill as a state machine: events in (reveal, rate, answer, undo, bury, suspend,
edited, next, quit), views out (the card to show, the back, feedback, notices, the summary),
both defined in ``study_views``. Which card is on screen and which come next is ``study_order``'s.

Self-rated kinds show their front, then their back on ``Reveal``, then take a ``Rate``.
Graded kinds take an ``Answer``: a format problem asks again, a verdict rates itself
(wrong → Again; right → Good, or Easy when fast, Hard when slow, by the ``{kind}_speed``
settings; never Easy at a card's first sight). A graded card answered again after an undo shows
its verdict as a back and takes the learner's Rate, as a self-rated card does.
Each answer is committed as it is made. A card in learning comes back as soon as its step is
due, between the other cards, and before the session ends when due within Anki's learn-ahead
limit.

The learner's settings (``quizzer.settings``) give the scheduler and the hour a study day
starts. The back of a card carries when it would next be due after each rating (computed,
not saved); feedback and the "saved" notice carry when it is due after the rating given.
"""

from __future__ import annotations

import threading
from datetime import datetime, timedelta
from typing import Any

from quizzer import kinds
from quizzer.base import clock
from quizzer.app.auto_rating import Unrated, auto_rating
from quizzer.app.busy import patiently
from quizzer.app.study_order import Done, SetAside, StudyOrder
from quizzer.app.study_views import (
    Answer,
    Bury,
    Continue,
    Edited,
    Event,
    Feedback,
    Look,
    Next,
    Notice,
    NoticeKind,
    Quit,
    Rate,
    Reveal,
    Suspend,
    Undo,
    View,
)
from quizzer.app.views import Retry
from quizzer.base.defaults import Rating
from quizzer.base.errors import DeckProblems
from quizzer.base.i18n import _, join, translate_checker_message
from quizzer.scheduling import answer as answering
from quizzer.store import cards as card_store
from quizzer.store.cards import ReviewedSince
from quizzer.store.records import NEW


def prewarm(cards: list[Any]) -> threading.Thread | None:
    """Import torch in the background when the queue holds a generated card, so it shows at once."""
    if not any(kinds.of(card).generated for card in cards):
        return None

    def load() -> None:
        from checkers import reference  # noqa: F401  (imports torch)

    thread = threading.Thread(target=load, name="torch-prewarm", daemon=True)
    thread.start()
    return thread


class StudySession(StudyOrder):
    """Shows ``queue``'s cards one at a time and records each answer. ``pauses`` (a terminal; a
    script on a pipe goes straight on): after a graded answer's verdict, and once at the queue's
    end, so that the last answer can still be rated again or undone."""

    # -- driving -------------------------------------------------------------

    def start(self) -> list[View]:
        return [self._show_next()]

    def prepare(self) -> None:
        """The card on screen has been drawn: its kind may start what its answer needs, and
        after the first card torch loads in the background if the queue will need it (any
        earlier, loading it would slow the drawing of the first card)."""
        if self.asked is not None:
            self._kind().prepare(self.asked)
        if not self.warmed:
            self.warmed = True
            prewarm([self.collection.cards[card_id] for card_id in self.queue])

    def handle(self, event: Event) -> list[View]:
        """The views that follow ``event``; the last one is what waits for the next event."""
        if self.phase == "done":
            return [self.summary]
        if isinstance(event, Look):
            return self.catch_up() or [self._current()]
        if isinstance(event, Undo):
            return self._undo()
        if isinstance(event, Quit) or self.phase == "end":
            return [self._finish()]
        if isinstance(event, Edited):
            return self._edited()
        if self.phase == "feedback" and isinstance(event, Rate) and event.rating in range(1, 5):
            return self._rerate(event.rating)
        if self.phase == "feedback":
            return [self._show_next()] if isinstance(event, Next) else [self._current()]
        if isinstance(event, (Reveal, Rate, Answer)) and (moved := self.catch_up()) is not None:
            return moved  # the other session's answer stands: this one would review the card twice
        if isinstance(event, (Bury, Suspend)):
            return self._set_aside(event)
        if self.phase == "front" and isinstance(event, Reveal) and not self._kind().graded:
            self.phase = "back"
            self.intervals = self._intervals(self._card_id(), clock.now())
            return [self._back()]
        if self.phase == "back" and isinstance(event, Rate) and event.rating in range(1, 5):
            unrated, self.unrated = self.unrated, None
            if unrated is not None:
                self.undone_graded.discard(self._card_id())
                return list(self._record(event.rating, unrated.answer_text, unrated.correct, pause=False))
            return list(self._record(event.rating, None, None))
        if self.phase == "front" and isinstance(event, Answer) and self._kind().graded:
            return self._answer(event.text)
        return [self._current()]

    def current(self) -> View:
        """What waits for the next event now (a page drawn again shows it)."""
        return self.summary if self.phase == "done" else self._current()

    def catch_up(self) -> list[View] | None:
        """When the card on screen (front or back, not yet answered) was reviewed, buried or
        suspended in another session since this one began, the views that take its place: a page
        drawn again must not offer it a second time. None when it was not."""
        taken = self.taken_elsewhere()
        return None if taken is None else [Notice(taken, self._card_id()), self._show_next()]

    def taken_elsewhere(self) -> NoticeKind | None:
        """How another session took the card on screen (front or back) since this one began: it
        answered it, or buried or suspended it; None: it did not (one query, as a screen waiting
        for a key asks it now and then)."""
        return self._taken_elsewhere(self._card_id()) if self.phase in ("front", "back") else None

    def location(self) -> tuple[Any, int]:
        """The deck file and line of the card on screen (for the editor)."""
        return self.collection.location(self._card_id())

    # -- steps ---------------------------------------------------------------

    def _answer(self, text: str) -> list[View]:
        kind, asked = self._kind(), self._asked()
        if not text.strip():  # "I don't know": the answer shown and Again, as Anki's reveal and 1
            return self._given_up()  # (only a made-up wrong answer showed it: an empty one was refused)
        reading = kind.read(asked, text)
        if reading.answer is None:
            return [Retry(reading.problem or "?"), self._view()]
        verdict = kind.score(asked, reading.answer)
        if verdict.outcome == "imprecise":  # the answer is not shown: asked again at the precision wanted
            return [Retry(verdict.message), self._view()]
        card_id = self._card_id()
        if card_id in self.undone_graded:
            return self._learner_rates(Unrated(reading.answer, verdict.correct), verdict.message,
                                       kind.solution(asked), kind.solution_title)
        first_sight = card_store.states(self.collection.store, [card_id]).get(card_id, NEW) == NEW
        rating = auto_rating(self.settings.speed(self.collection.cards[card_id].kind), verdict.correct,
                             self.tick() - self.shown_at, first_sight)
        if self.pauses:  # the verdict's pause offers the other ratings, with their waits
            self.intervals = self._intervals(card_id, clock.now())
        saved, *after = self._record(rating, reading.answer, verdict.correct)
        feedback = Feedback(card_id, verdict.correct, verdict.message, rating,
                            None if verdict.correct else kind.solution(asked),
                            kind.solution(asked) if verdict.correct else None, saved.due_in, _(kind.solution_title))
        return [feedback, saved, *after]

    def _learner_rates(self, unrated: Unrated, verdict: str, solution: str | None, solution_title: str) -> list[View]:
        """The verdict and the solution as a back, the learner's rating next (nothing saved yet)."""
        self.unrated, self.phase = unrated, "back"
        shown = [translate_checker_message(verdict), *([f"**{_(solution_title)}**", solution] if solution else [])]
        self.back_text = "\n\n".join(shown)
        self.intervals = self._intervals(self._card_id(), clock.now())
        return [self._back()]

    def _given_up(self) -> list[View]:
        kind, asked, card_id = self._kind(), self._asked(), self._card_id()
        if self.pauses:
            self.intervals = self._intervals(card_id, clock.now())
        shown = [text for text in (None if kind.solution_states_answer else kind.back(asked), kind.solution(asked)) if text]
        saved, *after = self._record(Rating.AGAIN, None, False)
        return [Feedback(card_id, False, _("No answer: the right one is below."), Rating.AGAIN, "\n\n".join(shown), None,
                         saved.due_in, _("Right answer")), saved, *after]

    def _record(self, rating: int, answer_text: str | None, correct: bool | None,
                again: Done | None = None, pause: bool = True) -> tuple[Notice, View]:
        """Save the answer to the card on screen; ``again``: the same answer taken back, whose
        time and duration it keeps. A graded answer pauses after its verdict (``pause``) unless
        the learner rated it already."""
        card_id = self._card_id()
        asked = self._asked()
        now = clock.now() if again is None else again.reviewed_at
        duration_ms = int((self.tick() - self.shown_at) * 1000) if again is None else again.duration_ms
        unsaved = _("the answer to {card} was not saved, every answer before it was").format(card=card_id)
        placement = again.placement if again is not None else patiently(lambda: answering.placement_for(
            self.collection.store, card_id, now, self.scheduler, self.settings.day_start_hour, self.settings.load_balance,
            self.load), self.waiting, unsaved)
        answered = patiently(lambda: answering.answer(
            self.collection.store, card_id, rating, now=now,
            duration_ms=duration_ms, answer_text=answer_text, correct=correct,
            seed=asked.seed, scheduler=self.scheduler, rollover_hour=self.settings.day_start_hour,
            load_balance=self.settings.load_balance, interview=self.interview,
            placement=placement, replacing=None if again is None else again.answered,
        ), self.waiting, unsaved)
        if again is not None:  # taken back in the same transaction
            self.load.taken_back(again.answered)
            self._count(again, -1)
            self.history.remove(again)
            self._shown_once()
        done = Done(answered, rating, answer_text, correct, now, duration_ms, placement, asked.seed)
        self.history.append(done)
        self.load.answered(answered)
        self._count(done, +1)
        self.position += 1
        self._learning_first()
        due = answered.current.due
        saved = Notice("saved", card_id, rating,
                       due_in=None if due is None else answering.wait(due, now, self.settings.day_start_hour))
        if correct is not None and self.pauses and pause:
            self.phase = "feedback"
            return saved, Continue(self.intervals)  # found before the answer: what another rating gives
        return saved, self._show_next()

    def _intervals(self, card_id: str, now: datetime) -> tuple[timedelta, ...]:
        """The wait after each rating now: the very days an answer would give (the card's memory
        and the days' load as they are before it)."""
        due = answering.preview(self.collection.store, card_id, now=now, scheduler=self.scheduler,
                                rollover_hour=self.settings.day_start_hour, load_balance=self.settings.load_balance,
                                interview=self.interview, load_of=self.load)
        return tuple(answering.wait(when, now, self.settings.day_start_hour) for when in due)

    def _rerate(self, rating: int) -> list[View]:
        """Another rating for the answer just graded, in the pause after its verdict: the learner's
        judgement over the one given for being right and quick (a lucky guess is not Easy). The
        review is replaced, in one transaction, by one with the same answer, time and duration."""
        done = self.history[-1] if self.history else None
        if not isinstance(done, Done) or done.correct is None or rating == done.rating:
            return [Continue(self.intervals)]
        self.position -= 1  # back on the card answered
        try:
            return list(self._record(rating, done.answer_text, done.correct, again=done))
        except ReviewedSince:
            self.position += 1
            return [Notice("reviewed_elsewhere", done.answered.card_id), Continue(self.intervals)]

    def _count(self, done: Done, sign: int) -> None:
        """The summary with ``done`` added (+1) or taken back (-1). A graded answer is correct by
        its verdict, whatever rating the learner gave it; a self-rated one by passing (Hard or better)."""
        answered, rating = done.answered, done.rating
        self.summary.reviewed += sign
        self.summary.correct += sign * (done.correct if done.correct is not None else rating > Rating.AGAIN)
        self.summary.ratings[rating] = self.summary.ratings.get(rating, 0) + sign
        if answered.became_leech:
            if sign > 0:
                self.summary.leeches.append(answered.card_id)
            else:
                self.summary.leeches.remove(answered.card_id)

    def _undo(self) -> list[View]:
        if not self.history:
            return [Notice("nothing_to_undo"), self._current()]
        done = self.history.pop()
        if isinstance(done, SetAside):
            return self._bring_back(done)
        try:
            patiently(lambda: answering.undo(self.collection.store, done.answered), self.waiting)
        except ReviewedSince:  # answered on another device since: that answer stands
            return [Notice("reviewed_elsewhere", done.answered.card_id), self._current()]
        self.load.taken_back(done.answered)
        self.known_states.pop(done.answered.card_id, None)  # its state as before: read again
        self._count(done, -1)
        self.unrated = None
        if done.correct is not None:  # answered again, it is rated by the learner
            self.undone_graded.add(done.answered.card_id)
        if done.answered.card_id in self.set_aside:  # buried or suspended since: the review is undone,
            return [Notice("undone", done.answered.card_id), self._current()]  # the card stays aside
        # the undone card was answered earlier in this queue: show it again, next
        earlier = max(i for i in range(self.position) if self.queue[i] == done.answered.card_id)
        self.queue.insert(self.position - 1, self.queue.pop(earlier))
        self.position -= 1
        self._shown_once()
        card = self.collection.cards.get(done.answered.card_id)
        if card is None:  # edited away since: skip it
            return [Notice("undone", done.answered.card_id), self._show_next()]
        self.asked = kinds.of(card).ask(card, done.seed)  # the same question, to answer it again
        self.phase = "front"
        self.shown_at = self.tick()
        return [Notice("undone", done.answered.card_id), self._view()]

    def _bring_back(self, aside: SetAside) -> list[View]:
        """Undo a bury or suspend: the card's flags as they were, and the card on screen again."""
        patiently(lambda: answering.restore(self.collection.store, aside.card_id, aside.suspended, aside.buried_until),
                  self.waiting)
        self.load.forget()
        self.set_aside.discard(aside.card_id)
        if aside.replacement is not None and aside.replacement in self.queue[self.position:]:  # not shown yet
            del self.queue[self.position + self.queue[self.position:].index(aside.replacement)]
        self.queue.insert(self.position, aside.card_id)
        return [Notice("undone", aside.card_id), self._show_next()]

    def _set_aside(self, event: Bury | Suspend) -> list[View]:
        card_id = self._card_id()
        record = card_store.card(self.collection.store, card_id)
        was_new, flags = record.memory.state == NEW, (record.suspended, record.buried_until)
        if isinstance(event, Bury):
            until = clock.next_day_start(clock.now(), self.settings.day_start_hour)
            patiently(lambda: answering.bury(self.collection.store, card_id, until), self.waiting)
            notice = Notice("buried", card_id)
        else:
            patiently(lambda: answering.suspend(self.collection.store, card_id), self.waiting)
            notice = Notice("suspended", card_id)
        self.set_aside.add(card_id)
        self.load.forget()
        # every later showing goes too (a card in learning may be queued again)
        self.queue[self.position:] = [c for c in self.queue[self.position:] if c != card_id]
        replacement = self._replacement() if was_new else None
        if replacement is not None:
            self.queue.append(replacement)
        self.history.append(SetAside(card_id, *flags, replacement))
        return [notice, self._show_next()]

    def _edited(self) -> list[View]:
        try:
            patiently(self.collection.reload, self.waiting)
        except DeckProblems as err:  # a broken edit must not end the session
            return [Notice("edit_failed", detail="\n".join(err.details)), self._current()]
        self.load.forget()  # a card gone from the decks is no longer due
        views: list[View] = []
        gone = [c for c in self.queue[self.position:] if c not in self.collection.cards]
        if gone:
            views.append(Notice("skipped_gone", detail=join(gone)))
            self.queue[self.position:] = [c for c in self.queue[self.position:] if c in self.collection.cards]
        if self.phase == "feedback":
            return views + [Continue(self.intervals)]
        return views + [self._show_next()]  # the card on screen again, as edited
