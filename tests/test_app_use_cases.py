"""The use cases a front end calls (``quizzer.app``), driven in process through their public
interface: which exam paper opens, putting a card back, the interview plan, the database's
backups and copy, the fitted parameters, review history in and out, the deck files, and the
terminal's shared messages and exam opening."""

from __future__ import annotations

import io
from datetime import date, datetime, timedelta, timezone

import pytest
from rich.console import Console

from conftest import MINI_DECK
from test_study import DECK  # two qa cards, a mistake and a choice

from quizzer.app import database, deck_files, exam_open, fitting, review_history
from quizzer.app import plan as plans
from quizzer.app.browse import put_back, show
from quizzer.app.collection import open_collection
from quizzer.app.config import due_change
from quizzer.app.exam import ExamSession
from quizzer.app.exam_report import history
from quizzer.app.today import learner_today
from quizzer.base.errors import BackupError, CardNotFound, NoDecks, NoUnfinishedExam, QuizError, UsageError
from quizzer.scheduling import answer
from quizzer.settings import DEFAULTS
from quizzer.settings import Settings
from quizzer.store import cards, learner, open_store
from quizzer.terminal.exam import begin_paper
from quizzer.terminal.messages import pace_message, show_status, unfinished_line
from quizzer.transfer.fsrs_csv import LoggedReview

T0 = datetime(2026, 1, 5, 10, 0, tzinfo=timezone.utc)
CARDS = ("q-one", "q-two", "m-one", "c-one")  # DECK's cards


@pytest.fixture
def collection(deck_folder, monkeypatch, tmp_path):
    monkeypatch.setenv("QUIZ_NOW", T0.isoformat())
    return open_collection(deck_folder(DECK), tmp_path / "app.db")


# ------------------------------------------------------------------ which exam paper opens


def test_a_new_paper_opens_when_no_exam_is_unfinished(collection):
    opened = exam_open.open_paper(collection, exam_open.NewPaper(2, 30, seed=7), resume=False)
    assert isinstance(opened, ExamSession)
    assert (opened.total, opened.exam.seed, opened.exam.minutes) == (2, 7, 30)


def test_a_count_beyond_the_cards_draws_every_card(collection):
    opened = exam_open.open_paper(collection, exam_open.NewPaper(100, 30), resume=False)
    assert isinstance(opened, ExamSession)
    assert opened.total == len(CARDS)


def test_an_unfinished_exam_is_offered_before_a_new_paper(collection):
    first = exam_open.open_paper(collection, exam_open.NewPaper(2, 30), resume=False)
    assert isinstance(first, ExamSession)
    offered = exam_open.open_paper(collection, exam_open.NewPaper(3, 30), resume=False)
    assert isinstance(offered, exam_open.Offer)
    assert offered.waiting.id == first.exam.id
    assert offered.to_do(T0) == "answering"
    assert offered.to_do(T0 + timedelta(minutes=31)) == "scoring"
    assert offered.take_up().exam.id == first.exam.id
    new = offered.start_new()
    assert new.exam.id != first.exam.id and new.total == 3


def test_resume_takes_up_the_unfinished_exam_and_needs_one(collection):
    with pytest.raises(NoUnfinishedExam):
        exam_open.open_paper(collection, exam_open.NewPaper(2, 30), resume=True)
    first = exam_open.open_paper(collection, exam_open.NewPaper(2, 30), resume=False)
    resumed = exam_open.open_paper(collection, exam_open.NewPaper(2, 30), resume=True)
    assert isinstance(first, ExamSession) and isinstance(resumed, ExamSession)
    assert resumed.exam.id == first.exam.id


def test_no_decks_and_unknown_filters_are_errors(collection):
    with pytest.raises(QuizError, match="nope"):
        exam_open.open_paper(collection, exam_open.NewPaper(2, 30, decks=["nope"]), resume=False)
    collection.decks = []
    with pytest.raises(NoDecks):
        exam_open.open_paper(collection, exam_open.NewPaper(2, 30), resume=False)


def test_the_history_as_data_says_what_can_be_resumed(collection):
    exam_open.open_paper(collection, exam_open.NewPaper(2, 30, decks=["mini"]), resume=False)
    [row] = exam_open.history_dicts(history(collection), T0)
    assert (row["questions"], row["answered"], row["score"], row["unfinished"], row["resumable"]) == (2, 0, None, True, True)
    assert row["filters"]["decks"] == ["mini"]  # the stored JSON, read back as data
    [later] = exam_open.history_dicts(history(collection), T0 + timedelta(minutes=30))
    assert later["resumable"] is False  # its time is up: it can only be scored


# ------------------------------------------------------------------ the exam's opening on a terminal


class Keys:
    """A prompter that answers the offer with ``key``; interactive unless ``key`` is None."""

    def __init__(self, key: str | None) -> None:
        self.key_pressed, self.interactive, self.offers = key, key is not None, []

    def discard_typed_ahead(self) -> None:
        pass

    def key(self, prompt: str, keys: set[str]) -> str:
        self.offers.append(prompt)
        return self.key_pressed or ""


def _offer(collection) -> tuple[ExamSession, exam_open.Offer]:
    first = exam_open.open_paper(collection, exam_open.NewPaper(2, 30), resume=False)
    offer = exam_open.open_paper(collection, exam_open.NewPaper(3, 30), resume=False)
    assert isinstance(first, ExamSession) and isinstance(offer, exam_open.Offer)
    return first, offer


@pytest.mark.parametrize("key, taken_up", [("", True), ("q", False)])
def test_on_a_terminal_the_offer_is_asked(collection, key, taken_up):
    first, offer = _offer(collection)
    out, keys = Console(record=True, width=100), Keys(key)
    session = begin_paper(out, keys, offer, offer.wanted, resumed=False)
    assert len(keys.offers) == 1 and "q" in keys.offers[0]
    assert f"Exam {first.exam.id} is unfinished" in out.export_text()
    assert (session.exam.id if session else None) == (first.exam.id if taken_up else None)


def test_from_a_script_the_new_paper_goes_ahead_and_is_announced(collection):
    first, offer = _offer(collection)
    out = Console(record=True, width=100)
    session = begin_paper(out, Keys(None), offer, offer.wanted, resumed=False)
    assert session is not None and session.exam.id == first.exam.id + 1
    assert f"Exam {session.exam.id}: 3 questions, 30 minutes" in out.export_text()


def test_a_short_paper_says_how_many_cards_it_holds(collection):
    wanted = exam_open.NewPaper(50, 1)
    opened = exam_open.open_paper(collection, wanted, resume=False)
    out = Console(record=True, width=100)
    begin_paper(out, Keys(None), opened, wanted, resumed=False)
    text = out.export_text()
    assert "1 minute " in text and f"Only {len(CARDS)} cards can be asked" in text


# ------------------------------------------------------------------ a card put back


def test_put_back_unsuspends_and_unburies_only_what_it_is_asked(collection):
    cards.set_flags(collection.store, "q-one", suspended=True)
    answer.bury(collection.store, "q-one", T0 + timedelta(days=1))
    shown = show(collection, "q-one", T0)
    assert shown.info.suspended and shown.buried
    unburied = put_back(collection, shown, T0, unbury=True)
    assert unburied.info.suspended and not unburied.buried
    both = put_back(collection, unburied, T0, unsuspend=True, unbury=True)
    assert not both.info.suspended and not both.buried
    assert show(collection, "q-one", T0).status == "active"  # stored, not only returned
    assert put_back(collection, both, T0, unsuspend=True) is both  # nothing to do: nothing changed


# ------------------------------------------------------------------ the interview plan


def test_an_interview_is_set_with_the_default_retention_and_cleared(collection):
    day = date(2026, 3, 1)
    plans.set_interview(collection, day, None, ["mini", "mini"])
    shown = plans.status(collection, DEFAULTS, T0)
    assert shown is not None and shown.forecast is not None
    assert (shown.interview.day, shown.interview.retention, shown.interview.decks) == (day, 0.95, ("mini",))
    assert plans.plan_dict(shown)["days_left"] == (day - date(2026, 1, 5)).days
    assert plans.clear_interview(collection).day == day
    assert plans.clear_interview(collection) is None
    assert plans.status(collection, DEFAULTS, T0) is None


def test_an_interview_on_an_unknown_deck_is_refused_and_not_saved(collection):
    with pytest.raises(QuizError, match="nope"):
        plans.set_interview(collection, date(2026, 3, 1), 0.9, ["nope"])
    assert plans.status(collection, DEFAULTS, T0) is None


def test_today_under_the_learners_settings_offers_the_new_cards(collection):
    day = learner_today(collection, DEFAULTS, T0)
    assert (day.total.new, day.total.due, day.unfinished_exam) == (len(CARDS), 0, None)


# ------------------------------------------------------------------ the database


def test_backups_are_taken_found_and_restored(collection, tmp_path):
    path = collection.store.path
    taken = database.take_backup(path)
    assert database.list_backups(path)[0].path == taken  # newest first (opening the collection took one too)
    assert database.find_backup(path, "latest").path == taken
    assert database.find_backup(path, taken.name).taken_at is not None
    with pytest.raises(BackupError, match="no backup 'nope'"):
        database.find_backup(path, "nope")
    asked = []
    restored = database.restore(database.find_backup(path, "latest"), path, lambda: asked.append(True))
    assert asked == [True] and restored.saved is not None and restored.saved.exists()
    assert restored.reviews == 0


def test_a_server_has_no_backup_file():
    with pytest.raises(UsageError, match="database server"):
        database.database_file("postgresql://ann@localhost/quiz", None)


def test_a_sound_database_checks_clean(collection):
    found = database.check(collection.store.path, None, open_store)
    assert (found.problems, found.summary_rebuilt) == ([], False)


def test_a_copy_holds_every_card_and_leaves_no_partial_file(collection, tmp_path):
    target = tmp_path / "copy.db"
    copied = database.copy_into(collection.store, str(target), DEFAULTS)
    assert copied.destination == str(target) and target.exists()
    assert copied.rows["cards"] == len(CARDS)
    assert not list(tmp_path.glob("*.partial"))


def test_due_counts_of_an_unreviewed_collection_are_zero(collection):
    old, new = due_change(collection.store, DEFAULTS)
    assert (old.today, old.week, new.today, new.week) == (0, 0, 0, 0)


# ------------------------------------------------------------------ fitted parameters


def test_reset_says_whether_fitted_parameters_were_in_use(collection):
    assert fitting.reset(collection) is False
    learner.save_parameters(collection.store, tuple(fitting.default_parameters()), T0)
    assert fitting.reset(collection) is True
    assert learner.load(collection.store).parameters is None


# ------------------------------------------------------------------ review history


def test_an_import_keeps_its_backup_only_when_it_added_reviews(collection):
    reviews = [LoggedReview("q-one", 3, T0 - timedelta(days=3), 5000),
               LoggedReview("q-one", 3, T0 - timedelta(days=1), 4000)]
    first = review_history.import_reviews(collection, reviews, DEFAULTS)
    assert first.result.imported == 2 and first.saved is not None and first.saved.exists()
    again = review_history.import_reviews(collection, reviews, DEFAULTS)
    assert again.result.imported == 0 and again.saved is None
    written = io.StringIO()
    exported = review_history.export_reviews(collection, written, ["mini"], None)
    assert (exported.exported, exported.cards) == (2, 1)
    assert written.getvalue().splitlines()[0].split(",")[:2] == ["card_id", "review_rating"]
    with pytest.raises(QuizError, match="nope"):
        review_history.export_reviews(collection, io.StringIO(), ["nope"], None)


# ------------------------------------------------------------------ deck files


def test_lint_counts_the_files_and_cards_of_clean_decks(deck_folder):
    folder = deck_folder(DECK)
    assert deck_files.lint([folder]) == deck_files.Checked([], 1, len(CARDS))


def test_lint_reports_a_broken_deck(deck_folder):
    found = deck_files.lint([deck_folder(MINI_DECK + "  - {id: q-one, kind: qa}\n")])
    assert found.problems and found.cards is None


def test_kinds_held_counts_every_kind(collection):
    [held] = deck_files.kinds_held(collection.decks)
    assert (held.deck, held.total) == ("mini", len(CARDS))
    assert {kind: count for kind, count in held.kinds.items() if count} == {"qa": 2, "mistake": 1, "choice": 1}
    assert sum(held.kinds.values()) == held.total


def test_a_question_is_drawn_only_for_a_numeric_card(collection):
    with pytest.raises(UsageError, match="not a generated"):
        deck_files.card_question(collection.decks, "q-one", 0)
    with pytest.raises(CardNotFound):
        deck_files.card_question(collection.decks, "no-such-card", 0)


def test_the_schema_is_json_of_the_deck_format():
    import json

    assert "cards" in json.loads(deck_files.json_schema())["properties"]


# ------------------------------------------------------------------ messages several commands say


def test_the_pace_is_news_only_above_the_setting():
    assert pace_message(10, 10) is None and pace_message(10, 9) is None
    assert "from 10 to 1,200" in (pace_message(10, 1200) or "")


def test_an_unfinished_exam_says_what_resuming_does(collection):
    opened = exam_open.open_paper(collection, exam_open.NewPaper(2, 30), resume=False)
    assert isinstance(opened, ExamSession)
    exam = opened.exam
    assert "continues it until" in unfinished_line(exam, T0) and "left." in unfinished_line(exam, T0)  # 30 minutes
    assert "left." not in unfinished_line(exam, T0 - timedelta(hours=2))  # more than an hour: the deadline alone
    assert "29:00 left" in unfinished_line(exam, T0 + timedelta(minutes=1))
    assert "scores it" in unfinished_line(exam, T0 + timedelta(minutes=31))


def test_the_plan_status_names_the_raised_pace(collection):
    plans.set_interview(collection, date(2026, 1, 12), None, None)
    shown = plans.status(collection, Settings(new_per_day=0), T0)  # 4 unseen cards, a week: a pace above 0
    assert shown is not None and shown.forecast is not None
    out = Console(record=True, width=200)
    show_status(out, shown)
    text = out.export_text()
    assert "Interview on 2026-01-12 (7 days left), every deck" in text
    assert f"raised from 0 to {shown.forecast.new_per_day}" in text and shown.forecast.new_per_day > 0
