"""``quiz optimize``: fitting FSRS-6 parameters to the review history (the real 12,580-review log),
the metrics it scores them with, the refusal on a small history, --reset, and the scheduler using
the stored parameters."""

from __future__ import annotations

import csv
import json
import os
from datetime import datetime, timedelta, timezone
from pathlib import Path

import fsrs
import pytest
from conftest import fsrs_by_study_days
from typer.testing import CliRunner

from quizzer.cli import app
from quizzer.scheduling import fit
from quizzer.scheduling.memory import decide, scheduler_for
from quizzer.settings import DEFAULTS
from quizzer.store import open_store
from quizzer.store import learner
from quizzer.store.cards import card
from quizzer.store.history import LoggedReview
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


# -- the figures fsrs-rs gives, from the log read here --------------------------------------------


def fsrs_rs_items(log: Path) -> list[tuple[datetime, object]]:
    """The log's long-term reviews as fsrs-rs items, oldest first, built here from the file alone:
    per card in time order, each review on a later study day (from 04:00 UTC) than the card's one
    before, with the whole history before it, days between reviews in study days."""
    from fsrs_rs_python import FSRSItem, FSRSReview

    by_card: dict[str, list[tuple[datetime, int]]] = {}
    with open(log, newline="", encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            at = datetime.fromisoformat(row["review_time"])
            by_card.setdefault(row["card_id"], []).append((at, int(row["review_rating"])))
    items = []
    for reviews in by_card.values():
        reviews.sort()
        days = [(at - timedelta(hours=4)).date() for at, _ in reviews]
        steps = [(rating, (days[k] - days[k - 1]).days if k else 0) for k, (_, rating) in enumerate(reviews)]
        items += [(reviews[k][0], FSRSItem([FSRSReview(r, d) for r, d in steps[:k + 1]]))
                  for k in range(1, len(steps)) if steps[k][1] > 0]
    items.sort(key=lambda item: item[0])
    return items


def test_practice_reviews_that_left_the_schedule_alone_are_no_items():
    """Optimize fits the histories the scheduler's memory is made of: a practice review recalled
    left it alone, so it is neither an item nor part of a later item's history (one logged as
    Again moved the schedule, and is logged as a study review)."""
    day = timedelta(days=1)
    reviews = [LoggedReview("c", 3, T0, None), LoggedReview("c", 3, T0 + 2 * day, None, "practice"),
               LoggedReview("c", 1, T0 + 4 * day, None), LoggedReview("c", 3, T0 + 6 * day, None, "exam")]
    items = fit.items_of(reviews)
    assert [(item.history, item.rating, item.days) for item in items] == [
        (((3, 0),), 1, 4), (((3, 0), (1, 4)), 3, 2)]


# -- quiz optimize on the real history ---------------------------------------------------------


@pytest.mark.skipif(not SHARED_LOG.exists(), reason="../shared/data/fsrs-review-log-12k.csv is not there")
def test_optimize_the_real_history_fits_better_than_the_defaults_and_is_used():
    assert quiz("history", "import", str(SHARED_LOG)).exit_code == 0
    result = quiz("optimize", "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["reviews"] == 12580
    assert report["kept"] is True
    # the figures are fsrs-rs's evaluate on the newest quarter: for the defaults, and for a fit on the
    # earlier three quarters; the parameters kept are fitted on every review, as Anki fits them
    from fsrs_rs_python import DEFAULT_PARAMETERS, FSRS

    items = [item for _, item in fsrs_rs_items(SHARED_LOG)]
    cut = int(len(items) * 0.75)
    earlier_fit = FSRS(DEFAULT_PARAMETERS).compute_parameters(items[:cut])
    for name, parameters in (("default", DEFAULT_PARAMETERS), ("fitted", earlier_fit)):
        evaluated = FSRS(parameters).evaluate(items[cut:])
        assert report[name]["log_loss"] == pytest.approx(evaluated.log_loss, abs=1e-4)
        assert report[name]["rmse_bins"] == pytest.approx(evaluated.rmse_bins, abs=1e-4)
    assert report["parameters"] == pytest.approx(FSRS(DEFAULT_PARAMETERS).compute_parameters(items), abs=1e-4)
    assert report["parameters"] != pytest.approx(earlier_fit, abs=1e-4)
    assert report["fitted"]["rmse_bins"] < report["default"]["rmse_bins"]
    assert report["fitted"]["log_loss"] < report["default"]["log_loss"]
    assert len(report["parameters"]) == 21
    assert_memory_replayed_with(report["parameters"], ["1711684180217", "1711685152786", "1711686162078"])
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
    assert_memory_replayed_with(report_defaults(), ["1711684180217", "1711686162078"])  # back to the defaults' memory
    again = quiz("optimize", "--reset")  # said "Back to FSRS's default parameters." again
    assert again.output == "The scheduler already uses FSRS's default parameters.\n"


def assert_memory_replayed_with(parameters: list[float], card_ids: list[str]) -> None:
    """Each card's stored stability and difficulty are py-fsrs's over its reviews in the shared log
    with ``parameters`` (days in study days), as Anki recomputes memory when the parameters change."""
    scheduler = fsrs.Scheduler(parameters=parameters, enable_fuzzing=False)
    with open(SHARED_LOG, newline="", encoding="utf-8") as handle:
        rows = [row for row in csv.DictReader(handle) if row["card_id"] in card_ids]
    store = open_store(os.environ["QUIZ_DB"])
    try:
        for card_id in card_ids:
            replayed = fsrs.Card(card_id=0)
            for row in sorted((r for r in rows if r["card_id"] == card_id), key=lambda r: r["review_time"]):
                replayed = fsrs_by_study_days(scheduler, replayed, int(row["review_rating"]),
                                              datetime.fromisoformat(row["review_time"]))
            stored = card(store, card_id).memory
            assert (stored.stability, stored.difficulty) == (
                pytest.approx(replayed.stability), pytest.approx(replayed.difficulty)), card_id
    finally:
        store.close()


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
