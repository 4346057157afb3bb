"""The plan's forecast answers as a learner does (``scheduling.simulated``): first sights
forgotten, reviews recalled with each card's true recall, cards varying in strength; checked
against bench/bench_plan.py's learner, an independent simulation of the same study days."""

from __future__ import annotations

import importlib.util
import statistics
import sys
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

import fsrs
import numpy as np
import pytest

from quizzer.scheduling import plan
from quizzer.scheduling.forecast import Limits, forecast
from quizzer.scheduling.simulated import MODEL, SPREAD, Learner, answers_of

BENCH = Path(__file__).resolve().parents[1] / "bench" / "bench_plan.py"
SCHEDULER = fsrs.Scheduler()


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("bench_plan", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_plan"] = module  # its dataclasses look their module up
    try:
        spec.loader.exec_module(module)
        yield module
    finally:
        sys.modules.pop("bench_plan", None)


@pytest.mark.parametrize(("cards", "days", "cap"), [(100, 14, 10), (100, 14, 20), (60, 10, 5)])
def test_the_forecast_predicts_the_recall_the_benchmarks_learner_reaches(bench, cards, days, cap):
    """Before the first day, the forecast's mean recall on the day is within 0.025 of what the
    benchmark's learner (the same median strength and spread, its own queue loop and truth)
    reaches over 8 seeds; answering every review Good, it overestimated by 0.03 to 0.17."""
    measured = statistics.fmean(
        bench.run("plan", SCHEDULER, SCHEDULER, np.random.default_rng([seed, days]).random((cards, 64, 2)),
                  np.exp(np.random.default_rng([seed, days, 1]).normal(0.0, SPREAD, cards)), days, cap)[0]
        for seed in range(8))
    interview = plan.interview_on(bench.START + timedelta(days=days))
    now = bench.day_start(bench.START) + timedelta(hours=6)
    ids = [str(i) for i in range(cards)]
    predicted = forecast([], ids, now, interview, SCHEDULER, Limits(cap, 20)).recalled
    best_case = forecast([], ids, now, interview, SCHEDULER, Limits(cap, 20), learner=MODEL).recalled
    assert predicted == pytest.approx(measured, abs=0.025)
    assert best_case - measured > 0.03


def test_a_weaker_learner_is_forecast_to_recall_less_and_to_need_more_reviews():
    """Cards 40% weaker than the model: less recalled on the day at the same budget, and the
    target needs more reviews a day (or none reach it)."""
    now = datetime(2026, 1, 5, 10, tzinfo=timezone.utc)
    interview = plan.interview_on(date(2026, 1, 19))
    ids = [f"c{i}" for i in range(80)]
    usual = forecast([], ids, now, interview, SCHEDULER, Limits(8, 20))
    weaker = forecast([], ids, now, interview, SCHEDULER, Limits(8, 20), learner=Learner(strength=0.6))
    assert weaker.recalled < usual.recalled < 0.95 and not usual.reached
    assert usual.reviews_needed is not None
    assert weaker.reviews_needed is None or weaker.reviews_needed > usual.reviews_needed


def test_the_forecast_says_the_same_every_time_and_whatever_cards_are_beside():
    """The learner's draws are fixed by the card ids: the same forecast twice is the same, and a
    card's strength does not move when other cards join."""
    now = datetime(2026, 1, 5, 10, tzinfo=timezone.utc)
    interview = plan.interview_on(date(2026, 1, 12))
    ids = [f"c{i}" for i in range(40)]
    assert forecast([], ids, now, interview, SCHEDULER, Limits(10, 20)) == \
        forecast([], ids, now, interview, SCHEDULER, Limits(10, 20))
    alone, joined = answers_of(Learner(), ids[:5]), answers_of(Learner(), ids)
    assert [alone.strength(i) for i in ids[:5]] == [joined.strength(i) for i in ids[:5]]


def test_the_cards_strengths_spread_as_the_learner_says():
    """Over many cards the log strengths have the learner's median and spread."""
    answers = answers_of(Learner(strength=0.6, spread=0.35), [f"card-{i}" for i in range(4000)])
    logs = [np.log(answers.strength(f"card-{i}")) for i in range(4000)]
    assert statistics.median(logs) == pytest.approx(np.log(0.6), abs=0.03)
    assert statistics.stdev(logs) == pytest.approx(0.35, abs=0.02)


def test_first_sights_fail_and_reviews_lapse_only_when_the_learner_says_so():
    """The first sight is Again for the default learner, Good for the model's best case; a
    review with recall 0 is Again, and Good when the learner never lapses."""
    from quizzer.base.defaults import Rating

    learner, best = answers_of(Learner(), ["a"]), answers_of(MODEL, ["a"])
    assert learner.rating("a", 0, None) == Rating.AGAIN and best.rating("a", 0, None) == Rating.GOOD
    assert learner.rating("a", 1, 0.0) == Rating.AGAIN and learner.rating("a", 1, 1.0) == Rating.GOOD
    assert best.rating("a", 1, 0.0) == Rating.GOOD
