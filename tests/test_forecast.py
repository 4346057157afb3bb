"""The plan's forecast answers as a learner does (``scheduling.simulated``): first sights
forgotten, reviews recalled with each card's true recall, cards varying in strength; checked
against bench/bench_plan.py's learner, an independent simulation of the same study days."""

from __future__ import annotations

import statistics
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

import fsrs
import numpy as np
import pytest

from quizzer.scheduling import plan
from quizzer.scheduling.forecast import Limits, forecast
from quizzer.scheduling.simulated import SPREAD, Learner, answers_of

SCHEDULER = fsrs.Scheduler()
MODEL = Learner(spread=0.0, first_sight_fails=False, lapses=False)  # the model's best case: every answer Good


@pytest.mark.parametrize(("cards", "days", "cap"), [(100, 14, 10), (100, 14, 20), (60, 10, 5)])
def test_the_forecast_predicts_the_recall_the_benchmarks_learner_reaches(bench_plan, cards, days, cap):
    """Before the first day, the forecast's mean recall on the day is within 0.025 of what the
    benchmark's learner (the same median strength and spread, its own queue loop and truth)
    reaches over 8 seeds; answering every review Good, it overestimated by 0.03 to 0.17."""
    measured = statistics.fmean(
        bench_plan.run("plan", SCHEDULER, SCHEDULER, np.random.default_rng([seed, days]).random((cards, 64, 2)),
                  np.exp(np.random.default_rng([seed, days, 1]).normal(0.0, SPREAD, cards)), days, cap)[0]
        for seed in range(8))
    interview = plan.interview_on(bench_plan.START + timedelta(days=days))
    now = bench_plan.day_start(bench_plan.START) + timedelta(hours=6)
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


def test_the_strength_read_off_answers_is_the_learners_own():
    """3,000 reviews of a learner whose memories last 60% of the model's, drawn from FSRS-6's curve
    with those stabilities: the strength read off them is 0.6; no answers leave the model's 1,
    and three recalls barely move it (the prior holds it until answers accumulate)."""
    from quizzer.scheduling.curve import decay
    from quizzer.scheduling.simulated import Observed, strength_from

    rng = np.random.default_rng(7)
    w = decay(SCHEDULER)
    observed = []
    for days, stability, draw in zip(rng.integers(1, 30, 3000), rng.uniform(0.5, 40, 3000), rng.random(3000)):
        true = (1 + (0.9 ** (-1 / w) - 1) * days / (0.6 * stability)) ** -w  # FSRS-6's curve, written out
        observed.append(Observed(float(days), float(stability), bool(draw < true)))
    assert strength_from(observed, w) == pytest.approx(0.6, abs=0.07)  # the curve is flat: 3,000 answers tell ±0.04
    assert strength_from([], w) == pytest.approx(1.0, abs=1e-3)
    assert 1.0 < strength_from([Observed(5.0, 5.0, True)] * 3, w) < 1.4


def test_observed_stabilities_are_fsrs_own_before_each_later_day_review():
    """A card answered Good, then 3 days later Good, then 9 days later Again: the two later
    reviews are observed with py-fsrs's stabilities before them (fsrs-rs computes them, float32)."""
    from quizzer.scheduling.fit import items_of, observed
    from quizzer.store.history import LoggedReview

    start = datetime(2026, 1, 1, 10, tzinfo=timezone.utc)
    times = [start, start + timedelta(days=3), start + timedelta(days=12)]
    reviews = [LoggedReview("c", rating, at, None) for rating, at in zip((3, 3, 1), times)]
    card = fsrs.Card()
    expected = []
    for rating, at in zip((3, 3), times):
        card, _ = SCHEDULER.review_card(card, fsrs.Rating(rating), at)
        expected.append(card.stability)
    seen = observed(items_of(reviews), SCHEDULER.parameters)
    assert [(o.days, o.recalled) for o in seen] == [(3, True), (9, False)]
    assert [o.stability for o in seen] == pytest.approx(expected, rel=1e-4)


def test_quiz_plan_reads_the_learners_strength_off_their_history(tmp_path):
    """An imported history of 30 cards, each forgotten at every review on a later day: `quiz plan
    --json` reads a strength well below the model's off those reviews and forecasts less recall
    than for a learner who recalled them all."""
    import json

    from typer.testing import CliRunner

    from quizzer.cli import app

    def plan_after(ratings: tuple[int, ...], home: Path) -> dict:
        days = (-40, -37, -30, -20, -8)
        rows = ["card_id,review_rating,review_time,review_duration"]
        for card in range(30):
            for day, rating in zip(days, ratings):
                at = datetime(2026, 1, 5, 10, tzinfo=timezone.utc) + timedelta(days=day, minutes=card)
                rows.append(f"x{card},{rating},{at.isoformat()},5000")
        log = home / "log.csv"
        log.write_text("\n".join(rows) + "\n", encoding="utf-8")
        env = {"QUIZ_NOW": "2026-01-05T10:00", "QUIZ_DB": str(home / "q.db")}
        runner = CliRunner()
        assert runner.invoke(app, ["history", "import", str(log)], env=env).exit_code == 0
        assert runner.invoke(app, ["plan", "--date", "2026-01-19"], env=env).exit_code == 0
        return json.loads(runner.invoke(app, ["plan", "--json"], env=env).output)

    (tmp_path / "weak").mkdir()
    (tmp_path / "strong").mkdir()
    weak, strong = plan_after((3, 1, 1, 1, 1), tmp_path / "weak"), plan_after((3, 3, 3, 3, 3), tmp_path / "strong")
    assert weak["learner_reviews"] == strong["learner_reviews"] == 30 * 4  # each card's four later-day reviews
    assert weak["learner_strength"] < 0.5 < 1 < strong["learner_strength"]


def test_the_strength_is_read_off_the_whole_histories_of_the_newest_reviews_cards(tmp_path):
    """review_log(newest=N) gives every review of the cards that the newest N reviews name: with
    one card reviewed a month ago and another this week, the newest review names the second card
    alone; the newest three, both cards with all five of their reviews."""
    from typer.testing import CliRunner

    from quizzer.cli import app
    from quizzer.store import open_store
    from quizzer.store.history import review_log

    start = datetime(2026, 1, 5, 10, tzinfo=timezone.utc)
    rows = ["card_id,review_rating,review_time,review_duration"]
    rows += [f"old,3,{(start - timedelta(days=days)).isoformat()},4000" for days in (40, 35, 30)]
    rows += [f"new,3,{(start - timedelta(days=days)).isoformat()},4000" for days in (5, 2)]
    log = tmp_path / "log.csv"
    log.write_text("\n".join(rows) + "\n", encoding="utf-8")
    database = tmp_path / "q.db"
    result = CliRunner().invoke(app, ["history", "import", str(log)], env={"QUIZ_NOW": "2026-01-05T10:00",
                                                                           "QUIZ_DB": str(database)})
    assert result.exit_code == 0, result.output
    store = open_store(database)
    assert [r.card_id for r in review_log(store, newest=1)] == ["new", "new"]
    assert sorted(r.card_id for r in review_log(store, newest=3)) == ["new", "new", "old", "old", "old"]
    assert len(review_log(store)) == 5


def test_a_learning_step_due_on_a_later_day_waits_for_it_and_never_passes_the_interview():
    """With learning steps of 10 minutes and 1 day and the interview tomorrow, the forecast
    answered the 1-day step at the interview's start and counted every card fully recalled
    (1.0, "reached"). Now each new card is answered twice today (its first sight forgotten, the
    10-minute step) and its 1-day step waits for a day the plan does not have."""
    from datetime import timedelta as minutes_and_days

    steps = fsrs.Scheduler(learning_steps=(minutes_and_days(minutes=10), minutes_and_days(days=1)))
    now = datetime(2026, 1, 5, 10, tzinfo=timezone.utc)
    shown = forecast([], [f"c{i}" for i in range(50)], now, plan.interview_on(date(2026, 1, 6)), steps,
                     Limits(200, 50), learner=Learner(spread=0.0, lapses=False))  # first sight forgotten, then Good
    assert shown.reviews_per_day == 2 * 50
    assert shown.recalled < 0.95 and not shown.reached
