"""Several processes answering on one database, and processes killed mid-answer: on a
SQLite file and on the test PostgreSQL server (tests/pg.py).

Run as a script (``python test_concurrency.py DB GO COUNT SEED``) this file is the
worker: once the file GO exists it answers COUNT random cards (0 = until killed),
printing ``ack <id>`` after each committed answer.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

import fsrs
import pytest

pytestmark = pytest.mark.slow  # every test here starts a process

NO_FUZZ = fsrs.Scheduler(enable_fuzzing=False)
CARDS = [f"c{i}" for i in range(20)]
REPO = Path(__file__).resolve().parents[1]


def work(db: str, go: Path, count: int, seed: int) -> None:
    from quizzer.scheduling.answer import answer
    from quizzer.store import open_store

    store = open_store(db)
    rng = random.Random(seed)
    while not go.exists():  # start together so the workers really overlap
        time.sleep(0.005)
    done = 0
    while count == 0 or done < count:
        # mostly Again/Hard: cards stay in learning, so (almost) every answer changes state
        rating = rng.choices([1, 2, 3], weights=[3, 3, 1])[0]
        result = answer(store, rng.choice(CARDS), rating, now=datetime.now(timezone.utc),
                        duration_ms=rng.randrange(100, 5000), scheduler=NO_FUZZ)
        print(f"ack {result.review_id}", flush=True)
        done += 1


if __name__ == "__main__":
    work(sys.argv[1], Path(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]))
    sys.exit(0)


import pytest  # noqa: E402  (the worker above needs none of the test machinery)
from sqlalchemy import func, select  # noqa: E402

from quizzer.store.backup import check  # noqa: E402
from quizzer.base.clock import day_start  # noqa: E402
from quizzer.scheduling.summary import card_info  # noqa: E402
from quizzer.store import CardRef, default_learner, open_store, sync_cards  # noqa: E402
from quizzer.store.models import cards, review_log  # noqa: E402


@pytest.fixture
def db(backend) -> str:
    store = open_store(backend)
    sync_cards(store, [CardRef(cid, "deck", "qa", i, "h") for i, cid in enumerate(CARDS)])
    store.close()
    return backend


@pytest.fixture
def go(tmp_path) -> Path:
    """The file whose appearance starts the workers."""
    return tmp_path / "go"


def start_worker(db: str, go: Path, count: int, seed: int) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
    return subprocess.Popen([sys.executable, __file__, db, str(go), str(count), str(seed)], cwd=REPO, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def assert_consistent(db: str) -> None:
    """SQLite: ``quiz check`` finds nothing (integrity, foreign keys). A server checks its
    constraints on every write; here no review may point at a card that is not there."""
    if "://" not in db:
        assert check(Path(db)) == []
        return
    store = open_store(db)
    with store.read() as conn:
        assert conn.scalar(select(func.count()).select_from(review_log)
                           .where(review_log.c.card_id.not_in(select(cards.c.id)))) == 0
    store.close()


def assert_states_match_review_log(db: str) -> int:
    """Replaying each card's logged reviews through fsrs must give its stored state:
    a lost update (two answers both reading the same old state) would break this."""
    store = open_store(db)
    with store.read() as conn:
        reviews = conn.execute(select(review_log).order_by(review_log.c.id)).all()
    for card_id in CARDS:
        expected, lapses = fsrs.Card(card_id=0), 0
        for review in (r for r in reviews if r.card_id == card_id and r.scheduled):
            lapses += expected.state == fsrs.State.Review and review.rating == 1
            expected, _ = NO_FUZZ.review_card(expected, fsrs.Rating(review.rating), review.reviewed_at)
        memory = card_info(store, card_id, datetime.now(timezone.utc)).memory
        if any(r.card_id == card_id for r in reviews):
            assert (memory.state, memory.step, memory.lapses) == (int(expected.state), expected.step, lapses)
            if expected.state == fsrs.State.Review:  # the day is Anki's rule on FSRS's interval (test_memory)
                assert memory.due == day_start(memory.due) and memory.due > expected.last_review
            else:  # a learning step: FSRS's own time
                assert memory.due == expected.due
            assert memory.stability == pytest.approx(expected.stability, rel=1e-12)
    store.close()
    return len(reviews)


def test_four_processes_answering_at_once(db, go):
    per_worker = 60
    workers = [start_worker(db, go, per_worker, seed) for seed in range(4)]
    time.sleep(0.2)
    go.touch()
    outputs = [w.communicate(timeout=60) for w in workers]
    for worker, (out, err) in zip(workers, outputs):
        assert worker.returncode == 0, err
        assert "locked" not in err
        assert out.count("ack ") == per_worker
    acked = {int(line.split()[1]) for out, _ in outputs for line in out.splitlines()}
    assert len(acked) == 4 * per_worker
    assert assert_states_match_review_log(db) == 4 * per_worker
    assert_consistent(db)


def test_killed_mid_answer_loses_no_acknowledged_review(db, go):
    rng = random.Random(2024)
    go.touch()
    acked: set[int] = set()
    for iteration in range(20):
        worker = start_worker(db, go, 0, iteration)
        first = worker.stdout.readline()
        assert first.startswith("ack "), worker.stderr.read()
        time.sleep(rng.uniform(0, 0.08))
        worker.send_signal(signal.SIGKILL)
        out, _ = worker.communicate(timeout=10)
        lines = (first + out).split("\n")[:-1]  # a cut-off last line was never fully acked
        acked |= {int(line.split()[1]) for line in lines if line.startswith("ack ")}
    assert_consistent(db)
    store = open_store(db)
    with store.read() as conn:
        stored = set(conn.scalars(select(review_log.c.id)))
    store.close()
    assert acked and acked <= stored
    assert_states_match_review_log(db)


def test_processes_opening_a_new_database_at_once_create_its_schema_once(backend):
    """Each process finds no schema and upgrades; the write lock makes the later ones wait and
    then find the schema there (a second CREATE TABLE would fail)."""
    from quizzer.store import SCHEMA_HEAD
    from quizzer.store.engine import make_engine
    from quizzer.store.urls import resolve
    from sqlalchemy import text

    code = "import sys; from quizzer.store import open_store; open_store(sys.argv[1]).close()"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
    openers = [subprocess.Popen([sys.executable, "-c", code, backend], cwd=REPO, env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(4)]
    for opener in openers:
        _, err = opener.communicate(timeout=120)
        assert opener.returncode == 0, err
    url = resolve(backend)[0]
    engine = make_engine(url, default_learner(url)[0])  # open_store's learner
    with engine.connect() as conn:
        assert conn.execute(text("SELECT version_num FROM alembic_version")).scalars().all() == [SCHEMA_HEAD]
    engine.dispose()
