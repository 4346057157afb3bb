"""Review history in and out: ``quiz history import`` / ``export`` over the real 12,580-review
log, a hand-written log for a small deck, malformed rows, archived cards and FSRS parity."""

from __future__ import annotations

import csv
import json
import os
import re
import sqlite3
from contextlib import closing
from datetime import datetime, timedelta, timezone
from pathlib import Path

import fsrs
import pytest
from conftest import fsrs_by_study_days
from typer.testing import CliRunner

from quizzer.base import i18n
from quizzer.cli import app
from quizzer.scheduling.answer import answer
from quizzer.store import RELEARNING, REVIEW, CardRef, open_store, sync_cards
from quizzer.store.cards import card, reviews
from quizzer.transfer.fsrs_csv import import_history, read_review_log

runner = CliRunner()
NO_FUZZ = fsrs.Scheduler(enable_fuzzing=False)
SHARED_LOG = Path(__file__).resolve().parents[2] / "shared" / "data" / "fsrs-review-log-12k.csv"
HEADER = ["card_id", "review_rating", "review_time", "review_duration"]
T0 = datetime(2025, 3, 3, 9, 0, tzinfo=timezone.utc)

DECK = """\
id: tiny
title: Tiny
language: zh
source: {file: course.txt, sections: "1"}
cards:
  - {id: t-one, kind: qa, source: "1.1", question: 问题一, answer: 答案一, points: [要点]}
  - {id: t-two, kind: qa, source: "1.1", question: 问题二, answer: 答案二, points: [要点]}
"""


def quiz(*args: str, env: dict[str, str] | None = None, input: str | None = None):
    return runner.invoke(app, list(args), env=env, input=input)


def quiz_db() -> str:
    """The test's own database (conftest sets QUIZ_DB)."""
    return os.environ["QUIZ_DB"]


def rows_of(path: Path) -> set[tuple[str, ...]]:
    """A CSV's rows (header included) as a set, read with the csv module alone: the four columns
    of the common form (an export adds each review's state and mode)."""
    with open(path, newline="", encoding="utf-8") as handle:
        return {tuple(row[:4]) for row in csv.reader(handle)}


def write_log(path: Path, rows: list[tuple[object, ...]], header: list[str] = HEADER) -> Path:
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        writer.writerows(rows)
    return path


def copy_db(source: Path, target: Path) -> Path:
    """A consistent copy through SQLite's backup API (the source may have a WAL)."""
    with sqlite3.connect(source) as src, sqlite3.connect(target) as dst:
        src.backup(dst)
    return target


def dump(db: Path) -> list[str]:
    with sqlite3.connect(db) as conn:
        return list(conn.iterdump())


def fsrs_replay(rows: list[tuple[int, datetime]], scheduler: fsrs.Scheduler = NO_FUZZ) -> tuple[fsrs.Card, int]:
    """fsrs run directly over (rating, time) in time order, days counted in study days; (card, lapses)."""
    memory, lapses = fsrs.Card(card_id=0), 0
    for rating, at in sorted(rows, key=lambda r: r[1]):
        lapses += memory.state == fsrs.State.Review and rating == 1
        memory = fsrs_by_study_days(scheduler, memory, rating, at)
    return memory, lapses


# -- the real log ---------------------------------------------------------------


@pytest.fixture(scope="module")
def shared_log() -> Path:
    if not SHARED_LOG.is_file():
        pytest.skip(f"the shared review log is not there: {SHARED_LOG} (the shared data folder sits beside the checkout)")
    return SHARED_LOG


@pytest.fixture(scope="module")
def imported(shared_log, tmp_path_factory):
    """The 12k log imported once through the CLI into a database of its own (bundled decks):
    (database, the summary line). Tests work on copies."""
    home = tmp_path_factory.mktemp("imported")
    db = home / "quiz.db"
    env = {"QUIZ_DB": str(db), "QUIZ_CACHE_DIR": str(home / "cache"), "QUIZ_NOW": "", "QUIZ_DECKS": "",
           "QUIZ_CONFIG": str(home / "no-config.toml")}
    result = quiz("history", "import", str(shared_log), env=env)
    assert result.exit_code == 0, result.output
    return db, result.stdout.splitlines()[0]


@pytest.fixture
def imported_copy(imported, tmp_path) -> Path:
    return copy_db(imported[0], tmp_path / "copy.db")


def test_import_counts_then_a_second_import_adds_nothing(imported, imported_copy, shared_log):
    assert imported[1] == "imported 12,580 reviews of 1,205 cards (1,205 new archived cards); 0 already there"
    before = dump(imported_copy)
    again = quiz("history", "import", str(shared_log), "--json", "--db", str(imported_copy))
    assert again.exit_code == 0, again.output
    counts = json.loads(again.stdout)
    assert counts.pop("backup") is None  # one is taken before an import (it cannot be taken back), kept if it changed anything
    assert counts == dict(file=str(shared_log), imported=0, cards=0, new_archived_cards=0, already_there=12580)
    assert dump(imported_copy) == before
    with sqlite3.connect(imported_copy) as conn:
        assert conn.execute("SELECT count(*) FROM review_log").fetchone() == (12580,)
        assert conn.execute("SELECT deck, kind, active, count(*) FROM cards WHERE deck = 'archived' "
                            "GROUP BY deck, kind, active").fetchall() == [("archived", "imported", 0, 1205)]


def test_an_import_tells_its_progress_card_by_card(shared_log, tmp_path):
    """A million reviews took two minutes with nothing on the screen; the terminal now draws a bar."""
    told: list[int] = []
    reviews = read_review_log(shared_log)
    store = open_store(tmp_path / "progress.db")
    import_history(store, reviews[:6000], replayed=told.append)
    assert len(told) == len({r.card_id for r in reviews[:6000]}) and told == sorted(told) and told[-1] == 6000
    told.clear()
    import_history(store, reviews, replayed=told.append)  # the first 6,000 are there: done from the start
    assert told[0] > 6000 and told == sorted(told) and told[-1] == 12580


def test_export_then_import_into_a_fresh_database_round_trips_every_row(imported_copy, shared_log, tmp_path):
    exported = tmp_path / "out.csv"
    result = quiz("history", "export", str(exported), "--db", str(imported_copy))
    assert result.exit_code == 0 and result.stdout.strip() == f"exported 12,580 reviews of 1,205 cards to {exported}"
    original = rows_of(shared_log)
    assert rows_of(exported) == original and len(original) == 12581  # the header and every review
    fresh = quiz("history", "import", str(exported), "--json")  # into the test's own empty QUIZ_DB
    counts = json.loads(fresh.stdout)
    with closing(sqlite3.connect(counts.pop("backup"))) as before:  # the database as it was: no review yet
        assert before.execute("SELECT count(*) FROM review_log").fetchone() == (0,)
    assert counts | {"file": ""} == dict(file="", imported=12580, cards=1205, new_archived_cards=1205, already_there=0)
    again = tmp_path / "again.csv"
    assert quiz("history", "export", str(again)).exit_code == 0
    assert rows_of(again) == original


def test_memory_after_import_equals_fsrs_replaying_the_rows(imported_copy, shared_log):
    """Every card's state, stability, difficulty, last review and lapses as fsrs gives them; the
    due date too, give or take the fuzz the CLI's scheduler adds to review intervals."""
    by_card: dict[str, list[tuple[int, datetime]]] = {}
    with open(shared_log, newline="") as handle:
        for row in csv.DictReader(handle):
            by_card.setdefault(row["card_id"], []).append(
                (int(row["review_rating"]), datetime.fromisoformat(row["review_time"])))
    with sqlite3.connect(imported_copy) as conn:
        stored = {row[0]: row[1:] for row in conn.execute(
            "SELECT id, state, step, stability, difficulty, due, last_review, lapses FROM cards WHERE deck = 'archived'")}
    assert stored.keys() == by_card.keys()

    def utc(text: str) -> datetime:
        return datetime.fromisoformat(text).replace(tzinfo=timezone.utc)

    for card_id, rows in by_card.items():
        expected, lapses = fsrs_replay(rows)
        state, step, stability, difficulty, due, last_review, got_lapses = stored[card_id]
        assert (state, step, stability, difficulty, utc(last_review), got_lapses) == (
            int(expected.state), expected.step, expected.stability, expected.difficulty, expected.last_review,
            lapses), card_id
        assert expected.due is not None and expected.last_review is not None
        interval = (expected.due - expected.last_review) / timedelta(days=1)
        assert abs(utc(due) - expected.due) <= timedelta(days=4 + 0.06 * interval), card_id


def placed_as_anki(expected: fsrs.Card) -> list[datetime]:
    """Where quizzer may put fsrs's unfuzzed due (Anki's rules): a learning step at fsrs's time;
    a review at the start (04:00 UTC here) of the study day as many whole days on, or one or
    two days later when the Hard < Good < Easy rule lengthens it."""
    assert expected.due is not None and expected.last_review is not None
    if expected.state != fsrs.State.Review:
        return [expected.due]
    days = (expected.due - expected.last_review) // timedelta(days=1)
    answered_day = (expected.last_review - timedelta(hours=4)).date()
    start = datetime.combine(answered_day, datetime.min.time(), timezone.utc).replace(hour=4)
    return [start + timedelta(days=days + extra) for extra in (0, 1, 2)]


def test_with_fuzz_off_in_the_settings_the_due_dates_equal_fsrs_too(shared_log, tmp_path):
    """The import schedules with the learner's FSRS settings: with ``fuzz`` off (QUIZ_FUZZ) every
    due date equals fsrs's unfuzzed one as well (a sample of 150 cards)."""
    with open(shared_log, newline="") as handle:
        rows = list(csv.DictReader(handle))
    chosen = set(sorted({row["card_id"] for row in rows})[::8])
    sample = write_log(tmp_path / "sample.csv", [tuple(row[c] for c in HEADER) for row in rows if row["card_id"] in chosen])
    env = {"QUIZ_FUZZ": "off", "QUIZ_CONFIG": str(tmp_path / "no-config.toml")}
    result = quiz("history", "import", str(sample), "--json", env=env)
    assert result.exit_code == 0, result.output
    counts = json.loads(result.stdout)
    assert (counts["cards"], counts["new_archived_cards"]) == (len(chosen), len(chosen))
    store = open_store(quiz_db())
    try:
        for card_id in chosen:
            expected, lapses = fsrs_replay([(int(row["review_rating"]), datetime.fromisoformat(row["review_time"]))
                                            for row in rows if row["card_id"] == card_id])
            got = card(store, card_id).memory
            assert (got.state, got.step, got.last_review, got.stability, got.difficulty, got.lapses) == (
                int(expected.state), expected.step, expected.last_review, expected.stability,
                expected.difficulty, lapses), card_id
            assert got.due in placed_as_anki(expected), card_id
    finally:
        store.close()


def test_a_malformed_row_late_in_the_real_log_names_its_line_and_writes_nothing(imported_copy, shared_log, tmp_path):
    lines = shared_log.read_text().splitlines()
    lines.insert(11999, "1711684180217,3,2024-13-01T10:00:00+00:00,1000")  # becomes line 12000
    bad = tmp_path / "bad.csv"
    bad.write_text("\n".join(lines) + "\n")
    before = dump(imported_copy)
    result = quiz("history", "import", str(bad), "--db", str(imported_copy))
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr.startswith(f"Error: {bad}:12000: review_time '2024-13-01T10:00:00+00:00' is not an ISO 8601")
    assert dump(imported_copy) == before


# -- small hand-written logs ----------------------------------------------------


@pytest.fixture
def tiny(deck_folder, tmp_path):
    """The two-card deck, synced into the test's database."""
    folder = deck_folder(DECK)
    assert quiz("decks", "--decks", str(folder)).exit_code == 0
    return folder


GOOD = [("t-one", 3, "2025-01-02T08:00:00+00:00", 4000), ("old-1", 1, "2025-01-01T08:00:00+00:00", 9000),
        ("t-one", 3, "2025-01-05T08:00:00+00:00", 3000), ("old-1", 3, "2025-01-01T08:10:00+00:00", "")]


@pytest.mark.parametrize("row, line, message", [
    (("t-one", "3", "2025-01-03T08:00:00+00:00"), 3, "missing review_duration"),
    (("t-one", "3", "2025-01-03T08:00:00+00:00", "1", "x"), 3, "5 values, but the header names 4 columns"),
    (("", "3", "2025-01-03T08:00:00+00:00", "1"), 3, "empty card_id"),
    (("t-one", "5", "2025-01-03T08:00:00+00:00", "1"), 3, "review_rating must be 1 (Again), 2 (Hard), 3 (Good) or 4 (Easy), got '5'"),
    (("t-one", "Good", "2025-01-03T08:00:00+00:00", "1"), 3, "review_rating must be"),
    (("t-one", "3", "yesterday", "1"), 3, "review_time 'yesterday' is not an ISO 8601 date-time"),
    (("t-one", "3", "2099-01-03T08:00:00+00:00", "1"), 3, "review_time 2099-01-03T08:00:00+00:00 is in the future"),
    (("t-one", "3", "0001-01-01T00:00:00Z", "1"), 3, "review_time '0001-01-01T00:00:00Z' is before 1970"),  # stats crashed after
    (("t-one", "3", "0001-01-01T00:30:00+01:00", "1"), 3, "review_time '0001-01-01T00:30:00+01:00' is before 1970"),
    (("t-one", "3", "1969-12-31T23:59:59Z", "1"), 3, "review_time '1969-12-31T23:59:59Z' is before 1970"),
    (("t\x1b[31m", "3", "2025-01-03T08:00:00+00:00", "1"), 3, "card_id 't\\x1b[31m' has control characters"),
    (("t\u202eone", "3", "2025-01-03T08:00:00+00:00", "1"), 3, "card_id 't\\u202eone' has control characters"),
    (("t-one", "3", "2025-01-03T08:00:00+00:00", "-5"), 3, "review_duration must be a whole number of milliseconds, 0 or more, got '-5'"),
    (("t-one", "3", "2025-01-03T08:00:00+00:00", "1.5"), 3, "review_duration must be"),
    # numbers past what int() reads were "unexpected ValueError", the year 10000 was "before 1970"
    (("t-one", "3", "9" * 5000, "1"), 3, "review_time '" + "9" * 39 + "…' is out of range"),
    (("t-one", "3", "2025-01-03T08:00:00+00:00", "9" * 5000), 3, "review_duration must be a whole number"),
    (("t-one", "3", "9999-12-31T23:59:59-14:00", "1"), 3, "review_time '9999-12-31T23:59:59-14:00' is past the year 9999"),
])
def test_a_malformed_row_is_an_error_naming_its_line_and_nothing_is_written(tiny, tmp_path, row, line, message):
    assert quiz("history", "import", str(write_log(tmp_path / "good.csv", GOOD[:1])), "--decks", str(tiny)).exit_code == 0
    before = dump(Path(quiz_db()))
    bad = write_log(tmp_path / "bad.csv", [GOOD[2], row, GOOD[1]])
    result = quiz("history", "import", str(bad), "--decks", str(tiny))
    assert result.exit_code == 1, result.output
    assert result.stderr.startswith(f"Error: {bad}:{line}: {message}")
    assert "nothing was imported" in result.stderr
    assert dump(Path(quiz_db())) == before


LINES = "card_id,review_rating,review_time,review_duration\nt-one,3,2025-01-03T08:00:00Z,1\n"


@pytest.mark.parametrize("text, line, message", [
    # each was "missing review_rating (the row has fewer values than the header)"
    (LINES + '"t-two,3,2025-01-03T08:00:00Z,1\nt-one,3,2025-01-04T08:00:00Z,1\n', 3,
     'a quoted value is never closed: its opening " has no closing "'),
    (LINES + "t\rtwo,3,2025-01-03T08:00:00Z,1\n", 3,
     "a line break (a lone carriage return) ends the row after 1 of 4 values: a value with a line break in it must be quoted"),
    (LINES + '"t-two"x,3,2025-01-03T08:00:00Z,1\n', 3, 'a closing " is followed by more text'),
    # the csv module's own English: "not valid CSV: field larger than field limit (131072)"
    (LINES + "t-two,3,2025-01-03T08:00:00Z," + "1" * 200_000 + "\n", 3, "a value is longer than 131,072 characters"),
])
def test_a_row_the_csv_reader_cannot_read_says_why_on_its_line(tmp_path, text, line, message):
    bad = tmp_path / "bad.csv"
    bad.write_bytes(text.encode())
    result = quiz("history", "import", str(bad))
    assert result.exit_code == 1 and result.stderr.startswith(f"Error: {bad}:{line}: {message}"), result.stderr
    i18n.use("zh")
    try:
        chinese = quiz("history", "import", str(bad))
    finally:
        i18n.use("en")
    assert chinese.stderr.startswith(f"错误：{bad}:{line}: ") and message not in chinese.stderr
    assert "field" not in chinese.stderr and "CSV：" not in chinese.stderr, chinese.stderr


def test_a_header_in_another_case_and_a_clock_a_little_fast_are_imported(tiny, tmp_path):
    """'Card_ID,Review_Rating,...' lacked all four columns, and a review 30 s after now (a phone
    whose clock runs fast) was 'in the future': the whole file was refused."""
    log = write_log(tmp_path / "log.csv", [("t-one", 3, "2026-01-05T10:00:30Z", 1)],
                    header=["Card_ID", " Review_Rating ", "REVIEW_TIME", "review_Duration"])
    result = quiz("history", "import", str(log), "--decks", str(tiny), env={"QUIZ_NOW": "2026-01-05T10:00"})
    assert result.exit_code == 0 and result.stdout.startswith("imported 1 review of 1 card"), result.output
    later = write_log(tmp_path / "later.csv", [("t-one", 3, "2026-01-05T10:06:00Z", 1)])
    result = quiz("history", "import", str(later), "--decks", str(tiny), env={"QUIZ_NOW": "2026-01-05T10:00"})
    assert result.exit_code == 1 and "review_time 2026-01-05T10:06:00Z is in the future" in result.stderr


def test_an_empty_name_or_a_folder_is_said_to_be_one(tmp_path):
    """'' was '.: not a regular file', a folder 'csv: not a regular file'."""
    empty = quiz("history", "import", "")
    assert empty.exit_code == 2 and "Invalid value for 'FILE': the name is empty" in empty.stderr, empty.stderr
    result = quiz("history", "import", str(tmp_path))
    assert result.exit_code == 1 and result.stderr.startswith(f"Error: {tmp_path}: a folder, not a CSV file"), result.stderr
    i18n.use("zh")
    try:  # a file's name, then Chinese: a full-width colon, as in every such message ("csv: 无法写入")
        folder = quiz("history", "import", str(tmp_path))
        unwritable = quiz("history", "export", str(tmp_path / "no-such-folder" / "log.csv"))
    finally:
        i18n.use("en")
    assert folder.stderr.startswith(f"错误：{tmp_path}：是文件夹，不是 CSV 文件"), folder.stderr
    assert unwritable.exit_code == 1 and f"{tmp_path / 'no-such-folder' / 'log.csv'}：无法写入：" in unwritable.stderr, unwritable.stderr


def test_a_log_that_is_no_file_or_no_utf8_is_named_with_its_line(tmp_path):
    """/dev/zero was read until the memory ran out (5 GB in 10 s); a Latin-1 byte gave "not UTF-8
    text" with no line."""
    zero = quiz("history", "import", "/dev/zero")
    assert zero.exit_code == 1 and zero.stderr.startswith("Error: /dev/zero: not a regular file")
    latin = tmp_path / "latin.csv"
    latin.write_bytes(",".join(HEADER).encode() + b"\ny,3,2025-01-01,1\ncaf\xe9,3,2025-01-01,1\n")
    assert quiz("history", "import", str(latin)).stderr.startswith(f"Error: {latin}:3: not UTF-8 text")


def test_a_log_on_standard_input_is_read_as_from_its_file(tiny, tmp_path):
    """`quiz history import - < log.csv` said "-: cannot be read: no such file"."""
    log = write_log(tmp_path / "log.csv", GOOD)
    piped = quiz("history", "import", "-", "--json", "--decks", str(tiny), input=log.read_text("utf-8"))
    assert piped.exit_code == 0, piped.output
    assert json.loads(piped.stdout)["imported"] == len(GOOD)
    again = json.loads(quiz("history", "import", str(log), "--json", "--decks", str(tiny)).stdout)
    assert again["imported"] == 0 and again["already_there"] == len(GOOD)
    bad = quiz("history", "import", "-", input="card_id\n")
    assert bad.exit_code == 1 and bad.stderr.startswith("Error: <stdin>:1: the header lacks")


def test_a_header_without_the_columns_is_an_error_on_line_1(tmp_path):
    bad = write_log(tmp_path / "bad.csv", [GOOD[0]], header=["card_id", "rating", "review_time", "review_duration"])
    result = quiz("history", "import", str(bad))
    assert result.exit_code == 1 and result.stderr.startswith(f"Error: {bad}:1: the header lacks review_rating")
    missing = quiz("history", "import", str(tmp_path / "nowhere.csv"))
    assert missing.exit_code == 1 and f"Error: {tmp_path / 'nowhere.csv'}: cannot be read" in missing.stderr


def test_reviews_of_a_deck_card_attach_to_it_and_unknown_ids_are_archived(tiny, tmp_path):
    log = write_log(tmp_path / "log.csv", GOOD)
    result = quiz("history", "import", str(log), "--decks", str(tiny))
    assert result.exit_code == 0, result.output
    summary, archived, saved = result.stdout.splitlines()
    assert summary == "imported 4 reviews of 2 cards (1 new archived card); 0 already there"
    assert archived.startswith("Archived cards have ids no deck has")  # what an archived card is, said once
    assert re.fullmatch(r"The database before the import is saved as \S+\.db \(`quiz backup restore` brings it back\)\.",
                        saved), saved
    store = open_store(quiz_db())
    try:
        one, old = card(store, "t-one"), card(store, "old-1")
        assert (one.deck, one.kind, one.active) == ("tiny", "qa", True)
        assert [(r.rating, r.reviewed_at.day, r.duration_ms) for r in reviews(store, "t-one")] == [(3, 2, 4000), (3, 5, 3000)]
        assert (old.deck, old.kind, old.active, old.first_seen.day) == ("archived", "imported", False, 1)
        assert [(r.rating, r.duration_ms) for r in reviews(store, "old-1")] == [(1, 9000), (3, None)]
        assert card(store, "t-two").memory.state == 0  # untouched
    finally:
        store.close()
    # part of it again, with one new row: only that one is added
    more = write_log(tmp_path / "more.csv", GOOD[:2] + [("t-two", 4, "2025-01-06T08:00:00Z", 1200)])
    again = quiz("history", "import", str(more), "--decks", str(tiny))
    assert again.stdout.splitlines()[0] == "imported 1 review of 1 card (0 new archived cards); 2 already there"
    # export: every review, one deck, or from a study day on; unknown deck is a usage error
    out = tmp_path / "out.csv"
    assert quiz("history", "export", str(out), "--decks", str(tiny)).stdout.strip() == f"exported 5 reviews of 3 cards to {out}"
    assert rows_of(out) == {tuple(HEADER), ("t-one", "3", "2025-01-02T08:00:00+00:00", "4000"),
                            ("old-1", "1", "2025-01-01T08:00:00+00:00", "9000"),
                            ("t-one", "3", "2025-01-05T08:00:00+00:00", "3000"),
                            ("old-1", "3", "2025-01-01T08:10:00+00:00", "0"),
                            ("t-two", "4", "2025-01-06T08:00:00+00:00", "1200")}
    piped = quiz("history", "export", "-", "--deck", "archived", "--decks", str(tiny))
    assert piped.exit_code == 0 and piped.stderr.strip() == "exported 2 reviews of 1 card to standard output"
    i18n.use("zh")
    try:
        chinese = quiz("history", "export", "-", "--deck", "archived", "--decks", str(tiny))
    finally:
        i18n.use("en")
    assert chinese.stderr.strip() == "已将 1 张卡片的 2 条复习记录导出到标准输出"  # no space: not a path
    assert {tuple(row) for row in csv.reader(piped.stdout.splitlines())} == {
        (*HEADER, "review_state", "review_mode"), ("old-1", "1", "2025-01-01T08:00:00+00:00", "9000", "0", "study"),
        ("old-1", "3", "2025-01-01T08:10:00+00:00", "0", "1", "study")}  # Again on a new card: learning
    deck_only = quiz("history", "export", str(out), "--deck", "tiny", "--since", "2025-01-03", "--json", "--decks", str(tiny))
    assert json.loads(deck_only.stdout) == dict(file=str(out), exported=2, cards=2)
    assert {row[0] for row in rows_of(out)} == {"card_id", "t-one", "t-two"}
    archived = quiz("history", "export", str(out), "--deck", "archived", "--decks", str(tiny))
    assert archived.exit_code == 0 and {row[0] for row in rows_of(out)} == {"card_id", "old-1"}
    unknown = quiz("history", "export", str(out), "--deck", "nope", "--decks", str(tiny))
    assert unknown.exit_code == 2 and "Error: no deck 'nope' (known: archived, tiny)" in unknown.stderr
    for edge, rows in (("0001-01-01", 5), ("9999-12-31", 0)):  # the first was "year 0 is out of range"
        exported = quiz("history", "export", "-", "--since", edge, "--decks", str(tiny))
        assert exported.exit_code == 0 and len(exported.stdout.splitlines()) == 1 + rows, exported.output
    bad_date = quiz("history", "export", str(out), "--since", "2025-02-30", "--decks", str(tiny))
    assert bad_date.exit_code == 2 and "--since '2025-02-30' is not a date" in bad_date.stderr


def test_archived_cards_survive_deck_sync_and_study_never_shows_them(tiny, deck_folder, tmp_path):
    # long-ago reviews: were these cards active, they would be due now
    log = write_log(tmp_path / "log.csv", [(f"gone-{i}", 4, f"2024-0{i + 1}-01T08:00:00+00:00", 5000) for i in range(4)])
    assert quiz("history", "import", str(log), "--decks", str(tiny)).exit_code == 0
    env = {"QUIZ_NOW": "2025-03-03T09:00:00+00:00"}
    studied = quiz("study", "--decks", str(tiny), env=env, input="\n3\n\n3\n\n3\nq\n")
    assert studied.exit_code == 0 and "saved t-one" in studied.stdout and "saved t-two" in studied.stdout
    ahead = quiz("study", "--ahead", "--decks", str(tiny), env={"QUIZ_NOW": "2025-03-03T12:00:00+00:00"},
                 input="\n3\n\n3\n\n3\nq\n")
    assert ahead.exit_code == 0
    for output in (studied.stdout, ahead.stdout):
        assert "gone-" not in output
    # the decks change (a card goes, one comes): a real sync runs, the archive stays as it was
    folder = deck_folder(DECK.replace("t-two", "t-three"))
    assert quiz("study", "--decks", str(folder), env=env, input="q\n").exit_code == 0
    store = open_store(quiz_db())
    try:
        assert card(store, "t-two").active is False
        for i in range(4):
            kept = card(store, f"gone-{i}")
            assert (kept.deck, kept.kind, kept.active, kept.memory.state) == ("archived", "imported", False, REVIEW)
            assert len(reviews(store, f"gone-{i}")) == 1
    finally:
        store.close()


def test_interleaved_import_replays_the_whole_history_from_scratch(tmp_path):
    """A card with live reviews (one a practice review ahead of schedule) gains older and
    in-between imported ones: its memory is fsrs over all of them in time order but the practice
    review, which stays practice (the practice rule is the same on replay), and every log row
    says what the replay did."""
    store = open_store(tmp_path / "mix.db")
    try:
        sync_cards(store, [CardRef("c", "d", "qa", 0, "h")], T0)
        live = [(3, T0), (3, T0 + timedelta(days=1)), (3, T0 + timedelta(days=2))]  # the last is ahead: practice
        results = [answer(store, "c", rating, now=at, duration_ms=1000, scheduler=NO_FUZZ) for rating, at in live]
        assert [r.scheduled for r in results] == [True, True, False]
        old = [(1, T0 - timedelta(days=30)), (3, T0 - timedelta(days=29)), (2, T0 + timedelta(hours=12))]
        log = write_log(tmp_path / "old.csv", [("c", rating, at.isoformat(), 2000) for rating, at in old])
        result = import_history(store, read_review_log(log), scheduler=NO_FUZZ)
        assert (result.imported, result.cards, result.new_cards, result.already_there) == (3, 1, 0, 0)
        expected, lapses = fsrs_replay(live[:2] + old)
        got = card(store, "c").memory
        assert (got.state, got.step, got.last_review, got.stability, got.difficulty, got.lapses) == (
            int(expected.state), expected.step, expected.last_review, expected.stability,
            expected.difficulty, lapses)
        assert got.due in placed_as_anki(expected)
        logged = sorted(reviews(store, "c"), key=lambda r: r.reviewed_at)
        assert [r.scheduled for r in logged] == [True] * 5 + [False]
        assert [r.state_before for r in logged][:2] == [0, int(fsrs.State.Learning)]
        assert import_history(store, read_review_log(log), scheduler=NO_FUZZ).already_there == 3
    finally:
        store.close()


class FailingScheduler(fsrs.Scheduler):
    """Fails on its n-th review, as a crash half-way through an import would."""

    def __init__(self, fail_at: int) -> None:
        super().__init__(enable_fuzzing=False)
        self.left = fail_at

    def review_card(self, *args, **kwargs):
        self.left -= 1
        if self.left == 0:
            raise RuntimeError("boom")
        return super().review_card(*args, **kwargs)


def test_an_import_that_fails_half_way_leaves_nothing_behind(tmp_path):
    db = tmp_path / "atomic.db"
    store = open_store(db)
    try:
        sync_cards(store, [CardRef("c", "d", "qa", 0, "h")], T0)
        answer(store, "c", 3, now=T0, duration_ms=1000, scheduler=NO_FUZZ)
        log = write_log(tmp_path / "log.csv", [("c", 3, (T0 - timedelta(days=1)).isoformat(), 1)] +
                        [(f"x{i}", 3, (T0 - timedelta(days=i)).isoformat(), 1) for i in range(2, 80)])
        before = dump(db)
        with pytest.raises(RuntimeError, match="boom"):
            import_history(store, read_review_log(log), scheduler=FailingScheduler(fail_at=40))
        assert dump(db) == before
    finally:
        store.close()


def test_a_bad_history_file_is_explained_in_chinese(tiny, tmp_path):
    """The file's problems, like the rest of the interface, in the learner's language; the file,
    line and the column names stay as written."""
    bad = write_log(tmp_path / "bad.csv", [GOOD[0], ("t-one", "5", "2025-01-03T08:00:00+00:00", "1")])
    i18n.use("zh")
    try:
        rating = quiz("history", "import", str(bad), "--decks", str(tiny))
        missing = quiz("history", "import", str(tmp_path / "nowhere.csv"), "--decks", str(tiny))
    finally:
        i18n.use("en")
    assert rating.exit_code == 1 and rating.stderr.startswith(
        f"错误：{bad}:3: review_rating 应为 1（重来）、2（困难）、3（良好）或 4（简单），而不是 '5'")
    # the system's reason was English ("No such file or directory") in the Chinese interface
    assert missing.exit_code == 1 and missing.stderr.startswith(f"错误：{tmp_path / 'nowhere.csv'}：无法读取：没有这个文件或文件夹")


def test_a_history_made_with_the_clock_pinned_round_trips_whole(tiny, tmp_path):
    """With QUIZ_NOW, time stands still: a card's learning steps share one time and rating, and
    an import into a fresh database kept one of them (81 of 107 reviews, "26 already there")."""
    pinned = {"QUIZ_NOW": "2025-01-06T09:00:00+00:00"}
    studied = quiz("study", "--decks", str(tiny), env=pinned, input="\n1\n\n1\n\n1\n\n1\nq\n")
    assert studied.exit_code == 0 and studied.stdout.count("saved t-") == 4, studied.stdout
    out = tmp_path / "pinned.csv"
    assert quiz("history", "export", str(out), "--decks", str(tiny)).exit_code == 0
    with open(out, newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))[1:]
    assert len(rows) == 4 and len({tuple(row[:3]) for row in rows}) < 4  # card, time and rating more than once
    fresh = {"QUIZ_DB": str(tmp_path / "fresh.db")}
    first = quiz("history", "import", str(out), "--decks", str(tiny), env=fresh)
    assert first.stdout.splitlines()[0].startswith("imported 4 reviews of "), first.stdout
    again = quiz("history", "import", str(out), "--decks", str(tiny), env=fresh)
    assert again.stdout.splitlines()[0].endswith("; 4 already there"), again.stdout


@pytest.mark.parametrize("at_line", [1, 2, 4])
def test_a_row_csv_cannot_read_is_named_by_its_own_line(tmp_path, at_line):
    """A 200,000-character field on line 2 was reported at line 1."""
    rows = [",".join(HEADER)] + [f"t-one,3,2025-01-0{day}T08:00:00+00:00,1000" for day in (2, 3, 4)]
    bad = '"' + "x" * 200_000 + '",3,2025-01-05T08:00:00+00:00,1'
    rows.insert(at_line - 1, bad)
    path = tmp_path / "big.csv"
    path.write_text("\n".join(rows) + "\n", "utf-8")
    result = quiz("history", "import", str(path))
    assert result.exit_code == 1 and f"big.csv:{at_line}: a value is longer than 131,072 characters" in result.stderr


def test_a_bad_row_spanning_lines_is_named_by_its_first_line(tmp_path):
    """A quoted card_id over two lines was reported at its last line; a blank line before a row
    counts as a line."""
    rows = [",".join(HEADER), "t-one,3,2025-01-02T08:00:00+00:00,1000", "", '"t-\ntwo",9,2025-01-03T08:00:00+00:00,1']
    path = tmp_path / "multi.csv"
    path.write_text("\n".join(rows) + "\n", "utf-8")
    result = quiz("history", "import", str(path))
    assert result.exit_code == 1 and "multi.csv:4: card_id 't-\\ntwo' has control characters" in result.stderr, result.stderr


def test_a_history_moved_to_a_database_with_the_same_plan_keeps_the_plan_s_due_dates(tmp_path):
    """Under an interview plan, export then import into a fresh database with the same plan gave 107
    of 187 cards other due dates, some after the interview: the replay ignored the plan's cap."""
    env = {"QUIZ_CONFIG": str(tmp_path / "c.toml")}
    assert runner.invoke(app, ["config", "set", "load_balance", "off"], env=env).exit_code == 0  # days as replayed

    def on(db: str, *args: str, day: int = 5, **options) -> str:
        result = runner.invoke(app, [*args, "--db", str(tmp_path / db)], env={**env, "QUIZ_NOW": f"2026-01-{day:02d}T10:00"},
                               **options)
        assert result.exit_code == 0, result.output
        return result.stdout

    for db in ("a.db", "b.db"):
        on(db, "plan", "--date", "2026-01-12", "--deck", "ch08-bert")
    for day in range(5, 9):
        on("a.db", "study", "--deck", "ch08-bert", "--kind", "qa", day=day, input="\n3\n" * 60)
    on("a.db", "history", "export", str(tmp_path / "h.csv"), day=8)
    on("b.db", "history", "import", str(tmp_path / "h.csv"), day=8)

    def dues(db: str) -> dict[str, str]:
        return {row["id"]: row["due"] for row in json.loads(on(db, "cards", "--limit", "0", "--json", day=8))
                if row["due"] is not None}

    original = dues("a.db")
    assert original and max(original.values()) < "2026-01-12"  # the plan's cap held them before the day
    assert dues("b.db") == original


def test_stats_takes_the_archived_deck_as_history_export_does(tiny, tmp_path):
    """`quiz stats --deck archived` was "no deck 'archived'" while `quiz history export --deck
    archived` took it: the statistics count the archived cards' reviews, and could not show them alone."""
    log = write_log(tmp_path / "log.csv", GOOD)
    assert quiz("history", "import", str(log), "--decks", str(tiny)).exit_code == 0
    figures = quiz("stats", "--deck", "archived", "--json", "--decks", str(tiny))
    assert figures.exit_code == 0, figures.output
    shown = json.loads(figures.stdout)
    assert (shown["decks"], shown["reviews_total"], shown["cards"]) == (["archived"], 2, [])  # old-1's two reviews
    unknown = quiz("stats", "--deck", "nope", "--decks", str(tiny))
    assert unknown.exit_code == 2 and "no deck 'nope' (known: archived, tiny)" in unknown.stderr, unknown.stderr


def test_a_named_pipe_is_refused_unopened_and_standard_input_still_read(tmp_path):
    """A FIFO with no writer hung `quiz history import` for ever (decks refuse one at once)."""
    import signal

    fifo = tmp_path / "p.csv"
    os.mkfifo(fifo)

    def hung(*_args: object) -> None:
        raise TimeoutError("quiz history import waited on the named pipe")

    previous = signal.signal(signal.SIGALRM, hung)
    signal.alarm(20)
    try:
        result = quiz("history", "import", str(fifo))
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    assert result.exit_code == 1, result.output
    assert result.stderr.startswith(f"Error: {fifo}: not a regular file (a named pipe)"), result.stderr
    assert "quiz history import -" in result.stderr
    piped = quiz("history", "import", "-", input="card_id,review_rating,review_time,review_duration\n")
    assert piped.exit_code == 0, piped.output


def test_a_practised_card_keeps_its_due_and_memory_through_export_and_import(tiny, tmp_path, monkeypatch):
    """The practice rule is the same live and on replay: t-one practised (Good) keeps its due and
    memory; t-two practised and forgotten (Again) relearns, in the live database and in a fresh one
    that imported the live one's export."""
    monkeypatch.setenv("QUIZ_LOAD_BALANCE", "off")  # the balancer reads the whole collection's load then
    first = quiz("study", "--decks", str(tiny), env={"QUIZ_NOW": "2026-01-01T09:00:00+00:00"}, input="\n4\n\n4\nq\n")
    assert first.exit_code == 0 and first.stdout.count("→ Easy") == 2, first.output
    store = open_store(quiz_db())
    try:
        graduated = card(store, "t-one").memory
    finally:
        store.close()
    ahead = quiz("study", "--ahead", "--decks", str(tiny), env={"QUIZ_NOW": "2026-01-02T09:00:00+00:00"},
                 input="\n3\n\n1\nq\n")
    assert ahead.exit_code == 0 and "practice: still due in" in ahead.stdout, ahead.output
    out = tmp_path / "history.csv"
    assert quiz("history", "export", str(out), "--decks", str(tiny)).exit_code == 0
    assert sum(row[-1] == "practice" for row in csv.reader(open(out, encoding="utf-8"))) == 1
    fresh = tmp_path / "fresh.db"
    imported = quiz("history", "import", str(out), "--db", str(fresh), "--decks", str(tiny),
                    env={"QUIZ_NOW": "2026-01-02T10:00:00+00:00"})
    assert imported.exit_code == 0, imported.output
    memories = []
    for db in (quiz_db(), str(fresh)):
        store = open_store(db)
        try:
            memories.append({card_id: card(store, card_id).memory for card_id in ("t-one", "t-two")})
        finally:
            store.close()
    live, replayed = memories
    assert live["t-one"] == graduated  # the practice review left it as it was
    assert (live["t-two"].state, live["t-two"].lapses) == (RELEARNING, 1)  # the practice Again relearns
    assert replayed == live
