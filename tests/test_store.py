"""Store: opening, connection settings, schema migrations, UTC columns, deck sync."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from datetime import datetime, timedelta, timezone

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.config import Config
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import event, select, text

from quizzer.backup import list_backups
from quizzer.scheduling.answer import answer
from quizzer.scheduling.summary import card_info
from quizzer.store import SCHEMA_HEAD, CardRef, open_store, sync_cards
from quizzer.errors import DatabaseTooNew
from quizzer.store.models import Card
from quizzer.store.models import Base
from quizzer.store.schema import MIGRATIONS_DIR

T0 = datetime(2025, 3, 3, 9, 0, tzinfo=timezone.utc)


@pytest.fixture
def store(tmp_path):
    st = open_store(tmp_path / "quiz.db")
    yield st
    st.close()


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


def test_connection_pragmas(store):
    with store.engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
        assert conn.exec_driver_sql("PRAGMA busy_timeout").scalar() == 10_000


def test_writes_take_the_write_lock_up_front(store):
    """BEGIN IMMEDIATE: the lock is held from the first statement, even a SELECT."""
    other = sqlite3.connect(store.path, timeout=0, isolation_level=None)
    with store.write() as session:
        session.execute(select(Card.id)).all()
        with pytest.raises(sqlite3.OperationalError, match="locked"):
            other.execute("BEGIN IMMEDIATE")
    with store.read() as session:
        session.execute(select(Card.id)).all()
        other.execute("BEGIN IMMEDIATE")  # readers do not block writers
        other.execute("ROLLBACK")
    other.close()


def test_datetimes_are_utc_aware_and_naive_ones_refused(store):
    sync_cards(store, refs("a"), T0.astimezone(timezone(timedelta(hours=2))))
    with store.read() as session:
        assert session.get(Card, "a").first_seen == T0
        assert session.get(Card, "a").first_seen.tzinfo is timezone.utc
    with pytest.raises(Exception, match="naive"):
        sync_cards(store, refs("b"), datetime(2025, 1, 1))


# -- schema ------------------------------------------------------------------


def test_migrations_build_exactly_the_models(store):
    with store.engine.connect() as conn:
        diffs = compare_metadata(MigrationContext.configure(conn), Base.metadata)
    assert diffs == []


def test_schema_head_constant_matches_the_migrations():
    assert ScriptDirectory.from_config(alembic_config(None)).get_current_head() == SCHEMA_HEAD


def test_current_schema_open_does_not_import_alembic(tmp_path):
    open_store(tmp_path / "quiz.db").close()
    code = ("import sys; from quizzer.store import open_store; "
            f"open_store({str(tmp_path / 'quiz.db')!r}); print('alembic' in sys.modules)")
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


def test_a_newer_schema_is_refused_untouched(tmp_path):
    db = tmp_path / "quiz.db"
    st = open_store(db)
    with st.engine.begin() as conn:
        conn.execute(text("UPDATE alembic_version SET version_num = '9999'"))
    st.close()
    with pytest.raises(DatabaseTooNew, match="newer"):
        open_store(db)
    assert list_backups(db) == []


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
    assert len([s for s in statements if not s.startswith(("BEGIN", "PRAGMA"))]) == 1
    assert not sync_cards(store, cards[:-1], T0).unchanged


def test_history_survives_the_upgrade_from_the_first_schema(tmp_path):
    """A database made by the first release (0001) keeps every review when opened by this one."""
    db = tmp_path / "quiz.db"
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
        assert compare_metadata(MigrationContext.configure(conn), Base.metadata) == []
    assert after == before == [("a", 3, 700), ("b", 1, 900)]
    assert len(list_backups(db)) == 1  # taken before the upgrade
    st.close()
