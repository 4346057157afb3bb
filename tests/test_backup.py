"""Backups: cadence, thinning rule, restore round trip, integrity checks."""

from __future__ import annotations

import shutil
import sqlite3
import threading
from datetime import date, datetime, timedelta, timezone

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from quizzer.base import clock
from quizzer.store.backup import backup_now, check, list_backups, maybe_backup, restore, thin
from quizzer.base.errors import BackupError, DatabaseBusy, UntrustedBackup
from quizzer.scheduling.answer import answer
from quizzer.scheduling.summary import card_info
from quizzer.store import CardRef, open_store, sync_cards

NOW = datetime(2025, 6, 30, 12, 0, tzinfo=timezone.utc)  # a Monday


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "quiz.db"
    store = open_store(path)
    sync_cards(store, [CardRef(f"c{i}", "deck", "qa", i, "h" * 40) for i in range(300)], NOW)
    store.close()
    return path


def test_missing_database_is_not_backed_up(tmp_path):
    assert maybe_backup(tmp_path / "none.db", NOW) is None
    assert not (tmp_path / "none.db").exists()


def test_at_most_one_backup_per_half_hour(db):
    first = maybe_backup(db, NOW)
    assert first is not None and first.parent == db.parent / "backups"
    assert maybe_backup(db, NOW + timedelta(minutes=29)) is None
    assert maybe_backup(db, NOW + timedelta(minutes=30)) is not None
    assert [b.taken_at for b in list_backups(db)] == [NOW + timedelta(minutes=30), NOW]


def test_files_only_named_like_backups_are_left_alone(db):
    """A stray file whose name has no real time in it, or a folder named like a backup, is not
    one: listing them crashed every command that backs up."""
    real = backup_now(db, NOW)
    (real.parent / "quiz-99999999T999999999999Z.db").write_bytes(b"")
    (real.parent / "quiz-20250101T000000000000Z.db").mkdir()
    assert [b.path for b in list_backups(db)] == [real]
    assert maybe_backup(db, NOW + timedelta(hours=1)) is not None


def test_thinning_keeps_today_then_daily_weekly_monthly(db):
    taken = [NOW.replace(hour=h) for h in (5, 8, 11)]
    for age in range(1, 8):
        day = NOW - timedelta(days=age)
        taken += [day.replace(hour=6), day.replace(hour=20)]
    taken += [NOW - timedelta(days=age) for age in range(8, 121)]
    for when in taken:
        backup_now(db, when)
    thin(db, NOW)
    kept = sorted(b.taken_at for b in list_backups(db))
    today = [t for t in kept if t.date() == NOW.date()]
    daily = [t for t in kept if 1 <= (NOW.date() - t.date()).days <= 7]
    older = [t.date() for t in kept if (NOW.date() - t.date()).days > 7]
    assert len(today) == 3
    assert len(daily) == 7 and all(t.hour == 20 for t in daily)
    assert older == [date(2025, 3, 31), date(2025, 4, 30), date(2025, 5, 30),  # newest of each month
                     date(2025, 6, 1), date(2025, 6, 8), date(2025, 6, 15), date(2025, 6, 22)]  # of each week


def test_restore_round_trip_backs_up_the_current_database_first(db):
    snapshot = backup_now(db, NOW)
    store = open_store(db)
    answer(store, "c1", 3, now=NOW, duration_ms=100)
    store.close()
    safety = restore(snapshot, db, NOW + timedelta(hours=1))
    store = open_store(db)
    assert card_info(store, "c1", NOW).reviews == []
    store.close()
    with sqlite3.connect(safety) as conn:
        assert conn.execute("SELECT count(*) FROM review_log").fetchone() == (1,)
    assert check(db) == []


def test_a_restore_waits_for_another_writer_only_as_long_as_the_busy_timeout(db, monkeypatch):
    """sqlite3's backup retries a busy step for ever: `quiz backup restore` hung while another
    process (a study session) held the database's write lock, whatever QUIZ_BUSY_TIMEOUT_MS said."""
    snapshot = backup_now(db, NOW)
    monkeypatch.setenv("QUIZ_BUSY_TIMEOUT_MS", "200")
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    outcome: list[BaseException] = []

    def restoring() -> None:
        try:
            restore(snapshot, db, NOW + timedelta(hours=1))
        except BaseException as err:  # noqa: BLE001 - handed to the test's thread
            outcome.append(err)

    worker = threading.Thread(target=restoring, daemon=True)
    worker.start()
    worker.join(timeout=120)  # a hang detector, not a timing: the timeout is 0.2 s
    holder.rollback()
    holder.close()
    assert not worker.is_alive(), "the restore still waits for the lock"
    [error] = outcome
    assert isinstance(error, DatabaseBusy) and "is locked" in error.message and "0.2 s" in error.message
    assert check(db) == []


def test_the_database_is_not_restored_over_itself(db):
    """`quiz backup restore "$QUIZ_DB"` said "restored", after a needless safety backup."""
    before = db.read_bytes()
    with pytest.raises(BackupError, match="it is the database itself"):
        restore(db, db, NOW)
    assert db.read_bytes() == before and list_backups(db) == []


def test_check_reports_ok_and_damage(db, tmp_path):
    assert check(db) == []
    assert check(tmp_path / "missing.db") == [f"{tmp_path / 'missing.db'}: no such file"]
    assert check(tmp_path) == [f"{tmp_path}: not a regular file"]  # it said "no such file"

    not_a_db = tmp_path / "garbage.db"
    not_a_db.write_bytes(b"this is not sqlite" * 500)
    assert check(not_a_db) == [f"{not_a_db} is not a SQLite database"]  # SQLite's "file is not a database"
    from quizzer.base import i18n

    i18n.use("zh")
    try:  # in the interface language, as every other reason a restore gives
        assert check(not_a_db) == [f"{not_a_db} 不是 SQLite 数据库"]
        with pytest.raises(BackupError) as refused:
            restore(not_a_db, db, NOW)
        assert "不是 SQLite 数据库" in refused.value.message and "（`quiz backup list` 列出其他备份" in f"（{refused.value.shown_hint}"
    finally:
        i18n.use("en")

    damaged = tmp_path / "damaged.db"
    backup_now(db, NOW).replace(damaged)
    data = bytearray(damaged.read_bytes())
    page = int.from_bytes(data[16:18], "big")
    data[3 * page + 8: 3 * page + 600] = b"\xff" * 592  # scribble over a b-tree page
    damaged.write_bytes(bytes(data))
    assert check(damaged) != []
    with pytest.raises(BackupError):
        restore(damaged, db, NOW)

    orphan = tmp_path / "orphan.db"
    shutil.copy(backup_now(db, NOW), orphan)
    with sqlite3.connect(orphan) as conn:  # foreign keys are off by default in raw sqlite3
        conn.execute("INSERT INTO review_log (card_id, reviewed_at, rating, mode, state_before, scheduled) "
                     "VALUES ('ghost', '2025-01-01 00:00:00.000000', 3, 'study', 0, 1)")
    problems = check(orphan)
    assert len(problems) == 1 and "review_log" in problems[0]


def test_the_automatic_backup_thins_by_the_learners_day_start(tmp_path, deck_folder):
    """06:00 and 20:00 backups of one day share a study day when days start at 04:00 (only the
    later one is kept), but not when they start at noon (both are). Backups go by the real clock."""
    from typer.testing import CliRunner

    from quizzer.cli import app

    decks = deck_folder("id: d\ntitle: D\nlanguage: en\nsource: {file: f, sections: s}\ncards:\n"
                        "  - {id: q1, kind: qa, source: '1', question: Q, answer: A, points: [p]}\n")
    kept = {}
    for hour in (4, 12):
        db = tmp_path / f"start{hour}" / "quiz.db"
        db.parent.mkdir()
        open_store(db).close()
        earlier = clock.wall() - timedelta(days=2)  # a whole study day before today's, at any hour
        for when in (earlier.replace(hour=6), earlier.replace(hour=20)):
            backup_now(db, when)
        result = CliRunner().invoke(app, ["--decks", str(decks), "--db", str(db)],
                                    env={"QUIZ_DAY_START_HOUR": str(hour)})
        assert result.exit_code == 0, result.output
        kept[hour] = sorted(b.taken_at.hour for b in list_backups(db) if b.taken_at.date() == earlier.date())
    assert kept == {4: [20], 12: [6, 20]}


def test_an_automatic_backup_that_fails_is_a_warning_not_a_stop(db, deck_folder):
    """A backups folder that could not be written stopped every command, even `quiz history
    export`, with which the learner would save the history elsewhere."""
    from typer.testing import CliRunner

    from quizzer.cli import app

    decks = deck_folder("id: d\ntitle: D\nlanguage: en\nsource: {file: f, sections: s}\ncards:\n"
                        "  - {id: q1, kind: qa, source: '1', question: Q, answer: A, points: [p]}\n")
    (db.parent / "backups").write_text("not a folder")  # where the backups go: it cannot be made
    for command in (["stats", "--json"], ["history", "export", "-"]):
        result = CliRunner().invoke(app, [*command, "--decks", str(decks), "--db", str(db)])
        assert result.exit_code == 0, result.output
        assert result.stderr.startswith(f"Warning: backup of {db} into {db.parent / 'backups'} failed"), result.stderr
        assert "the work goes on without it" in result.stderr
    assert (db.parent / "backups").read_text() == "not a folder"


def failed_in_chinese(db) -> BackupError:
    """The error ``backup_now`` raises, said with the interface in Chinese."""
    from quizzer.base import i18n

    i18n.use("zh")
    try:
        with pytest.raises(BackupError) as failed:
            backup_now(db, NOW)
    finally:
        i18n.use("en")
    return failed.value


def test_a_backup_errors_hints_are_joined_in_the_interface_language(db, monkeypatch):
    """"请让该文件夹可写后重试; 数据库本身没有改动": an ASCII semicolon in a Chinese hint."""
    from quizzer.store import backup

    monkeypatch.setattr(backup.os, "access", lambda *_: False)  # a folder this user cannot write (root can)
    hint = failed_in_chinese(db).hint
    assert "；" in hint and ";" not in hint, hint


def test_sqlite_refusing_to_write_a_backup_is_said_in_the_interface_language(db, monkeypatch):
    """'没有写入权限：attempt to write a readonly database': SQLite's English stood in the Chinese line."""
    from quizzer.store import backup

    def refused(source, dest):
        raise sqlite3.OperationalError("attempt to write a readonly database")

    monkeypatch.setattr(backup, "_copy", refused)
    message = failed_in_chinese(db).message
    assert "没有写入权限" in message and "readonly" not in message, message


def test_backup_create_makes_one_now_through_the_cli(db):
    """An Anki user looks for a backup to take by hand before something risky."""
    from typer.testing import CliRunner

    from quizzer.cli import app

    result = CliRunner().invoke(app, ["backup", "create", "--db", str(db)], env={"QUIZ_NOW": NOW.isoformat()})
    assert result.exit_code == 0 and result.stdout.startswith("backed up to "), result.output
    [made] = list_backups(db)
    assert str(made.path) in result.stdout and check(made.path) == []


def test_a_pinned_clock_neither_names_nor_thins_backups(db, deck_folder):
    """`QUIZ_NOW=2027-03-01 quiz plan` thinned five real backups away as months old, and its own,
    named 2027, was "latest" from then on: `backup restore latest` picked it, and no automatic
    backup was due again until 2027."""
    from typer.testing import CliRunner

    from quizzer.cli import app

    real = datetime.now(timezone.utc)
    # the learner's real backups, one per study day of the last days (26 h apart: whatever the
    # hour, the real clock's own thinning keeps each as its day's newest)
    for hours in (1, 27, 53, 79, 105):
        backup_now(db, real - timedelta(hours=hours))
    before = {b.path.name for b in list_backups(db)}
    decks = deck_folder("id: d\ntitle: D\nlanguage: en\nsource: {file: f, sections: s}\ncards:\n"
                        "  - {id: q1, kind: qa, source: '1', question: Q, answer: A, points: [p]}\n")
    ahead = (real + timedelta(days=365)).isoformat()
    result = CliRunner().invoke(app, ["--decks", str(decks), "--db", str(db)], env={"QUIZ_NOW": ahead})
    assert result.exit_code == 0, result.output
    after = list_backups(db)
    assert before <= {b.path.name for b in after}  # none thinned away
    assert all(b.taken_at <= datetime.now(timezone.utc) for b in after)  # none from the pinned future


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ages=st.lists(st.integers(0, 400 * 24 * 60), min_size=1, max_size=40, unique=True),
       hour=st.integers(0, 23))
@example(ages=list(range(0, 60 * 24 * 60, 5 * 60)), hour=4)  # every five hours for sixty days
def test_thinning_keeps_what_it_promises_for_any_backups(tmp_path_factory, ages, hour):
    """Properties of the rule, over any set of backups (ages in minutes before now, any day
    start): today's and the newest of every study day of the last week are kept; at most one a
    day in the week, one a week in the month before and one a month after that remain; a second
    thinning removes nothing; only backups are removed."""
    folder = tmp_path_factory.mktemp("thin")
    database = folder / "quiz.db"
    (folder / "backups").mkdir()
    now = datetime(2026, 6, 15, 12, 0, tzinfo=timezone.utc)
    for age in ages:
        taken = now - timedelta(minutes=age)
        (folder / "backups" / f"quiz-{taken:%Y%m%dT%H%M%S%f}Z.db").write_bytes(b"")
    before = {b.path: b.taken_at for b in list_backups(database)}
    removed = thin(database, now, hour)
    kept = {b.path: b.taken_at for b in list_backups(database)}
    assert set(removed) | set(kept) == set(before) and not set(removed) & set(kept)
    today = clock.study_day(now, hour)

    def age_of(taken: datetime) -> int:
        return (today - clock.study_day(taken, hour)).days

    assert all(path in kept for path, taken in before.items() if age_of(taken) <= 0)
    newest_per_day: dict[date, datetime] = {}
    for taken in before.values():
        day = clock.study_day(taken, hour)
        if 1 <= age_of(taken) <= 7:
            newest_per_day[day] = max(newest_per_day.get(day, taken), taken)
    assert set(newest_per_day.values()) <= set(kept.values())
    kept_ages = [age_of(taken) for taken in kept.values()]
    assert sum(1 for a in kept_ages if 1 <= a <= 7) <= 7
    month_before = [clock.study_day(t, hour).isocalendar()[:2] for t in kept.values() if 8 <= age_of(t) <= 30]
    assert len(month_before) == len(set(month_before)) <= 5  # 23 days touch at most five ISO weeks
    older = [clock.study_day(t, hour) for t in kept.values() if age_of(t) > 30]
    assert len(older) == len({(d.year, d.month) for d in older})
    assert thin(database, now, hour) == []


def test_a_backup_at_an_older_schema_whose_tables_match_it_is_restored(db, tmp_path):
    """The check compares a stamp with that revision's tables, not with the newest ones."""
    from alembic import command
    from alembic.config import Config
    from sqlalchemy import create_engine

    from quizzer.store.schema import MIGRATIONS_DIR

    old = tmp_path / "old.db"
    engine = create_engine(f"sqlite:///{old}")
    with engine.begin() as conn:
        config = Config()
        config.set_main_option("script_location", str(MIGRATIONS_DIR))
        config.attributes["connection"] = conn
        command.upgrade(config, "0002")
    engine.dispose()
    assert restore(old, db, NOW + timedelta(hours=1)) is not None
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT version_num FROM alembic_version").fetchall() == [("0002",)]


def test_a_restore_says_how_many_reviews_it_puts_in_place_of_how_many(db):
    """A backup of an empty collection restored over a year of reviews replaced them without a
    word (the safety copy undoes it, if the learner sees that something went)."""
    from typer.testing import CliRunner

    from quizzer.cli import app

    empty = backup_now(db, NOW)
    store = open_store(db)
    for card_id in ("c1", "c2"):
        answer(store, card_id, 3, now=NOW, duration_ms=100)
    store.close()
    result = CliRunner().invoke(app, ["backup", "restore", empty.name, "--yes", "--db", str(db)])
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith(f"restored {empty}: it holds 0 reviews, where the database held 2 reviews; "
                                    "the database before it is saved as "), result.stdout


def reviewed_after(db, snapshot_at=NOW):
    """A backup, then a review made after it: what a restore of that backup replaces."""
    snapshot = backup_now(db, snapshot_at)
    store = open_store(db)
    answer(store, "c1", 3, now=NOW, duration_ms=100)
    store.close()
    return snapshot


def test_a_restore_from_a_script_needs_yes(db):
    """`quiz backup restore` replaced the database at once, a pipe or not: a review made since the
    backup was gone from it (to the safety copy) with no question asked."""
    from typer.testing import CliRunner

    from quizzer.cli import app

    reviewed_after(db)
    before = db.read_bytes()
    result = CliRunner().invoke(app, ["backup", "restore", "--db", str(db)])
    assert result.exit_code == 2 and result.stdout == "", result.output
    assert result.stderr.count("\n") == 1 and "--yes" in result.stderr, result.stderr
    assert db.read_bytes() == before and len(list_backups(db)) == 1  # not even a safety copy
    result = CliRunner().invoke(app, ["backup", "restore", "-y", "--db", str(db)])
    assert result.exit_code == 0 and result.stdout.startswith("restored "), result.output


@pytest.mark.slow
@pytest.mark.parametrize("key, restored", [("\r", False), ("n\r", False), ("y\r", True)])
def test_a_restore_on_a_terminal_says_what_it_replaces_and_asks(db, key, restored):
    """On a terminal the question names the backup, its time and both review counts; no is the default."""
    from conftest import Terminal

    snapshot = reviewed_after(db)
    before = db.read_bytes()
    with Terminal(["backup", "restore", "--db", str(db)], {"QUIZ_LANG": "en"}, columns=200) as screen:
        screen.expect(f"Restore {snapshot.name} (taken {clock.when(NOW)} · 0 reviews) over the database {db} "
                      "(1 review)? It is backed up first. [y/N]")
        screen.send(key)
        assert screen.wait() == 0, screen.text
    if restored:
        assert "restored " in screen.text and len(list_backups(db)) == 2
        with sqlite3.connect(db) as conn:
            assert conn.execute("SELECT count(*) FROM review_log").fetchone() == (0,)
    else:
        assert "Not restored: the database is unchanged." in screen.text
        assert db.read_bytes() == before and len(list_backups(db)) == 1


def test_latest_is_never_the_copy_a_restore_took(db):
    """Right after a restore, `latest` was the copy of the database it replaced: a second
    `quiz backup restore latest` undid the first. That copy is listed as what it is, and restored by name."""
    from typer.testing import CliRunner

    from quizzer.cli import app

    def reviews() -> int:
        with sqlite3.connect(db) as conn:
            return int(conn.execute("SELECT count(*) FROM review_log").fetchone()[0])

    reviewed_after(db)
    for _ in range(2):
        result = CliRunner().invoke(app, ["backup", "restore", "latest", "--yes", "--db", str(db)])
        assert result.exit_code == 0 and reviews() == 0, result.output
    listed = CliRunner().invoke(app, ["backup", "list", "--db", str(db)]).stdout.splitlines()
    marked = [line for line in listed if "(undoes a restore)" in line]
    assert len(listed) == 4 and len(marked) == 2, listed
    undo = marked[-1].split()[4]  # the first restore's copy (date, time, size, MB, name): the review is there
    assert undo.endswith("-before-restore.db")
    assert CliRunner().invoke(app, ["backup", "restore", undo, "--yes", "--db", str(db)]).exit_code == 0
    assert reviews() == 1


@pytest.mark.parametrize("plant, named", [
    # 0002-0004 add 6 tables and 3 indexes
    ("UPDATE alembic_version SET version_num = '0001'", "do not match the schema it names (0001): extra table exam_questions; and 8 more"),
    ("DROP TABLE review_days", "missing table review_days"),
    ("ALTER TABLE cards ADD COLUMN colour TEXT", "extra column cards.colour"),
    ("CREATE TRIGGER t AFTER INSERT ON review_log BEGIN DELETE FROM review_log WHERE id != new.id; END",
     "extra trigger t"),
    ("CREATE VIEW v AS SELECT id FROM cards", "extra view v"),
    ("CREATE INDEX ix_mine ON cards (deck)", "extra index ix_mine"),
    ("UPDATE review_log SET duration_ms = -5", "a review with a negative duration: 1"),
    ("UPDATE cards SET stability = 'much' WHERE id = 'c1'", "a card whose stability or difficulty is not a number: c1"),
    ("UPDATE cards SET due = '9999-01-01 00:00:00.000000' WHERE id = 'c1'",
     "a card whose due or last review is not a time from 1970 to 9000: c1"),
], ids=["stamp-0001", "table-gone", "extra-column", "trigger", "view", "index", "negative-duration", "stability-text",
        "due-9999"])
def test_a_backup_holding_what_quizzer_does_not_put_there_is_refused(db, tmp_path, plant, named):
    """A backup with a trigger that deletes the review log at the next answer was restored, and
    `quiz check` said ok; so were rows `quiz check` flags right after. A backup stamped 0001 with
    the head's tables was restored: every later command then refused the database."""
    from typer.testing import CliRunner

    from quizzer.cli import app

    store = open_store(db)
    answer(store, "c1", 3, now=NOW, duration_ms=100)
    store.close()
    planted = tmp_path / "planted.db"
    shutil.copy(backup_now(db, NOW), planted)
    with sqlite3.connect(planted) as conn:
        conn.execute(plant)
    before = db.read_bytes()
    with pytest.raises(UntrustedBackup) as refused:
        restore(planted, db, NOW + timedelta(hours=1))
    assert named in str(refused.value) and refused.value.exit_code == 2
    result = CliRunner().invoke(app, ["backup", "restore", str(planted), "--yes", "--db", str(db)])
    assert result.exit_code == 2 and named in result.stderr and result.stderr.count("\n") == 1, result.output
    assert db.read_bytes() == before


def test_a_backup_at_an_older_schema_is_checked_for_flagged_rows_too(db, tmp_path):
    """Its rows are checked as they would be once upgraded: a negative duration at 0002 is refused."""
    from alembic import command
    from sqlalchemy import create_engine

    from quizzer.store.revisions import alembic_config

    old = tmp_path / "old.db"
    engine = create_engine(f"sqlite:///{old}")
    with engine.begin() as conn:
        command.upgrade(alembic_config(conn), "0002")
    engine.dispose()
    with sqlite3.connect(old) as conn:
        conn.execute("INSERT INTO cards (id, deck, kind, position, content_hash, first_seen, state, lapses, suspended, active) "
                     "VALUES ('c1', 'deck', 'qa', 0, '', '2025-06-01 00:00:00.000000', 0, 0, 0, 1)")
        conn.execute("INSERT INTO review_log (card_id, reviewed_at, rating, state_before, duration_ms, mode, scheduled) "
                     "VALUES ('c1', '2025-06-01 00:00:00.000000', 3, 0, -1, 'study', 1)")
    with pytest.raises(UntrustedBackup, match="a review with a negative duration"):
        restore(old, db, NOW + timedelta(hours=1))
