"""Store: opening, connection settings, schema migrations, UTC columns, deck sync.

Tests taking ``store`` or ``backend`` run twice: on a SQLite file and on a database of the
throw-away PostgreSQL server the suite starts (tests/pg.py; skipped, saying why, without one)."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.config import Config
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import event, select, text

from quizzer.store.backup import list_backups
from quizzer.scheduling.answer import answer
from quizzer.scheduling.answer import undo as undo_answer
from quizzer.scheduling.summary import card_info
from quizzer.scheduling.memory import DEFAULT_SCHEDULER, replay_decider
from quizzer.store import SCHEMA_HEAD, CardRef, open_store, sync_cards
from quizzer.base.errors import DatabaseBusy, DatabaseTooNew
from quizzer.store.models import cards, metadata
from quizzer.store.engine import make_engine
from quizzer.store.urls import resolve
from quizzer.store.schema import MIGRATIONS_DIR

T0 = datetime(2025, 3, 3, 9, 0, tzinfo=timezone.utc)


@pytest.fixture
def store(backend):
    st = open_store(backend)
    yield st
    st.close()


@pytest.fixture
def sqlite_store(tmp_path):
    st = open_store(tmp_path / "quiz.db")
    yield st
    st.close()


def file_of(backend: str) -> Path | None:
    """The SQLite file of a backend (backups exist only for files); None for a server."""
    return None if "://" in backend else Path(backend)


def alembic_config(conn) -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    config.attributes["connection"] = conn
    return config


def refs(*ids: str, version: str = "v1", tags: tuple[str, ...] = ()) -> list[CardRef]:
    return [CardRef(cid, "deck", "qa", i, f"{cid}-{version}", tags) for i, cid in enumerate(ids)]


# -- opening -----------------------------------------------------------------


def test_default_location_comes_from_quiz_db(tmp_path, monkeypatch):
    (tmp_path / "nested").mkdir()  # a missing folder is an error, not created silently
    monkeypatch.setenv("QUIZ_DB", str(tmp_path / "nested" / "from-env.db"))
    st = open_store(None)
    assert st.path == tmp_path / "nested" / "from-env.db" and st.path.exists()
    st.close()
    st = open_store(f"sqlite:///{tmp_path / 'by-url.db'}")
    assert st.path == tmp_path / "by-url.db"
    st.close()


def test_connection_pragmas(sqlite_store):
    store = sqlite_store
    with store.engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
        assert conn.exec_driver_sql("PRAGMA busy_timeout").scalar() == 10_000


def test_writes_take_the_write_lock_up_front(sqlite_store):
    """BEGIN IMMEDIATE: the lock is held from the first statement, even a SELECT."""
    store = sqlite_store
    other = sqlite3.connect(store.path, timeout=0, isolation_level=None)
    with store.write() as conn:
        conn.execute(select(cards.c.id)).all()
        with pytest.raises(sqlite3.OperationalError, match="locked"):
            other.execute("BEGIN IMMEDIATE")
    with store.read() as conn:
        conn.execute(select(cards.c.id)).all()
        other.execute("BEGIN IMMEDIATE")  # readers do not block writers
        other.execute("ROLLBACK")
    other.close()


def test_datetimes_are_utc_aware_and_naive_ones_refused(store):
    sync_cards(store, refs("a"), T0.astimezone(timezone(timedelta(hours=2))))
    with store.read() as conn:
        first_seen = conn.scalar(select(cards.c.first_seen).where(cards.c.id == "a"))
    assert first_seen == T0
    assert first_seen.tzinfo is timezone.utc
    with pytest.raises(Exception, match="naive"):
        sync_cards(store, refs("b"), datetime(2025, 1, 1))


# -- schema ------------------------------------------------------------------


def test_migrations_build_exactly_the_models(store):
    with store.engine.connect() as conn:
        diffs = compare_metadata(MigrationContext.configure(conn), metadata)
    assert diffs == []


def test_schema_head_constant_matches_the_migrations():
    assert ScriptDirectory.from_config(alembic_config(None)).get_current_head() == SCHEMA_HEAD


@pytest.mark.slow
def test_current_schema_open_does_not_import_alembic(backend):
    open_store(backend).close()
    code = ("import sys; from quizzer.store import open_store; "
            f"open_store({backend!r}); print('alembic' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_upgrading_an_existing_database_backs_it_up_first(tmp_path):
    db = tmp_path / "quiz.db"
    open_store(db).close()
    assert list_backups(db) == []  # a brand-new database needs no backup
    st = open_store(db)
    with st.engine.begin() as conn:
        command.downgrade(alembic_config(conn), "base")
        conn.execute(text("CREATE TABLE user_notes (x INTEGER)"))  # something worth keeping
    st.close()
    st = open_store(db)
    backups = list_backups(db)
    assert len(backups) == 1
    with sqlite3.connect(backups[0].path) as old:
        assert old.execute("SELECT count(*) FROM sqlite_master WHERE name = 'cards'").fetchone() == (0,)
    with st.engine.connect() as conn:
        assert conn.execute(text("SELECT version_num FROM alembic_version")).scalar() == SCHEMA_HEAD
    st.close()


def test_a_newer_schema_is_refused_untouched(backend):
    db = backend
    st = open_store(db)
    with st.engine.begin() as conn:
        conn.execute(text("UPDATE alembic_version SET version_num = '9999'"))
    st.close()
    with pytest.raises(DatabaseTooNew, match="newer"):
        open_store(db)
    if file_of(db):
        assert list_backups(file_of(db)) == []
    engine = make_engine(resolve(db)[0], st.learner)  # the same database, opened without the schema check
    with engine.connect() as conn:
        assert conn.execute(text("SELECT version_num FROM alembic_version")).scalar() == "9999"
    engine.dispose()


# -- sync --------------------------------------------------------------------


def test_sync_adds_edits_removes_and_resumes(store):
    result = sync_cards(store, refs("a", "b", "c"), T0)
    assert result.added == ["a", "b", "c"]
    answered = answer(store, "b", 4, now=T0, duration_ms=500)

    edited = refs("a", "b", "c")
    edited[1] = CardRef("b", "deck", "qa", 7, "b-v2", ("new-tag",))
    result = sync_cards(store, edited, T0)
    assert result.updated == ["b"] and not result.added and not result.deactivated
    info = card_info(store, "b", T0)
    assert (info.content_hash, info.position, info.tags) == ("b-v2", 7, ("new-tag",))
    assert info.memory == answered.current and len(info.reviews) == 1  # history kept

    result = sync_cards(store, [edited[0], edited[2]], T0)
    assert result.deactivated == ["b"]
    info = card_info(store, "b", T0)
    assert not info.active and len(info.reviews) == 1 and info.memory == answered.current

    result = sync_cards(store, edited, T0 + timedelta(days=3))
    assert result.reactivated == ["b"]
    info = card_info(store, "b", T0)
    assert info.active and info.memory == answered.current and info.first_seen == T0


def test_unchanged_sync_is_one_lookup(store):
    cards = refs(*(f"c{i}" for i in range(300)))
    sync_cards(store, cards, T0)
    statements = []
    event.listen(store.engine, "before_cursor_execute", lambda *args: statements.append(args[2]))
    assert sync_cards(store, list(reversed(cards)), T0).unchanged
    # what starts a write transaction (SQLite: BEGIN IMMEDIATE; server: isolation and write lock) is not a lookup
    starting = ("BEGIN", "PRAGMA", "SET TRANSACTION", "SELECT pg_advisory_xact_lock")
    assert len([s for s in statements if not s.startswith(starting)]) == 1
    assert not sync_cards(store, cards[:-1], T0).unchanged


def test_history_survives_the_upgrade_from_the_first_schema(backend):
    """A database made by the first release (0001) keeps every review when opened by this one."""
    db = backend
    st = open_store(db)
    sync_cards(st, refs("a", "b"), T0)
    answer(st, "a", 3, now=T0, duration_ms=700)
    answer(st, "b", 1, now=T0, duration_ms=900)
    with st.engine.begin() as conn:
        command.downgrade(alembic_config(conn), "0001")  # back to the first release's schema
        assert conn.execute(text("SELECT version_num FROM alembic_version")).scalar() == "0001"
        before = conn.execute(text("SELECT card_id, rating, duration_ms FROM review_log ORDER BY id")).all()
    st.close()
    st = open_store(db)
    with st.engine.connect() as conn:
        assert conn.execute(text("SELECT version_num FROM alembic_version")).scalar() == SCHEMA_HEAD
        after = conn.execute(text("SELECT card_id, rating, duration_ms FROM review_log ORDER BY id")).all()
        assert compare_metadata(MigrationContext.configure(conn), metadata) == []
    assert after == before == [("a", 3, 700), ("b", 1, 900)]
    if file_of(db):
        assert len(list_backups(file_of(db))) == 1  # taken before the upgrade
    st.close()


# -- both backends: the guarantees -------------------------------------------


def test_a_server_url_gets_psycopg_and_survives_the_db_option():
    """``postgresql://`` (or ``postgres://``) means psycopg 3; ``--db`` is a path option, which
    folds ``//`` into ``/``: the URL is still understood."""
    for written in ("postgresql://ann:pw@db.example:5433/quiz", "postgres://ann:pw@db.example:5433/quiz",
                    Path("postgresql://ann:pw@db.example:5433/quiz")):
        url, path = resolve(written)
        assert path is None
        assert (url.drivername, url.username, url.password, url.host, url.port, url.database) == (
            "postgresql+psycopg", "ann", "pw", "db.example", 5433, "quiz")
    url, path = resolve(Path("postgresql:///quiz"))  # the local socket, no host
    assert (url.drivername, url.host, url.database, path) == ("postgresql+psycopg", None, "quiz", None)


def test_a_write_waits_for_another_write_but_never_for_a_read(backend, monkeypatch):
    """One writer at a time (SQLite: BEGIN IMMEDIATE; server: the advisory write lock), held
    from the first statement; a second writer gives up after the busy timeout; reads go on."""
    first = open_store(backend)
    sync_cards(first, refs("a"), T0)
    monkeypatch.setenv("QUIZ_BUSY_TIMEOUT_MS", "300")
    second = open_store(backend)
    with first.write() as conn:
        conn.execute(select(cards.c.id)).all()
        with pytest.raises(DatabaseBusy, match="locked"):
            with second.write() as other:
                other.execute(select(cards.c.id)).all()
        with second.read() as other:
            assert other.execute(select(cards.c.id)).scalars().all() == ["a"]
    with second.write() as other:  # free again once the first committed
        other.execute(select(cards.c.id)).all()
    first.close()
    second.close()


def test_a_read_is_one_snapshot(backend):
    """What a read saw first it sees to its end, even if another process commits meanwhile."""
    reader, writer = open_store(backend), open_store(backend)
    sync_cards(writer, refs("a", "b"), T0)
    with reader.read() as conn:
        assert conn.scalar(text("SELECT count(*) FROM cards")) == 2
        sync_cards(writer, refs("a", "b", "c"), T0)
        assert conn.scalar(text("SELECT count(*) FROM cards")) == 2
    with reader.read() as conn:
        assert conn.scalar(text("SELECT count(*) FROM cards")) == 3
    reader.close()
    writer.close()


# -- the server: connections ---------------------------------------------------


def test_a_server_connection_lost_mid_read_is_one_error_and_then_recovers(pg_server):
    """The server ends the session in the middle of a read: a DatabaseError naming the server;
    the next unit of work gets a fresh connection (the pool pings before use)."""
    import psycopg

    from quizzer.base.errors import DatabaseError

    url = pg_server.create()
    st = open_store(url)
    sync_cards(st, refs("a"), T0)
    with pytest.raises(DatabaseError, match="closed the connection") as raised:
        with st.read() as conn:
            pid = conn.scalar(text("SELECT pg_backend_pid()"))
            with psycopg.connect(pg_server.url("postgres"), autocommit=True) as admin:
                admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
            conn.execute(select(cards.c.id)).all()
    assert url in raised.value.message
    with st.read() as conn:  # the pooled connection is gone too: a new one is made
        pid = conn.scalar(text("SELECT pg_backend_pid()"))
    with psycopg.connect(pg_server.url("postgres"), autocommit=True) as admin:
        admin.execute("SELECT pg_terminate_backend(%s)", (pid,))  # dropped while idle in the pool
    assert answer(st, "a", 3, now=T0, duration_ms=100).review_id == 1
    st.close()


# -- quiz db copy --------------------------------------------------------------


def fill_every_table(store) -> None:
    """Cards with tags, answers (one undone), an exam with a marked question, the notebook,
    fitted parameters, the statistics' aggregate: a row in every table."""
    from sqlalchemy import insert

    from quizzer.store import learner
    from quizzer.store.filter import EVERYTHING
    from quizzer.store.models import exam_questions, exams, mistakes
    from quizzer.store.review_days import review_days_of

    sync_cards(store, refs("a", "b", "c", tags=("t1", "t2")), T0)
    for minutes, (card_id, rating) in enumerate([("a", 3), ("b", 1), ("a", 1), ("c", 4), ("b", 2)]):
        done = answer(store, card_id, rating, now=T0 + timedelta(minutes=minutes), duration_ms=1000 + minutes)
    undo_answer(store, done)
    learner.save_parameters(store, (0.25, 1.5, 3.125, *DEFAULT_SCHEDULER.parameters[3:]), T0 + timedelta(hours=1))
    with store.write() as conn:
        conn.execute(insert(exams).values(id=7, seed=2**40 + 3, started_at=T0, minutes=30.0, filters='{"count": 1}',
                                          finished_at=T0 + timedelta(minutes=20), score=50.0))
        conn.execute(insert(exam_questions).values(
            exam_id=7, position=0, card_id="c", kind="qa", seed=None, status="answered", answer_text="答案",
            duration_ms=4321, covered='["p"]', score=0.5, review_id=1))
        conn.execute(insert(mistakes).values(card_id="c", times_wrong=2, last_wrong_at=T0 + timedelta(minutes=3),
                                             last_wrong_answer="错"))
    review_days_of(store, EVERYTHING, 4)  # the statistics' aggregate of the log


def every_row(target: str) -> dict[str, list[tuple]]:
    """Every table's rows in id order, as the store reads them back."""
    st = open_store(target)
    with st.read() as conn:
        rows = {table.name: [tuple(row) for row in conn.execute(
                    select(table).order_by(*table.primary_key.columns))]
                for table in metadata.sorted_tables}
    st.close()
    return rows


def copy_command(source: str, target: str):
    from typer.testing import CliRunner

    from quizzer.cli import app

    return CliRunner().invoke(app, ["--db", source, "db", "copy", "--to", target, "--json"])


def test_db_copy_from_a_file_to_the_server_and_back_keeps_every_row(tmp_path, pg_server):
    import json

    source, back = str(tmp_path / "laptop.db"), str(tmp_path / "back.db")
    st = open_store(source)
    fill_every_table(st)
    st.close()
    original = every_row(source)
    assert all(original.values()), original  # something in every table
    server = pg_server.create()

    result = copy_command(source, server)
    assert result.exit_code == 0, result.output
    copied = json.loads(result.stdout)
    assert copied["rows"] == {name: len(rows) for name, rows in original.items()}
    assert copied["replayed_cards"] == len({row[1] for row in original["review_log"]})  # a, b, c: each replayed
    result = copy_command(server, back)
    assert result.exit_code == 0, result.output
    assert every_row(server) == original
    assert every_row(back) == original

    # the server's ids go on after the copied ones (1-4: the fifth answer was undone), as SQLite's
    # do, instead of starting again at 1 over a copied review
    st = open_store(server)
    assert max(row[0] for row in original["review_log"]) == 4
    assert answer(st, "a", 3, now=T0 + timedelta(days=1), duration_ms=1).review_id == 5
    st.close()
    refused = copy_command(source, server)  # the server is no longer empty: nothing is merged
    assert refused.exit_code == 2 and "not empty" in refused.output


def test_a_copy_that_fails_its_check_leaves_the_target_unchanged(tmp_path, backend, monkeypatch):
    """A copy is one transaction: failing part-way (here: the check of the third table) keeps
    nothing, and the target can be filled afterwards."""
    from quizzer.base.errors import DatabaseError
    from quizzer.store import copy

    source = str(tmp_path / "laptop.db")
    st = open_store(source)
    fill_every_table(st)
    st.close()
    empty = every_row(backend)
    checked = []

    def failing_check(src, dst, table, where):
        checked.append(table.name)
        if len(checked) == 3:
            raise DatabaseError("interrupted")

    monkeypatch.setattr(copy, "_check_table", failing_check)
    with pytest.raises(DatabaseError, match="interrupted"):
        copy.copy_collection(open_store(source), open_store(backend), replay_decider(DEFAULT_SCHEDULER))
    assert every_row(backend) == empty
    monkeypatch.undo()
    assert copy_command(source, backend).exit_code == 0
    assert every_row(backend) == every_row(source)


def test_a_copy_into_a_new_file_that_fails_leaves_no_file_by_that_name(tmp_path, monkeypatch):
    """`quiz db copy --to k.db` killed half-way left k.db (and its -wal, -shm) behind, with the
    schema in it; the copy is made as k.db.partial and renamed once checked."""
    from quizzer.base.errors import DatabaseError
    from quizzer.store import copy

    source = str(tmp_path / "laptop.db")
    st = open_store(source)
    fill_every_table(st)
    st.close()

    def failing(*args, **kwargs):
        raise DatabaseError("interrupted")

    monkeypatch.setattr(copy, "copy_collection", failing)
    target = tmp_path / "k.db"
    assert copy_command(source, str(target)).exit_code == 1
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("k.db")) == []
    monkeypatch.undo()
    assert copy_command(source, str(target)).exit_code == 0
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("k.db")) == ["k.db"]
    assert every_row(str(target)) == every_row(source)


def test_a_copy_whose_history_replays_differently_keeps_nothing(tmp_path, backend, monkeypatch):
    """The replay is a check of its own: a review changed on the way (the row check turned off
    here) gives its card another memory, and the copy is refused whole."""
    from quizzer.base.errors import DatabaseError
    from quizzer.store import copy
    from quizzer.store.models import review_log

    source = str(tmp_path / "laptop.db")
    st = open_store(source)
    fill_every_table(st)
    st.close()
    empty = every_row(backend)
    copy_rows = copy._copy_table

    def altered(src, dst, table):
        copied = copy_rows(src, dst, table)
        if table is review_log:  # the first review of card b: Again becomes Easy
            dst.execute(review_log.update().where(review_log.c.card_id == "b", review_log.c.rating == 1).values(rating=4))
        return copied

    monkeypatch.setattr(copy, "_copy_table", altered)
    monkeypatch.setattr(copy, "_check_table", lambda src, dst, table, where: None)
    with pytest.raises(DatabaseError, match="card b's history in the copy replays to another memory"):
        copy.copy_collection(open_store(source), open_store(backend), replay_decider(DEFAULT_SCHEDULER))
    assert every_row(backend) == empty


def test_db_copy_errors_name_the_option_and_the_file_given(tmp_path):
    """`--to ""` named the default database (and would have copied into it); a missing folder was
    told as `x.db.partial` with the hint "correct --db / QUIZ_DB", the source's option."""
    source = str(tmp_path / "laptop.db")
    open_store(source).close()
    empty = copy_command(source, "")
    assert empty.exit_code == 2 and "Error: --to is empty" in empty.stderr
    missing = copy_command(source, str(tmp_path / "nowhere" / "x.db"))
    assert missing.exit_code == 1 and f"{tmp_path / 'nowhere' / 'x.db'}: its folder" in missing.stderr
    assert ".partial" not in missing.stderr and "correct --to" in missing.stderr and "QUIZ_DB" not in missing.stderr


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=st.lists(st.tuples(st.sets(st.integers(0, 7)), st.integers(0, 2), st.sets(st.integers(0, 7), max_size=2)),
                      min_size=1, max_size=8))
def test_any_sequence_of_deck_edits_keeps_every_card_s_memory(tmp_path_factory, steps):
    """Over any sequence of syncs (cards added, removed, brought back, edited) with answers
    between them: the active cards are the last sync's, each with its last text, and no card
    ever loses a review or its memory, whether it is in the decks at the time or not."""
    st_ = open_store(tmp_path_factory.mktemp("sync") / "quiz.db")
    try:
        reviews: dict[str, int] = {}
        memory: dict[str, object] = {}
        last: dict[str, CardRef] = {}
        for day, (present, version, answered) in enumerate(steps):
            now = T0 + timedelta(days=day)
            synced = [CardRef(f"c{i}", "deck", "qa", i, f"c{i}-v{version}", ()) for i in sorted(present)]
            sync_cards(st_, synced, now)
            last.update({ref.id: ref for ref in synced})
            for i in sorted(answered & present):
                memory[f"c{i}"] = answer(st_, f"c{i}", 3, now=now, duration_ms=100).current
                reviews[f"c{i}"] = reviews.get(f"c{i}", 0) + 1
            for card_id, ref in last.items():
                info = card_info(st_, card_id, now)
                assert info.active == (int(card_id[1:]) in present)
                assert (info.content_hash, info.position) == (ref.content_hash, ref.position)
                assert len(info.reviews) == reviews.get(card_id, 0)
                assert card_id not in memory or info.memory == memory[card_id]
    finally:
        st_.close()
