"""A server that cannot be reached at an answer costs a pause, not the answer (issue 36, item 7):
the answer is tried again, pausing longer each time, for up to the server_retry_seconds setting while the
screen says so; a server with every connection slot taken is named as such and waited on the same
way; only when the time runs out does the command end, naming the answer that was not saved."""

from __future__ import annotations

import re
import threading
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
import test_web
from sqlalchemy import func, insert, select

from quizzer.app import busy
from quizzer.base.errors import DatabaseError, ServerUnavailable

T0 = datetime(2026, 1, 5, 10, 0, tzinfo=timezone.utc)
make_client = test_web.make_client  # the fixture: a client of the web drill over a fresh collection


class Clock:
    """monotonic and sleep for ``app.busy``: a pause moves the clock, nothing waits."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.pauses: list[float] = []

    def monotonic(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.pauses.append(seconds)
        self.now += seconds


@pytest.fixture
def clock(monkeypatch) -> Clock:
    fake = Clock()
    monkeypatch.setattr(busy, "monotonic", fake.monotonic)
    monkeypatch.setattr(busy, "sleep", fake.sleep)
    return fake


def test_an_unreachable_server_is_tried_again_pausing_longer_each_time(clock):
    tries, told = [], []

    def write() -> str:
        tries.append(clock.now)
        if len(tries) <= 4:
            raise ServerUnavailable("postgresql://db/quiz: cannot connect to the database server")
        return "saved"

    assert busy.patiently(write, busy.Waiting(told.append), "the answer to c1 was not saved") == "saved"
    assert clock.pauses == [0.5, 1.0, 2.0, 4.0]  # doubling from half a second, at most four
    assert len(told) == 4 and all("cannot connect" in err.message for err in told)


def test_past_the_time_allowed_the_answer_is_named_as_not_saved(clock):
    told: list[DatabaseError] = []

    def write() -> None:
        raise ServerUnavailable("postgresql://db/quiz: cannot connect to the database server", "is it running?")

    with pytest.raises(ServerUnavailable) as given_up:
        busy.patiently(write, busy.Waiting(told.append, 15), "the answer to c1 was not saved")
    assert sum(clock.pauses) <= 15 and clock.pauses == [0.5, 1.0, 2.0, 4.0, 4.0]  # 11.5 s; a sixth would pass 15
    assert given_up.value.shown_hint == "the answer to c1 was not saved; is it running?"


def test_without_a_screen_to_say_so_nothing_waits(clock):
    """A script's write (no one ``waiting``) fails at once, as before."""
    def write() -> None:
        raise ServerUnavailable("down")

    with pytest.raises(ServerUnavailable):
        busy.patiently(write, None)
    assert clock.pauses == []


def test_too_many_clients_is_named_as_such_not_as_a_server_that_is_down():
    import psycopg

    from quizzer.store.engine import database_error

    refused = psycopg.OperationalError('connection failed: connection to server at "127.0.0.1", port 5432 failed: '
                                       "FATAL:  sorry, too many clients already")
    error = database_error(refused, "postgresql://db/quiz")
    assert isinstance(error, ServerUnavailable)
    assert "no free connection (too many clients)" in error.message
    assert "max_connections" in error.shown_hint and "host, port" not in error.shown_hint


@pytest.fixture
def own_server():
    """A server of this test's own (it is stopped and started, or filled to its last slot)."""
    from pg import ServerMissing, start_server, stop_server

    try:
        server = start_server(max_connections=8)
    except ServerMissing as why:
        pytest.skip(str(why))
    yield server
    stop_server(server)


def new_card_store(server):
    from quizzer.store import open_store
    from quizzer.store.models import cards

    store = open_store(server.create())
    with store.write() as conn:
        conn.execute(insert(cards), [{"id": f"c{i}", "deck": "d", "kind": "qa", "position": i, "content_hash": "",
                                      "first_seen": T0 - timedelta(days=1), "state": 0} for i in (1, 2)])
    return store


def reviews(store) -> int:
    from quizzer.store.models import review_log

    with store.read() as conn:
        return conn.execute(select(func.count()).select_from(review_log)).scalar_one()


@pytest.mark.slow
def test_a_server_stopped_and_restarted_mid_session_loses_nothing(own_server):
    from pg import pause_server, resume_server
    from quizzer.scheduling.answer import answer

    store = new_card_store(own_server)
    told: list[DatabaseError] = []
    busy.patiently(lambda: answer(store, "c1", 3, now=T0, duration_ms=1000), busy.Waiting(told.append))
    pause_server(own_server)
    restart = threading.Timer(2.0, resume_server, (own_server, 8))
    restart.start()
    try:
        busy.patiently(lambda: answer(store, "c2", 3, now=T0 + timedelta(minutes=1), duration_ms=1000), busy.Waiting(told.append),
                       "the answer to c2 was not saved")
    finally:
        restart.join()
    assert told and all(isinstance(err, ServerUnavailable) for err in told)
    assert reviews(store) == 2
    store.close()


@pytest.mark.slow
def test_a_server_with_every_slot_taken_is_waited_on(own_server):
    import psycopg

    from quizzer.scheduling.answer import answer

    store = new_card_store(own_server)
    store.engine.dispose()  # the answer needs a new connection
    held = []
    try:
        while True:
            held.append(psycopg.connect(own_server.url("postgres")))
    except psycopg.OperationalError as full:
        assert "too many clients" in str(full) or "reserved" in str(full)

    def free_the_slots() -> None:
        for conn in held:
            conn.close()

    freed = threading.Timer(1.5, free_the_slots)
    freed.start()
    told: list[DatabaseError] = []
    try:
        busy.patiently(lambda: answer(store, "c1", 3, now=T0, duration_ms=1000), busy.Waiting(told.append))
    finally:
        freed.join()
    assert told and all("no free connection (too many clients)" in err.message for err in told)
    assert reviews(store) == 1
    store.close()


# -- the budget is the server_retry_seconds setting -------------------------------------------

DECK = ('id: mini\ntitle: Mini\nlanguage: zh\nsource: {file: course.txt, sections: "1"}\ncards:\n'
        '  - {id: q1, kind: qa, source: "1.1", question: 问一, answer: 答一, points: [点]}\n')


def pauses_within(budget: float) -> list[float]:
    """The pauses ``patiently`` takes before giving up, counted here: 0.5 s doubling to 4 s, as long
    as the pauses so far fit in ``budget``."""
    taken: list[float] = []
    pause = 0.5
    while sum(taken) + pause <= budget:
        taken.append(pause)
        pause = min(pause * 2, 4.0)
    return taken


def test_the_retry_budget_is_a_setting_shown_and_checked(tmp_path):
    from typer.testing import CliRunner

    from quizzer.cli import app

    runner = CliRunner()
    shown = runner.invoke(app, ["config"], env={"COLUMNS": "200"})
    assert shown.exit_code == 0 and any(line.split()[:3] == ["server_retry_seconds", "15", "default"]
                                        for line in shown.stdout.splitlines()), shown.output
    assert runner.invoke(app, ["config", "set", "server_retry_seconds", "40"]).exit_code == 0
    shown = runner.invoke(app, ["config"], env={"COLUMNS": "200"})
    assert any(line.split()[:3] == ["server_retry_seconds", "40", "file"] for line in shown.stdout.splitlines())
    for bad in ("-1", "3601", "1.5", "soon"):
        refused = runner.invoke(app, ["config", "set", "server_retry_seconds", bad])
        assert refused.exit_code == 2 and "server_retry_seconds: must be a whole number from 0 to 3600" in refused.stderr


@pytest.mark.parametrize("budget", [0, 2, 20])
def test_a_study_session_waits_as_long_as_the_setting_says_then_shows_its_summary(clock, deck_folder, monkeypatch,
                                                                                   budget):
    from typer.testing import CliRunner

    from quizzer.cli import app
    from quizzer.scheduling import answer as answering

    def unreachable(*args, **kwargs):
        raise ServerUnavailable("postgresql://db/quiz: cannot connect to the database server")

    monkeypatch.setattr(answering, "answer", unreachable)
    result = CliRunner().invoke(app, ["study", "--decks", str(deck_folder(DECK))], input="\n3\n",
                                env={"QUIZ_NOW": T0.isoformat(), "QUIZ_SERVER_RETRY_SECONDS": str(budget)})
    assert result.exit_code == 1, result.output
    assert clock.pauses == pauses_within(budget)
    assert result.stdout.count("trying again") == len(clock.pauses)
    assert "Reviewed 0" in result.stdout  # the session's summary
    assert "the answer to q1 was not saved" in result.stderr


def test_an_exam_whose_retries_run_out_says_what_is_saved(clock, deck_folder, monkeypatch):
    """The exam ended with the error alone: no word of the paper left unfinished and how to go on."""
    from typer.testing import CliRunner

    from quizzer.cli import app
    from quizzer.store import exams as exam_store

    def unreachable(*args, **kwargs):
        raise ServerUnavailable("postgresql://db/quiz: cannot connect to the database server")

    monkeypatch.setattr(exam_store, "save_answer", unreachable)
    result = CliRunner().invoke(app, ["exam", "--count", "1", "--decks", str(deck_folder(DECK))], input="答一\n",
                                env={"QUIZ_NOW": T0.isoformat(), "QUIZ_SERVER_RETRY_SECONDS": "3"})
    assert result.exit_code == 1, result.output
    assert clock.pauses == pauses_within(3) == [0.5, 1.0]
    assert "left unfinished" in result.stdout and "quiz exam --resume" in result.stdout
    assert "the answer to question 1 was not saved" in result.stderr



def test_a_page_answer_waits_for_the_server_as_the_terminal_does(clock, make_client, monkeypatch):
    """quiz serve: a server out of reach at a rating costs a pause, not the answer: the page comes
    once the answer is saved, within the same server_retry_seconds as at the terminal."""
    from quizzer.app import study
    from quizzer.store.models import review_log

    client = make_client()
    page = test_web.study_of(client, "q")  # a qa card, rated with the buttons
    answer, tries = study.answering.answer, []

    def unreachable_twice(*args: object, **kwargs: object) -> object:
        tries.append(1)
        if len(tries) <= 2:
            raise ServerUnavailable("postgresql://db/quiz: cannot connect to the database server")
        return answer(*args, **kwargs)

    def reviews() -> int:
        with client.opened.store.read() as conn:
            return conn.execute(select(func.count()).select_from(review_log)).scalar_one()

    before = reviews()
    monkeypatch.setattr(study.answering, "answer", unreachable_twice)
    rated = test_web.post(client, test_web.post(client, page, action="reveal").text, action="rate", rating="3")
    assert rated.status_code == 200 and len(tries) == 3 and clock.pauses == [0.5, 1.0]
    assert reviews() == before + 1


def test_a_page_answer_past_the_time_allowed_is_kept_to_send_again(clock, make_client, monkeypatch):
    """quiz serve: when the server stays out of reach past server_retry_seconds, the page says the
    answer was not saved and holds it in a form; sent again once the server is back, it is saved."""
    from quizzer.app import study

    client = make_client()
    page = test_web.study_of(client, "c")  # the choice card: a typed answer
    answer, down = study.answering.answer, [True]

    def unreachable_while_down(*args: object, **kwargs: object) -> object:
        if down[0]:
            raise ServerUnavailable("postgresql://db/quiz: cannot connect to the database server")
        return answer(*args, **kwargs)

    monkeypatch.setattr(study.answering, "answer", unreachable_while_down)
    refused = test_web.post(client, page, action="answer", answer="B")
    assert refused.status_code == 503 and clock.pauses  # waited before giving up
    assert "Not saved" in refused.text and "c-one" in refused.text  # the card whose answer is lost
    kept = re.search(r'<form method="post" action="/study"[^>]*>(.*?)</form>', refused.text, re.S)
    assert kept and 'name="answer" value="B"' in kept[1] and 'name="action" value="answer"' in kept[1]
    assert reviews_of(client, "c-one") == 0
    down[0] = False
    sent_again = client.post("/study", data={"csrf": test_web.csrf(refused.text), "action": "answer", "answer": "B"})
    assert sent_again.status_code == 200 and reviews_of(client, "c-one") == 1


def test_every_page_can_say_that_an_answer_waits(make_client):
    """The notice the page's script shows when no page has come back a second after a form was
    sent (the server waiting for the database): there, hidden until then."""
    page = make_client().get("/study?deck=mini").text
    assert re.search(r'<p id="waiting"[^>]*hidden>[^<]*tried again', page)
    script = (Path(__file__).parents[1] / "quizzer" / "web" / "static" / "keys.js").read_text("utf-8")
    assert 'getElementById("waiting")' in script and "notice.hidden = false" in script


def reviews_of(client, card_id: str) -> int:
    from quizzer.store.models import review_log

    with client.opened.store.read() as conn:
        return conn.execute(select(func.count()).select_from(review_log).where(review_log.c.card_id == card_id)).scalar_one()
