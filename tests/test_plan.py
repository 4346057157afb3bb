"""Interview-date mode: ``quiz plan`` set / show / clear, the interval cap (a property over many
stabilities), ranking a tight day by gain on the interview's day, and the new-card pace."""

from __future__ import annotations

import json
import math
import os
import re
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

import fsrs
import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from quizzer.cli import app
from quizzer.scheduling import plan
from quizzer.scheduling.memory import decide
from quizzer.scheduling.queue import build_queue
from quizzer.store import open_store
from quizzer.store.records import REVIEW, MemoryState, NewReview

runner = CliRunner()
DECKS = Path(__file__).resolve().parents[1] / "decks"
NOW = "2026-01-05T10:00"  # a Monday; study days start at 04:00 (TZ is UTC in tests)
W = fsrs.scheduler.DEFAULT_PARAMETERS
NO_FUZZ = fsrs.Scheduler(enable_fuzzing=False)


def quiz(*args: str):
    return runner.invoke(app, list(args), env={"QUIZ_NOW": NOW})


def cards_in(*decks: str) -> int:
    """Cards of the bundled decks, counted from the YAML files themselves."""
    files = [DECKS / f"{deck}.yaml" for deck in decks] or sorted(DECKS.glob("*.yaml"))
    return sum(len(yaml.safe_load(path.read_text("utf-8"))["cards"]) for path in files)


def curve(stability: float, days: float) -> float:
    """FSRS-6's forgetting curve with the default decay: (1 + f·t/S)^-d, f = 0.9^(-1/d) - 1."""
    decay = W[20]
    return (1 + (0.9 ** (-1 / decay) - 1) * days / stability) ** -decay


def good_stability(stability: float, difficulty: float, recall: float) -> float:
    """FSRS-6's stability after a successful Good review (no hard penalty, no easy bonus)."""
    return stability * (1 + math.exp(W[8]) * (11 - difficulty) * stability ** -W[9]
                        * (math.exp(W[10] * (1 - recall)) - 1))


# -- quiz plan through the CLI -------------------------------------------------------------------


def test_plan_set_show_and_clear():
    assert json.loads(quiz("plan", "--json").output) == {"interview": None}
    result = quiz("plan", "--date", "2026-01-19", "--json")
    assert result.exit_code == 0, result.output
    shown = json.loads(result.output)
    # 14 days away: every new card within the first fifteenth of them, ceil(14 / 15) = 1 day: today
    pace = cards_in()
    assert shown | {"predicted_recall": None, "share_at_target": None, "reviews_per_day": None} == {
        "passed": False, "interview": "2026-01-19", "retention": 0.95, "decks": None, "days_left": 14, "cards": cards_in(),
        "seen": 0, "predicted_recall": None, "share_at_target": None, "reviews_per_day": None,
        "new_per_day": max(20, pace), "new_per_day_raised": pace > 20, "decks_below_pace": {},
        "reviews_per_day_setting": 200, "target_reached": True, "reviews_per_day_needed": None,
        "recall_at_most": None,
        "learner_strength": 1.0, "learner_reviews": 0}  # no review yet: the model's median learner
    assert 0 < shown["predicted_recall"] <= 1 and shown["reviews_per_day"] > 0
    again = quiz("plan")
    assert again.exit_code == 0 and "2026-01-19" in again.output and "14 days left" in again.output
    cleared = quiz("plan", "--clear")  # it said "No interview", as if none had been set
    assert cleared.exit_code == 0 and cleared.output.startswith("The interview of 2026-01-19 is cleared")
    assert quiz("plan", "--clear").output.startswith("No interview was set")
    assert json.loads(quiz("plan", "--json").output) == {"interview": None}


def test_a_near_interview_raises_the_new_cards_and_says_so():
    # 5 days away: a fifteenth of them is ceil(5 / 15) = 1 day: every card today
    result = quiz("plan", "--date", "2026-01-10", "--deck", "ch08-bert", "--retention", "0.9", "--json")
    shown = json.loads(result.output)
    assert (shown["cards"], shown["decks"], shown["retention"]) == (cards_in("ch08-bert"), ["ch08-bert"], 0.9)
    pace = cards_in("ch08-bert")
    assert shown["new_per_day"] == pace and shown["new_per_day_raised"] is True
    assert f"raised from 20 to {pace}" in quiz("plan").output


def test_a_decks_own_new_card_limit_below_the_plans_pace_is_said():
    """With deck.ch08-bert.new_per_day = 1 the plan promised the same recall as without: it paced
    that deck's new cards as if nothing held them, and study then gave it one a day."""
    assert quiz("config", "set", "deck.ch08-bert.new_per_day", "1").exit_code == 0
    shown = json.loads(quiz("plan", "--date", "2026-01-10", "--json").output)
    assert shown["new_per_day"] > 1 and shown["decks_below_pace"] == {"ch08-bert": 1}
    assert quiz("config", "unset", "deck.ch08-bert.new_per_day").exit_code == 0
    free = json.loads(quiz("plan", "--json").output)  # the forecast counts the deck's limit: its cards come later
    assert shown["predicted_recall"] < free["predicted_recall"] and shown["seen"] == free["seen"] == 0
    assert quiz("config", "set", "deck.ch08-bert.new_per_day", "1").exit_code == 0
    said = " ".join(quiz("plan").output.split())
    assert f"ch08-bert (1 a day): a deck's own limit on new cards, below the plan's {shown['new_per_day']} a day" in said
    held = json.loads(quiz("plan", "--date", "2026-01-19", "--json").output)  # 1 of 106 cards a day, 14 days
    assert not held["target_reached"] and held["reviews_per_day_needed"] is None
    said = " ".join(quiz("plan").output.split())
    assert "out of reach however many reviews are done: the new cards a deck's own limit holds back" in said
    other = json.loads(quiz("plan", "--date", "2026-01-10", "--deck", "day12-bert-gpt", "--json").output)
    assert other["decks_below_pace"] == {}  # not a deck of this plan


def test_the_forecast_falls_with_the_reviews_a_day_and_names_the_reviews_that_reach_the_target():
    """With every bundled card and 14 days, `quiz plan --json` predicted 0.9865 recall and 100% of
    the cards at the target whether QUIZ_REVIEWS_PER_DAY was 200, 30 or 5: it replayed every review
    as if no limit held."""
    assert quiz("plan", "--date", "2026-01-19").exit_code == 0

    def shown(cap: int, *args: str) -> dict:
        result = runner.invoke(app, ["plan", "--json", *args], env={"QUIZ_NOW": NOW, "QUIZ_REVIEWS_PER_DAY": str(cap)})
        return json.loads(result.output)

    wide, tight, starved = shown(200), shown(30), shown(5)
    assert wide["predicted_recall"] > tight["predicted_recall"] > starved["predicted_recall"]
    assert wide["share_at_target"] >= tight["share_at_target"] >= starved["share_at_target"]
    assert wide["target_reached"] and wide["reviews_per_day_needed"] is None
    needed = starved["reviews_per_day_needed"]
    assert not starved["target_reached"] and 5 < needed <= 200
    # the smallest that does, within 5%
    assert shown(needed)["target_reached"] and not shown(math.floor(needed / 1.06))["target_reached"]
    assert tight["target_reached"] == (30 >= needed)
    # 5 reviews a day: besides the learning steps (a first sight forgotten, then two Good answers)
    # and one relearning step after each review forgotten, at most 5 a day
    assert starved["reviews_per_day"] * 14 <= 3 * cards_in() + 2 * 5 * 14 + 1
    said = " ".join(runner.invoke(app, ["plan"], env={"QUIZ_NOW": NOW, "QUIZ_REVIEWS_PER_DAY": "5"}).output.split())
    assert said.index("The target is out of reach at 5 reviews a day") < said.index("Following the plan")
    assert f"{needed} reviews a day would reach it" in said
    far = runner.invoke(app, ["plan", "--date", "2026-03-06"], env={"QUIZ_NOW": NOW})
    assert "(60 days left)" in far.output and "out of reach" not in far.output


def test_the_forecast_with_no_reviews_is_the_learning_day_alone():
    """No review a day, every card new today: each is learned today, its first sight forgotten and
    then two Good answers (its learning steps), and never seen again, so its recall on the day is
    the forgetting curve from the third answer, computed here with py-fsrs itself."""
    from quizzer.scheduling.forecast import Limits, forecast
    from quizzer.scheduling.simulated import Learner

    now = datetime(2026, 1, 5, 10, tzinfo=timezone.utc)
    interview = plan.interview_on(date(2026, 1, 19))
    shown = forecast([], [f"n{i}" for i in range(12)], now, interview, NO_FUZZ, Limits(0, 12),
                     learner=Learner(spread=0.0, lapses=False))
    card, first = fsrs.Card(), datetime(2026, 1, 5, 4, tzinfo=timezone.utc)  # answered as the study day starts
    card, _ = NO_FUZZ.review_card(card, fsrs.Rating.Again, first)
    card, _ = NO_FUZZ.review_card(card, fsrs.Rating.Good, card.due)
    card, _ = NO_FUZZ.review_card(card, fsrs.Rating.Good, card.due)
    assert card.state == fsrs.State.Review
    expected = curve(card.stability, (interview.at - card.last_review) / timedelta(days=1))
    assert shown.recalled == pytest.approx(expected, abs=1e-9) and shown.at_target == 0
    assert shown.reviews_per_day == pytest.approx(36 / 14) and shown.reviews_needed is not None


def test_counts_in_the_thousands_are_grouped_as_quiz_groups_them(deck_folder):
    """`quiz plan` said "the 10229 cards" and "from 20 to 1704" where `quiz` said 10,206."""
    cards = "".join(f'  - {{id: q-{i}, kind: qa, source: "1.1", question: 问题 {i}？, answer: 答, points: [点]}}\n'
                    for i in range(1200))
    folder = deck_folder("id: big\ntitle: Big\nlanguage: zh\nsource: {file: c.txt, sections: \"1\"}\ncards:\n" + cards)
    result = runner.invoke(app, ["plan", "--date", "2026-01-06", "--decks", str(folder)], env={"QUIZ_NOW": NOW})
    assert result.exit_code == 0, result.output
    said = " ".join(result.output.split())
    assert "of the 1,200 cards" in said and "raised from 20 to 1,200" in said and re.search(r"\d,\d{3} answers a day", said)


def test_a_target_out_of_reach_is_said_so():
    """For tomorrow at 99%: 2% of the cards at the target, yet the next line promised that every
    card would become stable before the interview. The share is the forecast's own (--json)."""
    near = quiz("plan", "--date", "2026-01-06", "--retention", "0.99")
    shown = json.loads(quiz("plan", "--json").output)
    assert shown["share_at_target"] < 0.95 and shown["reviews_per_day_needed"] is None
    assert shown["predicted_recall"] <= shown["recall_at_most"] < 0.99
    said = " ".join(near.output.split())
    assert "The target is out of reach however many reviews are done" in said
    assert f"at most {shown['recall_at_most']:.1%} of the cards recalled on the day, against 99.0%" in said
    far = quiz("plan", "--date", "2026-03-06", "--retention", "0.9")
    assert json.loads(quiz("plan", "--json").output)["target_reached"] and "out of reach" not in far.output


def test_the_days_new_card_pace_holds_as_its_new_cards_are_studied():
    """With 33 new cards a day planned, studying 14 of them lowered the day's pace to 31 (the
    cards left were counted afresh), so the overview said 17 more instead of 19."""
    assert quiz("plan", "--date", "2026-01-19").exit_code == 0
    before = json.loads(quiz("--json").output)
    studied = runner.invoke(app, ["study", "--kind", "qa", "--new-per-day", "14", "--reviews-per-day", "0"],
                            input="\n3\n" * 14 + "q\n", env={"QUIZ_NOW": NOW})
    assert studied.exit_code == 0 and "Reviewed 14" in studied.stdout, studied.stdout
    assert f"raised from 14 to {before['new_per_day']}" in studied.stdout  # study's banner: the day's pace
    after = json.loads(quiz("--json").output)
    assert after["new_per_day"] == before["new_per_day"] > 20
    assert after["total"]["new"] == before["total"]["new"] - 14
    assert f"raised from 20 to {before['new_per_day']}" in quiz("plan").output
    none_new = runner.invoke(app, ["study", "--new", "0"], input="q\n", env={"QUIZ_NOW": NOW})
    assert none_new.exit_code == 0 and "raised from" not in none_new.stdout  # --new 0 takes none: no pace to tell


def test_the_plan_stays_the_same_all_day_until_the_learner_answers():
    """Today's cards were taken as answered "now": with the interview tomorrow, the predicted recall
    rose from 94.7% at 05:00 to 99.0% at 23:59 with nothing studied."""
    assert quiz("plan", "--date", "2026-01-06", "--deck", "interview-numbers").exit_code == 0

    def figures(at: str) -> dict:
        shown = json.loads(runner.invoke(app, ["plan", "--json"], env={"QUIZ_NOW": at}).output)
        return {key: shown[key] for key in ("predicted_recall", "share_at_target", "reviews_per_day")}

    morning = figures("2026-01-05T05:00")
    assert figures("2026-01-05T14:00") == figures("2026-01-05T23:59") == morning
    assert morning["predicted_recall"] < 0.95  # answered at the day's start: a day's forgetting before the interview


def test_a_buried_card_counts_in_the_plan_and_a_suspended_one_does_not():
    """A card buried in study left the plan's count until the next day (227 cards, then 228)."""
    assert quiz("plan", "--date", "2026-01-19", "--deck", "ch08-bert").exit_code == 0
    everything = cards_in("ch08-bert")
    studied = runner.invoke(app, ["study", "--deck", "ch08-bert", "--kind", "qa", "--limit", "2"],
                            input="b\ns\n", env={"QUIZ_NOW": NOW})  # bury one, suspend the next
    assert studied.exit_code == 0 and "Buried" in studied.stdout and "Suspended" in studied.stdout, studied.stdout
    assert json.loads(quiz("plan", "--json").output)["cards"] == everything - 1


def test_buried_new_cards_leave_the_days_pace_and_the_plan_names_it_as_the_overview_does():
    """With new cards buried, `quiz` and study said 45 new cards a day and `quiz plan` 46. Then the
    pace left the buried cards out, so under a plan the first bury of a session took a new card
    away (58 left, then 57) where the next should come in its place: a buried card is still to learn."""
    assert quiz("plan", "--date", "2026-03-06").exit_code == 0  # 60 days: every card within ceil(60 / 15) = 4
    unseen = cards_in()
    pace = json.loads(quiz("--json").output)["new_per_day"]
    buried = unseen % 4 or 4  # down to a multiple of 4: one fewer a day, had they left the pace
    studied = runner.invoke(app, ["study", "--kind", "qa", "--limit", str(buried)], input="b\n" * buried,
                            env={"QUIZ_NOW": NOW})
    assert studied.exit_code == 0 and studied.stdout.count("Buried") == buried, studied.stdout
    overview, plan = json.loads(quiz("--json").output), json.loads(quiz("plan", "--json").output)
    assert overview["new_per_day"] == plan["new_per_day"] == pace
    assert plan["cards"] == unseen  # the buried cards still count in the plan
    session = runner.invoke(app, ["study"], input="b\n", env={"QUIZ_NOW": NOW})
    left = [int(n) for n in re.findall(r"(\d+) new", session.stdout)]
    assert len(left) >= 2 and left[0] == left[1], session.stdout  # the bury made room: as many new left


def test_one_answer_a_day_is_said_in_the_singular(deck_folder):
    """One answer a day is said in the singular, "1 answer a day" (twelve cards eight months away
    give one)."""
    cards = "".join(f'  - {{id: q-{i}, kind: qa, source: "1.1", question: 问题 {i}？, answer: 答, points: [点]}}\n'
                    for i in range(12))
    folder = deck_folder("id: few\ntitle: Few\nlanguage: zh\nsource: {file: c.txt, sections: \"1\"}\ncards:\n" + cards)
    shown = runner.invoke(app, ["plan", "--date", "2026-09-01", "--decks", str(folder)], env={"QUIZ_NOW": NOW}).output
    assert "; 1 answer a day, new cards and learning steps included." in " ".join(shown.split()), shown


def test_the_overview_offers_the_new_cards_study_will_at_the_plans_pace():
    """``quiz`` said 20 new cards while ``quiz study`` raised the day to the plan's pace."""
    assert quiz("plan", "--date", "2026-01-10", "--deck", "ch08-bert").exit_code == 0
    pace = cards_in("ch08-bert")  # 5 days away: all today
    overview = json.loads(quiz("--json").output)
    assert overview["total"]["new"] == pace and (overview["new_per_day"], overview["interview"]) == (pace, "2026-01-10")
    assert [d["new"] for d in overview["decks"] if d["deck"] == "ch08-bert"] == [pace]
    shown = " ".join(quiz().output.split())  # the footer said the setting's 20 a day, and the interview was not named
    assert f"({pace} new cards a day, raised from 20 by the interview plan;" in shown
    assert "Interview on 2026-01-10, 5 days left" in shown
    store = open_store()
    try:
        queue = build_queue(store, datetime.fromisoformat(NOW).replace(tzinfo=timezone.utc), interview=plan.interview_on(
            date(2026, 1, 10), 0.95, ("ch08-bert",), 4), reviews_per_day=0)
    finally:
        store.close()
    assert len(queue) == pace  # what study takes: no card is seen yet, so every one is new


def test_a_plan_for_some_decks_steers_their_cards_only():
    """`quiz plan --deck day12-bert-gpt` raised the pace from that deck's unseen cards but gave it
    to ch08-bert's, which come first (the interview's deck got none), and cut every deck's
    intervals short of the day, in study and in a history replay alike."""
    from quizzer.scheduling.answer import answer, preview, replaying
    from quizzer.store import cards as stored

    assert quiz("plan", "--date", "2026-01-10", "--deck", "day12-bert-gpt").exit_code == 0
    interview = plan.interview_on(date(2026, 1, 10), 0.95, ("day12-bert-gpt",), 4)
    now = datetime.fromisoformat(NOW).replace(tzinfo=timezone.utc)
    store = open_store()
    try:
        queue = build_queue(store, now, interview=interview, reviews_per_day=0)
        assert len(queue) == cards_in("day12-bert-gpt")  # 5 days away: all today
        assert {stored.card(store, card_id).deck for card_id in queue} == {"day12-bert-gpt"}
        other, own = "bert-vs-gpt-core", queue[0]
        easy = {card_id: preview(store, card_id, now=now, scheduler=NO_FUZZ, interview=interview)[3]
                for card_id in (other, own)}
        assert easy[own] < interview.at < easy[other]  # the cap: only on the interview's deck
        assert easy[other] == preview(store, other, now=now, scheduler=NO_FUZZ)[3]
        assert answer(store, other, 4, now=now, duration_ms=1, scheduler=NO_FUZZ, interview=interview).current.due \
            == easy[other]
        replayed = replaying(store, NO_FUZZ, 4, interview)
        blank = MemoryState(0, None, None, None, None, None, 0, False)
        due = {card_id: replayed(blank, NewReview(4, now, 1, "study"), card_id, 0).after.due for card_id in (other, own)}
        assert due[own] < interview.at < due[other]
    finally:
        store.close()


@pytest.mark.parametrize("hour", [0, 7])
def test_the_forecast_is_the_same_with_every_time_moved_by_the_day_start(hour):
    """With day_start_hour 0 the forecast's replayed reviews fell at 04:00 (the default's day
    start), a Good at midnight counted to the day before, and the figures came out lower: moving
    the clock, the interview and the day start together must change nothing."""
    from quizzer.scheduling.forecast import Limits, forecast

    def run(rollover: int):
        shift = timedelta(hours=rollover - 4)
        now = datetime(2026, 1, 5, 10, tzinfo=timezone.utc) + shift
        interview = plan.interview_on(date(2026, 1, 30), 0.95, None, rollover)
        seen = [plan.Seen("s", MemoryState(REVIEW, None, 3.0, 5.0, datetime(2026, 1, 6, 4, tzinfo=timezone.utc) + shift,
                                           datetime(2026, 1, 3, 4, tzinfo=timezone.utc) + shift, 0, False))]
        return forecast(seen, [f"n{i}" for i in range(30)], now, interview, NO_FUZZ, Limits(200, 10), rollover)

    assert run(hour) == run(4)


def test_once_the_interview_has_come_the_plan_says_so_and_steers_nothing():
    """The day after, `quiz plan` said "(0 days left) ... 0.0% of the cards recalled on the day"."""
    assert quiz("plan", "--date", "2026-01-10").exit_code == 0
    after = {"QUIZ_NOW": "2026-01-11T10:00"}
    assert json.loads(runner.invoke(app, ["plan", "--json"], env=after).output) == {"interview": "2026-01-10",
                                                                                   "passed": True}
    assert runner.invoke(app, ["plan"], env=after).output.startswith("The interview on 2026-01-10 has come")
    overview = json.loads(runner.invoke(app, ["--json"], env=after).output)
    assert (overview["interview"], overview["new_per_day"]) == (None, 20)


@pytest.mark.parametrize("args", [("--date", "2026-01-05"), ("--date", "tomorrow"), ("--date", "2026-02-01", "--deck",
                                  "nope"), ("--date", "2026-02-01", "--retention", "1.5"), ("--retention", "0.9")])
def test_bad_plans_are_usage_errors(args):
    result = quiz("plan", *args)
    assert result.exit_code == 2 and result.output.startswith("Error: ")


# -- the interval cap ---------------------------------------------------------------------------


@given(stability=st.floats(0.5, 2000), difficulty=st.floats(1, 10), days=st.integers(2, 90),
       retention=st.sampled_from([0.85, 0.9, 0.95, 0.97]))
def test_the_cap_keeps_recall_on_the_day_at_the_target(stability, difficulty, days, retention):
    reviewed = datetime(2026, 1, 5, 10, tzinfo=timezone.utc)
    interview = plan.interview_on(date(2026, 1, 5) + timedelta(days=days), retention)
    far = reviewed + timedelta(days=days + 400)
    after = MemoryState(REVIEW, None, stability, difficulty, far, reviewed, 0, False)
    due = plan.capped_due(after, interview, NO_FUZZ)
    left = (interview.at - reviewed) / timedelta(days=1)
    if curve(stability, left) >= retention:
        assert due == far  # strong enough: nothing changes
        return
    assert reviewed < due < interview.at and due.hour == 4  # on a study day's start before the interview
    gap = (due - reviewed) / timedelta(days=1)
    later = good_stability(stability, difficulty, curve(stability, gap))
    on_the_day = curve(later, (interview.at - due) / timedelta(days=1))
    last_chance = due == interview.at - timedelta(days=1)
    assert on_the_day >= retention - 1e-9 or last_chance


def test_decide_caps_only_before_the_interview():
    reviewed = datetime(2026, 1, 5, 10, tzinfo=timezone.utc)
    before = MemoryState(REVIEW, None, 8.0, 5.0, reviewed, reviewed - timedelta(days=8), 0, False)
    answer = NewReview(3, reviewed, None)
    plain = decide(before, answer, scheduler=NO_FUZZ, ahead_after=None).after
    soon = plan.interview_on(date(2026, 1, 20))
    capped = decide(before, answer, scheduler=NO_FUZZ, ahead_after=None, interview=soon).after
    assert plain.due > soon.at > capped.due
    assert (capped.stability, capped.difficulty) == (plain.stability, plain.difficulty)
    past = plan.interview_on(date(2026, 1, 5))  # the interview's day has begun: normal scheduling
    assert decide(before, answer, scheduler=NO_FUZZ, ahead_after=None, interview=past).after == plain


# -- ranking and pace ---------------------------------------------------------------------------


def test_a_tight_day_ranks_by_gain_on_the_day_not_by_lowest_recall():
    now = datetime(2026, 1, 5, 10, tzinfo=timezone.utc)
    interview = plan.interview_on(date(2026, 1, 25))

    def card(stability: float, difficulty: float, days_ago: float) -> MemoryState:
        return MemoryState(REVIEW, None, stability, difficulty, now, now - timedelta(days=days_ago), 0, False)

    # "hard" has lower recall than "weak" and "middle", but at difficulty 10 a review barely helps it
    cards = {"strong": card(400, 5, 1), "middle": card(10, 1, 10), "faded": card(1, 10, 120),
             "weak": card(3, 8, 8), "hard": card(2, 10, 6)}

    def expected_gain(memory: MemoryState) -> float:
        """The definition, with py-fsrs's own review and retrievability."""
        fsrs_card = fsrs.Card(card_id=1, state=fsrs.State.Review, stability=memory.stability,
                              difficulty=memory.difficulty, due=now, last_review=memory.last_review)
        chance = NO_FUZZ.get_card_retrievability(fsrs_card, now)
        on_day = {}
        for rating in (fsrs.Rating.Good, fsrs.Rating.Again):
            reviewed, _ = NO_FUZZ.review_card(fsrs_card, rating, now)
            on_day[rating] = NO_FUZZ.get_card_retrievability(reviewed, interview.at)
        without = NO_FUZZ.get_card_retrievability(fsrs_card, interview.at)
        return chance * on_day[fsrs.Rating.Good] + (1 - chance) * on_day[fsrs.Rating.Again] - without

    by_definition = sorted(cards, key=lambda cid: -expected_gain(cards[cid]))
    lowest_recall = sorted(cards, key=lambda cid: curve(cards[cid].stability, (now - cards[cid].last_review).days))
    assert by_definition != lowest_recall  # the case tells the two orders apart
    assert plan.by_gain([plan.Seen(cid, m) for cid, m in cards.items()], now, interview, NO_FUZZ) == by_definition


@pytest.mark.parametrize("days_away", [5, 7, 8, 20])
def test_a_tight_day_ranks_by_gain_only_in_the_plans_last_week(days_away):
    """Three weeks out, a tight day took its due cards by gain on the day, which cost 0.8 to 1.0
    points of recall at 30 days against plain FSRS (bench_plan); now, further out than the last
    seven study days, it takes them lowest recall first, as plain FSRS does."""
    from quizzer.scheduling.queue import in_recall_order, planned_order
    from quizzer.store.records import DueRow

    now = datetime(2026, 1, 5, 10, tzinfo=timezone.utc)
    interview = plan.interview_on(date(2026, 1, 5) + timedelta(days=days_away))
    memories = {"middle": (10, 1, 10), "faded": (1, 10, 120), "weak": (3, 8, 8), "hard": (2, 10, 6)}
    seen = [plan.Seen(cid, MemoryState(REVIEW, None, s, d, now, now - timedelta(days=ago), 0, False))
            for cid, (s, d, ago) in memories.items()]
    due = in_recall_order([DueRow(c.id, c.memory.stability, c.memory.last_review, now) for c in seen], now, NO_FUZZ)
    lowest_recall = [row.id for row in due]
    gains = plan.by_gain(seen, now, interview, NO_FUZZ)
    assert gains != lowest_recall  # the case tells the two orders apart
    taken = planned_order(due, 2, 0, now, interview, NO_FUZZ, lambda: seen, lambda: [])
    assert taken == (gains if days_away <= 7 else lowest_recall)


@pytest.mark.parametrize("days_away, expected", [(200, 20), (90, 36), (60, 54), (30, 107), (14, 214), (5, 214),
                                                  (3, 214), (1, 214)])
def test_new_card_pace_sees_every_card_early(days_away, expected):
    # 214 unseen cards over min(a fifteenth of the days left rounded up, the days until 3 days before);
    # never fewer than the learner's own 20 a day: 200 → 14 days → 16 → 20; 90 → 6 → 36; 60 → 4 → 54;
    # 30 → 2 → 107; 14, 5 and 3 → 1 → 214; 1 → past the last day → all
    interview = plan.interview_on(date(2026, 1, 5) + timedelta(days=days_away))
    assert plan.new_per_day(214, date(2026, 1, 5), interview, 20) == expected


def test_the_queue_takes_new_cards_at_the_plans_pace():
    assert quiz("plan", "--date", "2026-01-10").exit_code == 0  # syncs the decks into the database
    store = open_store(os.environ["QUIZ_DB"])
    try:
        now = datetime(2026, 1, 5, 10, tzinfo=timezone.utc)
        interview = plan.interview_on(date(2026, 1, 10))
        planned = build_queue(store, now, new_per_day=20, interview=interview)
        plain = build_queue(store, now, new_per_day=20)
    finally:
        store.close()
    assert (len(plain), len(planned)) == (20, cards_in())  # 5 days away: a fifteenth is 1 day


def test_the_last_days_top_up_with_the_cards_that_gain_most():
    interview = plan.interview_on(date(2026, 1, 25))
    last = datetime(2026, 1, 23, 10, tzinfo=timezone.utc)  # 2 study days before: among the last 3

    def card(stability: float, days_ago: float) -> plan.Seen:
        return plan.Seen(f"s{stability:g}", MemoryState(REVIEW, None, stability, 5.0, last + timedelta(days=5),
                                                         last - timedelta(days=days_ago), 0, False))

    # on the day (2 days 18 h away): s1000 is at 0.9997 recall, above (1 + 0.95) / 2, so it is left out
    seen = [card(1000, 1), card(40, 10), card(20, 10), card(10, 5)]
    assert curve(1000, 1 + 1.75) > 0.975 > curve(40, 10 + 1.75)
    expected = [c.id for c in sorted(seen[1:], key=lambda c: -plan.gain(c.memory, last, interview, NO_FUZZ))]
    assert plan.top_up(seen, last, interview, NO_FUZZ, room=10) == expected
    assert plan.top_up(seen, last, interview, NO_FUZZ, room=1) == expected[:1]
    early = datetime(2026, 1, 15, 10, tzinfo=timezone.utc)  # 10 days before: not yet
    assert plan.top_up(seen, early, interview, NO_FUZZ, room=10) == []


def test_practice_reviews_count_in_the_memory_the_top_ups_see():
    interview = plan.interview_on(date(2026, 1, 25))
    yesterday = datetime(2026, 1, 22, 10, tzinfo=timezone.utc)  # 3 study days before: the first of the last 3
    today = yesterday + timedelta(days=1)
    memory = MemoryState(REVIEW, None, 10.0, 5.0, yesterday + timedelta(days=9), yesterday - timedelta(days=5), 0,
                         False)
    # the first practice is older than the last scheduled review and is skipped; the second is a Good
    # review 5 days after it: FSRS-6's stability after success, from the recall it had then
    counted = plan.practised(memory, [(yesterday - timedelta(days=6), 1), (yesterday, 3)], NO_FUZZ, 4)
    assert counted.last_review == yesterday and counted.due == memory.due
    assert counted.stability == pytest.approx(good_stability(10.0, 5.0, curve(10.0, 5)), rel=1e-6)
    assert plan.practised(memory, [], NO_FUZZ, 4) == memory
    # two equal cards, "a" practised yesterday: counted, today's one spare slot goes to "b" (uncounted,
    # the tie goes to "a" again, and the same cards are practised every day)
    seen = [plan.Seen("a", counted), plan.Seen("b", memory)]
    assert plan.top_up(seen, today, interview, NO_FUZZ, room=1) == ["b"]
    assert plan.top_up([plan.Seen("a", memory), plan.Seen("b", memory)], today, interview, NO_FUZZ, room=1) == ["a"]


def test_the_queue_tops_up_other_cards_than_the_ones_practised_the_day_before(tmp_path):
    """Through the store: in the last days a spare slot goes to a card not yet practised, not to
    the one a practice (ahead) review already refreshed yesterday, which the schedule ignores."""
    from quizzer.scheduling.answer import answer
    from quizzer.store import CardRef, sync_cards

    store = open_store(tmp_path / "plan.db")
    try:
        start = datetime(2026, 1, 19, 10, tzinfo=timezone.utc)
        sync_cards(store, [CardRef(card_id, "deck", "qa", i, "h") for i, card_id in enumerate(("a", "b"))], start)
        for card_id in ("a", "b"):  # the same history: Easy on first sight (due in over a week: after the 23rd)
            answer(store, card_id, 4, now=start, duration_ms=1, scheduler=NO_FUZZ, load_balance=False)
        interview = plan.interview_on(date(2026, 1, 25))
        first = datetime(2026, 1, 22, 10, tzinfo=timezone.utc)  # the first of the last three study days
        options = dict(new_per_day=0, reviews_per_day=1, scheduler=NO_FUZZ, interview=interview)
        assert plan.final_days(first, interview) and build_queue(store, first, new_per_day=0, scheduler=NO_FUZZ) == []
        picked = build_queue(store, first, **options)
        assert picked in (["a"], ["b"])
        practice = answer(store, picked[0], 3, now=first, duration_ms=1, scheduler=NO_FUZZ, load_balance=False,
                          interview=interview)
        assert not practice.scheduled  # ahead of its due day: the memory in the store is untouched
        other = ({"a", "b"} - set(picked)).pop()
        assert build_queue(store, first + timedelta(days=1), **options) == [other]
    finally:
        store.close()



def test_in_the_last_days_the_overview_counts_the_practice_study_adds(deck_folder):
    """The night before the interview `quiz` said 0 new, 0 learning, 0 due, while `quiz study` had
    41 cards: the plan's practice reviews of cards not due yet, which the overview did not count."""
    from quizzer.app.collection import open_collection
    from quizzer.app.today import today
    from quizzer.scheduling.answer import answer

    folder = deck_folder("id: d\ntitle: D\nlanguage: en\nsource: {file: f, sections: '1'}\ncards:\n" + "".join(
        f"  - {{id: {c}, kind: qa, source: '1', question: Q, answer: A, points: [p]}}\n" for c in ("a", "b", "c")))
    collection = open_collection(folder, folder.parent / "practice.db")
    start = datetime(2026, 1, 19, 10, tzinfo=timezone.utc)
    for card_id in ("a", "b", "c"):  # Easy on first sight: due after the interview
        answer(collection.store, card_id, 4, now=start, duration_ms=1, scheduler=NO_FUZZ, load_balance=False)
    interview = plan.interview_on(date(2026, 1, 25))
    first = datetime(2026, 1, 22, 10, tzinfo=timezone.utc)  # the first of the last three study days
    for budget in (2, 200):
        queue = build_queue(collection.store, first, new_per_day=0, reviews_per_day=budget, scheduler=NO_FUZZ,
                            interview=interview)
        day = today(collection, first, 0, interview=interview, reviews_per_day=budget, scheduler=NO_FUZZ)
        assert day.total.due == day.total.learning == day.total.new == 0 and queue
        assert day.practice == len(queue)
    own = {"d": 1}  # the deck's own review limit holds the practice too
    queue = build_queue(collection.store, first, new_per_day=0, scheduler=NO_FUZZ, interview=interview,
                        deck_reviews_per_day=own)
    day = today(collection, first, 0, interview=interview, scheduler=NO_FUZZ, deck_reviews_per_day=own)
    assert len(queue) == day.practice == 1
    where = ["--decks", str(folder), "--db", str(folder.parent / "practice.db")]  # through the commands
    assert runner.invoke(app, ["plan", "--date", "2026-01-25", *where], env={"QUIZ_NOW": start.isoformat()}).exit_code == 0
    at = {"QUIZ_NOW": first.isoformat()}
    overview = json.loads(runner.invoke(app, ["--json", *where], env=at).output)
    study = runner.invoke(app, ["study", *where], input="", env=at).stdout
    counts = re.search(r"0 done · (\d+) new · (\d+) learning · (\d+) due", study)
    assert counts is not None and overview["practice"] == sum(map(int, counts.groups())) > 0, study
    shown = runner.invoke(app, where, env=at).output
    assert f"in its last days the plan adds {overview['practice']} review" in shown


def test_the_overview_and_config_show_the_new_card_limit_the_plan_raised():
    """With an interview 60 days away study introduces ceil(cards / 4) new cards today (all within
    a fifteenth of the days); `quiz` and `quiz config` said the setting's 20."""
    pace = math.ceil(cards_in() / 4)
    assert pace > 20 and quiz("plan", "--date", "2026-03-06").exit_code == 0
    overview = json.loads(quiz("--json").output)
    assert (overview["new_per_day"], overview["new_per_day_setting"]) == (pace, 20)
    said = " ".join(quiz().output.split())
    assert f"({pace} new cards a day, raised from 20 by the interview plan;" in said
    shown = json.loads(quiz("config", "--json").output)["settings"]["new_per_day"]
    assert shown == {"value": 20, "source": "default", "allowed": "0-9999", "today": pace, "why": "interview plan"}
    said = " ".join(quiz("config").output.split())
    assert f"new_per_day today: {pace}, raised from 20 by the interview plan" in said
    assert quiz("plan", "--clear").exit_code == 0  # no plan: the setting holds, and nothing more is said
    assert "today" not in json.loads(quiz("config", "--json").output)["settings"]["new_per_day"]
    assert "new_per_day today" not in quiz("config").output


def test_the_last_days_practice_is_capped_per_study_day_across_sessions(tmp_path):
    """With a cap of 100, one session took 60 due reviews and each later `quiz study` that day
    added 30 practice reviews more: the practice done earlier in the day did not count."""
    from quizzer.scheduling.answer import answer
    from quizzer.store import CardRef, sync_cards

    store = open_store(tmp_path / "cap.db")
    try:
        start = datetime(2026, 1, 19, 10, tzinfo=timezone.utc)
        ids = [f"c{i}" for i in range(10)]
        sync_cards(store, [CardRef(card_id, "deck", "qa", i, "h") for i, card_id in enumerate(ids)], start)
        for card_id in ids:  # Easy on first sight: due after the 23rd, so none is due in the last days
            answer(store, card_id, 4, now=start, duration_ms=1, scheduler=NO_FUZZ, load_balance=False)
        interview = plan.interview_on(date(2026, 1, 25))
        first = datetime(2026, 1, 22, 10, tzinfo=timezone.utc)  # the first of the last three study days
        options = dict(new_per_day=0, reviews_per_day=4, scheduler=NO_FUZZ, interview=interview)
        session = build_queue(store, first, **options)
        assert len(session) == 4  # the day's budget, all of it practice
        for k, card_id in enumerate(session[:3]):  # three answered, then the session ends
            answer(store, card_id, 3, now=first + timedelta(minutes=k), duration_ms=1, scheduler=NO_FUZZ,
                   load_balance=False, interview=interview)
        later = first + timedelta(hours=5)
        assert len(build_queue(store, later, **options)) == 1  # the one left of the day's 4, not 4 more
        answer(store, build_queue(store, later, **options)[0], 3, now=later, duration_ms=1, scheduler=NO_FUZZ,
               load_balance=False, interview=interview)
        assert build_queue(store, later + timedelta(hours=1), **options) == []  # the day's budget is spent
        assert len(build_queue(store, first + timedelta(days=1), **options)) == 4  # a new study day, a new budget
    finally:
        store.close()


def test_the_plan_benchmark_at_a_reduced_size_beats_plain_fsrs(bench_plan):
    """bench/bench_plan.py's learner (cards of varied strength, the first sight failed), 40 cards
    and 14 days at 60 reviews a day: the plan ends with more recalled on the day than plain FSRS,
    and the forecast says up front what the cell's budget allows."""
    import numpy as np

    bench = bench_plan
    truth, scheduler = fsrs.Scheduler(), fsrs.Scheduler()
    draws = np.random.default_rng([0, 14]).random((40, 64, 2))
    strengths = 0.6 * np.exp(np.random.default_rng([0, 14, 1]).normal(0.0, bench.SPREAD, 40))
    (fsrs_recall, fsrs_share), (plan_recall, plan_share) = (
        bench.run(arm, truth, scheduler, draws, strengths, 14, 60) for arm in ("fsrs", "plan"))
    assert 0 < fsrs_recall < plan_recall <= 1 and fsrs_share <= plan_share
    assert bench.said_up_front(40, 14, 60, scheduler).endswith(": reached")  # 60 a day is plenty for 40 cards
    assert ": needs " in bench.said_up_front(40, 7, 1, scheduler)


def test_the_forecast_keeps_each_decks_own_limits_and_what_today_used():
    """A deck's own limit of 0 reviews a day holds its cards as a global limit of 0 does; a deck's
    own limit of 0 new cards leaves them unseen (recall 0 on the day); reviews already done today
    leave fewer for today's replay."""
    from quizzer.scheduling.forecast import Limits, forecast
    from quizzer.scheduling.queue import DoneToday

    now = datetime(2026, 1, 5, 10, tzinfo=timezone.utc)
    interview = plan.interview_on(date(2026, 1, 19))
    last = datetime(2026, 1, 3, 4, tzinfo=timezone.utc)
    seen = [plan.Seen(f"s{i}", MemoryState(REVIEW, None, 1.0 + i / 10, 5.0, datetime(2026, 1, 5, 4, tzinfo=timezone.utc),
                                           last, 0, False)) for i in range(10)]
    unseen = [f"n{i}" for i in range(6)]
    in_a = {card_id: "a" for card_id in [card.id for card in seen] + unseen}

    def shown(limits: Limits) -> tuple[float, float]:
        replayed = forecast(seen, unseen, now, interview, NO_FUZZ, limits)
        return replayed.recalled, replayed.reviews_per_day

    assert shown(Limits(200, 20, deck_reviews_per_day={"a": 0}, deck_of=in_a)) == shown(Limits(0, 20))
    assert shown(Limits(0, 20)) != shown(Limits(200, 20))
    held = forecast(seen, unseen, now, interview, NO_FUZZ, Limits(200, 20, deck_new_per_day={"a": 0}, deck_of=in_a))
    alone = forecast(seen, [], now, interview, NO_FUZZ, Limits(200, 20))  # the seen cards as if no new one existed
    assert held.recalled * 16 == pytest.approx(alone.recalled * 10) and held.seen == 10 and held.cards == 16
    assert held.recalled < forecast(seen, unseen, now, interview, NO_FUZZ, Limits(200, 20)).recalled
    tomorrow = plan.interview_on(date(2026, 1, 6))  # one study day left: today's
    used = forecast(seen, [], now, tomorrow, NO_FUZZ, Limits(4, 20, today=DoneToday(reviews=4)))
    none = forecast(seen, [], now, tomorrow, NO_FUZZ, Limits(0, 20))
    assert (used.recalled, used.reviews_per_day) == (none.recalled, none.reviews_per_day) == (none.recalled, 0)
    assert forecast(seen, [], now, tomorrow, NO_FUZZ, Limits(4, 20)).reviews_per_day == 4


def test_other_decks_due_reviews_take_the_last_days_practice_room_in_the_forecast():
    """A plan for some decks: the other decks' due reviews share the day's limit, so with 20 of
    them due and 20 reviews a day on the day before the interview, no practice review is left for
    the interview's cards (they end as with no review at all), where alone they get some."""
    from quizzer.scheduling.forecast import Limits, forecast
    from quizzer.scheduling.simulated import Learner

    now = datetime(2026, 1, 5, 10, tzinfo=timezone.utc)
    tomorrow = plan.interview_on(date(2026, 1, 6), decks=("mine",))
    start = datetime(2026, 1, 5, 4, tzinfo=timezone.utc)
    mine = [plan.Seen(f"m{i}", MemoryState(REVIEW, None, 3.0, 5.0, start + timedelta(days=5), start - timedelta(days=2),
                                           0, False)) for i in range(10)]
    others = [plan.Seen(f"o{i}", MemoryState(REVIEW, None, 2.0, 5.0, start, start - timedelta(days=2), 0, False))
              for i in range(20)]
    best = Learner(spread=0.0, first_sight_fails=False, lapses=False)  # every answer Good: practice alone
    shared = forecast(mine, [], now, tomorrow, NO_FUZZ, Limits(20, 20), others=others, learner=best)
    alone = forecast(mine, [], now, tomorrow, NO_FUZZ, Limits(20, 20), learner=best)
    untouched = forecast(mine, [], now, tomorrow, NO_FUZZ, Limits(0, 20), learner=best)
    assert shared.recalled == untouched.recalled < alone.recalled
    assert (shared.cards, shared.reviews_per_day, alone.reviews_per_day) == (10, 0, 10)
