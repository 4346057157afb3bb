"""`quiz stats`: the figures of a real review history (12,580 Anki reviews) against a computation
made here from the CSV alone (csv module, plain Python, fsrs only to replay states); filters,
errors, the empty collection and the rich output at three widths."""

from __future__ import annotations

import csv
import hashlib
import json
import os
import random
import shutil
import subprocess
import sys
import time
from collections import Counter, defaultdict
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

import fsrs
import pytest
from conftest import fsrs_by_study_days, recall_now
from rich.cells import cell_len
from typer.testing import CliRunner

from quizzer.cli import app

runner = CliRunner()
REVIEW_LOG = Path(__file__).resolve().parents[2] / "shared" / "data" / "fsrs-review-log-12k.csv"
NOW = "2024-10-07T12:00:00+00:00"  # the log's last review is on 2024-10-06
TODAY = date(2024, 10, 7)
PERIOD = 30
REVIEW_STATE = 2  # fsrs.State.Review, the store's REVIEW
SCHEDULER = fsrs.Scheduler(enable_fuzzing=False)


def study_day(moment: datetime) -> date:
    """The study day in UTC (the tests pin TZ=UTC): days start at 04:00."""
    return (moment.astimezone(timezone.utc) - timedelta(hours=4)).date()


# -- the expected figures, from the CSV -------------------------------------------------------


def read_log() -> dict[str, list[tuple[datetime, int, int]]]:
    """Each card's reviews (time, rating, duration ms), oldest first."""
    by_card: dict[str, list[tuple[datetime, int, int]]] = defaultdict(list)
    with open(REVIEW_LOG, newline="") as handle:
        for row in csv.DictReader(handle):
            by_card[row["card_id"]].append((datetime.fromisoformat(row["review_time"]), int(row["review_rating"]),
                                            int(row["review_duration"])))
    for reviews in by_card.values():
        reviews.sort(key=lambda r: r[0])  # stable: as the import orders them
    return dict(by_card)


def replay(reviews: list[tuple[datetime, int, int]]) -> tuple[list[int], fsrs.Card, int]:
    """Each review's state before it (0 for the first: never seen), the card after the last one,
    and its lapses (Again on a card in review), days counted in study days. Fuzzing only moves due dates, which the import
    (replayed with fuzzing on, without the ahead rule) never looks at, so states agree."""
    card, states, lapses = fsrs.Card(card_id=0), [], 0
    for k, (moment, rating, duration) in enumerate(reviews):
        state = 0 if k == 0 else int(card.state)
        states.append(state)
        lapses += state == REVIEW_STATE and rating == 1
        card = fsrs_by_study_days(SCHEDULER, card, rating, moment)
    return states, card, lapses


def expected(history: dict, cards: set[str]) -> dict:
    """The figures `quiz stats --json` must give for the reviews of ``cards``."""
    log = history["log"]
    first_day = TODAY - timedelta(days=PERIOD - 1)
    per_day: Counter[date] = Counter()
    ratings: Counter[int] = Counter()
    spent: Counter[date] = Counter()
    retention = {(kind, passed): 0 for kind in ("young", "mature") for passed in (True, False)}
    for card_id in cards:
        reviews = log[card_id]
        states, _, _ = history["replays"][card_id]
        days_seen: set[date] = set()
        for k, (moment, rating, duration) in enumerate(reviews):
            day = study_day(moment)
            per_day[day] += 1
            if not first_day <= day <= TODAY:
                continue
            ratings[rating] += 1
            spent[day] += duration
            first_of_day = day not in days_seen
            days_seen.add(day)
            if first_of_day and states[k] == REVIEW_STATE:
                interval = (moment - reviews[k - 1][0]).total_seconds() / 86400
                retention["mature" if interval >= 21 else "young", rating >= 2] += 1
    return {
        "reviews_per_day": [{"day": d.isoformat(), "reviews": n} for d, n in sorted(per_day.items())],
        "ratings": {"again": ratings[1], "hard": ratings[2], "good": ratings[3], "easy": ratings[4]},
        "retention": {kind: (retention[kind, True], retention[kind, False]) for kind in ("young", "mature")},
        "time": {(first_day + timedelta(days=i)).isoformat(): spent[first_day + timedelta(days=i)]
                 for i in range(PERIOD)},
    }


def deck_yaml(deck_id: str, card_ids: list[str], tagged: set[str]) -> str:
    lines = [f"id: {deck_id}", f"title: {deck_id}", "language: en", "source: {file: anki.txt, sections: '1'}",
             "cards:"]
    for card_id in card_ids:
        tags = "[even]" if card_id in tagged else "[]"
        lines.append(f"  - {{id: '{card_id}', kind: qa, source: '1.1', tags: {tags}, question: q, answer: a, points: [p]}}")
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def history(tmp_path_factory):
    """A database holding the whole log, imported as `quiz history import` would (unknown cards
    created, then the decks synced); two decks hold two thirds of its cards, the last third is
    in no deck (inactive, but its reviews still count). Built once: each test copies it."""
    if not REVIEW_LOG.exists():
        pytest.skip(f"the review log is not there ({REVIEW_LOG}): it comes with the shared data next to the checkout")
    from quizzer.app.collection import open_collection
    from quizzer.store import open_store
    from quizzer.transfer.fsrs_csv import import_history, read_review_log

    log = read_log()
    ids = sorted(log, key=lambda cid: log[cid][0][0])  # in order of first review
    alpha, beta, tagged = ids[0::3], ids[1::3], set(ids[0::2])
    folder = tmp_path_factory.mktemp("history")
    decks = folder / "decks"
    decks.mkdir()
    (decks / "alpha.yaml").write_text(deck_yaml("alpha", alpha, tagged), "utf-8")
    (decks / "beta.yaml").write_text(deck_yaml("beta", beta, tagged), "utf-8")
    db = folder / "history.db"
    with pytest.MonkeyPatch.context() as env:
        env.setenv("QUIZ_CACHE_DIR", str(folder / "cache"))
        env.setenv("QUIZ_NOW", NOW)
        store = open_store(db)
        import_history(store, read_review_log(REVIEW_LOG))
        store.close()
        open_collection(decks, db).store.close()  # the first sync: cards in no deck become inactive
    assert not Path(f"{db}-wal").exists() or Path(f"{db}-wal").stat().st_size == 0
    return {"db": db, "decks": decks, "log": log, "replays": {cid: replay(log[cid]) for cid in log},
            "alpha": set(alpha), "beta": set(beta),
            "tagged": tagged & (set(alpha) | set(beta))}


@pytest.fixture
def db(history, isolated) -> Path:
    """This test's own copy of the history database (at its QUIZ_DB)."""
    target = isolated / "quiz.db"
    shutil.copy(history["db"], target)
    return target


def stats(history, *args: str, columns: int = 100):
    return runner.invoke(app, ["stats", "--decks", str(history["decks"]), *args],
                         env={"QUIZ_NOW": NOW, "COLUMNS": str(columns)})


def stats_json(history, *args: str) -> dict:
    result = stats(history, "--json", *args)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def check_figures(got: dict, want: dict) -> None:
    assert got["reviews_per_day"] == want["reviews_per_day"]
    assert got["reviews_total"] == sum(d["reviews"] for d in want["reviews_per_day"])
    assert got["ratings"] == want["ratings"]
    for kind in ("young", "mature"):
        passed, failed = want["retention"][kind]
        assert (got["true_retention"][kind]["passed"], got["true_retention"][kind]["failed"]) == (passed, failed), kind
        assert got["true_retention"][kind]["rate"] == pytest.approx(passed / (passed + failed))
    assert {d["day"]: d["duration_ms"] for d in got["time_per_day"]} == want["time"]


# -- the tests ----------------------------------------------------------------------------------


def test_figures_match_the_csv_for_every_review(history, db):
    got = stats_json(history)
    want = expected(history, set(history["log"]))  # inactive cards' reviews count too
    check_figures(got, want)
    assert got["true_retention"]["mature"]["passed"] + got["true_retention"]["mature"]["failed"] > 100  # both kinds occur
    assert got["reviews_total"] == 12_580 and got["first_day"] == "2024-03-29" and got["today"] == "2024-10-07"
    studied = [date.fromisoformat(d["day"]) for d in want["reviews_per_day"]]
    assert got["days_studied"] == len(studied)
    streak, day = 0, TODAY if TODAY in studied else TODAY - timedelta(days=1)  # today not studied yet
    while day in studied:
        streak, day = streak + 1, day - timedelta(days=1)
    assert got["streak"] == streak
    # per-day counts in the period agree with the whole-history counts
    whole = {d["day"]: d["reviews"] for d in got["reviews_per_day"]}
    assert all(d["reviews"] == whole.get(d["day"], 0) for d in got["time_per_day"])


FIELDS = ["now", "today", "decks", "tags", "empty", "cards", "cards_total", "due_today", "forecast", "reviews_total",
          "first_day", "days_studied", "streak", "reviews_per_day", "period_days", "time_per_day", "true_retention",
          "ratings", "average_recall", "recall_cards", "exams", "exam_trend", "weakest_cards", "weakest_tags", "plan"]


def test_the_json_fields_are_the_documented_ones(history, db):
    got = stats_json(history)
    assert list(got) == FIELDS
    assert list(got["cards"][0]) == ["deck", "new", "learning", "review", "relearning", "suspended", "buried", "leech",
                                     "total"]
    assert list(got["forecast"][0]) == ["day", "due"] and list(got["time_per_day"][0]) == ["day", "reviews", "duration_ms"]
    assert list(got["true_retention"]) == ["young", "mature", "all"]
    assert list(got["true_retention"]["all"]) == ["passed", "failed", "rate"]
    assert list(got["weakest_cards"][0]) == ["card_id", "short_id", "deck", "lapses", "mistakes", "recall"]
    assert list(got["weakest_tags"][0]) == ["tag", "cards", "lapses", "mistakes", "recall"]


def test_card_states_recall_and_forecast_cover_the_active_cards(history, db):
    got = stats_json(history)
    active = history["alpha"] | history["beta"]
    now = datetime.fromisoformat(NOW)
    names = {1: "learning", 2: "review", 3: "relearning"}
    want: dict[str, Counter[str]] = {"alpha": Counter(), "beta": Counter()}
    recalls = []
    for card_id in active:
        _, card, lapses = history["replays"][card_id]
        counts = want["alpha" if card_id in history["alpha"] else "beta"]
        counts[names[int(card.state)]] += 1
        counts["leech"] += lapses >= 8
        recalls.append(recall_now(SCHEDULER, card, now))
    for row in got["cards"]:
        counts = want[row["deck"]]
        assert row["total"] == sum(counts[n] for n in names.values())
        assert (row["new"], row["suspended"], row["buried"]) == (0, 0, 0)
        assert {n: row[n] for n in (*names.values(), "leech")} == {n: counts[n] for n in (*names.values(), "leech")}
    assert [row["deck"] for row in got["cards"]] == ["alpha", "beta"]
    assert got["cards_total"]["total"] == len(active)
    assert got["recall_cards"] == len(active)
    assert got["average_recall"] == pytest.approx(sum(recalls) / len(recalls), rel=1e-9)
    assert len(got["forecast"]) == 30 and got["forecast"][0]["day"] == "2024-10-07"
    assert got["due_today"] == got["forecast"][0]["due"] > 0
    assert [c["lapses"] for c in got["weakest_cards"]] == sorted((c["lapses"] for c in got["weakest_cards"]), reverse=True)
    assert {c["card_id"] for c in got["weakest_cards"]} <= active
    assert [t["tag"] for t in got["weakest_tags"]] == ["even"]


def test_deck_and_tag_filters(history, db):
    alpha = stats_json(history, "--deck", "alpha")
    assert alpha["decks"] == ["alpha"] and [row["deck"] for row in alpha["cards"]] == ["alpha"]
    check_figures(alpha, expected(history, history["alpha"]))
    tagged = stats_json(history, "--tag", "even")
    assert tagged["tags"] == ["even"] and tagged["cards_total"]["total"] == len(history["tagged"])
    check_figures(tagged, expected(history, history["tagged"]))
    both = stats_json(history, "--deck", "beta", "--tag", "even")
    check_figures(both, expected(history, history["tagged"] & history["beta"]))


def test_an_unknown_deck_or_tag_is_an_error(history, db):
    deck = stats(history, "--deck", "nope")
    assert deck.exit_code == 2 and "Error: no deck 'nope' (known: alpha, archived, beta)" in deck.stderr
    tag = stats(history, "--tag", "nope")
    assert tag.exit_code == 2 and "Error: no tag 'nope'" in tag.stderr


def take_exam(db: Path, card_ids: list[str], scores: list[float], when: datetime) -> None:
    """A finished exam on ``card_ids`` with these question scores (through the store, as
    `quiz exam` writes them)."""
    from quizzer.scheduling.answer import answer
    from quizzer.store import exams, open_store
    from quizzer.store.records import ExamMark, PaperSpec

    store = open_store(db)
    exam = exams.start(store, PaperSpec(count=len(card_ids)), random.randrange(10**9), 30,
                       [(cid, "qa", None) for cid in card_ids], when)
    for position, (card_id, score) in enumerate(zip(card_ids, scores)):
        exams.save_answer(store, exam.id, position, spent_ms=1000, status="answered", answer_text="x")
        answer(store, card_id, 3 if score == 1 else 1, now=when, duration_ms=1000, mode="exam", ahead_rule=False,
               mark=ExamMark(exam.id, position, score, None, score < 0.5))
    exams.close(store, exam.id, when)
    store.close()


def test_exam_scores_trend_and_the_notebook(history, db):
    alpha = [c["card_id"] for c in stats_json(history, "--deck", "alpha")["weakest_cards"][:2]]
    beta = [c["card_id"] for c in stats_json(history, "--deck", "beta")["weakest_cards"][:2]]
    take_exam(db, alpha + beta, [0.0, 1.0, 1.0, 0.0], datetime(2024, 10, 7, 9, tzinfo=timezone.utc))
    take_exam(db, alpha + beta, [1.0, 1.0, 1.0, 0.0], datetime(2024, 10, 7, 10, tzinfo=timezone.utc))
    got = stats_json(history)
    assert [e["score"] for e in got["exams"]] == [50.0, 75.0] and got["exam_trend"] == pytest.approx(25.0)
    assert got["reviews_total"] == 12_580 + 8  # exam answers are reviews
    only_alpha = stats_json(history, "--deck", "alpha")
    assert [e["score"] for e in only_alpha["exams"]] == [50.0, 100.0]  # the questions on alpha's cards
    # still in the notebook (no right answer on a later day yet): alpha[0] wrong once, beta[1] twice
    assert {c["card_id"]: c["mistakes"] for c in only_alpha["weakest_cards"]}[alpha[0]] == 1
    only_beta = stats_json(history, "--deck", "beta")["weakest_cards"]
    assert {c["card_id"]: c["mistakes"] for c in only_beta}[beta[1]] == 2
    keys = [(-c["lapses"], -c["mistakes"], c["recall"]) for c in only_beta]
    assert keys == sorted(keys)


@pytest.mark.parametrize("columns", [60, 80, 120])
def test_the_terminal_output_fits_every_width(history, db, columns):
    take_exam(db, sorted(history["alpha"])[:2], [1.0, 0.0], datetime(2024, 10, 7, 9, tzinfo=timezone.utc))
    result = stats(history, columns=columns)
    assert result.exit_code == 0, result.output
    for heading in ("Statistics, 2024-10-07", "Cards", "Overview", "Reviews per day", "Due, next 30 days",
                    "Time per day", "True retention", "Ratings", "Exam scores", "Weakest cards", "Weakest tags"):
        assert heading in result.stdout, (columns, heading)
    assert max(len(line) for line in result.stdout.splitlines()) <= columns
    assert "12,582 since 2024-03-29" in result.stdout


def test_due_today_is_the_overviews_due_and_learning_cards_and_says_so(history, db):
    """The overview showed `learning 76  due 73` and `quiz stats` `due today 149`: the same word for
    two counts. The stats figure holds both, and its label says so."""
    later = "2024-10-21T09:00:00+00:00"
    overview = json.loads(runner.invoke(app, ["--json", "--decks", str(history["decks"])],
                                        env={"QUIZ_NOW": later}).stdout)["total"]
    got = json.loads(runner.invoke(app, ["stats", "--json", "--decks", str(history["decks"])],
                                   env={"QUIZ_NOW": later}).stdout)
    assert overview["learning"] and got["due_today"] == overview["due_waiting"] + overview["learning"]
    text = runner.invoke(app, ["stats", "--decks", str(history["decks"])], env={"QUIZ_NOW": later, "COLUMNS": "100"})
    assert f"due today, learning included  {got['due_today']:,}" in " ".join(text.stdout.split("│"))


def test_days_with_nothing_in_a_row_are_one_row(history, db):
    """A week after the history's last review, thirty rows of 0 filled the forecast and the time
    per day. Three or more quiet days in a row are one row (`10-08 – 10-20`); today keeps its own,
    and every day with a review keeps its row."""
    import re

    later = "2024-10-21T09:00:00+00:00"
    text = runner.invoke(app, ["stats", "--decks", str(history["decks"])], env={"QUIZ_NOW": later, "COLUMNS": "100"}).stdout
    got = json.loads(runner.invoke(app, ["stats", "--json", "--decks", str(history["decks"])],
                                   env={"QUIZ_NOW": later}).stdout)
    time_rows = text.split("Time per day")[1].split("True retention")[0]
    ranges = re.findall(r"^ (\d\d-\d\d) – (\d\d-\d\d) +0 ", time_rows, re.MULTILINE)
    quiet = [d["day"][5:] for d in got["time_per_day"] if not d["reviews"] and d["day"] != "2024-10-21"]
    assert ranges and all(first in quiet and last in quiet for first, last in ranges)
    studied = [d for d in got["time_per_day"] if d["reviews"]]
    assert all(re.search(rf"^ \w+ {d['day'][5:]} +{d['reviews']:,} ", time_rows, re.MULTILINE) for d in studied)
    assert len(time_rows.strip().splitlines()) < len(got["time_per_day"])


def test_an_empty_collection_says_so():
    text = runner.invoke(app, ["stats"], env={"COLUMNS": "80"})
    assert text.exit_code == 0, text.output
    assert "No reviews yet" in text.stdout and "Cards" in text.stdout
    got = json.loads(runner.invoke(app, ["stats", "--json"]).stdout)
    assert got["empty"] is True and got["reviews_total"] == 0 and got["reviews_per_day"] == []
    assert got["cards_total"]["new"] == got["cards_total"]["total"] > 0
    assert got["true_retention"]["young"] == {"passed": 0, "failed": 0, "rate": None}
    assert got["average_recall"] is None and got["first_day"] is None and got["streak"] == 0


@pytest.mark.parametrize("parameters", [None, (0.2, 1.2, 3.1, 15.7, 7.2, 0.5, 1.5, 0.005, 1.5, 0.12, 1.0, 1.9, 0.1,
                                             0.3, 2.3, 0.2, 2.9, 0.5, 0.3, 0.05, 0.4)], ids=["default", "fitted"])
def test_recall_in_sql_is_fsrs_retrievability(backend, parameters):
    """The store's SQL forgetting curve (mean recall, each weak card's recall) against fsrs's
    own formula (on fractional days elapsed), on SQLite and PostgreSQL, for the default decay and
    a fitted one; a last review in the future counts as no time elapsed."""
    from sqlalchemy import insert

    from quizzer.scheduling.curve import decay
    from quizzer.store import open_store
    from quizzer.store.filter import CardFilter
    from quizzer.store.models import cards
    from quizzer.store.stats import Curve, seen_cards, weakest_cards

    scheduler = fsrs.Scheduler(parameters=parameters) if parameters else fsrs.Scheduler()
    now = datetime(2024, 10, 7, 12, tzinfo=timezone.utc)
    rng = random.Random(3)
    made = [fsrs.Card(card_id=i, state=fsrs.State.Review, stability=rng.uniform(0.1, 300),
                      last_review=now - timedelta(seconds=rng.uniform(-3600, 400 * 86400))) for i in range(200)]
    store = open_store(backend)
    try:
        with store.write() as conn:
            conn.execute(insert(cards), [
                {"id": f"c{c.card_id:03d}", "deck": "d", "kind": "qa", "position": c.card_id, "content_hash": "",
                 "first_seen": now - timedelta(days=500), "state": 2, "stability": c.stability,
                 "last_review": c.last_review, "lapses": c.card_id % 3} for c in made])
        curve = Curve(now.timestamp(), decay(scheduler))
        expected = {f"c{c.card_id:03d}": recall_now(scheduler, c, now) for c in made}
        mean, _ = seen_cards(store, CardFilter(), curve)
        assert mean.cards == 200
        assert mean.mean == pytest.approx(sum(expected.values()) / 200, rel=1e-9)
        weak = weakest_cards(store, CardFilter(), curve, 10)
        assert [w.recall for w in weak] == pytest.approx([expected[w.id] for w in weak], rel=1e-9)
        by_rank = sorted(expected, key=lambda i: (-(int(i[1:]) % 3), expected[i], i))[:10]
        assert [w.id for w in weak] == by_rank  # most lapses, then lowest recall
    finally:
        store.close()


def test_sqlites_without_math_functions_get_the_same_curve():
    """Where SQLite lacks ``pow``/``floor``, the store adds them in Python: the forgetting curve
    of a few cards, computed both ways, agrees (and with Python's own arithmetic)."""
    import math
    import sqlite3

    from quizzer.store.sqlite import add_math_functions

    rows = [(0.3, 12.0), (45.5, 0.0), (200.0, 399.7), (1.5, None)]
    query = ("SELECT pow(1 + 0.98 * floor(?) / ?, -0.1542), floor(-2.5), pow(NULL, 2) FROM (SELECT 1)")
    with sqlite3.connect(":memory:") as built_in, sqlite3.connect(":memory:") as added:
        add_math_functions(added)
        defined = added.execute("SELECT name FROM pragma_function_list WHERE builtin = 0").fetchall()
        assert {("pow",), ("floor",)} <= set(defined)  # ours, not SQLite's, answer below
        for stability, days in rows:
            mine = added.execute(query, (days, stability)).fetchone()
            assert mine == built_in.execute(query, (days, stability)).fetchone()
            expected = None if days is None else (1 + 0.98 * math.floor(days) / stability) ** -0.1542
            assert mine == (pytest.approx(expected) if expected is not None else None, -3.0, None)


def test_a_card_due_at_a_days_start_counts_on_that_day(backend):
    """The database's epoch seconds are exact: a due time at 04:00 of a study day is on that day,
    a microsecond before it on the day before (``julianday`` arithmetic put it 10 µs early)."""
    from sqlalchemy import insert

    from quizzer.base.clock import day_start
    from quizzer.scheduling.summary import due_per_day
    from quizzer.store import open_store
    from quizzer.store.models import cards

    today = date(2025, 6, 30)
    tomorrow = day_start(today + timedelta(days=1))
    dues = [tomorrow, tomorrow, tomorrow - timedelta(microseconds=1), day_start(today + timedelta(days=2)),
            day_start(today) - timedelta(days=3)]  # the last one is overdue: it counts today
    store = open_store(backend)
    try:
        with store.write() as conn:
            conn.execute(insert(cards), [
                {"id": f"c{i}", "deck": "d", "kind": "qa", "position": i, "content_hash": "", "state": 2,
                 "first_seen": tomorrow - timedelta(days=9), "due": due, "stability": 3.0, "difficulty": 5.0,
                 "last_review": tomorrow - timedelta(days=5)} for i, due in enumerate(dues)])
        assert due_per_day(store, today, 4) == [2, 2, 1, 0]
    finally:
        store.close()


# -- the review log's aggregate (quizzer.store.review_days) -----------------------------------


def logged_days(store, decks: tuple[str, ...] | None, rollover: int = 4, zone=timezone.utc) -> dict[date, list[int]]:
    """Per study day, from the log's rows alone: reviews, Again, Hard, Good, Easy, time spent, and
    true retention's young passed/failed, mature passed/failed (a card's first review of a study
    day in the Review state; mature when its previous review was 21 or more days earlier)."""
    from sqlalchemy import select

    from quizzer.store.models import cards, review_log

    def day(moment: datetime) -> date:
        return (moment.astimezone(zone) - timedelta(hours=rollover)).date()

    with store.read() as conn:
        rows = conn.execute(select(review_log.c.card_id, review_log.c.reviewed_at, review_log.c.rating,
                                   review_log.c.duration_ms, review_log.c.state_before, cards.c.deck)
                            .join(cards, cards.c.id == review_log.c.card_id)).all()
    rows.sort(key=lambda r: (r[0], r[1]))  # the tests' reviews of a card never share a time
    days: dict[date, list[int]] = {}
    previous: dict[str, datetime] = {}
    for card_id, at, rating, duration, state, deck in rows:
        before = previous.get(card_id)
        previous[card_id] = at
        if decks is not None and deck not in decks:
            continue
        counts = days.setdefault(day(at), [0] * 10)
        counts[0] += 1
        counts[rating] += 1
        counts[5] += duration or 0
        if state == REVIEW_STATE and (before is None or day(before) < day(at)):
            mature = before is None or at - before >= timedelta(days=21)
            counts[6 + 2 * mature + (rating == 1)] += 1
    return days


@pytest.fixture
def rebuilds(monkeypatch) -> list[int]:
    """Counts the aggregate's rebuilds from the whole log (one entry each)."""
    from quizzer.store import review_days

    calls: list[int] = []
    real = review_days._rebuild

    def counted(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(review_days, "_rebuild", counted)
    return calls


def test_the_review_days_follow_the_log(backend, rebuilds):
    """The stored aggregate against the log's rows after each way the log changes, on SQLite and
    PostgreSQL: a first build; answers (added, not rebuilt); an undo; history imports (later
    reviews, earlier ones); a card moving deck; another day start."""
    from quizzer.scheduling.memory import decide
    from quizzer.store import CardRef, open_store, sync_cards
    from quizzer.store.cards import record_answer, undo
    from quizzer.store.filter import CardFilter
    from quizzer.store.history import LoggedReview
    from quizzer.store.records import NewReview
    from quizzer.store.review_days import review_days_of
    from quizzer.transfer.fsrs_csv import ARCHIVE_DECK, import_history

    now = datetime(2024, 10, 7, 12, tzinfo=timezone.utc)
    rng = random.Random(11)
    refs = [CardRef(f"c{i}", "a" if i < 6 else "b", "qa", i, "h") for i in range(10)]
    store = open_store(backend)

    def check(rollover: int = 4) -> None:
        for decks in (None, ("a",), ("b",), ("a", ARCHIVE_DECK)):
            assert review_days_of(store, CardFilter(decks=decks), rollover) == logged_days(store, decks, rollover)

    def answer(card_id: str, at: datetime, rating: int):
        return record_answer(store, card_id, NewReview(rating, at, rng.randrange(1000, 20000)),
                             lambda before, review: decide(before, review, scheduler=SCHEDULER, ahead_after=None))

    try:
        sync_cards(store, refs, now - timedelta(days=90))
        history = [LoggedReview(card_id, rng.choice((1, 2, 3, 3, 4)), now - timedelta(days=80 - k * 2.7, hours=hour),
                                rng.choice((None, rng.randrange(1000, 60000))))
                   for card_id in [*(r.id for r in refs), "x1", "x2"] for hour in (0, 7) for k in range(28)]
        import_history(store, history)
        check()
        assert len(rebuilds) == 1
        check()
        assert len(rebuilds) == 1  # nothing new: read as stored

        answered = [answer(f"c{i % 10}", now - timedelta(hours=10 - i), rng.randint(1, 4)) for i in range(8)]
        check()
        assert len(rebuilds) == 1  # answers are added to the table
        undo(store, answered[-1])
        check()
        assert len(rebuilds) == 2  # an aggregated review was deleted
        answer("c7", now - timedelta(hours=1), 3)
        check()
        assert len(rebuilds) == 2
        earlier = answer("c8", now - timedelta(minutes=50), 2)
        answer("c9", now - timedelta(minutes=40), 4)
        check()
        undo(store, earlier)  # aggregated, and not the last review aggregated
        check()
        assert len(rebuilds) == 3

        import_history(store, [LoggedReview("c1", 1, now - timedelta(minutes=30), 5000),
                               LoggedReview("x3", 3, now - timedelta(minutes=20), None)])
        check()  # later reviews: added, or rebuilt where the replay rewrote a card's states
        import_history(store, [LoggedReview("c2", 2, now - timedelta(days=40, minutes=7), 4000)])
        rebuilt = len(rebuilds)
        check()
        assert len(rebuilds) == rebuilt + 1  # a review before the card's last one

        sync_cards(store, [CardRef(r.id, "b" if r.id == "c3" else r.deck, "qa", r.position, "h") for r in refs])
        check()
        assert len(rebuilds) == rebuilt + 2  # c3's reviews count for deck b now
        check(rollover=6)
        assert len(rebuilds) == rebuilt + 3
    finally:
        store.close()


def test_the_review_days_follow_the_local_days_across_dst(monkeypatch, tmp_path):
    """Study days in a zone with DST changes: the aggregate puts every review on the day the
    zone's clock says, and a change of zone rebuilds it."""
    from zoneinfo import ZoneInfo

    from quizzer.store import CardRef, open_store, sync_cards
    from quizzer.store.filter import CardFilter
    from quizzer.store.history import LoggedReview
    from quizzer.store.review_days import review_days_of
    from quizzer.transfer.fsrs_csv import import_history

    rng = random.Random(5)
    store = open_store(tmp_path / "quiz.db")
    try:
        sync_cards(store, [CardRef(f"c{i}", "a", "qa", i, "h") for i in range(6)])
        start = datetime(2024, 3, 25, tzinfo=timezone.utc)
        import_history(store, [LoggedReview(f"c{i}", rng.randint(1, 4), at, 1000) for i in range(6) for at in sorted(
            {start + timedelta(seconds=rng.uniform(0, 220 * 86400)) for _ in range(60)}
            | {datetime(2024, 3, 31, 1, 59, tzinfo=timezone.utc), datetime(2024, 10, 27, 2, 0, tzinfo=timezone.utc)})])
        assert review_days_of(store, CardFilter(), 4) == logged_days(store, None)
        monkeypatch.setenv("TZ", "Europe/Berlin")
        time.tzset()
        assert review_days_of(store, CardFilter(), 4) == logged_days(store, None, zone=ZoneInfo("Europe/Berlin"))
    finally:
        store.close()


def test_a_database_that_cannot_be_written_still_gets_its_figures(history, db, monkeypatch):
    """Storing the aggregate fails (a read-only login, a lock held too long): the figures are the
    same, nothing is stored, and a later run that can write stores it."""
    from sqlalchemy import func, select

    from quizzer.base.errors import DatabaseError
    from quizzer.store import open_store, review_days
    from quizzer.store.models import review_days as table

    writable = stats_json(history)
    fresh = db.with_name("unwritten.db")
    shutil.copy(history["db"], fresh)  # the aggregate not built yet

    def refused(conn, *args):
        raise DatabaseError("attempt to write a readonly database")

    def stored() -> int:
        store = open_store(fresh)
        try:
            with store.read() as conn:
                return conn.scalar(select(func.count()).select_from(table))
        finally:
            store.close()

    with monkeypatch.context() as patched:
        patched.setattr(review_days, "_write", refused)
        assert stats_json(history, "--db", str(fresh)) == writable
    assert stored() == 0
    assert stats_json(history, "--db", str(fresh)) == writable
    assert stored() > 0


@pytest.mark.slow
@pytest.mark.parametrize("language", ["en", "zh"])
@pytest.mark.parametrize("columns", [60, 80, 100])
def test_a_long_card_id_stays_whole_at_every_width(deck_folder, language, columns):
    """The weakest cards with a 45-character id (the bundled decks' longest): every line within the
    terminal, every header and number whole; the id on one line wherever it fits, the deck column
    beside it only where both fit (100 columns, not 80); where the id cannot be whole on a line
    (60) the deck is back and the row names the card by its short id (the start of the id's SHA-1,
    as `quiz cards` does), never a folded id; the time caption unbroken."""
    from quizzer.scheduling.answer import answer
    from quizzer.store import open_store

    long_id = "d12-bert-bidirectional-not-two-unidirectional"
    decks = deck_folder("id: day12-bert-gpt\ntitle: D\nlanguage: zh\nsource: {file: f, sections: s}\ncards:\n"
                        f"  - {{id: {long_id}, kind: qa, source: '1', question: Q, answer: A, points: [p]}}\n")
    now = datetime(2026, 1, 5, 10, tzinfo=timezone.utc)
    assert runner.invoke(app, ["--decks", str(decks)]).exit_code == 0  # the cards into the store
    store = open_store()
    answer(store, long_id, 1, now=now - timedelta(days=2), duration_ms=20_000)
    store.close()
    result = subprocess.run([sys.executable, "-m", "quizzer", "stats", "--decks", str(decks)], capture_output=True,
                            text=True, env={**os.environ, "QUIZ_NOW": now.isoformat(), "COLUMNS": str(columns),
                                            "QUIZ_LANG": language})  # the language is chosen as a process starts
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert max(cell_len(line) for line in lines) <= columns
    card, deck, *counts = {"en": ("card", "deck", "lapses", "mistakes", "recall"),
                           "zh": ("卡片", "牌组", "遗忘", "错题", "回忆概率")}[language]
    [at] = [i for i, line in enumerate(lines) if line.split()[:1] == [card] and line.split()[-3:] == counts]
    assert (deck in lines[at].split()) == (columns != 80)
    row = [line.split() for line in lines[at + 2:at + 6] if line.strip()]
    assert row[0][-1].endswith("%") and (("day12-bert-gpt" in row[0]) == (columns != 80))
    if columns >= 80:
        assert row[0][0] == long_id
    else:
        short = row[0][0]
        assert len(short) >= 4 and hashlib.sha1(long_id.encode()).hexdigest().startswith(short), row
    # 20 s of study, not "0 min", on one line
    assert {"en": "under a minute in all, under a minute a study day",
            "zh": "合计：不到 1 分钟，每个学习日：不到 1 分钟"}[language] in [line.strip() for line in lines]


def test_heatmap_shades_are_the_quartiles_numpy_gives():
    """A day's shade: 0 without reviews, else 1 + how many of the busy days' quartiles (numpy's
    linear ones, computed here independently) lie below its count."""
    import numpy as np
    from hypothesis import given
    from hypothesis import strategies as st

    from quizzer.terminal.stats import levels

    @given(st.lists(st.integers(0, 500), max_size=120))
    def check(values: list[int]) -> None:
        busy = [v for v in values if v > 0]
        edges = np.quantile(busy, [0.25, 0.5, 0.75]) if busy else []
        assert levels(values) == [0 if v == 0 else 1 + int(sum(edge < v for edge in edges)) for v in values]

    check()
