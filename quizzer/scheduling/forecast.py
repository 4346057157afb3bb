"""What following the interview plan gives (``quiz plan``, ``quiz stats``): the queue's own future.
Each study day until the interview's is replayed as ``quiz study`` would take it, within the
limits it applies (the reviews a day, the new cards at the plan's pace, each deck's own limits,
the other decks' cards that share them, the last days' practice reviews in the room the day
leaves), with the queue's own rules
(``queue.in_recall_order``, ``queue.planned_order``, ``queue.take_within``, ``plan.new_per_day``)
and the scheduler's own ``decide``. The answers are a ``simulated.Learner``'s: cards that vary in
strength around the model's, first sights forgotten, reviews recalled with each card's true
recall, so the lapses and relearning of the cards weaker than the model take their share of the
budget, as they will. The plan reaches its target when the cards' mean recall on the day does;
when it does not at the learner's reviews a day, the fewest a day that reach it are searched for
(within 5%). Above both the scheduler (``memory``) and the plan, which the scheduler's decisions
read."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import date, datetime

import fsrs

from quizzer.base.clock import ROLLOVER_HOUR, day_start, study_day
from quizzer.base.defaults import Rating
from quizzer.scheduling.memory import Decision, Placement, decide, unfuzzed
from quizzer.scheduling.plan import DAY, Gains, Interview, Seen, new_per_day, practised, recall
from quizzer.scheduling.queue import DoneToday, in_recall_order, planned_order, take_within
from quizzer.scheduling.simulated import Answers, Learner, answers_of
from quizzer.store.records import NEW, REVIEW, DueRow, MemoryState, NewReview

BLANK = MemoryState(NEW, None, None, None, None, None, 0, False)


@dataclass(frozen=True)
class Limits:
    """The daily limits the queue keeps to: reviews a day, the new-card setting (the plan's pace
    raises it), each deck's own limits with the deck of every card in such a deck, and what
    today's study has already used of them."""

    reviews_per_day: int
    new_per_day: int
    deck_reviews_per_day: Mapping[str, int] = field(default_factory=dict)
    deck_new_per_day: Mapping[str, int] = field(default_factory=dict)
    deck_of: Mapping[str, str] = field(default_factory=dict)
    today: DoneToday = DoneToday()


@dataclass(frozen=True)
class Forecast:
    """What following the plan gives the forecast's learner within the queue's limits: the
    interview's cards' mean recall on the day, the share of them at or above the target, and the
    answers a day it takes (learning steps included) over the study days left; ``new_per_day`` is
    today's pace, as study and the overview take it. When the mean recall falls short of the
    ``target``, ``reviews_needed`` is the fewest reviews a day that would reach it, within 5%
    (None: none would, the days left are too few)."""

    cards: int
    seen: int
    days_left: int
    recalled: float  # mean predicted recall on the day, never-seen cards counting 0
    at_target: float  # share of cards whose predicted recall on the day reaches the target
    reviews_per_day: float
    new_per_day: int
    reviews_per_day_setting: int
    target: float
    reviews_needed: int | None = None
    best_recalled: float | None = None  # when no reviews a day reach the target: the recall the most give

    @property
    def reached(self) -> bool:
        """Whether the plan reaches its target at the learner's reviews a day."""
        return self.recalled >= self.target


@dataclass
class _Card:
    id: str
    memory: MemoryState
    practice: list[tuple[datetime, int]] = field(default_factory=list)  # since its last scheduled review
    planned: bool = True  # one of the interview's cards (the others share the day's limits only)
    answered: int = 0


@dataclass(frozen=True)
class _Replay:
    recalled: float
    at_target: float
    answers: int
    pace: int  # the first day's new cards


def forecast(seen: Sequence[Seen], unseen: Sequence[str], now: datetime, interview: Interview,
             scheduler: fsrs.Scheduler, limits: Limits, rollover_hour: int = ROLLOVER_HOUR,
             practice: Mapping[str, list[tuple[datetime, int]]] | None = None,
             others: Sequence[Seen] = (), others_unseen: Sequence[str] = (), learner: Learner = Learner()) -> Forecast:
    """Replay the queue day by day until the interview (``seen``: the interview's cards seen, with
    the practice reviews since their last scheduled one in ``practice``; ``unseen``: its new cards'
    ids in the order study introduces them; ``others`` and ``others_unseen``: the other decks'
    cards, which share the day's limits, after the interview's) with ``learner``'s answers, and
    when the target is not reached, search the fewest reviews a day that reach it."""
    plain = unfuzzed(scheduler)
    today = study_day(now, rollover_hour)
    days_left = max(0, (interview.day - today).days)
    total = len(seen) + len(unseen)

    # shared by the replays, whose cards, days and reruns repeat the same answers and rankings
    decided: dict[tuple[MemoryState, int, datetime, datetime], Decision] = {}
    known: Gains = {}
    answers = answers_of(learner, [*(card.id for card in seen), *unseen, *(card.id for card in others),
                                   *others_unseen])

    def run(reviews_per_day: int) -> _Replay:
        cards = [_Card(card.id, card.memory, list((practice or {}).get(card.id, []))) for card in seen]
        cards += [_Card(card.id, card.memory, planned=False) for card in others]
        return _replay(cards, list(unseen), list(others_unseen), today, days_left, interview, plain,
                       replace(limits, reviews_per_day=reviews_per_day), rollover_hour, decided, known, answers)

    shown = run(limits.reviews_per_day)
    needed, best = None, None
    if shown.recalled < interview.retention and days_left:
        needed, most = _reviews_needed(run, limits.reviews_per_day, max(total, 1), interview.retention)
        best = most if needed is None else None
    return Forecast(total, len(seen), days_left, shown.recalled, shown.at_target,
                    shown.answers / days_left if days_left else 0.0, shown.pace if days_left else 0,
                    limits.reviews_per_day, interview.retention, needed, best)


def _reviews_needed(run: Callable[[int], _Replay], low: int, most: int, target: float) -> tuple[int | None, float]:
    """Reviews a day above ``low`` whose replay brings the mean recall on the day to ``target``,
    within 5% of the fewest (None: not even ``most``, the number of cards, at which every card can
    be reviewed every day), and the recall on the day at the most reviews a day tried. Doubling
    from ``low`` finds a number that reaches it, bisection narrows it; more reviews a day bring
    more recall on the day, all but a little that a tight day's order moves."""
    high = max(2 * low, low + 1)
    while (tried := run(min(high, most)).recalled) < target:
        if high >= most:
            return None, tried
        low, high = high, 2 * high
    high = min(high, most)  # ``low`` does not reach the target, ``high`` does
    while high - low > max(1, low // 20):
        middle = (low + high) // 2
        if run(middle).recalled >= target:
            high = middle
        else:
            low = middle
    return high, tried


def _replay(cards: list[_Card], unseen: list[str], others_unseen: list[str], today: date, days_left: int,
            interview: Interview,
            scheduler: fsrs.Scheduler, limits: Limits, rollover_hour: int,
            decided: dict[tuple[MemoryState, int, datetime, datetime], Decision], known: Gains,
            answers: Answers) -> _Replay:
    """Every study day from ``today`` until the interview's, as the queue takes it with
    ``answers``' ratings; then each of the interview's cards' true recall on the day (never-seen
    cards 0)."""
    count, first_pace = 0, 0
    placement = Placement(rollover_hour=rollover_hour)  # reviews fall on the learner's study days, as in study
    by_id = {card.id: card for card in cards}

    def answer(card: _Card, at: datetime, end: datetime) -> None:
        nonlocal count
        rating = answers_of_card(card, at)
        key = (card.memory, rating, at, end)  # unfuzzed: equal memories answered alike decide alike
        decision = decided.get(key)
        if decision is None:
            decision = decided[key] = decide(card.memory, NewReview(rating, at, None), scheduler=scheduler,
                                             ahead_after=end, placement=placement, interview=interview)
        count += card.planned  # the interview's cards' answers: the other decks' are not the plan's
        card.answered += 1
        if decision.scheduled:
            card.memory, card.practice = decision.after, []
        else:  # ahead of its day: a practice review, the memory gains, the schedule stays
            card.practice.append((at, rating))

    def answers_of_card(card: _Card, at: datetime) -> Rating:
        if card.memory.state == NEW:
            return answers.rating(card.id, card.answered, None)
        return answers.rating(card.id, card.answered, _true_recall(card, at, answers, scheduler, rollover_hour))

    def through_steps(card: _Card, at: datetime, end: datetime) -> None:
        """The learning steps due before ``end`` (the next study day's start), in the session: a
        step due later waits for its day, as in study."""
        while card.memory.state != REVIEW:
            at = max(at, card.memory.due or at)
            if at >= end:
                return
            answer(card, at, end)

    for d in range(days_left):
        # what is due is answered at the day's start, whatever the hour: the figures then stay the
        # same all day until the learner answers
        at, end = day_start(today + d * DAY, rollover_hour), day_start(today + (d + 1) * DAY, rollover_hour)
        done = limits.today if d == 0 else DoneToday()
        for card in cards:  # learning steps due (a card in learning now): outside every limit
            if card.memory.state not in (NEW, REVIEW) and (card.memory.due is None or card.memory.due < end):
                through_steps(card, at, end)
        reviews_left = max(0, limits.reviews_per_day - done.reviews)
        due = in_recall_order([row for row in (_due_row(card, end) for card in cards) if row is not None], at,
                              scheduler)
        due_ids = {row.id for row in due}
        ordered = planned_order(
            due, reviews_left, done.practice, at, interview, scheduler,
            lambda: [Seen(card_id, by_id[card_id].memory) for card_id in due_ids if by_id[card_id].planned],
            lambda: [Seen(card.id, practised(card.memory, card.practice, scheduler, rollover_hour))
                     for card in cards if card.planned and card.memory.state == REVIEW and card.id not in due_ids],
            known)
        left = {deck: limit - done.deck_reviews.get(deck, 0) for deck, limit in limits.deck_reviews_per_day.items()}
        for card_id in take_within(ordered, reviews_left, left, limits.deck_of):
            answer(by_id[card_id], at, end)
            through_steps(by_id[card_id], at, end)  # a review forgotten relearns in the same session
        pace = new_per_day(len(unseen) + done.new, today + d * DAY, interview, limits.new_per_day)
        first_pace = pace if d == 0 else first_pace
        left = {deck: limit - done.deck_new.get(deck, 0) for deck, limit in limits.deck_new_per_day.items()}
        introduced = take_within(unseen + others_unseen, max(0, pace - done.new), left, limits.deck_of)
        mine = set(unseen)
        for card_id in introduced:
            card = by_id[card_id] = _Card(card_id, BLANK, planned=card_id in mine)
            cards.append(card)
            through_steps(card, at, end)
        taken = set(introduced)
        unseen = [card_id for card_id in unseen if card_id not in taken]
        others_unseen = [card_id for card_id in others_unseen if card_id not in taken]
    recalls = [_true_recall(card, interview.at, answers, scheduler, rollover_hour) for card in cards if card.planned]
    recalls += [0.0] * len(unseen)
    total = len(recalls)
    return _Replay(sum(recalls) / total if total else 0.0,
                   sum(r >= interview.retention for r in recalls) / total if total else 0.0, count, first_pace)


def _due_row(card: _Card, end: datetime) -> DueRow | None:
    """``card`` as the queue reads a review due before ``end`` (None: it is not one)."""
    memory = card.memory
    if (memory.state != REVIEW or memory.due is None or memory.due >= end or memory.stability is None
            or memory.last_review is None):
        return None
    return DueRow(card.id, memory.stability, memory.last_review, memory.due)


def _true_recall(card: _Card, at: datetime, answers: Answers, scheduler: fsrs.Scheduler, rollover_hour: int) -> float:
    """``card``'s recall at ``at`` for the forecast's learner: the memory its practice reviews
    refreshed, its stability times the card's strength (0 for a card never seen)."""
    memory = practised(card.memory, card.practice, scheduler, rollover_hour)
    if memory.stability is None or memory.last_review is None:
        return 0.0
    return recall(memory.stability * answers.strength(card.id), at - memory.last_review, scheduler)
