"""``quiz optimize``: fitting FSRS-6 parameters to the review history (the real 12,580-review log),
the metrics it scores them with, the refusal on a small history, --reset, and the scheduler using
the stored parameters."""

from __future__ import annotations

import csv
import json
import math
import os
from datetime import datetime, timedelta, timezone
from pathlib import Path

import fsrs
import numpy as np
import pytest
from typer.testing import CliRunner

from quizzer.cli import app
from quizzer.scheduling import fit
from quizzer.scheduling.memory import decide, scheduler_for
from quizzer.settings import DEFAULTS
from quizzer.store import open_store
from quizzer.store import learner
from quizzer.store.records import NEW, MemoryState, NewReview

runner = CliRunner()
SHARED_LOG = Path(__file__).resolve().parents[2] / "shared" / "data" / "fsrs-review-log-12k.csv"
T0 = datetime(2025, 3, 3, 9, 0, tzinfo=timezone.utc)


def quiz(*args: str):
    return runner.invoke(app, list(args))


def write_log(path: Path, rows: list[tuple[object, ...]]) -> Path:
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["card_id", "review_rating", "review_time", "review_duration"])
        writer.writerows(rows)
    return path


# -- the metrics, from their definitions --------------------------------------------------------


def test_log_loss_is_the_mean_binary_cross_entropy():
    recalled, predicted = np.array([1.0, 0.0, 1.0]), np.array([0.8, 0.3, 0.6])
    expected = -(math.log(0.8) + math.log(0.7) + math.log(0.6)) / 3
    assert fit.log_loss(recalled, predicted) == pytest.approx(expected)


def test_rmse_bins_weighs_each_bins_gap_by_its_size():
    # Bins (srs-benchmark): days 1..3 → 2.48, 4..13 → 8.98; review number 2..3 → 2; lapses 0 → 0.
    # Group A: days 1 and 2, number 2: outcomes 1, 0 (mean 0.5), predictions 0.9, 0.7 (mean 0.8): gap 0.3.
    # Group B: days 5, 6, 7, number 3: outcomes 1, 1, 1, predictions 0.9 each: gap 0.1.
    recalled = np.array([1, 0, 1, 1, 1], dtype=float)
    predicted = np.array([0.9, 0.7, 0.9, 0.9, 0.9])
    days = np.array([1, 2, 5, 6, 7], dtype=float)
    number = np.array([2, 2, 3, 3, 3], dtype=float)
    lapses = np.zeros(5)
    expected = math.sqrt((2 * 0.3 ** 2 + 3 * 0.1 ** 2) / 5)
    assert fit.rmse_bins(recalled, predicted, days, number, lapses) == pytest.approx(expected)


def test_rmse_bins_keeps_lapse_counts_apart():
    # the same interval and review number, but 0 and 1 lapses: two groups, each gap 0.2
    recalled, predicted = np.array([1.0, 0.0]), np.array([0.8, 0.2])
    same = np.array([3.0, 3.0])
    assert fit.rmse_bins(recalled, predicted, same, same, np.array([0.0, 1.0])) == pytest.approx(0.2)


# -- quiz optimize on the real history ---------------------------------------------------------


@pytest.mark.skipif(not SHARED_LOG.exists(), reason="../shared/data/fsrs-review-log-12k.csv is not there")
def test_optimize_the_real_history_fits_better_than_the_defaults_and_is_used():
    assert quiz("history", "import", str(SHARED_LOG)).exit_code == 0
    result = quiz("optimize", "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["reviews"] == 12580
    assert report["kept"] is True
    # fsrs-rs reaches about 0.055 against the defaults' 0.074 here (issue 10); quizzer's split and bins
    # give other absolute numbers, but the fit must predict the later reviews better on both metrics
    assert report["fitted"]["rmse_bins"] < report["default"]["rmse_bins"]
    assert report["fitted"]["log_loss"] < report["default"]["log_loss"]
    assert len(report["parameters"]) == 21
    store = open_store(os.environ["QUIZ_DB"])
    try:
        assert learner.load(store).parameters == pytest.approx(tuple(report["parameters"]))
    finally:
        store.close()
    shown = " ".join(quiz("optimize").output.split())  # the table: the parameters in use, as Anki shows them
    assert "FSRS parameters now in use: " + ", ".join(f"{w:.4f}" for w in report["parameters"]) in shown

    # again on the same history: the new fit is no better than the one in use, which stays (it said
    # "Kept the default parameters" and --json gave the defaults, while the earlier fit stayed in use)
    again = json.loads(quiz("optimize", "--json").output)
    assert again["kept"] is False and again["in_use"] is not None
    assert again["parameters"] == pytest.approx(report["parameters"]) != pytest.approx(report_defaults())
    shown = " ".join(quiz("optimize").output.split())
    assert "in use (fitted " in shown and "Kept the parameters in use: the new fit did not predict" in shown
    store = open_store(os.environ["QUIZ_DB"])
    try:
        assert learner.load(store).parameters == pytest.approx(tuple(report["parameters"]))
    finally:
        store.close()

    reset = quiz("optimize", "--reset")
    assert reset.exit_code == 0 and reset.output == "Back to FSRS's default parameters.\n"
    store = open_store(os.environ["QUIZ_DB"])
    try:
        assert learner.load(store).parameters is None
    finally:
        store.close()
    again = quiz("optimize", "--reset")  # said "Back to FSRS's default parameters." again
    assert again.output == "The scheduler already uses FSRS's default parameters.\n"


def report_defaults() -> list[float]:
    return list(fsrs.scheduler.DEFAULT_PARAMETERS)


def test_a_small_history_is_refused_saying_how_many_more(tmp_path):
    # 10 cards reviewed on days 0, 2 and 5: 2 reviews each on a later day than the one before → 20
    rows = [(f"c{card}", 3, (T0 + timedelta(days=day)).isoformat(), 5000)
            for card in range(10) for day in (0, 2, 5)]
    assert quiz("history", "import", str(write_log(tmp_path / "small.csv", rows))).exit_code == 0
    result = quiz("optimize")
    assert result.exit_code == 1
    assert ("Error: too little review history to fit: 20 reviews made on a later day than the card's previous one, "
            "492 short of 512 (keep studying, or `quiz history import` your history)") in result.output
    assert "Traceback" not in result.output


def test_an_empty_history_is_refused_without_counting_from_zero():
    result = quiz("optimize")
    assert result.exit_code == 1 and result.output.strip() == (
        "Error: no review history to fit yet: it takes 512 reviews made on a later day than the card's previous one "
        "(keep studying, or `quiz history import` your history)"), result.output


def test_reset_without_a_fit_keeps_the_defaults():
    result = quiz("optimize", "--reset", "--json")
    assert result.exit_code == 0
    assert json.loads(result.output)["parameters"] == pytest.approx(list(fsrs.scheduler.DEFAULT_PARAMETERS))


# -- the scheduler uses the stored parameters ---------------------------------------------------


def test_stored_parameters_change_intervals_as_fsrs_predicts(tmp_path):
    # FSRS-6: a new card answered Good starts with stability w2; at retention 0.9 the interval is
    # the stability itself (R = 0.9 after S days by the curve's definition), so w2 = 10 → 10 days.
    custom = list(fsrs.scheduler.DEFAULT_PARAMETERS)
    custom[2] = 10.0
    store = open_store(tmp_path / "quiz.db")
    try:
        learner.save_parameters(store, tuple(custom), T0)
        stored = learner.load(store).parameters
    finally:
        store.close()
    settings = DEFAULTS.__class__(learning_steps=(), fuzz=False)
    blank = MemoryState(NEW, None, None, None, None, None, 0, False)
    days = {}
    for name, parameters in (("default", None), ("stored", stored)):
        after = decide(blank, NewReview(3, T0, None), scheduler=scheduler_for(settings, parameters),
                       ahead_after=None).after
        days[name] = (after.due - T0).days + 1  # due at the start (04:00) of the study day, T0 is 09:00
        assert after.stability == pytest.approx((parameters or fsrs.scheduler.DEFAULT_PARAMETERS)[2])
    assert days == {"default": round(fsrs.scheduler.DEFAULT_PARAMETERS[2]), "stored": 10}


def test_study_schedules_with_the_stored_parameters(deck_folder, monkeypatch):
    """Through `quiz study`: with w2 = 10 stored, a new card answered Good (no learning steps,
    no fuzz) is due in 10 days; before, the defaults' w2 gave its own rounded interval."""
    folder = deck_folder("id: one\ntitle: One\nlanguage: en\nsource: {file: c.txt, sections: '1'}\ncards:\n"
                         "  - {id: q-one, kind: qa, source: '1', question: Q, answer: A, points: [p]}\n")
    monkeypatch.setenv("QUIZ_NOW", T0.isoformat())
    monkeypatch.setenv("QUIZ_FUZZ", "off")
    assert runner.invoke(app, ["config", "set", "learning_steps", ""]).exit_code == 0
    default_days = round(fsrs.scheduler.DEFAULT_PARAMETERS[2])
    first = runner.invoke(app, ["study", "--decks", str(folder)], input="\n3\nq\n")
    assert f"saved q-one → Good · due in {default_days}d" in first.stdout, first.output
    custom = list(fsrs.scheduler.DEFAULT_PARAMETERS)
    custom[2] = 10.0
    store = open_store()
    try:
        learner.save_parameters(store, tuple(custom), T0)
    finally:
        store.close()
    other = deck_folder("id: two\ntitle: Two\nlanguage: en\nsource: {file: c.txt, sections: '1'}\ncards:\n"
                        "  - {id: q-two, kind: qa, source: '1', question: Q2, answer: A, points: [p]}\n", "two.yaml")
    second = runner.invoke(app, ["study", "--decks", str(other), "--deck", "two"], input="\n3\nq\n")
    assert "saved q-two → Good · due in 10d" in second.stdout, second.output
