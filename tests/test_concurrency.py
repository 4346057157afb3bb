"""Several processes answering on one database file, and processes killed mid-answer.

Run as a script (``python test_concurrency.py DB COUNT SEED``) this file is the
worker: it answers COUNT random cards (0 = until killed), printing ``ack <id>``
after each committed answer.
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

NO_FUZZ = fsrs.Scheduler(enable_fuzzing=False)
CARDS = [f"c{i}" for i in range(20)]
REPO = Path(__file__).resolve().parents[1]


def work(db: str, count: int, seed: int) -> None:
    from quizzer.scheduling.answer import answer
    from quizzer.store import open_store

    store = open_store(db)
    rng = random.Random(seed)
    go = Path(db + ".go")
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
    work(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]))
    sys.exit(0)


import pytest  # noqa: E402  (the worker above needs none of the test machinery)
from sqlalchemy import select  # noqa: E402

from quizzer.backup import check  # noqa: E402
from quizzer.scheduling.summary import card_info  # noqa: E402
from quizzer.store import CardRef, open_store, sync_cards  # noqa: E402
from quizzer.store.models import Review  # noqa: E402


@pytest.fixture
def db(tmp_path) -> Path:
    path = tmp_path / "quiz.db"
    store = open_store(path)
    sync_cards(store, [CardRef(cid, "deck", "qa", i, "h") for i, cid in enumerate(CARDS)])
    store.close()
    return path


def start_worker(db: Path, count: int, seed: int) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
    return subprocess.Popen([sys.executable, __file__, str(db), str(count), str(seed)], cwd=REPO, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def assert_states_match_review_log(db: Path) -> int:
    """Replaying each card's logged reviews through fsrs must give its stored state:
    a lost update (two answers both reading the same old state) would break this."""
    store = open_store(db)
    with store.read() as session:
        reviews = session.scalars(select(Review).order_by(Review.id)).all()
    for card_id in CARDS:
        expected, lapses = fsrs.Card(card_id=0), 0
        for review in (r for r in reviews if r.card_id == card_id and r.scheduled):
            lapses += expected.state == fsrs.State.Review and review.rating == 1
            expected, _ = NO_FUZZ.review_card(expected, fsrs.Rating(review.rating), review.reviewed_at)
        memory = card_info(store, card_id, datetime.now(timezone.utc)).memory
        if any(r.card_id == card_id for r in reviews):
            assert (memory.state, memory.step, memory.due, memory.lapses) == (
                int(expected.state), expected.step, expected.due, lapses)
            assert memory.stability == pytest.approx(expected.stability, rel=1e-12)
    store.close()
    return len(reviews)


def test_four_processes_answering_at_once(db):
    per_worker = 60
    workers = [start_worker(db, per_worker, seed) for seed in range(4)]
    time.sleep(0.2)
    Path(str(db) + ".go").touch()
    outputs = [w.communicate(timeout=60) for w in workers]
    for worker, (out, err) in zip(workers, outputs):
        assert worker.returncode == 0, err
        assert "locked" not in err
        assert out.count("ack ") == per_worker
    acked = {int(line.split()[1]) for out, _ in outputs for line in out.splitlines()}
    assert len(acked) == 4 * per_worker
    assert assert_states_match_review_log(db) == 4 * per_worker
    assert check(db) == []


def test_killed_mid_answer_loses_no_acknowledged_review(db):
    rng = random.Random(2024)
    Path(str(db) + ".go").touch()
    acked: set[int] = set()
    for iteration in range(20):
        worker = start_worker(db, 0, iteration)
        first = worker.stdout.readline()
        assert first.startswith("ack "), worker.stderr.read()
        time.sleep(rng.uniform(0, 0.08))
        worker.send_signal(signal.SIGKILL)
        out, _ = worker.communicate(timeout=10)
        lines = (first + out).split("\n")[:-1]  # a cut-off last line was never fully acked
        acked |= {int(line.split()[1]) for line in lines if line.startswith("ack ")}
    assert check(db) == []
    store = open_store(db)
    with store.read() as session:
        stored = set(session.scalars(select(Review.id)))
    store.close()
    assert acked and acked <= stored
    assert_states_match_review_log(db)
