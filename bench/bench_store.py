"""Store/scheduler timings on a large collection: 50,000 cards, 1,000,000 reviews.

Generates the database once into a temporary directory with bulk inserts, then
times the calls a study session makes.  Usage: python bench/bench_store.py [--keep DIR] [--db URL]

With ``--db postgresql://user@host:port/db`` (an empty database) the same collection is also
built there and timed, and each operation is printed beside SQLite's, measured in the same
run, with the ratio server / SQLite.
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from pathlib import Path

from sqlalchemy import insert, text

from quizzer.scheduling.answer import answer
from quizzer.scheduling.queue import build_queue
from quizzer.scheduling.summary import card_info, due_forecast, next_due
from quizzer.store import LEARNING, NEW, REVIEW, CardRef, Store, open_store, sync_cards
from quizzer.store.filter import CardFilter
from quizzer.store import models

CARDS, REVIEWS, NEW_CARDS, BATCH = 50_000, 1_000_000, 10_000, 50_000
NOW = datetime(2025, 6, 30, 9, 0, tzinfo=timezone.utc)


def generate(store: Store, rng: random.Random) -> None:
    cards = []
    for i in range(CARDS):
        row = dict(id=f"card-{i:05d}", deck=f"deck-{i % 12}", kind=("qa", "numeric")[i % 2], position=i,
                   content_hash=f"{i:040x}", first_seen=NOW - timedelta(days=730), state=NEW, step=None,
                   stability=None, difficulty=None, due=None, last_review=None)
        if i >= NEW_CARDS:
            learning = i % 400 == 0
            last = NOW - timedelta(days=rng.uniform(0, 60))
            row.update(state=LEARNING if learning else REVIEW, step=0 if learning else None,
                       stability=rng.uniform(0.5, 200), difficulty=rng.uniform(1, 10), last_review=last,
                       due=last + timedelta(minutes=10) if learning else NOW + timedelta(days=rng.uniform(-30, 365)))
        cards.append(row)
    seen = [c["id"] for c in cards[NEW_CARDS:]]
    with store.write() as conn:
        conn.execute(insert(models.cards), cards)
        for start in range(0, REVIEWS, BATCH):
            conn.execute(insert(models.review_log), [
                dict(card_id=rng.choice(seen), reviewed_at=NOW - timedelta(days=rng.uniform(1, 730)),
                     rating=rng.choice((1, 2, 3, 3, 3, 4)), duration_ms=rng.randrange(500, 30_000), mode="study",
                     state_before=REVIEW, scheduled=True)
                for _ in range(min(BATCH, REVIEWS - start))])
    with store.engine.begin() as conn:  # committed: a server keeps ANALYZE's statistics only then
        conn.exec_driver_sql("ANALYZE")


def timed(fn: Callable[[], object], repeat: int) -> tuple[float, float]:
    """(median, max) wall time in milliseconds."""
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - start) * 1000)
    return statistics.median(samples), max(samples)


def size_mib(store: Store) -> float:
    if store.path is not None:
        return store.path.stat().st_size / 2**20
    with store.engine.connect() as conn:
        return conn.execute(text("SELECT pg_database_size(current_database())")).scalar_one() / 2**20


def bench(db: str | Path) -> list[tuple[str, tuple[float, float]]]:
    """Build the collection in ``db`` and time a session's calls: (operation, (median, max) ms)."""
    start = time.perf_counter()
    store = open_store(db)
    generate(store, random.Random(1))
    print(f"generated {CARDS:,} cards / {REVIEWS:,} reviews in {time.perf_counter() - start:.1f} s "
          f"({size_mib(store):.0f} MiB) at {store.display_name}")
    store.close()

    store = open_store(db)
    refs = [CardRef(f"card-{i:05d}", f"deck-{i % 12}", ("qa", "numeric")[i % 2], i, f"{i:040x}")
            for i in range(CARDS)]
    queue = build_queue(store, NOW)
    ids = iter(queue * 3)
    rows = [
        ("open_store (schema current)", timed(lambda: open_store(db).close(), 10)),
        ("sync_cards, first sync of 50k refs", timed(lambda: sync_cards(store, refs, NOW), 1)),
        ("sync_cards, unchanged", timed(lambda: sync_cards(store, refs, NOW), 10)),
        ("build_queue (today)", timed(lambda: build_queue(store, NOW), 10)),
        ("build_queue (one deck, qa only)", timed(lambda: build_queue(store, NOW, chosen=CardFilter(decks=("deck-3",), kinds=("qa",))), 10)),
        ("answer one card", timed(lambda: answer(store, next(ids), 3, now=NOW, duration_ms=4000), 50)),
        ("next_due", timed(lambda: next_due(store, NOW), 10)),
        ("due_forecast (7 days)", timed(lambda: due_forecast(store, NOW), 10)),
        ("card_info (~25 reviews)", timed(lambda: card_info(store, queue[-1], NOW), 10)),
    ]
    print(f"queue today: {len(queue)} cards (limits 20 new / 200 reviews)")
    explain = "EXPLAIN QUERY PLAN" if store.path is not None else "EXPLAIN"
    with store.engine.connect() as conn:
        for label, sql in [("today's counts", "SELECT state_before, count(id) FROM review_log "
                            "WHERE reviewed_at >= '2025-06-30' AND mode = 'study' GROUP BY state_before"),
                           ("due reviews", "SELECT id FROM cards WHERE state = 2 AND due < '2025-07-01'"),
                           ("new cards", "SELECT id FROM cards WHERE state = 0 ORDER BY position LIMIT 20")]:
            plan = " / ".join(row[-1].strip() for row in conn.execute(text(f"{explain} {sql}")))
            print(f"plan, {label}: {plan}")
    store.close()
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--keep", type=Path, help="directory to build the SQLite database in (kept)")
    parser.add_argument("--db", help="also time a PostgreSQL server: the URL of an empty database on it")
    args = parser.parse_args()
    folder = args.keep or Path(tempfile.mkdtemp(prefix="quizzer-bench-"))
    sqlite = bench(folder / "bench.db")
    if not args.db:
        print("| operation | median ms | max ms |\n| --- | ---: | ---: |")
        for name, (median, worst) in sqlite:
            print(f"| {name} | {median:.1f} | {worst:.1f} |")
        return
    server = bench(args.db)
    print("| operation | SQLite median ms | PostgreSQL median ms | PostgreSQL max ms | ratio (median) |\n"
          "| --- | ---: | ---: | ---: | ---: |")
    for (name, (base, _)), (_, (median, worst)) in zip(sqlite, server):
        print(f"| {name} | {base:.1f} | {median:.1f} | {worst:.1f} | {median / base:.2f}x |")


if __name__ == "__main__":
    main()
