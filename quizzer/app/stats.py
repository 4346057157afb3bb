"""``quiz stats``: the collection's figures as one dataclass (the JSON is its fields).

Definitions (as Anki's statistics, where Anki has the figure):

* cards by state: active cards; ``suspended`` and ``buried`` (buried past now) are counted
  apart from the four memory states, so a deck's columns add up to its ``total``; ``leech``
  counts cards with the leech tag whatever their state.
* reviews: every review in the log of a card the filter matches, active or not (history
  imported for cards no deck has still happened), study and exam alike. A review's day is its
  study day (``clock.study_day``: days start at 04:00 local time).
* true retention, over the last ``PERIOD_DAYS`` study days (today included): the first review
  of a card on a study day, if the card was in the Review state before it; passed = Hard,
  Good or Easy; mature when the time since the card's previous review was at least
  ``MATURE_DAYS`` days.
* streak: consecutive study days up to today with a review; today not studied yet does not
  break it until it is over.
* average recall: the mean FSRS retrievability now of the active cards already reviewed, on the
  learner's forgetting curve (fitted by ``quiz optimize`` if it was run).
* weakest cards: most lapses first, then most notebook mistakes, then lowest recall; tags the
  same by lapses per card, mistakes, mean recall; only those with a lapse, a mistake or recall
  under the desired retention.

The figures over the review log (reviews per day, streak, time, ratings, true retention) come
from its aggregate per study day (``quizzer.store.review_days``), kept up to date as it is read.
"""

from __future__ import annotations

import statistics
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import TYPE_CHECKING, Any

from quizzer.app import notebook, short_ids
from quizzer.app.collection import Collection
from quizzer.base.clock import study_day, to_utc
from quizzer.base.defaults import Rating
from quizzer.scheduling.curve import decay
from quizzer.scheduling.learner import schedule_of
from quizzer.scheduling.summary import due_per_day
from quizzer.settings import DEFAULTS, Settings
from quizzer.store import stats as queries
from quizzer.store.engine import Store
from quizzer.store.filter import CardFilter
from quizzer.store.records import LEARNING, NEW, RELEARNING, REVIEW
from quizzer.store.review_days import review_days_of
from quizzer.store.review_tally import COUNTS, seconds

if TYPE_CHECKING:
    from quizzer.app.collection import Collection

PERIOD_DAYS = 30  # retention, ratings and time per day look back this many study days
FORECAST_DAYS = 30
WEAKEST = 10


@dataclass(frozen=True)
class DeckCards:
    """Active cards of a deck (``deck`` is None for the total) by state."""

    deck: str | None
    new: int
    learning: int
    review: int
    relearning: int
    suspended: int
    buried: int
    leech: int
    total: int


@dataclass(frozen=True)
class DayDue:
    day: date
    due: int


@dataclass(frozen=True)
class DayReviews:
    day: date
    reviews: int


@dataclass(frozen=True)
class DayTime:
    day: date
    reviews: int
    duration_ms: int


@dataclass(frozen=True)
class Retention:
    passed: int
    failed: int
    rate: float | None  # passed / (passed + failed); None without reviews


@dataclass(frozen=True)
class TrueRetention:
    young: Retention
    mature: Retention
    all: Retention


@dataclass(frozen=True)
class Ratings:
    again: int
    hard: int
    good: int
    easy: int


@dataclass(frozen=True)
class ExamPoint:
    id: int
    finished_at: datetime
    score: float  # percent


@dataclass(frozen=True)
class WeakCard:
    card_id: str
    short_id: str  # unique in the collection (short_ids), as ``quiz cards`` shows it where whole ids do not fit
    deck: str
    lapses: int
    mistakes: int  # times wrong, while the card is in the mistakes notebook
    recall: float | None


@dataclass(frozen=True)
class WeakTag:
    tag: str
    cards: int  # reviewed active cards with the tag
    lapses: int
    mistakes: int
    recall: float | None  # mean


@dataclass(frozen=True)
class Stats:
    now: datetime
    today: date
    decks: list[str] | None  # the --deck filter
    tags: list[str] | None  # the --tag filter
    empty: bool  # no reviews at all
    cards: list[DeckCards]
    cards_total: DeckCards
    due_today: int
    forecast: list[DayDue]
    reviews_total: int
    first_day: date | None
    days_studied: int
    streak: int
    reviews_per_day: list[DayReviews]  # every study day with a review, oldest first
    period_days: int
    time_per_day: list[DayTime]  # each of the last period_days study days, oldest first
    true_retention: TrueRetention
    ratings: Ratings
    average_recall: float | None
    recall_cards: int
    exams: list[ExamPoint]
    exam_trend: float | None  # least-squares slope of the scores, in points per exam
    weakest_cards: list[WeakCard]
    weakest_tags: list[WeakTag]


def _cards(store: Store, chosen: CardFilter, now: datetime, deck_order: list[str]) -> tuple[list[DeckCards], DeckCards]:
    per_deck: dict[str, Counter[str]] = defaultdict(Counter)
    names = {NEW: "new", LEARNING: "learning", REVIEW: "review", RELEARNING: "relearning"}
    rows, leeches = queries.state_counts(store, chosen, now)
    for row in rows:
        counts = per_deck[row.deck]
        counts["suspended" if row.suspended else "buried" if row.buried else names[row.state]] += row.cards
        counts["total"] += row.cards
    for deck, leech in leeches.items():
        per_deck[deck]["leech"] = leech
    fields = ("new", "learning", "review", "relearning", "suspended", "buried", "leech", "total")
    order = [d for d in deck_order if d in per_deck] + sorted(set(per_deck) - set(deck_order))
    decks = [DeckCards(deck, *(per_deck[deck][f] for f in fields)) for deck in order]
    total = DeckCards(None, *(sum(getattr(d, f) for d in decks) for f in fields))
    return decks, total


def _forecast(store: Store, chosen: CardFilter, today: date, rollover_hour: int) -> list[DayDue]:
    per_day = due_per_day(store, today, FORECAST_DAYS, rollover_hour, chosen)
    return [DayDue(today + timedelta(days=i), n) for i, n in enumerate(per_day)]


def _streak(studied: set[date], today: date) -> int:
    """Consecutive days with reviews ending today, or yesterday if today has none yet."""
    day = today if today in studied else today - timedelta(days=1)
    streak = 0
    while day in studied:
        streak += 1
        day -= timedelta(days=1)
    return streak


def _retention(passed: int, failed: int) -> Retention:
    return Retention(passed, failed, passed / (passed + failed) if passed + failed else None)


def summed(by_day: dict[date, list[int]], days: list[date]) -> dict[str, int]:
    """The counts of ``days`` added up, by name (``review_tally.COUNTS``)."""
    total = [0] * len(COUNTS)
    for day in days:
        for i, n in enumerate(by_day.get(day, ())):
            total[i] += n
    return dict(zip(COUNTS, total))


def _period(by_day: dict[date, list[int]], today: date) -> tuple[list[DayTime], TrueRetention, Ratings]:
    days = [today - timedelta(days=PERIOD_DAYS - 1 - i) for i in range(PERIOD_DAYS)]
    per_day = [summed(by_day, [day]) for day in days]
    total = summed(by_day, days)
    return ([DayTime(day, n["reviews"], n["duration_ms"]) for day, n in zip(days, per_day)],
            true_retention(total), Ratings(*(total[r.name.lower()] for r in Rating)))


def true_retention(total: dict[str, int]) -> TrueRetention:
    """Anki's true retention from the summed counts (``summed``): each card's first review of a day
    in the Review state passes with Hard, Good or Easy; mature means 21 days or more since its
    previous review (the interval it was shown after, as Anki's ``lastIvl``; ``store.review_days``)."""
    young = _retention(total["young_passed"], total["young_failed"])
    old = _retention(total["mature_passed"], total["mature_failed"])
    return TrueRetention(young, old, _retention(young.passed + old.passed, young.failed + old.failed))


def _weakest(store: Store, chosen: CardFilter, curve: queries.Curve, rollover_hour: int,
             per_tag: list[queries.TagWeakness], target: float,
             card_ids: Iterable[str]) -> tuple[list[WeakCard], list[WeakTag]]:
    """The weakest cards and tags: the store ranks by lapses and recall and hands back every
    card in the mistakes table too, which the notebook (a card right on two later days has
    left it) ranks here. Only what shows a weakness is listed: a lapse, a mistake, or recall now
    under the ``target`` (the desired retention); a day-old collection at 100% has none."""
    noted = {entry.card_id: entry.times_wrong for entry in notebook.entries(store, rollover_hour)}
    candidates = queries.weakest_cards(store, chosen, curve, WEAKEST)
    key = {c.id: (-c.lapses, -noted.get(c.id, 0), 1.0 if c.recall is None else c.recall, c.id) for c in candidates}
    ranked = sorted(candidates, key=lambda c: key[c.id])[:WEAKEST]
    shortened = short_ids.of_collection(card_ids, [c.id for c in ranked])
    weakest = [WeakCard(c.id, shortened[c.id], c.deck, c.lapses, noted.get(c.id, 0), c.recall) for c in ranked
               if _weak(c.lapses, noted.get(c.id, 0), c.recall, target)]

    seen_noted = sorted(c.id for c in candidates if c.id in noted)  # the filter's active reviewed cards
    in_notebook = Counter(tag for _, tag in queries.tags_of(store, seen_noted))
    tags = []
    for t in per_tag:
        mean = t.recall_sum / t.recalled if t.recalled else None
        if _weak(t.lapses, in_notebook[t.tag], mean, target):
            tags.append(WeakTag(t.tag, t.cards, t.lapses, in_notebook[t.tag], mean))
    tags.sort(key=lambda t: (-t.lapses / t.cards, -t.mistakes, 1.0 if t.recall is None else t.recall, t.tag))
    return weakest, tags[:WEAKEST]


def _weak(lapses: int, mistakes: int, recall: float | None, target: float) -> bool:
    return lapses > 0 or mistakes > 0 or (recall is not None and recall < target)


def exam_trend(store: Store, chosen: CardFilter) -> tuple[list[ExamPoint], float | None]:
    """Finished exams' scores, oldest first, and their trend (percentage points per exam; None
    with fewer than two)."""
    points = [ExamPoint(e.id, e.finished_at, e.score) for e in queries.exam_scores(store, chosen)]
    if len(points) < 2:
        return points, None
    return points, statistics.linear_regression(range(len(points)), [p.score for p in points]).slope


def compute(store: Store, chosen: CardFilter, now: datetime, deck_order: list[str] | None = None,
            settings: Settings = DEFAULTS, card_ids: Iterable[str] = ()) -> Stats:
    """Every figure of ``quiz stats`` for the cards ``chosen`` matches, at ``now``, with the
    learner's day start and forgetting curve; the weakest cards' short ids unique among
    ``card_ids`` (the collection's) and theirs."""
    now = to_utc(now)
    rollover_hour = settings.day_start_hour
    curve = queries.Curve(seconds(now), decay(schedule_of(store, settings).scheduler))
    today = study_day(now, rollover_hour)
    cards, total = _cards(store, chosen, now, deck_order or [])
    forecast = _forecast(store, chosen, today, rollover_hour)
    by_day = review_days_of(store, chosen, rollover_hour)
    recall, per_tag = queries.seen_cards(store, chosen, curve)
    per_day = [DayReviews(day, by_day[day][0]) for day in sorted(by_day) if day <= today]
    reviews_total = sum(d.reviews for d in per_day)

    time_per_day, retention, ratings = _period(by_day, today)
    weakest_cards, weakest_tags = _weakest(store, chosen, curve, rollover_hour, per_tag, settings.desired_retention,
                                         card_ids)
    exams, trend = exam_trend(store, chosen)
    return Stats(
        now=now, today=today, decks=list(chosen.decks) if chosen.decks else None,
        tags=list(chosen.tags) if chosen.tags else None, empty=reviews_total == 0,
        cards=cards, cards_total=total, due_today=forecast[0].due, forecast=forecast,
        reviews_total=reviews_total, first_day=per_day[0].day if per_day else None,
        days_studied=len(per_day), streak=_streak({d.day for d in per_day}, today), reviews_per_day=per_day,
        period_days=PERIOD_DAYS, time_per_day=time_per_day, true_retention=retention, ratings=ratings,
        average_recall=recall.mean, recall_cards=recall.cards, exams=exams, exam_trend=trend,
        weakest_cards=weakest_cards, weakest_tags=weakest_tags,
    )


def weakest_cards(collection: Collection, decks: list[str] | None, now: datetime,
                  settings: Settings = DEFAULTS) -> list[Any]:
    """The deck cards of ``decks`` (None: all) that ``quiz stats`` ranks weakest, weakest first."""
    figures = compute(collection.store, collection.card_filter(decks=decks), now, settings=settings,
                      card_ids=collection.cards.short_ids)
    return [collection.cards[weak.card_id] for weak in figures.weakest_cards if weak.card_id in collection.cards]


def of_collection(collection: Collection, now: datetime, settings: Settings = DEFAULTS,
                  decks: list[str] | None = None, tags: list[str] | None = None) -> Stats:
    """``compute`` for the collection's cards (``decks``: of those decks, a removed one too, as
    ``quiz history export`` takes it; ``tags``: with one of those tags), its decks in their order."""
    chosen = collection.card_filter(decks, tags, history=True)
    return compute(collection.store, chosen, now, [loaded.id for loaded in collection.decks], settings,
                   collection.cards.short_ids)
