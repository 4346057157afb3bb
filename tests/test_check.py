"""`quiz check` on SQLite and on a PostgreSQL server: a healthy collection is ok (exit 0); each
broken rule of the collection, made by hand in SQL the way a foreign tool or a hand edit would,
is one line naming the table, the rule and the row (exit 1)."""

from __future__ import annotations

import csv

import sqlite3
from datetime import datetime, timedelta, timezone

import pytest
from sqlalchemy import insert, text, update
from typer.testing import CliRunner

from quizzer.cli import app
from quizzer.store import SCHEMA_HEAD, open_store
from quizzer.store.models import cards, exams, review_log

runner = CliRunner()
T0 = datetime(2026, 1, 5, 10, 0, tzinfo=timezone.utc)


def card(card_id: str, state: int = 2, **memory) -> dict:
    row = {"id": card_id, "deck": "d", "kind": "qa", "position": 0, "content_hash": "", "first_seen": T0,
           "state": state, "stability": None, "difficulty": None, "due": None, "last_review": None, "step": None}
    if state:
        row.update(stability=3.0, difficulty=5.0, due=T0 + timedelta(days=3), last_review=T0,
                   step=0 if state in (1, 3) else None)
    return {**row, **memory}


@pytest.fixture
def healthy(backend):
    store = open_store(backend)
    with store.write() as conn:
        conn.execute(insert(cards), [card("c-review"), card("c-new", 0), card("c-learning", 1)])
        conn.execute(insert(review_log), [{"card_id": "c-review", "reviewed_at": T0, "rating": 3, "state_before": 0,
                                           "mode": "study", "scheduled": True}])
        conn.execute(insert(exams), [{"id": 1, "seed": 1, "started_at": T0, "minutes": 30, "filters": "{}",
                                      "finished_at": T0 + timedelta(minutes=20), "score": 75.0}])
    yield backend, store
    store.close()


def check(backend: str):
    return runner.invoke(app, ["check", "--db", backend])


def test_a_healthy_collection_is_ok(healthy):
    backend, _ = healthy
    result = check(backend)
    assert result.exit_code == 0, result.output
    assert result.output.strip() == "ok"


@pytest.mark.parametrize("change, expected", [
    (update(cards).where(cards.c.id == "c-review").values(stability=None),
     "cards: a reviewed card without its memory (stability, difficulty, due, last review): c-review"),
    (update(cards).where(cards.c.id == "c-new").values(due=T0),
     "cards: a new card with a memory: c-new"),
    (update(cards).where(cards.c.id == "c-learning").values(step=None),
     "cards: a learning card without its learning step: c-learning"),
    (update(exams).where(exams.c.id == 1).values(score=None),
     "exams: a finished exam without a score: 1"),
], ids=["memory", "new", "step", "exam"])
def test_each_broken_rule_is_a_line(healthy, change, expected):
    backend, store = healthy
    with store.write() as conn:
        conn.execute(change)
    result = check(backend)
    assert result.exit_code == 1, result.output
    assert result.output.splitlines() == [expected]


def test_rows_of_a_missing_card_are_named(healthy):
    """Rows left behind by a tool that deleted a card with the foreign keys switched off: SQLite's
    own key check names them; on a server, the collection's rules do."""
    import sqlite3

    backend, store = healthy
    orphans = [("INSERT INTO mistakes (card_id, times_wrong, last_wrong_at) VALUES ('gone', 1, '2026-01-05 10:00:00')"),
               ("INSERT INTO review_log (card_id, reviewed_at, rating, state_before, mode, scheduled) "
                "VALUES ('gone', '2026-01-05 10:00:00', 1, 2, 'study', true)")]
    if store.engine.dialect.name == "sqlite":
        with sqlite3.connect(backend) as raw:  # a plain connection: foreign keys are off by default
            for statement in orphans:
                raw.execute(statement)
        expected = ["foreign key: mistakes rows referring to a missing cards row: 1",
                    "foreign key: review_log rows referring to a missing cards row: 2"]
    else:
        with store.write() as conn:
            conn.execute(text("SET LOCAL session_replication_role = replica"))  # the keys' triggers off
            for statement in orphans:
                conn.execute(text(statement))
        expected = ["review_log: a review of a card the database does not have: 2",
                    "mistakes: a notebook entry of a card the database does not have: gone"]
    result = check(backend)
    assert result.exit_code == 1, result.output
    assert sorted(result.output.splitlines()) == sorted(expected)


def test_a_million_dangling_rows_are_a_line_that_names_a_few(healthy):
    """foreign_key_check's rows were a line each: a tool that deleted the cards under a long
    history printed a line per review."""
    backend, store = healthy
    if "://" in backend:
        pytest.skip("a server's keys refuse these rows; its orphan rules name a few rows the same way")
    with sqlite3.connect(backend) as raw:
        first = raw.execute("SELECT coalesce(max(id), 0) + 1 FROM review_log").fetchone()[0]
        raw.executemany("INSERT INTO review_log (card_id, reviewed_at, rating, state_before, mode, scheduled) "
                        "VALUES ('gone', '2026-01-05 10:00:00', 1, 2, 'study', 1)", [()] * 25)
    result = check(backend)
    named = ", ".join(str(first + i) for i in range(20))
    assert result.exit_code == 1 and result.output.splitlines() == [
        f"foreign key: review_log rows referring to a missing cards row: {named} and 5 more"], result.output


def test_a_review_deleted_by_hand_is_noticed_and_the_statistics_follow_the_log(healthy):
    """The statistics' summary of the log notices an undo by itself, not a review deleted with
    another tool; `quiz check` compares it with the log card by card and has it rebuilt (exit 0:
    derived data, put right), after which the days' counts are the log's again."""
    from sqlalchemy import delete, select

    from quizzer.store.filter import EVERYTHING
    from quizzer.store.review_days import review_days_of

    backend, store = healthy
    with store.write() as conn:
        conn.execute(insert(review_log), [{"card_id": "c-review", "reviewed_at": T0 + timedelta(days=d), "rating": 3,
                                           "state_before": 2, "mode": "study", "scheduled": True} for d in (1, 2)])
    day = (T0 + timedelta(days=1)).date()
    assert review_days_of(store, EVERYTHING, 4)[day][0] == 1  # built: one review that day
    assert check(backend).output.strip() == "ok"  # agrees: nothing to say
    with store.write() as conn:  # the day's review, not the last one held
        conn.execute(delete(review_log).where(review_log.c.reviewed_at == T0 + timedelta(days=1)))
        assert len(conn.execute(select(review_log.c.id)).all()) == 2
    assert review_days_of(store, EVERYTHING, 4)[day][0] == 1  # stale until checked
    result = check(backend)
    assert result.exit_code == 0, result.output
    assert result.output.splitlines() == [
        "the statistics' summary of the review log no longer matched it (changed outside quizzer): "
        "the next `quiz stats` rebuilds it", "ok"]
    assert day not in review_days_of(store, EVERYTHING, 4)


@pytest.mark.parametrize("sql, expected", [
    ("UPDATE cards SET stability = 'abc' WHERE id = 'c-review'",
     "cards: a card whose stability or difficulty is not a number: c-review"),
    ("UPDATE cards SET due = 'not a date' WHERE id = 'c-review'",
     "cards: a card whose due or last review is not a time from 1970 to 9000: c-review"),
    ("UPDATE review_log SET reviewed_at = 'garbage'", "review_log: a review whose time is not a time from 1970 to 9000: 1"),
    ("UPDATE review_log SET reviewed_at = '9999-12-31 23:59:00.000000'",
     "review_log: a review whose time is not a time from 1970 to 9000: 1"),
    ("UPDATE cards SET stability = 1e309 WHERE id = 'c-review'",
     "cards: a card whose stability is not a finite number above 0, or difficulty not from 1 to 10: c-review"),
], ids=["stability", "due", "review-time", "year-9999", "infinite-stability"])
def test_sqlite_values_of_the_wrong_type_are_broken_rules(healthy, sql, expected):
    """SQLite keeps any value in any column: these made quiz cards, show or stats fail while check said ok."""
    backend, store = healthy
    if "://" in backend:
        pytest.skip("a server's typed columns refuse these values")
    with store.write() as conn:
        conn.execute(text(sql))
    result = check(backend)
    assert result.exit_code == 1 and result.output.splitlines() == [expected], result.output


@pytest.mark.parametrize("stability, difficulty, broken", [
    (0.0, 5.0, True), (-1.0, 5.0, True), (2.0, 0.5, True), (2.0, 11.0, True),
    (0.001, 1.0, False), (36500.0, 10.0, False),  # the edges FSRS can reach are healthy
])
def test_a_memory_out_of_fsrs_range_is_a_broken_rule(healthy, stability, difficulty, broken):
    """The rule was tested on an infinite stability only: its other four sides, on either backend."""
    backend, store = healthy
    with store.write() as conn:
        conn.execute(update(cards).where(cards.c.id == "c-review").values(stability=stability, difficulty=difficulty))
    result = check(backend)
    rule = "cards: a card whose stability is not a finite number above 0, or difficulty not from 1 to 10: c-review"
    assert (result.exit_code, result.output.splitlines()) == ((1, [rule]) if broken else (0, ["ok"])), result.output


def test_a_table_gone_is_a_problem_check_names_and_every_command_a_clear_error(healthy):
    """Another tool dropped a table: every command, check among them, failed with "unexpected
    OperationalError" and the SQL that met it. Opening the database now finds it (one query of the
    table names, as the version table's was); check lists it as its problem."""
    import sqlite3

    backend, store = healthy
    if store.engine.dialect.name == "sqlite":
        with sqlite3.connect(backend) as raw:
            raw.execute("DROP TABLE mistakes")
    else:
        with store.write() as conn:
            conn.execute(text("DROP TABLE mistakes"))
    result = check(backend)
    assert (result.exit_code, result.output.splitlines()) == (1, ["missing table mistakes"]), result.output
    result = runner.invoke(app, ["stats", "--db", backend])
    where = store.display_name
    restore = ("restore a backup from before, as `quiz backup list` shows them" if store.path is not None  # on a server
               else "pg_restore the learner's schema from a pg_dump taken before")  # `quiz backup` refuses to run
    assert result.exit_code == 1 and result.stderr.splitlines() == [
        f"Error: {where}: its tables do not match the schema it names ({SCHEMA_HEAD}): missing table mistakes "
        f"(another tool changed it: {restore})"], result.output


def test_an_empty_file_is_reported_and_left_empty(tmp_path):
    """A 0-byte file (a copy or sync cut short) was made a new database by check itself, which
    then said ok: a check writes nothing. Ordinary commands still start a new database where no
    file is."""
    empty = tmp_path / "zero.db"
    empty.touch()
    result = check(str(empty))
    assert result.exit_code == 1 and result.output.splitlines() == [
        f"{empty} is empty (0 bytes), not a database: a copy or sync of it may have been cut short"], result.output
    assert empty.stat().st_size == 0
    fresh = tmp_path / "new.db"
    assert runner.invoke(app, ["stats", "--db", str(fresh)]).exit_code == 0 and fresh.stat().st_size > 0


def test_every_problem_is_listed_at_once_a_dangling_key_among_them(healthy):
    """A review of a missing card (foreign_key_check's) was all check said: the collection's rules
    were checked only once it was gone, so each fix showed the next problem."""
    import sqlite3

    backend, store = healthy
    if "://" in backend:
        pytest.skip("a server's keys and typed columns refuse these rows; its orphan rules are checked with the rest")
    with sqlite3.connect(backend) as raw:  # a plain connection: foreign keys are off by default
        raw.execute("INSERT INTO review_log (card_id, reviewed_at, rating, state_before, mode, scheduled) "
                    "VALUES ('gone', '2026-01-05 10:00:00', 1, 2, 'study', 1)")
        raw.execute("UPDATE cards SET stability = 'abc', due = 'garbage' WHERE id = 'c-review'")
        raw.execute("UPDATE cards SET lapses = -3 WHERE id = 'c-learning'")
        raw.execute("UPDATE review_log SET reviewed_at = 'not a date' WHERE id = 1")
    result = check(backend)
    assert result.exit_code == 1 and result.output.splitlines() == [
        "foreign key: review_log rows referring to a missing cards row: 2",
        "cards: a card with negative lapses: c-learning",
        "cards: a card whose stability or difficulty is not a number: c-review",
        "cards: a card whose due or last review is not a time from 1970 to 9000: c-review",
        "review_log: a review whose time is not a time from 1970 to 9000: 1"], result.output


def test_a_negative_duration_is_a_broken_rule_and_exported_as_unknown(healthy, tmp_path):
    """A review of -5 ms passed check, and `history export` wrote -5, which `history import` refuses."""
    backend, store = healthy
    with store.write() as conn:
        conn.execute(update(review_log).values(duration_ms=-5))
    result = check(backend)
    assert (result.exit_code, result.output.splitlines()) == (1, ["review_log: a review with a negative duration: 1"])
    exported = tmp_path / "history.csv"
    assert runner.invoke(app, ["history", "export", str(exported), "--db", backend]).exit_code == 0
    [row] = csv.DictReader(exported.read_text("utf-8").splitlines())
    assert row["review_duration"] == "0"  # 0: unknown
    result = runner.invoke(app, ["history", "import", str(exported), "--db", str(tmp_path / "other.db")])
    assert result.exit_code == 0, result.output


PLANTED = {  # what another tool could leave in the collection: SQL that runs on every answer, or hides a table
    ("trigger", "sqlite"): ["CREATE TRIGGER planted AFTER INSERT ON review_log BEGIN "
                            "DELETE FROM review_log WHERE id != new.id; END"],
    ("trigger", "postgresql"): ["CREATE FUNCTION wipe() RETURNS trigger LANGUAGE plpgsql AS "
                                "$$ BEGIN DELETE FROM review_log WHERE id != NEW.id; RETURN NEW; END $$",
                                "CREATE TRIGGER planted AFTER INSERT ON review_log FOR EACH ROW EXECUTE FUNCTION wipe()"],
    ("view", "sqlite"): ["CREATE VIEW planted AS SELECT id FROM cards"],
    ("view", "postgresql"): ["CREATE VIEW planted AS SELECT id FROM cards"],
}


@pytest.mark.parametrize("kind", ["trigger", "view"])
def test_a_trigger_or_view_another_tool_left_is_named(healthy, kind):
    """quizzer creates neither: a trigger deleting the review log on the next answer was "ok"."""
    backend, store = healthy
    with store.write() as conn:
        for statement in PLANTED[kind, conn.dialect.name]:
            conn.execute(text(statement))
    result = check(backend)
    assert result.exit_code == 1, result.output
    assert result.output.splitlines() == [f"{kind} planted: not quizzer's (it runs SQL another tool put there); "
                                          "drop it, or restore a backup from before"]
