"""A `quiz study` process killed at random points never loses an acknowledged review,
on a SQLite file and on the test PostgreSQL server (tests/pg.py)."""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # every test here starts a process

CARDS = 40


def deck(folder: Path) -> Path:
    folder.mkdir()
    cards = "".join(
        f"  - {{id: c{i}, kind: qa, source: '1', question: Q{i}, answer: A{i}, points: [p]}}\n" for i in range(CARDS)
    )
    (folder / "d.yaml").write_text(f"id: d\ntitle: D\nlanguage: en\nsource: {{file: f, sections: s}}\ncards:\n{cards}", "utf-8")
    return folder


def stored_reviews(db: str) -> int:
    """Reviews in the database; on SQLite, after checking the file's integrity and foreign keys
    (a server checks its constraints on every write and has no file to damage)."""
    if "://" not in db:
        with sqlite3.connect(db) as conn:
            stored = conn.execute("SELECT count(*) FROM review_log").fetchone()[0]
            assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
            assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
        return stored
    import psycopg

    from quizzer.store import default_learner
    from quizzer.store.urls import resolve

    with psycopg.connect(db) as conn:  # the collection of the URL's user: its learner schema
        row = conn.execute(f'SELECT count(*) FROM "learner_{default_learner(resolve(db)[0])[0]}".review_log').fetchone()
    assert row is not None
    return row[0]


def test_sigkill_loses_no_acknowledged_review(tmp_path, backend):
    decks = deck(tmp_path / "decks")
    db = backend
    env = {**os.environ, "QUIZ_DB": str(db), "QUIZ_DECKS": str(decks), "QUIZ_CACHE_DIR": str(tmp_path / "cache"),
           "QUIZ_NOW": "2026-01-05T10:00:00+00:00", "COLUMNS": "100"}
    rng = random.Random(7)
    acknowledged = 0
    for attempt in range(12):
        proc = subprocess.Popen(
            [sys.executable, "-m", "quizzer", "study", "--new", "1000", "--limit", "1000"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env, bufsize=1,
        )
        stop_after = rng.randint(0, 6)
        seen = 0
        assert proc.stdin and proc.stdout
        for line in proc.stdout:
            if line.startswith("saved "):
                seen += 1
                if seen > stop_after:
                    break
            if "show answer" in line:
                proc.stdin.write("\n")
                proc.stdin.flush()
            elif "1 Again" in line:
                proc.stdin.write(f"{rng.randint(1, 4)}\n")  # the kill may land before or after this commit
                proc.stdin.flush()
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        acknowledged += seen
        stored = stored_reviews(db)
        # every acknowledged review is stored; at most one more (the kill landed after its commit)
        assert acknowledged <= stored <= acknowledged + attempt + 1
    assert acknowledged > 10
