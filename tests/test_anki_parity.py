"""Anki parity of the scheduler: the Hard < Good < Easy rule, learning cards back as soon as
their step is due, due dates by study day across clock changes, seeded fuzz inside Anki's
range, and the load balancer. Expected intervals are written here from Anki's rules
(rslib/src/scheduler/states: review.rs, learning.rs, relearning.rs, fuzz.rs, load_balancer.rs)
applied to the stabilities py-fsrs gives (noted beside each step)."""

from __future__ import annotations

import math
import time
from collections import Counter
from datetime import date, datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import fsrs
import pytest
from typer.testing import CliRunner

from quizzer.base import clock
from quizzer.app import study, study_views
from quizzer.app.collection import open_collection
from quizzer.cli import app
from quizzer.scheduling.answer import answer, undo
from quizzer.scheduling.memory import Placement, decide, fuzz_bounds, scheduler_for
from quizzer.scheduling.queue import build_queue
from quizzer.settings import DEFAULTS, load
from quizzer.store import CardRef, open_store, sync_cards
from quizzer.store.cards import card
from quizzer.store.history import LoggedReview
from quizzer.store.records import REVIEW, MemoryState, NewReview
from quizzer.transfer.fsrs_csv import import_history

NO_FUZZ = fsrs.Scheduler(enable_fuzzing=False)
FUZZ = fsrs.Scheduler()
T0 = datetime(2025, 3, 3, 9, 0, tzinfo=timezone.utc)  # 09:00 in UTC (conftest), the study day began at 04:00


@pytest.fixture
def store(tmp_path):
    st = open_store(tmp_path / "quiz.db")
    yield st
    st.close()


def refs(n: int) -> list[CardRef]:
    return [CardRef(f"c{i}", "d", "qa", i, f"h{i}", ()) for i in range(n)]


# -- the Hard < Good < Easy rule, graduating and in review ----------------------

M = timedelta(minutes=1)
# (rating, what Anki gives): a learning step as a time, a review as study days. Steps 1m 10m,
# relearning 10m, retention 0.9, fuzz off; each answer comes when the card is due (same hour).
SEQUENCES = {
    # Again, then Easy: FSRS Good 0.25 → 1 day, Easy 0.42 → 1 day, but Easy ≥ Good + 1 = 2 (py-fsrs: 1)
    "again-easy": [(1, M), (4, 2)],
    # Easy graduates after a Hard step (Good 0.10 → 1, Easy 0.18 → 2, py-fsrs 1); then in review
    # Hard 0.74 → 1 day (the minimum)
    "easy-then-hard": [(1, M), (1, M), (2, 5.5 * M), (4, 2), (2, 1)],
    # ... Good 1.11 → 1, but Good ≥ Hard + 1 = 2 (py-fsrs: 1)
    "easy-then-good": [(1, M), (1, M), (2, 5.5 * M), (4, 2), (3, 2)],
    # ... Easy 1.92 → 2, but Easy ≥ Good + 1 = 3 (py-fsrs: 2)
    "easy-then-easy": [(1, M), (1, M), (2, 5.5 * M), (4, 2), (4, 3)],
    # three Agains: Easy graduates at 2 (Good 0.05, Easy 0.08; py-fsrs 1); Good 0.53 → 2 (Hard 0.35 → 1;
    # py-fsrs 1); Good 1.63 → 2 (Hard 1.19 → 1, no change)
    "three-agains": [(1, M), (1, M), (1, M), (4, 2), (3, 2), (3, 2)],
    # plain Goods: 2.31 → 2, 10.97 → 11, 46.32 → 46, 163.0 → 163 (as py-fsrs: nothing to constrain)
    "goods": [(3, 10 * M), (3, 2), (3, 11), (3, 46), (3, 163)],
    # a lapse: relearning 10m, Good 0.66 → 1; then Good 2.49 → 2 with Hard 1.76 → 2, so Good = 3
    # (py-fsrs: 2); then Easy 11.42 → 11 (Good 7.26 → 7)
    "lapse": [(3, 10 * M), (3, 2), (1, 10 * M), (3, 1), (3, 3), (4, 11)],
    # Easy at once: 8.30 → 8 (≥ Good 2.31 → 2, + 1); then Hards 26.70 → 27, 61.97 → 62, 112.37 → 112
    "easy-hards": [(4, 8), (2, 27), (2, 62), (2, 112)],
}


@pytest.mark.parametrize("name", SEQUENCES)
def test_rating_sequences_get_ankis_intervals(store, name):
    sync_cards(store, refs(1), T0)
    now = T0
    direct = fsrs.Card()
    for rating, expected in SEQUENCES[name]:
        result = answer(store, "c0", rating, now=now, duration_ms=1000, scheduler=NO_FUZZ)
        direct, _ = NO_FUZZ.review_card(direct, fsrs.Rating(rating), now)
        assert result.scheduled
        assert result.current.stability == pytest.approx(direct.stability, rel=1e-12)  # memory: py-fsrs's
        due = result.current.due
        if isinstance(expected, int):  # a review: the start of the study day `expected` days on
            assert result.current.state == REVIEW
            assert due == datetime.combine(now.date() + timedelta(days=expected), datetime.min.time(),
                                           timezone.utc) + timedelta(hours=4)
            now += timedelta(days=expected)  # answered on its due day, at the same hour
        else:
            assert due == now + expected
            now = due


def test_the_rule_is_what_changes_from_py_fsrs():
    """The sequences above where Anki's rule gives more days than py-fsrs does: 9 answers."""
    differ = 0
    for steps in SEQUENCES.values():
        direct, now = fsrs.Card(), T0
        for rating, expected in steps:
            direct, _ = NO_FUZZ.review_card(direct, fsrs.Rating(rating), now)
            if isinstance(expected, int):
                differ += (direct.due - now).days != expected
                now += timedelta(days=expected)
            else:
                now = direct.due
    assert differ == 9


# -- a failed card comes back as soon as its step is due --------------------------

DECK = "id: six\ntitle: Six\nlanguage: zh\nsource: {file: c.txt, sections: \"1\"}\ncards:\n" + "".join(
    f'  - {{id: q-{i}, kind: qa, source: "1.{i}", question: 问{i}, answer: 答{i}, points: [点]}}\n' for i in range(6))


def test_a_failed_card_returns_mid_session_on_a_moving_clock(deck_folder, tmp_path, monkeypatch):
    """Six new cards, one answered every 3 minutes from 10:00, the first one failed (step 1m):
    Anki shows it again right after the next card, at 10:06, not after the other five (10:18);
    the second card (Good at 10:03, step 10m) is back once 10:13 has passed, at 10:18."""
    start = datetime(2026, 1, 5, 10, 0, tzinfo=timezone.utc)
    monkeypatch.setenv("QUIZ_NOW", start.isoformat())
    collection = open_collection(deck_folder(DECK), tmp_path / "six.db")
    machine = study.StudySession(collection, build_queue(collection.store, start), tick=lambda: 0.0)
    view = machine.start()[-1]
    answered = []
    for i, rating in enumerate([1, 3, 3, 3, 3, 3, 3]):
        when = start + timedelta(minutes=3 * i)
        monkeypatch.setenv("QUIZ_NOW", when.isoformat())
        assert isinstance(view, study_views.CardView)
        answered.append((when.strftime("%H:%M"), view.card_id))
        machine.handle(study.Reveal())
        view = machine.handle(study.Rate(rating))[-1]
    assert answered == [("10:00", "q-0"), ("10:03", "q-1"), ("10:06", "q-0"), ("10:09", "q-2"),
                        ("10:12", "q-3"), ("10:15", "q-4"), ("10:18", "q-1")]
    collection.store.close()


# -- due dates by study day, across clock changes -------------------------------

NO_STEPS = fsrs.Scheduler(learning_steps=(), enable_fuzzing=False)  # a new card goes straight to review


@pytest.mark.parametrize("zone, given, days, due_local", [
    # New York falls back on 2 Nov 2025: 24 hours after 04:30 EDT is 03:30 EST, still the same study day
    ("America/New_York", "2025-11-01T04:30", 1, datetime(2025, 11, 2, 4, 0)),
    ("America/New_York", "2025-11-01T04:30", 2, datetime(2025, 11, 3, 4, 0)),
    # ... and springs forward on 9 Mar 2025: 24 hours after 04:30 EST would be 05:30 EDT
    ("America/New_York", "2025-03-08T04:30", 1, datetime(2025, 3, 9, 4, 0)),
    # Berlin falls back on 26 Oct 2025 and springs forward on 30 Mar 2025
    ("Europe/Berlin", "2025-10-25T04:30", 1, datetime(2025, 10, 26, 4, 0)),
    ("Europe/Berlin", "2025-03-29T04:30", 1, datetime(2025, 3, 30, 4, 0)),
    # answered at 03:30, before the day starts: it belongs to the day before, so 1 day is 04:00 the same morning
    ("Europe/Berlin", "2025-10-26T03:30", 1, datetime(2025, 10, 26, 4, 0)),
])
def test_day_intervals_fall_due_at_the_start_of_a_study_day_whatever_the_clocks_do(
        store, monkeypatch, zone, given, days, due_local):
    monkeypatch.setenv("TZ", zone)
    time.tzset()
    monkeypatch.setenv("QUIZ_NOW", given)  # naive: local wall-clock time
    now = clock.now()
    assert now == datetime.fromisoformat(given).replace(tzinfo=ZoneInfo(zone))
    sync_cards(store, refs(1), now)
    rating = {1: 2, 2: 3}[days]  # no steps: Hard graduates at 1.29 → 1 day, Good at 2.31 → 2 days
    due = answer(store, "c0", rating, now=now, duration_ms=1000, scheduler=NO_STEPS).current.due
    expected = due_local.replace(tzinfo=ZoneInfo(zone))
    assert due == expected
    assert build_queue(store, expected - timedelta(minutes=1), scheduler=NO_STEPS) == []
    assert build_queue(store, expected, scheduler=NO_STEPS) == ["c0"]


# -- seeded fuzz ----------------------------------------------------------------


@pytest.mark.parametrize("interval, minimum, maximum, bounds", [
    # Anki's own fuzz.rs test cases (lower and upper end of the range)
    (1.0, 1, 1000, (1, 1)), (2.49, 1, 1000, (2, 2)), (2.5, 1, 1000, (2, 4)), (7.0, 1, 1000, (5, 9)),
    (17.0, 1, 1000, (14, 20)), (37.0, 1, 1000, (33, 41)), (2.0, 2, 1000, (2, 2)), (2.0, 3, 1000, (3, 4)),
    (2.0, 3, 3, (3, 3)), (19.9, 3, 1000, (17, 23)), (100.0, 101, 1000, (101, 108)), (100.0, 1, 99, (92, 99)),
    (100.0, 97, 103, (97, 103)),
])
def test_fuzz_range_is_ankis(interval, minimum, maximum, bounds):
    assert fuzz_bounds(interval, minimum, maximum) == bounds


def card_in_review() -> tuple[MemoryState, datetime]:
    """A card after Good, Good (graduated at 2 days), reviewed 2 days later: Good gives stability
    10.97 days (Anki's range 9-13: 1 + 0.15 × 4.5 + 0.1 × 3.97 = 2.07 days either side), Hard 7.52."""
    card, _ = NO_FUZZ.review_card(fsrs.Card(), fsrs.Rating.Good, T0)
    card, _ = NO_FUZZ.review_card(card, fsrs.Rating.Good, T0 + 10 * M)
    before = MemoryState(REVIEW, None, card.stability, card.difficulty, T0 + timedelta(days=2),
                         card.last_review, 0, False)
    return before, T0 + timedelta(days=2, minutes=10)


def good_days(before: MemoryState, now: datetime, scheduler: fsrs.Scheduler, placement: Placement) -> int:
    after = decide(before, NewReview(3, now, None), scheduler=scheduler, ahead_after=None, placement=placement).after
    assert after.due is not None
    return (clock.study_day(after.due) - clock.study_day(now)).days


def test_seeded_fuzz_stays_in_range_and_replays_the_same():
    before, now = card_in_review()
    draws = [good_days(before, now, FUZZ, Placement(f"card-{i}", 2)) for i in range(2000)]
    assert set(draws) == {9, 10, 11, 12, 13}  # all of Anki's range, nothing outside it
    assert min(Counter(draws).values()) > 200  # spread over it (400 each if even)
    assert [good_days(before, now, FUZZ, Placement(f"card-{i}", 2)) for i in range(2000)] == draws  # replayed
    assert len({good_days(before, now, FUZZ, Placement("card-0", reps)) for reps in range(50)}) > 1  # reps count
    off = scheduler_for(DEFAULTS.with_options(fuzz="off"))
    assert {good_days(before, now, off, Placement(f"card-{i}", 2)) for i in range(50)} == {11}  # 10.97 → 11


def test_an_undone_answer_given_again_lands_on_the_same_day(store):
    sync_cards(store, refs(3), T0)
    for card_id in ("c0", "c1", "c2"):
        answer(store, card_id, 4, now=T0, duration_ms=1000, scheduler=NO_FUZZ)
    later = T0 + timedelta(days=8)
    first = answer(store, "c0", 3, now=later, duration_ms=1000, scheduler=FUZZ)
    undo(store, first)
    again = answer(store, "c0", 3, now=later, duration_ms=1000, scheduler=FUZZ)
    assert again.current.due == first.current.due


# -- load balancing -------------------------------------------------------------


def test_the_balancer_prefers_the_day_with_fewer_cards_due():
    before, now = card_in_review()
    today = clock.study_day(now)
    busy = {today + timedelta(days=d): 50 for d in range(1, 100)}
    busy[today + timedelta(days=12)] = 0
    chosen = [good_days(before, now, FUZZ, Placement(f"card-{i}", 2, load=busy)) for i in range(200)]
    assert chosen == [12] * 200
    # busy days alike: the fuzz range as without the balancer
    alike = {today + timedelta(days=d): 5 for d in range(1, 100)}
    assert {good_days(before, now, FUZZ, Placement(f"card-{i}", 2, load=alike)) for i in range(500)} == {
        9, 10, 11, 12, 13}


def spread(store, load_balance: bool) -> Counter[date]:
    """45 equal cards (Easy on the same day, fuzz off: all due 8 days later), then each answered
    Good on that day: stability 38.9, Anki's range 35-43 days. Cards falling due on each day."""
    sync_cards(store, refs(45), T0)
    for card_id in (r.id for r in refs(45)):
        answer(store, card_id, 4, now=T0, duration_ms=1000, scheduler=NO_FUZZ)
    later = T0 + timedelta(days=8)
    dues = [answer(store, r.id, 3, now=later, duration_ms=1000, scheduler=FUZZ, load_balance=load_balance).current.due
            for r in refs(45)]
    return Counter((clock.study_day(due) - clock.study_day(later)).days for due in dues if due is not None)


def test_load_balancing_spreads_a_batch_of_equal_cards(tmp_path):
    balanced_store, plain_store = open_store(tmp_path / "a.db"), open_store(tmp_path / "b.db")
    balanced, plain = spread(balanced_store, True), spread(plain_store, False)
    balanced_store.close()
    plain_store.close()
    assert set(balanced) == set(range(35, 44)) and set(plain) <= set(range(35, 44))
    assert max(balanced.values()) - min(balanced.values()) <= 2  # 5 a day, give or take one (a weighted draw)
    assert max(plain.values()) - min(plain.values()) > 2  # seeded fuzz alone leaves it lumpy


def test_the_buttons_show_the_day_the_answer_gets(deck_folder, tmp_path, monkeypatch):
    """With seeded fuzz and the balancer on, what the rating buttons show is what rating gives
    (Anki's buttons show the fuzzed interval too), in whole days for a review."""
    start = datetime(2026, 1, 5, 10, 0, tzinfo=timezone.utc)
    collection = open_collection(deck_folder(DECK), tmp_path / "six.db")
    for card_id in ("q-0", "q-1", "q-2"):
        answer(collection.store, card_id, 4, now=start, duration_ms=1000, scheduler=NO_FUZZ)  # all due in 8 days
    later = start + timedelta(days=8)
    monkeypatch.setenv("QUIZ_NOW", later.isoformat())
    for card_id in ("q-0", "q-1", "q-2"):
        machine = study.StudySession(collection, [card_id], tick=lambda: 0.0)
        machine.start()
        [back] = machine.handle(study.Reveal())
        assert back.intervals[0] == timedelta(minutes=10) and all(d.seconds == 0 for d in back.intervals[1:])
        hard, good, easy = (d.days for d in back.intervals[1:])
        assert hard < good < easy and 35 <= good <= 43  # Good 38.9: Anki's range 35-43
        saved = machine.handle(study.Rate(3))[0]
        assert isinstance(saved, study.Notice) and saved.due_in == back.intervals[2]
    collection.store.close()


def test_load_balance_is_a_setting():
    runner = CliRunner()
    assert load().load_balance is True
    assert runner.invoke(app, ["config", "set", "load_balance", "off"]).exit_code == 0
    assert load().load_balance is False
    result = runner.invoke(app, ["config", "set", "load_balance", "maybe"])
    assert result.exit_code == 2 and "load_balance: must be on or off" in result.output


# -- days elapsed: study days, as Anki passes them to FSRS ----------------------

STEPLESS = fsrs.Scheduler(enable_fuzzing=False, learning_steps=())  # Good on a new card goes to review


def fsrs6_good_after(stability: float, difficulty: float, days: int) -> float:
    """FSRS-6's stability after Good ``days`` (a whole number) after the last review, written from
    the formulas (py-fsrs's docs, fsrs-rs): R = (1 + f·t/S)^-w20, S' = S·(1 + e^w8·(11 - D)·S^-w9·
    (e^(w10·(1 - R)) - 1)); on the same day S' = S·max(1, e^(w17·(0 + w18))·S^-w19)."""
    w = fsrs.scheduler.DEFAULT_PARAMETERS
    if days == 0:
        return stability * max(1.0, math.exp(w[17] * w[18]) * stability ** -w[19])
    factor = 0.9 ** (-1 / w[20]) - 1
    recall = (1 + factor * days / stability) ** -w[20]
    return stability * (1 + math.exp(w[8]) * (11 - difficulty) * stability ** -w[9]
                        * (math.exp(w[10] * (1 - recall)) - 1))


def first_good_memory() -> tuple[float, float]:
    """A new card's stability and difficulty after Good (FSRS-6: S0 = w2, D0 = w4 - e^(w5·2) + 1)."""
    w = fsrs.scheduler.DEFAULT_PARAMETERS
    return w[2], w[4] - math.exp(w[5] * 2) + 1


@pytest.mark.parametrize("first, hours, days", [
    (T0, 23, 1),  # 09:00, then 08:00 the next study day: one day, though under 24 hours
    (T0, 25, 1),
    (T0, 44, 2),  # 09:00, then 05:00 two mornings on: 44 hours, two study days
    (T0, 42, 1),  # 09:00, then 03:00 two mornings on: still the study day after
    (T0 - timedelta(hours=4), 22, 0),  # 05:00, then 03:00 the next morning: still the same study day
    (T0 - timedelta(hours=7), 3, 1),  # 02:00 (the study day before), then 05:00: one day
])
def test_days_elapsed_are_study_days_live_and_on_replay(store, first, hours, days):
    stability, difficulty = first_good_memory()
    expected = fsrs6_good_after(stability, difficulty, days)
    sync_cards(store, refs(1), first)
    answer(store, "c0", 3, now=first, duration_ms=None, scheduler=STEPLESS)
    live = answer(store, "c0", 3, now=first + timedelta(hours=hours), duration_ms=None, scheduler=STEPLESS,
                  ahead_rule=False)  # a 2-day interval: the review is early, which the memory counts all the same
    assert live.current.stability == pytest.approx(expected, rel=1e-9)
    replayed = open_store(store.path.parent / "replay.db")
    try:
        import_history(replayed, [LoggedReview("c0", 3, first, None),
                                  LoggedReview("c0", 3, first + timedelta(hours=hours), None)], scheduler=STEPLESS)
        assert card(replayed, "c0").memory.stability == pytest.approx(expected, rel=1e-9)
    finally:
        replayed.close()
