"""Interview-date mode against plain FSRS, simulated.

A learner studies the bundled decks, all new at the start, once a day until an interview 7, 14
or 30 days away; recall is measured at the start of the interview's day (a card never seen
counts 0). The learner's memory follows FSRS-6's own rules, but each card has a strength the
scheduler does not know: its true stability is FSRS's times exp(N(0, 0.35)) (some cards are
harder than others), and the first sight of every card fails. Two learners: ``default`` (the
median card as FSRS's defaults say) and ``weaker`` (every card 40% weaker: strength × 0.6).

Three arms with the same cap on reviews a day (60 or 30; new cards and learning steps come on
top, as ``quiz study`` counts them) and the same random draws per card and review (paired seeds):

- ``fsrs``: plain FSRS (retention 0.9, 20 new cards a day, lowest recall first);
- ``fsrs+pace``: plain FSRS given the plan's new-card pace;
- ``plan``: interview-date mode at 0.95: ``memory.decide(interview=...)`` (interval cap),
  ``queue.planned_order`` (a tight day by gain in its last week, the last days' spare budget topped up) and
  ``plan.new_per_day`` (pace), the functions ``quiz study`` uses; answers before a card's due
  day are practice reviews (the ahead rule), as in ``quiz study``, and the top-ups see them
  (``plan.practised``).

Answers: the first sight is Again; after it a card is recalled with its true recall (then Good,
or Hard / Easy one time in ten each), else Again. Days elapsed count as Anki counts them (study days: the scheduler's own
``elapsed.fsrs_review``). Learning and relearning steps (py-fsrs's 1 and
10 minutes) come back in the same session, as in study. Anki's load balancer is on in every arm,
as ``quiz study`` runs by default; ``--no-load-balance`` turns it off. Prints a Markdown table
with paired 95% intervals, what ``quiz plan`` says of each cell up front (its forecast: the
recall on the day it predicts for FSRS's median learner, cards varying in strength, first sights
forgotten, within the queue's limits, and whether that reaches the plan's 0.95), and each 60-a-day cell of 14 and 30 days against the targets
(≥ +4 points over plain FSRS; ≥ 95% of cards at 0.9 or more, 90% for the weaker learner), met or
the shortfall; ``--json`` prints the numbers; ``--quick`` runs 2 seeds instead of 20;
``--cell weaker/60/30`` (repeatable) runs only those cells; ``--days`` prints, per arm, the
reviews due and the reviews the cap drops on each day of the first seed.

Usage: python bench/bench_plan.py [--seeds N] [--quick] [--json] [--no-load-balance] [--cell L/CAP/DAYS] [--days]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any

os.environ["TZ"] = "UTC"  # study days in UTC: the simulation is the same wherever it runs
time.tzset()

import fsrs  # noqa: E402
import numpy as np  # noqa: E402
import yaml  # noqa: E402

from quizzer.base.clock import ROLLOVER_HOUR, day_start, study_day  # noqa: E402
from quizzer.scheduling import fit, plan, queue  # noqa: E402
from quizzer.scheduling.elapsed import fsrs_review  # noqa: E402
from quizzer.scheduling.forecast import Forecast, Limits, forecast  # noqa: E402
from quizzer.scheduling.simulated import Learner  # noqa: E402
from quizzer.store.history import LoggedReview  # noqa: E402
from quizzer.scheduling.memory import Placement, decide  # noqa: E402
from quizzer.store.records import NEW, PRACTICE, REVIEW, DueRow, MemoryState, NewReview  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
START = date(2026, 1, 5)
HORIZONS = (7, 14, 30)
CAPS = (60, 30)
ARMS = ("fsrs", "fsrs+pace", "plan")
NEW_PER_DAY = 20
RETENTION = 0.95
GAIN_TARGET = 0.04  # mean recall on the day over plain FSRS, 60 reviews a day, 14 and 30 days
SHARE_TARGETS = {"default": 0.95, "weaker": 0.90}  # of the cards at 0.9 or more there
LEARNERS = {"default": 1.0, "weaker": 0.6}  # the median card's strength: the weaker learner's memories last 40% less
SPREAD = 0.35  # each card's true stability × exp(N(0, SPREAD)): some cards are harder than others
BLANK = MemoryState(NEW, None, None, None, None, None, 0, False)
SESSION_HOUR = 10
LOOK = 3  # what quiz plan says is read again after this many study days, the learner's answers counted


def deck_size() -> int:
    return sum(len(yaml.safe_load(path.read_text("utf-8"))["cards"]) for path in sorted((ROOT / "decks").glob("*.yaml")))


@dataclass
class Card:
    memory: MemoryState  # what the scheduler believes
    strength: float  # how much longer than the true parameters say this card stays in memory
    truth: fsrs.Card | None = None  # the learner's true memory (stability before ``strength``)
    reps: int = 0
    practice: list[tuple[datetime, int]] = field(default_factory=list)  # practice reviews since the last scheduled one
    logged: list[tuple[datetime, int, bool]] = field(default_factory=list)  # every answer: time, rating, scheduled


def true_recall(card: Card, at: datetime, truth: fsrs.Scheduler) -> float:
    """The learner's true recall of ``card`` at ``at`` (0 for a card never seen)."""
    if card.truth is None or card.truth.stability is None or card.truth.last_review is None:
        return 0.0
    return plan.recall(card.truth.stability * card.strength, at - card.truth.last_review, truth)


def run(arm: str, truth: fsrs.Scheduler, scheduler: fsrs.Scheduler, draws: np.ndarray, strengths: np.ndarray,
        horizon: int, cap: int, load_balance: bool = False,
        log: list[tuple[int, int]] | None = None, said: list[str] | None = None) -> tuple[float, float]:
    """One learner, one arm: (mean true recall on the day, share of cards at 0.9 or more); ``log``
    gets each day's (reviews due, reviews the cap drops); ``said`` what ``quiz plan`` says after
    ``LOOK`` study days, before the next day's session (an interview further away than that)."""
    n = draws.shape[0]
    interview = plan.interview_on(START + timedelta(days=horizon), RETENTION)
    cards = [Card(BLANK, float(strength)) for strength in strengths]
    load: Counter[date] | None = Counter() if load_balance else None  # cards due on each study day
    introduced = 0
    for d in range(horizon):
        now = day_start(START + timedelta(days=d)) + timedelta(hours=SESSION_HOUR - 4)
        end = day_start(START + timedelta(days=d + 1))
        if said is not None and d == LOOK:
            said.append(said_later(cards, introduced, now, interview, cap, scheduler))
        due = queue.in_recall_order([DueRow(str(i), cards[i].memory.stability, cards[i].memory.last_review,
                                            cards[i].memory.due) for i in range(introduced)
                                     if cards[i].memory.due is not None and cards[i].memory.due < end], now, scheduler)
        if log is not None:
            log.append((len(due), max(0, len(due) - cap)))
        order = [row.id for row in due]
        if arm == "plan":  # a tight day by gain in its last week; the last days' spare budget on the cards that gain most
            due_ids = set(order)
            order = queue.planned_order(
                due, cap, 0, now, interview, scheduler,
                lambda: [plan.Seen(card_id, cards[int(card_id)].memory) for card_id in due_ids],
                lambda: [plan.Seen(str(i), plan.practised(cards[i].memory, cards[i].practice, scheduler,
                                                          interview.rollover_hour))
                         for i in range(introduced) if str(i) not in due_ids])
        taken = [int(card_id) for card_id in queue.take_within(order, cap, {}, {})]
        pace = NEW_PER_DAY if arm == "fsrs" else plan.new_per_day(n - introduced, study_day(now), interview,
                                                                  NEW_PER_DAY)
        new = list(range(introduced, min(n, introduced + pace)))
        introduced += len(new)
        for k, i in enumerate(taken + new):
            card, at = cards[i], now + timedelta(seconds=30 * k)
            answer(card, i, at, truth, scheduler, draws, end, load, interview if arm == "plan" else None)
            while card.memory.state not in (NEW, REVIEW) and card.memory.due is not None and card.memory.due < end:
                at = max(at, card.memory.due)  # a learning step comes back in the same session, as in study
                answer(card, i, at, truth, scheduler, draws, end, load, interview if arm == "plan" else None)
    recalls = [true_recall(card, interview.at, truth) for card in cards]
    return float(np.mean(recalls)), float(np.mean([r >= 0.9 for r in recalls]))


def answer(card: Card, i: int, at: datetime, truth: fsrs.Scheduler, scheduler: fsrs.Scheduler, draws: np.ndarray,
           end: datetime, load: Counter[date] | None, interview: plan.Interview | None) -> None:
    """The learner answers ``card`` at ``at``: the first sight fails; later, recalled with the true
    recall (then Good, or Hard / Easy one time in ten each), else Again."""
    u = draws[i, min(card.reps, draws.shape[1] - 1)]
    if card.truth is None:
        rating = 1
        card.truth = fsrs.Card(card_id=0, state=fsrs.State.Learning, step=0, due=at)
    else:
        rating = 1 if u[0] >= true_recall(card, at, truth) else (2 if u[1] < 0.1 else 4 if u[1] >= 0.9 else 3)
    card.truth = fsrs_review(card.truth, rating, at, truth, ROLLOVER_HOUR)  # days elapsed as Anki counts them
    before = card.memory.due
    decision = decide(card.memory, NewReview(rating, at, None), scheduler=scheduler, ahead_after=end,
                      placement=Placement(str(i), card.reps, load=load), interview=interview)
    card.memory = decision.after
    card.practice = card.practice + [(at, rating)] if not decision.scheduled else []
    card.logged.append((at, rating, decision.scheduled))
    if load is not None and before != card.memory.due:
        if before is not None:
            load[study_day(before)] -= 1
        if card.memory.due is not None:
            load[study_day(card.memory.due)] += 1
    card.reps += 1


def verdict(shown: Forecast) -> str:
    """The forecast's recall on the day, and the target reached or the reviews a day that would."""
    if shown.reached:
        return f"{shown.recalled:.3f}: reached"
    return f"{shown.recalled:.3f}: " + (f"needs {shown.reviews_needed}/day" if shown.reviews_needed is not None
                                        else "out of reach")


def said_later(cards: list[Card], introduced: int, now: datetime, interview: plan.Interview, cap: int,
               scheduler: fsrs.Scheduler) -> str:
    """What ``quiz plan`` says at ``now``: its forecast from the cards' memories, for the
    strength read off the learner's answers so far (``fit.strength_of``), which it names."""
    reviews = sorted((LoggedReview(str(i), rating, at, None, "study" if scheduled else PRACTICE)
                      for i, card in enumerate(cards[:introduced]) for at, rating, scheduled in card.logged),
                     key=lambda review: review.reviewed_at)
    strength, _ = fit.strength_of(reviews, scheduler, ROLLOVER_HOUR)
    shown = forecast([plan.Seen(str(i), cards[i].memory) for i in range(introduced)],
                     [str(i) for i in range(introduced, len(cards))], now, interview, scheduler, Limits(cap, NEW_PER_DAY),
                     ROLLOVER_HOUR, {str(i): cards[i].practice for i in range(introduced)},
                     learner=Learner(strength=strength))
    return f"{verdict(shown)} (strength {strength:.2f})"


def said_up_front(n: int, horizon: int, cap: int, scheduler: fsrs.Scheduler) -> str:
    """What ``quiz plan`` says of the cell before the first day: the recall it predicts on the day,
    and the target reached at ``cap`` reviews a day or the reviews a day that would reach it (its
    forecast's learner is FSRS's median one: it cannot know a weaker learner before any review)."""
    interview = plan.interview_on(START + timedelta(days=horizon), RETENTION)
    return verdict(forecast([], [str(i) for i in range(n)], day_start(START) + timedelta(hours=SESSION_HOUR - 4),
                            interview, scheduler, Limits(cap, NEW_PER_DAY)))


def judged(r: dict[str, Any]) -> str:
    """A 60-a-day cell against the targets: ≥ +4 points of mean recall over plain FSRS, and ≥ 95%
    of the cards at 0.9 or more (90% for the weaker learner); each met, or the shortfall."""
    share_target = SHARE_TARGETS[r["learner"]]
    gain, share = r["plan-fsrs"][0], r["plan"]["share_0.9"]
    said = [f"+{gain * 100:.1f} points over plain FSRS (target +{GAIN_TARGET * 100:.0f}): "
            + ("met" if gain >= GAIN_TARGET else f"{(GAIN_TARGET - gain) * 100:.1f} short"),
            f"{share:.0%} of cards at 0.9+ (target {share_target:.0%}): "
            + ("met" if share >= share_target else f"{(share_target - share) * 100:.0f} points short")]
    return "; ".join(said)


def interval(values: list[float]) -> tuple[float, float]:
    """Mean and half-width of a 95% interval (normal approximation) of paired differences."""
    mean = statistics.fmean(values)
    half = 1.96 * statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else float("nan")
    return mean, half


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--quick", action="store_true", help="2 seeds")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--no-load-balance", dest="load_balance", action="store_false",
                        help="Anki's load balancer off in every arm (quiz study has it on by default)")
    parser.add_argument("--cell", action="append", metavar="LEARNER/CAP/DAYS", help="only this cell (repeatable)")
    parser.add_argument("--days", action="store_true", help="reviews due / dropped a day, first seed")
    args = parser.parse_args()
    cells = {tuple(cell.split("/")) for cell in args.cell or ()}
    seeds = 2 if args.quick else args.seeds
    n = deck_size()
    common = dict(enable_fuzzing=True)  # py-fsrs's learning steps (1 and 10 minutes), as quiz study has them
    scheduler = fsrs.Scheduler(**common)
    truth = fsrs.Scheduler(**common)  # FSRS's own rules; each card's strength sets how long it is kept
    started = time.perf_counter()
    results = []
    for name, median in LEARNERS.items():
        for cap in CAPS:
            for horizon in HORIZONS:
                if cells and (name, str(cap), str(horizon)) not in cells:
                    continue
                per_arm: dict[str, list[tuple[float, float]]] = {arm: [] for arm in ARMS}
                later: list[str] = []
                for seed in range(seeds):
                    draws = np.random.default_rng([seed, horizon]).random((n, 64, 2))
                    strengths = median * np.exp(np.random.default_rng([seed, horizon, 1]).normal(0.0, SPREAD, n))
                    for arm in ARMS:
                        log: list[tuple[int, int]] = []
                        per_arm[arm].append(run(arm, truth, scheduler, draws, strengths, horizon, cap,
                                                args.load_balance, log, later if arm == "plan" and seed == 0 else None))
                        if args.days and seed == 0:
                            print(f"{name}/{cap}/{horizon} {arm}: due/dropped a day",
                                  " ".join(f"{due}/{dropped}" for due, dropped in log), file=sys.stderr)
                row = {"learner": name, "cap": cap, "days": horizon, "seeds": seeds,
                       "forecast": said_up_front(n, horizon, cap, scheduler), "forecast_later": later[0] if later else None}
                for arm in ARMS:
                    row[arm] = {"recall": statistics.fmean(r for r, _ in per_arm[arm]),
                                "share_0.9": statistics.fmean(s for _, s in per_arm[arm])}
                for other in ("fsrs", "fsrs+pace"):
                    row[f"plan-{other}"] = interval([p[0] - o[0] for p, o in zip(per_arm["plan"], per_arm[other])])
                results.append(row)
    targets = {f"{r['learner']} {r['cap']}/day {r['days']} days": judged(r) for r in results
               if r["cap"] == 60 and r["days"] in (14, 30)}
    seconds = time.perf_counter() - started
    if args.json:
        print(json.dumps({"cards": n, "seeds": seeds, "load_balance": args.load_balance, "seconds": round(seconds, 1),
                          "results": results, "targets": targets}, indent=2, ensure_ascii=False))
        return
    print(f"{n} cards, {seeds} seeds, load balancing {'on' if args.load_balance else 'off'}, {seconds:.0f} s\n")
    print("| true memory | reviews/day | days | FSRS recall | FSRS+pace recall | plan recall | plan − FSRS "
          f"| plan − FSRS+pace | share ≥0.9: FSRS / +pace / plan | quiz plan says | after {LOOK} days (seed 0) |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |")
    for r in results:
        shares = " / ".join(f"{r[arm]['share_0.9']:.0%}" for arm in ARMS)
        print(f"| {r['learner']} | {r['cap']} | {r['days']} | {r['fsrs']['recall']:.3f} | "
              f"{r['fsrs+pace']['recall']:.3f} | {r['plan']['recall']:.3f} | "
              f"{r['plan-fsrs'][0]:+.3f} ± {r['plan-fsrs'][1]:.3f} | "
              f"{r['plan-fsrs+pace'][0]:+.3f} ± {r['plan-fsrs+pace'][1]:.3f} | {shares} | {r['forecast']} "
              f"| {r['forecast_later'] or '—'} |")
    print()
    for cell, verdict in targets.items():
        print(f"- {cell}: {verdict}")

if __name__ == "__main__":
    main()
