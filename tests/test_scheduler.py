"""Scheduling behaviour: fsrs parity, queue order and limits, undo, leeches, the clock."""

from __future__ import annotations

import os
import random
import subprocess
import sys
import time
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

import fsrs
import pytest
from conftest import fsrs_by_study_days, recall_now
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from quizzer.base import clock
from quizzer.base.defaults import LEECH_LAPSES
from quizzer.base.errors import CardNotFound
from quizzer.scheduling.answer import answer, bury, suspend, undo, unsuspend
from quizzer.scheduling.queue import build_queue
from quizzer.scheduling import queue as queues
from quizzer.scheduling.summary import card_info, due_forecast, next_due
from quizzer.store.filter import CardFilter
from quizzer.transfer.fsrs_csv import import_history, read_review_log
from quizzer.store import NEW, CardRef, open_store, sync_cards

NO_FUZZ = fsrs.Scheduler(enable_fuzzing=False)
T0 = datetime(2025, 3, 3, 9, 0, tzinfo=timezone.utc)  # a Monday, 09:00 UTC
REVIEW_LOG = "fsrs-review-log-12k.csv"


@pytest.fixture
def store(tmp_path):
    st = open_store(tmp_path / "quiz.db")
    yield st
    st.close()


def refs(n: int, deck: str = "d", kind: str = "qa", tags: tuple[str, ...] = (), start: int = 0) -> list[CardRef]:
    return [CardRef(f"{deck}{i}", deck, kind, i, f"h{i}", tags) for i in range(start, start + n)]


def ans(store, card_id, rating, now, **kw):
    return answer(store, card_id, rating, now=now, duration_ms=1000, scheduler=NO_FUZZ, **kw)


def memory_of(store, card_id):
    return card_info(store, card_id, T0, scheduler=NO_FUZZ).memory


# -- clock -------------------------------------------------------------------


def test_quiz_now_pins_the_clock(monkeypatch):
    monkeypatch.setenv("QUIZ_NOW", "2025-03-03T09:30:00Z")
    assert clock.now() == datetime(2025, 3, 3, 9, 30, tzinfo=timezone.utc)
    monkeypatch.setenv("TZ", "Europe/Berlin")
    time.tzset()
    monkeypatch.setenv("QUIZ_NOW", "2025-03-03T09:30")  # naive: local wall-clock time
    assert clock.now() == datetime(2025, 3, 3, 8, 30, tzinfo=timezone.utc)
    assert clock.now().tzinfo is timezone.utc


def test_study_day_rolls_over_at_four_local():
    assert clock.study_day(datetime(2025, 3, 3, 3, 59, tzinfo=timezone.utc)) == date(2025, 3, 2)
    assert clock.study_day(datetime(2025, 3, 3, 4, 0, tzinfo=timezone.utc)) == date(2025, 3, 3)
    assert clock.study_day(datetime(2025, 3, 3, 5, 0, tzinfo=timezone.utc), rollover_hour=6) == date(2025, 3, 2)
    assert clock.day_start(date(2025, 3, 3)) == datetime(2025, 3, 3, 4, tzinfo=timezone.utc)
    assert clock.day_start(datetime(2025, 3, 3, 2, tzinfo=timezone.utc)) == datetime(2025, 3, 2, 4, tzinfo=timezone.utc)
    assert clock.next_day_start(T0) == datetime(2025, 3, 4, 4, tzinfo=timezone.utc)


@pytest.mark.slow
def test_importing_clock_is_cheap():
    code = "import sys, quizzer.base.clock; print(sorted(m for m in ('sqlalchemy', 'fsrs', 'alembic') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


# -- parity with fsrs --------------------------------------------------------

# fsrs-rs's fit of ../shared/data/fsrs-review-log-12k.csv (rounded): a decay of 0.2433, not 0.1542
FITTED = (0.1726, 0.8326, 2.4851, 6.3079, 6.5383, 0.5241, 3.1816, 0.0269, 1.6629, 0.2612, 0.6194, 1.5809, 0.0423,
          0.3833, 1.798, 0.6014, 1.8729, 0.8313, 0.1011, 0.1463, 0.2433)


@pytest.mark.parametrize("parameters", [fsrs.scheduler.DEFAULT_PARAMETERS, FITTED], ids=["default", "fitted"])
def test_forgetting_curve_is_fsrs_retrievability(parameters):
    """One forgetting curve for the fit and the plan, with the scheduler's decay (FSRS-6's last
    parameter), equal to py-fsrs's own retrievability for cards it scheduled (py-fsrs counts whole
    days elapsed), on floats and on numpy arrays."""
    np = pytest.importorskip("numpy")
    from quizzer.scheduling.curve import decay, forgetting_curve

    scheduler = fsrs.Scheduler(parameters=parameters, learning_steps=(), enable_fuzzing=False)
    assert decay(scheduler) == parameters[-1]
    cards = []
    for ratings in ([1], [3], [4], [3, 3, 3], [3, 1, 3], [2, 4, 3, 3]):
        card = fsrs.Card(card_id=len(cards) + 1)
        at = T0
        for rating in ratings:
            card, _ = scheduler.review_card(card, fsrs.Rating(rating), at)
            at = card.due
        cards.append(card)
    days = [0, 1, 2, 7, 30, 365]
    for card in cards:
        expected = [scheduler.get_card_retrievability(card, card.last_review + timedelta(days=d, hours=5))
                    for d in days]
        got = [forgetting_curve(float(d), card.stability, decay(scheduler)) for d in days]
        assert got == pytest.approx(expected, rel=1e-12)
        many = forgetting_curve(np.array(days, dtype=float), np.full(len(days), card.stability), decay(scheduler))
        assert many.tolist() == pytest.approx(expected, rel=1e-12)
        # by FSRS's definition of stability, recall is 0.9 one stability after the review
        assert forgetting_curve(card.stability, card.stability, decay(scheduler)) == pytest.approx(0.9, rel=1e-12)



@given(stability=st.floats(0.01, 36500), seconds=st.integers(-3 * 86400, 3650 * 86400),
       decay=st.sampled_from([fsrs.scheduler.DEFAULT_PARAMETERS[20], FITTED[20]]),
       state=st.sampled_from([fsrs.State.Learning, fsrs.State.Review, fsrs.State.Relearning]))
def test_retrievability_is_py_fsrs_own_on_the_time_elapsed(stability, seconds, decay, state):
    """The browser's and the exam's recall now, computed without an fsrs.Card, is py-fsrs's
    forgetting curve on the fractional days elapsed (a clock before the review counts as 0 days),
    in whatever time zone ``now`` is given; on whole days, as py-fsrs's own
    ``get_card_retrievability`` counts, a card failed an hour ago was recalled "100%"."""
    from quizzer.scheduling.memory import retrievability
    from quizzer.store.records import MemoryState

    scheduler = fsrs.Scheduler(parameters=(*fsrs.scheduler.DEFAULT_PARAMETERS[:20], decay))
    now = T0 + timedelta(seconds=seconds)
    card = fsrs.Card(card_id=1, state=state, stability=stability, difficulty=5.0, due=T0, last_review=T0)
    memory = MemoryState(int(state), 0, stability, 5.0, T0, T0, lapses=0, leech=False)
    shanghai = now.astimezone(timezone(timedelta(hours=8)))
    assert retrievability(memory, shanghai, scheduler) == pytest.approx(recall_now(scheduler, card, now), rel=1e-12)
    if seconds % 86400 == 0:  # a whole number of days: py-fsrs's own figure
        assert retrievability(memory, shanghai, scheduler) == pytest.approx(
            scheduler.get_card_retrievability(card, now), rel=1e-12)



def test_multi_day_run_matches_fsrs_directly(store, monkeypatch):
    """Study for 40 simulated days through the queue; every stored memory state must
    equal fsrs run directly on the same ratings and times, days counted in study days."""
    sync_cards(store, refs(12), T0)
    direct = {f"d{i}": fsrs.Card(card_id=i) for i in range(12)}
    rng = random.Random(7)
    answered = 0
    for day in range(40):
        monkeypatch.setenv("QUIZ_NOW", (T0 + timedelta(days=day)).isoformat())
        now = clock.now()
        end_of_day = clock.next_day_start(now)
        while now < end_of_day:
            queue = build_queue(store, now, new_per_day=3, scheduler=NO_FUZZ)
            if not queue:
                upcoming = next_due(store, now)
                if upcoming is None or upcoming >= end_of_day:
                    break
                now = upcoming
                continue
            card_id, rating = queue[0], rng.choices([1, 2, 3, 4], weights=[2, 1, 6, 1])[0]
            ans(store, card_id, rating, now)
            direct[card_id] = fsrs_by_study_days(NO_FUZZ, direct[card_id], rating, now)
            stored, expected = memory_of(store, card_id), direct[card_id]
            assert (stored.state, stored.step, stored.last_review) == (
                int(expected.state), expected.step, expected.last_review)
            assert stored.stability == pytest.approx(expected.stability, rel=1e-12)
            assert stored.difficulty == pytest.approx(expected.difficulty, rel=1e-12)
            assert_due_as_anki(stored.due, expected.due, now)
            answered += 1
            now += timedelta(seconds=30)
    assert answered > 100
    assert all(memory_of(store, cid).state != NEW for cid in direct)


def assert_due_as_anki(due, fsrs_due, now):
    """The one thing that differs from fsrs (the documented Anki difference): a review is due at
    the start of a study day, FSRS's days later or up to 2 more (Anki's Hard < Good < Easy rule);
    a learning step is due when fsrs says."""
    fsrs_days = (fsrs_due - now) / timedelta(days=1)
    if not fsrs_days.is_integer():
        assert due == fsrs_due
        return
    assert due == clock.day_start(due)
    assert 0 <= (clock.study_day(due) - clock.study_day(now)).days - fsrs_days <= 2


def _review_log_path() -> Path | None:
    here = Path(__file__).resolve()
    for candidate in [os.environ.get("QUIZ_REVIEW_LOG"), here.parents[2] / "shared" / "data" / REVIEW_LOG]:
        if candidate and Path(candidate).is_file():
            return Path(candidate)
    return None


def test_real_review_history_replays_like_fsrs(store):
    path = _review_log_path()
    if path is None:
        pytest.skip("shared review log not available")
    reviews = read_review_log(path)
    assert len(reviews) == 12580 and len({r.card_id for r in reviews}) == 1205
    cards = sorted({r.card_id for r in reviews})[:80]
    subset = [r for r in reviews if r.card_id in set(cards)]
    assert import_history(store, subset, scheduler=NO_FUZZ).imported == len(subset)
    for card_id in cards:
        expected = fsrs.Card(card_id=0)
        for r in sorted((r for r in subset if r.card_id == card_id), key=lambda r: r.reviewed_at):
            expected = fsrs_by_study_days(NO_FUZZ, expected, r.rating, r.reviewed_at)
        info = card_info(store, card_id, T0, scheduler=NO_FUZZ)
        assert info.memory.state == int(expected.state)
        assert_due_as_anki(info.memory.due, expected.due, expected.last_review)
        assert info.memory.stability == pytest.approx(expected.stability, rel=1e-12)
        assert len(info.reviews) == sum(r.card_id == card_id for r in subset)


# -- queue -------------------------------------------------------------------


def graduate(store, card_ids, start):
    """Make review cards answered on successive days (earlier → less retrievable later)."""
    for offset, card_id in enumerate(card_ids):
        ans(store, card_id, 4, start + timedelta(days=offset))


def test_queue_order_learning_then_reviews_interleaved_with_new(store):
    sync_cards(store, refs(5, deck="r") + refs(4, deck="n"), T0)
    graduate(store, ["r0", "r1", "r2", "r3"], T0)
    now = T0 + timedelta(days=40)
    ans(store, "r4", 1, now)  # new card into learning, due in a minute
    now += timedelta(minutes=2)
    queue = build_queue(store, now, new_per_day=3, scheduler=NO_FUZZ)
    # learning first; reviews least retrievable first; 2 new left (1 used today) spread among them
    assert queue == ["r4", "r0", "n0", "r1", "r2", "n1", "r3"]


def test_a_learning_step_due_soon_is_studied_at_once_when_nothing_else_is(store):
    """Quit and start again: `quiz study` said nothing was due until the step in 10 minutes, where
    Anki's learn-ahead limit (20 minutes) shows it, as the session itself did before quitting."""
    sync_cards(store, refs(2, deck="n"), T0)
    ans(store, "n0", 1, T0)  # Again: the next step is minutes away
    due = card_info(store, "n0", T0).memory.due
    assert due is not None and T0 < due <= T0 + queues.LEARN_AHEAD
    assert build_queue(store, T0, new_per_day=1) == ["n0"]  # the day's one new card is done: nothing else
    assert build_queue(store, T0, new_per_day=2) == ["n1"]  # something else first; the session brings n0 back
    assert build_queue(store, due - queues.LEARN_AHEAD - timedelta(minutes=1), new_per_day=1) == []  # not yet


def test_daily_limits_count_what_was_done_today(store):
    sync_cards(store, refs(6, deck="r") + refs(10, deck="n"), T0)
    graduate(store, [f"r{i}" for i in range(6)], T0)
    now = T0 + timedelta(days=60)
    queue = build_queue(store, now, new_per_day=4, reviews_per_day=5, scheduler=NO_FUZZ)
    assert sorted(queue) == ["n0", "n1", "n2", "n3", "r0", "r1", "r2", "r3", "r4"]
    ans(store, "n0", 3, now)  # now a learning card, due again in 10 minutes
    ans(store, "r0", 3, now)
    ans(store, "r1", 3, now, mode="exam")  # reschedules r1 but does not use up study limits
    later = now + timedelta(hours=1)
    queue = build_queue(store, later, new_per_day=4, reviews_per_day=3, scheduler=NO_FUZZ)
    assert queue[0] == "n0"
    assert [c for c in queue[1:] if c.startswith("n")] == ["n1", "n2", "n3"]
    assert [c for c in queue if c.startswith("r")] == ["r2", "r3"]
    assert build_queue(store, later, new_limit=1, reviews_per_day=0, scheduler=NO_FUZZ) == ["n0", "n1"]
    # a new study day resets the counts
    tomorrow = clock.next_day_start(now) + timedelta(hours=5)
    new_tomorrow = [c for c in build_queue(store, tomorrow, new_per_day=4, scheduler=NO_FUZZ)
                    if memory_of(store, c).state == NEW]
    assert new_tomorrow == ["n1", "n2", "n3", "n4"]


def test_queue_filters_and_limit(store):
    sync_cards(store, refs(3, deck="a", kind="qa", tags=("attention",)) + refs(3, deck="b", kind="numeric"), T0)
    assert build_queue(store, T0, chosen=CardFilter(decks=("b",))) == ["b0", "b1", "b2"]
    assert build_queue(store, T0, chosen=CardFilter(kinds=("qa",))) == ["a0", "a1", "a2"]
    assert build_queue(store, T0, chosen=CardFilter(tags=("attention",))) == ["a0", "a1", "a2"]
    assert build_queue(store, T0, limit=2) == ["a0", "b0"]
    assert build_queue(store, T0, new_limit=0) == []


def test_bury_suspend_and_inactive_are_left_out(store):
    sync_cards(store, refs(4), T0)
    bury(store, "d0", clock.next_day_start(T0))
    suspend(store, "d1")
    sync_cards(store, refs(4)[1:], T0)  # d0 removed from the deck
    sync_cards(store, refs(4), T0)  # ...and back
    sync_cards(store, [r for r in refs(4) if r.id != "d3"], T0)
    assert build_queue(store, T0) == ["d2"]
    assert build_queue(store, clock.next_day_start(T0)) == ["d0", "d2"]
    unsuspend(store, "d1")
    assert build_queue(store, clock.next_day_start(T0)) == ["d0", "d1", "d2"]


def test_ahead_practice_leaves_the_schedule_alone(store):
    sync_cards(store, refs(3), T0)
    graduate(store, ["d0", "d1", "d2"], T0)
    now = T0 + timedelta(days=3)
    assert build_queue(store, now, scheduler=NO_FUZZ) == []
    queue = build_queue(store, now, ahead=True, scheduler=NO_FUZZ)
    assert queue == ["d0", "d1", "d2"]  # soonest due first
    before = memory_of(store, "d0")
    for rating in (2, 3, 4):  # recalled: Hard, Good and Easy all leave it as it was
        result = ans(store, "d0", rating, now)
        assert not result.scheduled and result.previous == result.current
    assert memory_of(store, "d0") == before
    info = card_info(store, "d0", now, scheduler=NO_FUZZ)
    assert [r.scheduled for r in info.reviews] == [True, False, False, False]
    # practice reviews do not use up the day's review allowance
    due_day = before.due + timedelta(hours=1)
    assert "d0" in build_queue(store, due_day, reviews_per_day=1, scheduler=NO_FUZZ)


def test_a_practice_review_answered_again_sends_the_card_to_relearning(store):
    """As in Anki's rescheduling filtered decks: forgotten ahead of its day, the card lapses. Its
    memory is py-fsrs's Again after the study days since its last review, and it comes back after
    the first relearning step (10 minutes)."""
    sync_cards(store, refs(1), T0)
    ans(store, "d0", 4, T0)  # Easy at first sight: in review, due in days
    now = T0 + timedelta(days=2)
    assert memory_of(store, "d0").due > clock.next_day_start(now)  # not due: this is practice
    result = ans(store, "d0", 1, now)
    expected = fsrs_by_study_days(NO_FUZZ, fsrs_by_study_days(NO_FUZZ, fsrs.Card(card_id=0), 4, T0), 1, now)
    after = memory_of(store, "d0")
    assert result.scheduled and expected.state == fsrs.State.Relearning
    assert (after.state, after.lapses, after.due) == (int(fsrs.State.Relearning), 1, now + timedelta(minutes=10))
    assert (after.stability, after.difficulty) == (pytest.approx(expected.stability), pytest.approx(expected.difficulty))


def test_next_due_and_forecast(store):
    sync_cards(store, refs(3), T0)
    assert next_due(store, T0) is None
    first = ans(store, "d0", 4, T0)
    ans(store, "d1", 3, T0)
    assert next_due(store, T0) == T0 + timedelta(minutes=10)  # d1's learning step
    forecast = due_forecast(store, T0, days=14)
    assert len(forecast) == 14 and forecast[0] == (date(2025, 3, 3), 1)
    assert forecast[(first.current.due.date() - T0.date()).days][1] == 1
    bury(store, "d1", clock.next_day_start(T0))
    assert next_due(store, T0) == clock.next_day_start(T0)


# -- undo and leeches --------------------------------------------------------


def drive_to_lapses(store, card_id, lapses, start):
    """Graduate a card, then forget and relearn it ``lapses`` times; returns the last answer and time."""
    result = ans(store, card_id, 4, start)
    now = start
    for _ in range(lapses):
        now = result.current.due
        result = ans(store, card_id, 1, now)
        if _ < lapses - 1:
            now += timedelta(minutes=10)
            result = ans(store, card_id, 3, now)
    return result, now


def test_leech_tag_at_eight_lapses(store):
    sync_cards(store, refs(1, tags=("attention",)), T0)
    result, _ = drive_to_lapses(store, "d0", LEECH_LAPSES - 1, T0)
    assert result.current.lapses == LEECH_LAPSES - 1 and not result.current.leech
    now = result.current.due + timedelta(minutes=10)
    result = ans(store, "d0", 3, now)
    result = ans(store, "d0", 1, result.current.due)
    assert result.became_leech and result.current.lapses == LEECH_LAPSES
    info = card_info(store, "d0", now)
    assert info.tags == ("attention", "leech")
    sync_cards(store, refs(1, tags=("attention", "transformers")), T0)  # deck edits keep the flag
    assert card_info(store, "d0", now).tags == ("attention", "leech", "transformers")


def test_undo_restores_everything(store):
    sync_cards(store, refs(2), T0)
    result, now = drive_to_lapses(store, "d0", LEECH_LAPSES - 1, T0)
    now = result.current.due + timedelta(minutes=10)
    ans(store, "d0", 3, now)
    before = card_info(store, "d0", now, scheduler=NO_FUZZ)
    leech = ans(store, "d0", 1, before.memory.due)
    assert leech.became_leech
    undo(store, leech)
    after = card_info(store, "d0", now, scheduler=NO_FUZZ)
    assert after == before
    first = ans(store, "d1", 3, T0)
    ans(store, "d1", 3, T0 + timedelta(minutes=10))
    from quizzer.store.cards import ReviewedSince

    with pytest.raises(ReviewedSince):
        undo(store, first)  # not the latest answer of d1


def test_answer_rejects_bad_input(store):
    sync_cards(store, refs(1), T0)
    with pytest.raises(ValueError):
        ans(store, "d0", 5, T0)
    with pytest.raises(ValueError):
        ans(store, "d0", 3, T0, mode="cram")
    with pytest.raises(CardNotFound):
        ans(store, "nope", 3, T0)
    assert card_info(store, "d0", T0).reviews == []


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(history=st.lists(st.tuples(st.integers(0, 11), st.integers(1, 4), st.integers(0, 40 * 24)), max_size=40),
       aside=st.lists(st.tuples(st.integers(0, 11), st.booleans()), max_size=4),
       new_per_day=st.integers(0, 6), reviews_per_day=st.integers(0, 8))
@example(history=[(i, 4, 20 * 24) for i in range(8)] + [(8, 1, 30)], aside=[(0, True), (1, False)],
         new_per_day=2, reviews_per_day=3)  # a pile of due reviews, a learning card, new ones left
def test_the_queue_keeps_its_limits_over_any_collection(tmp_path_factory, history, aside, new_per_day, reviews_per_day):
    """Over any history (answers up to 40 days back, in time order), buried and suspended cards
    and limits: the queue holds each card once, only cards studiable now, learning cards due now
    first, at most the day's new and review limits (nothing was studied today), and with limits
    too large to bind, every due and every new card."""
    store = open_store(tmp_path_factory.mktemp("queue") / "quiz.db")
    try:
        now = T0 + timedelta(days=40)
        sync_cards(store, refs(12), T0)
        for card, rating, hours_ago in sorted(history, key=lambda h: -h[2]):
            at = now - timedelta(hours=hours_ago)
            if clock.study_day(at) < clock.study_day(now):  # today untouched: the limits are whole
                ans(store, f"d{card}", rating, at)
        for card, suspended in aside:
            suspend(store, f"d{card}") if suspended else bury(store, f"d{card}", clock.next_day_start(now))
        studiable = {info.id: info for info in (card_info(store, f"d{i}", now) for i in range(12))
                     if not info.suspended and not (info.buried_until and info.buried_until > now)}
        end = clock.next_day_start(now)
        new = {cid for cid, info in studiable.items() if info.memory.state == NEW}
        learning_now = {cid for cid, info in studiable.items() if info.memory.state in (1, 3) and info.memory.due <= now}
        due = {cid for cid, info in studiable.items() if info.memory.state == 2 and info.memory.due < end}

        queue = build_queue(store, now, new_per_day=new_per_day, reviews_per_day=reviews_per_day, scheduler=NO_FUZZ)
        assert len(queue) == len(set(queue)) and set(queue) <= set(studiable)
        assert set(queue[:len(learning_now)]) == learning_now  # learning first
        assert len(set(queue) & new) == min(new_per_day, len(new)) and len(set(queue) & due) == min(reviews_per_day, len(due))
        everything = build_queue(store, now, new_per_day=99, reviews_per_day=99, scheduler=NO_FUZZ)
        assert set(everything) == learning_now | new | due
    finally:
        store.close()
