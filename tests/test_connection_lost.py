"""A PostgreSQL server that drops the connection in the middle of an answer: the answer was
rolled back, so it is tried once more on a new connection and is saved exactly once; if the
connection went during the commit (the answer already saved), it is not applied twice and the
command ends with one line that says so."""

from __future__ import annotations

from contextlib import contextmanager
from datetime import datetime, timedelta, timezone

import pytest
from sqlalchemy import func, insert, select

from quizzer.base.errors import ConnectionLost, DatabaseError
from quizzer.scheduling.answer import answer
from quizzer.store import cards as card_store
from quizzer.store import open_store
from quizzer.store.models import cards, review_log

T0 = datetime(2026, 1, 5, 10, 0, tzinfo=timezone.utc)


@pytest.fixture
def server_store(pg_server):
    store = open_store(pg_server.create())
    with store.write() as conn:
        conn.execute(insert(cards), [{"id": "c1", "deck": "d", "kind": "qa", "position": 0, "content_hash": "",
                                      "first_seen": T0 - timedelta(days=1), "state": 0}])
    yield store
    store.close()


def reviews(store) -> int:
    with store.read() as conn:
        return conn.execute(select(func.count()).select_from(review_log)).scalar_one()


def test_an_answer_whose_connection_is_cut_is_saved_once(server_store, pg_server, monkeypatch):
    import psycopg

    record, cut, attempts = card_store._record, [], []

    def cut_first(conn, *args):
        attempts.append(1)
        if not cut:  # the server ends this session, as a restart or a network cut would
            cut.append(conn.exec_driver_sql("SELECT pg_backend_pid()").scalar())
            with psycopg.connect(pg_server.url("postgres"), autocommit=True) as admin:
                admin.execute("SELECT pg_terminate_backend(%s)", (cut[0],))
        return record(conn, *args)

    monkeypatch.setattr(card_store, "_record", cut_first)
    answered = answer(server_store, "c1", 3, now=T0, duration_ms=1000)
    assert cut and len(attempts) == 2 and answered.current.state != 0  # the cut try failed, the retry saved
    assert reviews(server_store) == 1
    assert card_store.card(server_store, "c1").memory.state == answered.current.state


def test_an_answer_saved_as_the_connection_went_is_not_applied_twice(server_store, monkeypatch):
    write, calls = server_store.write, []

    @contextmanager
    def commit_then_lose():
        calls.append(1)
        with write() as conn:
            yield conn
        if len(calls) == 1:  # committed, but the client never heard back
            raise ConnectionLost("the server closed the connection")

    monkeypatch.setattr(server_store, "write", commit_then_lose)
    with pytest.raises(DatabaseError, match="saved once") as raised:
        answer(server_store, "c1", 3, now=T0, duration_ms=1000)
    assert not isinstance(raised.value, ConnectionLost)
    assert reviews(server_store) == 1
