"""What to study now, in Anki's order: learning cards due, then due reviews (lowest recall
first) with new cards spread among them, within the daily limits (global, and per deck where
the settings give a deck its own); and how many reviews a desired retention makes due."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta

import fsrs

from quizzer.base.clock import ROLLOVER_HOUR, day_start, next_day_start, study_day, to_utc
from quizzer.base.defaults import NEW_PER_DAY, REVIEWS_PER_DAY
from quizzer.scheduling import plan
from quizzer.scheduling.memory import (
    DEFAULT_SCHEDULER,
    recall_of_review,
    review_interval,
)
from quizzer.store import cards
from quizzer.store.engine import Store
from quizzer.store.filter import EVERYTHING, CardFilter
from quizzer.store.records import DueRow

ALL = 1 << 62  # "no limit" for the store's limited reads
LEARN_AHEAD = timedelta(minutes=20)  # Anki's default learn-ahead limit: learning steps due this soon count as due
FOREVER = timedelta(days=2 * 36500)  # past any due date (the longest interval is 36500 days)


def build_queue(
    store: Store,
    now: datetime,
    *,
    new_per_day: int = NEW_PER_DAY,
    reviews_per_day: int = REVIEWS_PER_DAY,
    chosen: CardFilter = EVERYTHING,
    new_limit: int | None = None,
    limit: int | None = None,
    ahead: bool = False,
    rollover_hour: int = ROLLOVER_HOUR,
    scheduler: fsrs.Scheduler = DEFAULT_SCHEDULER,
    deck_new_per_day: Mapping[str, int] | None = None,
    deck_reviews_per_day: Mapping[str, int] | None = None,
    interview: plan.Interview | None = None,
) -> list[str]:
    """Card ids to study now, in order.

    Learning/relearning cards whose due time has passed come first (soonest due first).
    Then reviews due today (by study day), lowest retrievability first, with new cards (by
    ``position``, then deck, then id) spread evenly among them. Daily limits are global and
    subtract what was already studied since the study day began (scheduled reviews in mode
    "study"); ``new_limit`` can only lower the remaining new-card allowance. A deck named in
    ``deck_new_per_day`` / ``deck_reviews_per_day`` also keeps to its own limit (less what
    was studied in it today), within the global one. With nothing else to study, learning cards
    due within LEARN_AHEAD come now (Anki's learn-ahead limit); with ``ahead`` and still nothing,
    returns already-seen cards soonest due first (the ahead rule). Before an ``interview``,
    new cards come at the plan's pace and a budget too small for every due review takes the
    largest gains in recall on the day first (``plan``).
    """
    now = to_utc(now)
    learning = cards.learning_due(store, chosen, now, now)
    reviews = [row.id for row in reviews_today(store, now, reviews_per_day=reviews_per_day, chosen=chosen,
                                               rollover_hour=rollover_hour, scheduler=scheduler,
                                               deck_reviews_per_day=deck_reviews_per_day, interview=interview)]
    new = new_offered(store, now, new_per_day=new_per_day, chosen=chosen, new_limit=new_limit,
                      rollover_hour=rollover_hour, deck_new_per_day=deck_new_per_day, interview=interview)
    queue = learning + interleave(reviews, new)
    if not queue:  # Anki's learn-ahead limit: with nothing else to study, a step due this soon is shown now
        queue = cards.learning_due(store, chosen, now, now + LEARN_AHEAD)
    if not queue and ahead:
        queue = cards.seen_by_due(store, chosen, now, limit if limit is not None else reviews_per_day)
    return queue if limit is None else queue[:limit]


def reviews_today(store: Store, now: datetime, *, reviews_per_day: int = REVIEWS_PER_DAY,
                  chosen: CardFilter = EVERYTHING, rollover_hour: int = ROLLOVER_HOUR,
                  scheduler: fsrs.Scheduler = DEFAULT_SCHEDULER, deck_reviews_per_day: Mapping[str, int] | None = None,
                  interview: plan.Interview | None = None) -> list[DueRow]:
    """The reviews today's study takes, in order (``build_queue``'s, which the overview counts):
    those due today, lowest recall first, or in the plan's order, topped up in its last days with
    practice reviews of cards due on a later day; within what is left of the review limits, the
    global one and each deck's own."""
    now = to_utc(now)
    start, end = day_start(now, rollover_hour), next_day_start(now, rollover_hour)
    due = in_recall_order(cards.due_reviews(store, chosen, now, end), now, scheduler)
    reviews_left = reviews_left_today(store, start, reviews_per_day)
    if interview is not None and interview.active(now):
        due = _planned(store, chosen, now, due, reviews_left, interview, scheduler)
    taken = set(_DeckLimits(store, chosen, now, start, {}, deck_reviews_per_day or {})
                .take([row.id for row in due], reviews_left, "reviews"))
    return [row for row in due if row.id in taken]


def in_recall_order(due: Iterable[DueRow], now: datetime, scheduler: fsrs.Scheduler) -> list[DueRow]:
    """Due reviews as a day takes them without a plan: lowest recall now first (then due, id)."""
    return sorted(due, key=lambda row: (recall_of_review(row.stability, row.last_review, now, scheduler), row.due, row.id))


def planned_order(due: list[DueRow], reviews_left: int, practised: int, now: datetime, interview: plan.Interview,
                  scheduler: fsrs.Scheduler, due_cards: Callable[[], Iterable[plan.Seen]],
                  later_cards: Callable[[], Iterable[plan.Seen]], known: plan.Gains | None = None) -> list[str]:
    """The ids of a day's reviews in an active interview plan's order. When the ``due`` ones do not
    fit in ``reviews_left``, as they were, or in the plan's last week (``plan.ranks_by_gain``) the
    interview's among them (``due_cards``) by gain, then the others as they were; else the due
    ones, topped up in the plan's last days with the cards not due yet
    (``later_cards``, their practice counted) that gain most, in the room the due ones and the
    ``practised`` reviews already done today leave (``plan.top_up``); ``known``: gains already
    computed (``plan.by_gain``)."""
    if len(due) > reviews_left:
        if not plan.ranks_by_gain(now, interview):
            return [row.id for row in due]
        rank = {card_id: i for i, card_id in enumerate(plan.by_gain(due_cards(), now, interview, scheduler, known))}
        return [row.id for row in sorted(due, key=lambda row: rank.get(row.id, len(rank)))]
    room = reviews_left - len(due) - practised
    topping_up = room > 0 and plan.final_days(now, interview)
    extra = plan.top_up(later_cards(), now, interview, scheduler, room, known) if topping_up else []
    return [row.id for row in due] + extra


def take_within(ordered: Iterable[str], limit: int, left: Mapping[str, int], deck_of: Mapping[str, str]) -> list[str]:
    """The first ``limit`` of ``ordered`` that their decks' limits allow (``left``: what is left of
    each deck's own limit, by the decks that have one; ``deck_of``: the deck of a card)."""
    left = dict(left)
    taken: list[str] = []
    for card_id in ordered:
        if len(taken) >= limit:
            break
        deck = deck_of.get(card_id)
        if deck in left:
            if left[deck] <= 0:
                continue
            left[deck] -= 1
        taken.append(card_id)
    return taken


def new_offered(store: Store, now: datetime, *, new_per_day: int = NEW_PER_DAY, chosen: CardFilter = EVERYTHING,
                new_limit: int | None = None, rollover_hour: int = ROLLOVER_HOUR,
                deck_new_per_day: Mapping[str, int] | None = None, interview: plan.Interview | None = None) -> list[str]:
    """The new cards today's study offers, in order (``build_queue``'s, which the overview counts):
    the day's limit, raised to the pace an ``interview`` needs (``plan.new_per_day``), less the new
    cards already introduced today, and within each deck's own limit; those of the interview's
    decks first, when it names some (the pace is theirs)."""
    now = to_utc(now)
    start = day_start(now, rollover_hour)
    new_done = cards.done_since(store, start)[0]
    new_left = max(0, new_per_day_today(store, now, new_per_day, interview) - new_done)
    if new_limit is not None:
        new_left = min(new_left, new_limit)
    decks = _DeckLimits(store, chosen, now, start, deck_new_per_day or {}, {})
    count = new_left + decks.held_back("new")
    ordered = cards.new_cards(store, chosen, now, count)
    if interview is not None and interview.active(now) and interview.decks is not None:  # its decks' cards first
        planned = cards.new_cards(store, chosen.within(interview.decks), now, count)
        first = set(planned)
        ordered = planned + [card_id for card_id in ordered if card_id not in first]
    return decks.take(ordered, new_left, "new")


def reviews_left_today(store: Store, start: datetime, reviews_per_day: int, chosen: CardFilter = EVERYTHING) -> int:
    """What is left of a day's review limit: the limit less the reviews done since the day's
    ``start`` (as ``cards.done_since`` counts them) in the cards ``chosen`` matches."""
    return max(0, reviews_per_day - cards.done_since(store, start, chosen)[1])


@dataclass(frozen=True)
class DoneToday:
    """What today's study has used of the day's limits: new cards introduced, reviews done (as
    ``cards.done_since`` counts them), practice reviews, and the new cards and reviews in each of
    the decks asked about (those with limits of their own)."""

    new: int = 0
    reviews: int = 0
    practice: int = 0
    deck_new: Mapping[str, int] = field(default_factory=dict)
    deck_reviews: Mapping[str, int] = field(default_factory=dict)


def done_today(store: Store, now: datetime, rollover_hour: int, decks: Iterable[str] = ()) -> DoneToday:
    """What the study day of ``now`` has used of its limits so far, in every deck and in ``decks``."""
    start = day_start(to_utc(now), rollover_hour)
    new, reviews = cards.done_since(store, start)
    per_deck = {deck: cards.done_since(store, start, CardFilter(decks=(deck,))) for deck in decks}
    return DoneToday(new, reviews, cards.done_since(store, start, scheduled=False)[1],
                     {deck: done[0] for deck, done in per_deck.items()}, {deck: done[1] for deck, done in per_deck.items()})


def new_per_day_today(store: Store, now: datetime, new_per_day: int = NEW_PER_DAY,
                      interview: plan.Interview | None = None) -> int:
    """The day's new-card limit: the setting, raised to the pace an ``interview`` needs. The pace
    is the day's own: set by the cards unseen when it began (those introduced today count), so it
    does not shrink as the day's new cards are studied, nor as they are buried (a buried new card
    makes room for the next one, as in Anki)."""
    if interview is None or not interview.active(now):
        return new_per_day
    decks = CardFilter(decks=interview.decks)
    introduced = cards.done_since(store, day_start(now, interview.rollover_hour), decks)[0]
    unseen = cards.unseen(store, decks) + introduced
    return plan.new_per_day(unseen, study_day(now, interview.rollover_hour), interview, new_per_day)


def new_waiting(store: Store, now: datetime, chosen: CardFilter = EVERYTHING) -> int:
    """How many new cards study could introduce, whatever today's limit."""
    return len(cards.new_cards(store, chosen, to_utc(now), ALL))


def held_by_own_limits(store: Store, now: datetime, chosen: CardFilter, own: Mapping[str, int],
                       pace: int) -> dict[str, int]:
    """The decks ``chosen`` covers whose own new_per_day (``own``), below ``pace``, holds back new
    cards waiting, with that limit: what study names when they are all that is left, and what
    `quiz plan` names as a pace its forecast does not count."""
    return {deck: limit for deck, limit in sorted(own.items())
            if limit < pace and (chosen.decks is None or deck in chosen.decks)
            and new_waiting(store, now, replace(chosen, decks=(deck,)))}


def learning_due(store: Store, until: datetime, chosen: CardFilter = EVERYTHING) -> list[str]:
    """Learning/relearning cards due by ``until``: what a session shows again before it ends,
    as Anki does with its learn-ahead limit, so a card just failed is not left for tomorrow."""
    until = to_utc(until)
    return cards.learning_due(store, chosen, until, until)


def interleave(reviews: list[str], new: list[str]) -> list[str]:
    """Spread new cards evenly through the reviews (both keep their own order)."""
    keyed = [((i + 1) / (len(reviews) + 1), 0, cid) for i, cid in enumerate(reviews)]
    keyed += [((i + 1) / (len(new) + 1), 1, cid) for i, cid in enumerate(new)]
    return [cid for *_, cid in sorted(keyed)]


class _DeckLimits:
    """The decks with limits of their own: which of the chosen cards each holds, and what is
    left of its limits today (its limit less what was studied in it since ``start``, counted
    as ``cards.done_since`` counts: scheduled answers in study mode)."""

    def __init__(self, store: Store, chosen: CardFilter, now: datetime, start: datetime,
                 new_per_day: Mapping[str, int], reviews_per_day: Mapping[str, int]) -> None:
        in_scope = [d for d in {*new_per_day, *reviews_per_day} if chosen.decks is None or d in chosen.decks]
        self.new = {d: new_per_day[d] for d in in_scope if d in new_per_day}
        self.reviews = {d: reviews_per_day[d] for d in in_scope if d in reviews_per_day}
        self.deck_of: dict[str, dict[str, str]] = {"new": {}, "reviews": {}}
        for deck in in_scope:
            only = replace(chosen, decks=(deck,))
            if deck in self.new:
                self.new[deck] = max(0, self.new[deck] - cards.done_since(store, start, CardFilter(decks=(deck,)))[0])
                self.deck_of["new"].update(dict.fromkeys(cards.new_cards(store, only, now, ALL), deck))
            if deck in self.reviews:
                self.reviews[deck] = reviews_left_today(store, start, self.reviews[deck], CardFilter(decks=(deck,)))
                self.deck_of["reviews"].update(
                    dict.fromkeys((row.id for row in cards.due_reviews(store, only, now, now + FOREVER)), deck))

    def _left(self, what: str) -> dict[str, int]:
        return self.new if what == "new" else self.reviews

    def held_back(self, what: str) -> int:
        """How many cards of the decks with limits the limits may leave out (read this many more)."""
        return max(0, len(self.deck_of[what]) - sum(self._left(what).values()))

    def take(self, ordered: list[str], limit: int, what: str) -> list[str]:
        """The first ``limit`` of ``ordered`` that their decks' limits allow."""
        return take_within(ordered, limit, self._left(what), self.deck_of[what])


@dataclass(frozen=True)
class DueCounts:
    today: int
    week: int  # the 7 study days from today, today (and anything overdue) included


def due_change(store: Store, now: datetime, after: fsrs.Scheduler, rollover_hour: int = ROLLOVER_HOUR,
               days: int = 7) -> tuple[DueCounts, DueCounts]:
    """The cards in review due today and within ``days`` study days: as they are (their stored due
    dates), and as ``after`` would schedule them: each rescheduled from its last review by the
    interval FSRS gives its stability (before fuzz), on a study day as study places it. The stored
    dates change only as each card is next reviewed."""
    now = to_utc(now)
    today_end = next_day_start(now, rollover_hour)
    week_end = day_start(study_day(now, rollover_hour) + timedelta(days=days), rollover_hour)
    now_due, then_due = [0, 0], [0, 0]
    for row in cards.due_reviews(store, EVERYTHING, now, now + FOREVER):
        then = day_start(study_day(row.last_review, rollover_hour) + review_interval(row.stability, after), rollover_hour)
        for counts, due in ((now_due, row.due), (then_due, then)):
            counts[0] += due < today_end
            counts[1] += due < week_end
    return DueCounts(*now_due), DueCounts(*then_due)


def _planned(store: Store, chosen: CardFilter, now: datetime, due: list[DueRow], reviews_left: int,
             interview: plan.Interview, scheduler: fsrs.Scheduler) -> list[DueRow]:
    """The due reviews in the plan's order, with the last days' practice reviews (``planned_order``)
    of the interview's cards not due yet. The budget is the study day's: practice reviews done
    since the day began, in any session, use it up."""
    mine = chosen.within(interview.decks)
    rows = {row.id: row for row in due}  # and, once read, the cards not due yet

    def due_cards() -> list[plan.Seen]:
        memories = cards.memories(store, mine, now)
        return [plan.Seen(row.id, memories[row.id][1]) for row in due if row.id in memories]

    def later_cards() -> list[plan.Seen]:
        later = [row for row in cards.due_reviews(store, mine, now, now + FOREVER) if row.id not in rows]
        rows.update((row.id, row) for row in later)
        memories = cards.memories(store, mine, now)
        practice = cards.practice_since_last_review(store, mine, now)  # yesterday's top-ups count
        return [plan.Seen(row.id, plan.practised(memories[row.id][1], practice.get(row.id, []), scheduler,
                                                 interview.rollover_hour))
                for row in later if row.id in memories]

    topping_up = len(due) <= reviews_left and plan.final_days(now, interview)
    practised = cards.done_since(store, day_start(now, interview.rollover_hour), scheduled=False)[1] if topping_up else 0
    return [rows[card_id] for card_id in planned_order(due, reviews_left, practised, now, interview, scheduler,
                                                      due_cards, later_cards)]
