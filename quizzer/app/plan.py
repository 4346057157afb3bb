"""The interview plan's status (``quiz plan``, ``quiz stats``, the web's plan page): the interview set, and what
following its plan gives from today's memory states (``scheduling.forecast``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime

import fsrs

from quizzer.app.collection import Collection
from quizzer.scheduling import fit
from quizzer.scheduling.forecast import Forecast, Limits, forecast
from quizzer.scheduling.learner import schedule_of
from quizzer.scheduling.plan import DEFAULT_RETENTION, Interview, Seen
from quizzer.scheduling.queue import ALL, done_today, held_by_own_limits
from quizzer.scheduling.simulated import Learner
from quizzer.base.i18n import _
from quizzer.settings import Settings
from quizzer.store import cards, history, learner
from quizzer.store.filter import CardFilter
from quizzer.store.records import NEW, MemoryState

YEARS_AHEAD = 10  # an interview further away is a slip (and the scheduler's dates end at the year 9999)


@dataclass(frozen=True)
class PlanStatus:
    """The interview and what following the plan gives."""

    interview: Interview
    forecast: Forecast | None  # None once the interview's day has begun: normal scheduling again
    new_per_day_setting: int
    reviews_per_day_setting: int
    # the plan's decks whose own new_per_day, below the plan's pace, holds new cards back (the forecast counts it)
    below_pace: dict[str, int] = field(default_factory=dict)
    strength: float = 1.0  # how long the learner's memories last against the model's, from their answers
    answers_read: int = 0  # the reviews ``strength`` was read from


def status(collection: Collection, settings: Settings, now: datetime) -> PlanStatus | None:
    """The plan's forecast for the collection's learner, as ``quiz plan``, ``quiz stats`` and the
    web's plan page show it (None: no interview set)."""
    store = collection.store
    schedule = schedule_of(store, settings)
    interview, scheduler = schedule.interview, schedule.scheduler
    if interview is None:
        return None
    if not interview.active(now):
        return PlanStatus(interview, None, settings.new_per_day, settings.reviews_per_day)
    mine = CardFilter(decks=interview.decks)
    everything = cards.memories(store, CardFilter(), now, buried_too=True)  # other decks share the day's limits
    waiting = {card_id: i for i, card_id in enumerate(cards.new_cards(store, CardFilter(), now, ALL))}  # study's order
    planned = cards.ids(store, mine) if interview.decks is not None else set(everything)
    seen, unseen, others, others_unseen = _split(everything, planned, waiting)
    own = {*settings.deck_new_per_day, *settings.deck_reviews_per_day}
    limits = Limits(settings.reviews_per_day, settings.new_per_day, settings.deck_reviews_per_day,
                    settings.deck_new_per_day, {card_id: deck for deck in own
                                                for card_id in cards.ids(store, CardFilter(decks=(deck,)))},
                    done_today(store, now, settings.day_start_hour, own))
    strength, read = learner_strength(collection, interview, scheduler, settings.day_start_hour)
    replayed = forecast(seen, unseen, now, interview, scheduler, limits, settings.day_start_hour,
                        cards.practice_since_last_review(store, mine, now), others, others_unseen,
                        Learner(strength=strength))
    below = held_by_own_limits(store, now, CardFilter(decks=interview.decks), settings.deck_new_per_day,
                               replayed.new_per_day)
    return PlanStatus(interview, replayed, settings.new_per_day, settings.reviews_per_day, below, strength, read)


def learner_strength(collection: Collection, interview: Interview, scheduler: fsrs.Scheduler,
                     rollover_hour: int) -> tuple[float, int]:
    """How long the learner's memories of the plan's cards last against what the scheduler's
    parameters say, read off the histories of the cards of the newest ``fit.NEWEST`` reviews
    (``fit.strength_of``); and how many reviews that is (1 and 0 with none)."""
    reviews = history.review_log(collection.store, interview.decks, newest=fit.NEWEST)
    return fit.strength_of(reviews, scheduler, rollover_hour)


def _split(memories: dict[str, tuple[str, MemoryState]], planned: set[str], waiting: dict[str, int]
           ) -> tuple[list[Seen], list[str], list[Seen], list[str]]:
    """The cards seen and the new ones (in study's order, buried ones last), the interview's and
    the others'."""
    seen = [Seen(card_id, memory) for card_id, (_kind, memory) in memories.items() if memory.state != NEW]
    new = sorted((card_id for card_id, (_kind, memory) in memories.items() if memory.state == NEW),
                 key=lambda card_id: (waiting.get(card_id, len(waiting)), card_id))
    return ([card for card in seen if card.id in planned], [card_id for card_id in new if card_id in planned],
            [card for card in seen if card.id not in planned], [card_id for card_id in new if card_id not in planned])


def out_of_reach(shown: PlanStatus) -> str | None:
    """What the plan says first when it does not reach its target (the cards' mean recall on the
    day below it): the reviews a day that would, or that none would and why (None: it reaches it)."""
    forecast = shown.forecast
    if forecast is None or forecast.reached:
        return None
    if forecast.reviews_needed is not None:
        return _("The target is out of reach at {limit} reviews a day: {recalled:.1%} of the cards recalled on the "
                 "day, against {target:.1%}. {needed} reviews a day would reach it (`quiz config set reviews_per_day "
                 "{needed}`).").format(
            limit=f"{forecast.reviews_per_day_setting:,}", recalled=forecast.recalled,
            target=shown.interview.retention, needed=forecast.reviews_needed)
    if shown.below_pace:
        return _("The target is out of reach however many reviews are done: the new cards a deck's own limit holds "
                 "back (below) come too late to reach {target:.0%}.").format(target=shown.interview.retention)
    return _("The target is out of reach however many reviews are done: at most {best:.1%} of the cards recalled "
             "on the day, against {target:.1%}. A lower target (`quiz plan --retention R`) or a later date may be one "
             "the plan can meet.").format(best=forecast.best_recalled or 0.0, target=shown.interview.retention)


def clear_interview(collection: Collection) -> learner.InterviewRecord | None:
    """Remove the interview: normal scheduling. The interview removed (None: none was set)."""
    had = learner.load(collection.store).interview
    learner.save_interview(collection.store, None)
    return had


def day_problem(day: date, today: date) -> str | None:
    """Why ``day`` cannot be the interview's, seen on the study day ``today`` (None: it can): the
    day has come or is more than ``YEARS_AHEAD`` years away."""
    if day <= today:
        return _("{day} is not after today ({today})").format(day=day, today=today)
    if day.year - today.year > YEARS_AHEAD:
        return _("{day} is more than {years} years away").format(day=day, years=YEARS_AHEAD)
    return None


def set_interview(collection: Collection, day: date, retention: float | None, decks: list[str] | None) -> None:
    """Aim the cards of ``decks`` (None: every deck) at ``retention`` (None: the default) on ``day``;
    an unknown deck is an error naming the known ones."""
    collection.card_filter(decks)
    learner.save_interview(collection.store, learner.InterviewRecord(
        day, DEFAULT_RETENTION if retention is None else retention, tuple(dict.fromkeys(decks)) if decks else None))


def plan_dict(shown: PlanStatus) -> dict[str, object]:
    """The plan's status as ``--json`` gives it (``quiz plan``, ``quiz stats``)."""
    interview, forecast = shown.interview, shown.forecast
    if forecast is None:
        return dict(interview=interview.day, passed=True)
    return dict(passed=False, interview=interview.day, retention=interview.retention,
                decks=list(interview.decks) if interview.decks else None, days_left=forecast.days_left,
                cards=forecast.cards, seen=forecast.seen, predicted_recall=round(forecast.recalled, 4),
                share_at_target=round(forecast.at_target, 4), reviews_per_day=round(forecast.reviews_per_day, 1),
                new_per_day=forecast.new_per_day, new_per_day_raised=forecast.new_per_day > shown.new_per_day_setting,
                decks_below_pace=shown.below_pace, reviews_per_day_setting=forecast.reviews_per_day_setting,
                target_reached=forecast.reached, reviews_per_day_needed=forecast.reviews_needed,
                recall_at_most=None if forecast.best_recalled is None else round(forecast.best_recalled, 4),
                learner_strength=round(shown.strength, 3), learner_reviews=shown.answers_read)
