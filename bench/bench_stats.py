"""``quiz stats`` on a large collection: 50,000 cards in 12 decks, 1,000,000 reviews.

The collection has the shape of ``bench_store.py``'s (10,000 new cards, 39,900 in review due
from 30 days overdue to a year ahead, 100 in learning; a million reviews over two years),
with what a real collection has and the stats read: the log is in time order (it is
appended as answers are given), a review's ``state_before`` is not always Review, and there are
tags, suspended and leech cards, a mistakes notebook and finished exams. The decks are
YAML files of minimal cards with the same ids, so every card is active.

Prints Markdown rows, wall time and CPU time (the CPU figure is the steadier one on a shared
machine): the whole command in a fresh process (``quiz stats --json``, decks cached, so it
includes start-up, loading the 50,000-card decks and the unchanged-sync check), the same with
``--deck`` and with ``--tag`` (which the log's aggregate cannot answer: read from the log), the
card browser's due cards (``quiz cards --state due --json``), plain ``quiz`` on the same
collection (what every command pays before its own work), the two commands on an empty
collection (start-up alone: the rest is the 50,000 cards' share), the interpreter alone and with
SQLAlchemy imported (this machine's scale, which the other figures move with), and the figures
alone (``quizzer.app.stats.compute``, in process). Then, on a copy of the database, what keeping the
log's aggregate (``quizzer.store.review_days``) costs: ``quiz stats --json`` after 200 new answers
(added to it), and after its watermark is gone (rebuilt from the whole log, as on the first run
after the upgrade, or after an undo of a review it held).

``--against REV`` also runs the fresh-process commands on the code of git revision REV (a
worktree), alternating with this checkout's run by run, and prints each median's ratio to REV's:
this machine's speed drifts by half over an hour, so only a comparison made in one run holds.
Run it with the interpreter of the README's ``.venv``: another one may run start-up hooks of
packages installed beside it (this machine's system Python imports certifi at every start, 40 ms).
Without ``--keep`` the 150 MiB database is built in a temporary folder and removed afterwards.
Usage: python bench/bench_stats.py [--keep DIR] [--runs N] [--against REV]
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from installed import ROOT, timed, with_bytecode, worktree
from sqlalchemy import delete, func, insert, select, update

from quizzer.store import LEARNING, NEW, RELEARNING, REVIEW, Store, open_store
from quizzer.store.filter import CardFilter
from quizzer.store.models import (
    card_tags,
    cards,
    exam_questions,
    exams,
    meta,
    mistakes,
    review_log,
)

CARDS, REVIEWS, NEW_CARDS, DECKS, TAGS, BATCH = 50_000, 1_000_000, 10_000, 12, 40, 50_000
NOW = datetime(2025, 6, 30, 9, 0, tzinfo=timezone.utc)


def deck_of(i: int) -> str:
    return f"deck-{i % DECKS}"


def tags_of(i: int) -> list[str]:
    return [f"tag-{i % TAGS}", f"topic-{i % 7}"]


def generate(store: Store, rng: random.Random) -> None:
    rows: list[dict[str, Any]] = []
    tags: list[dict[str, str]] = []
    for i in range(CARDS):
        row: dict[str, Any] = {
            "id": f"card-{i:05d}", "deck": deck_of(i), "kind": "qa", "position": i, "content_hash": "",
            "first_seen": NOW - timedelta(days=730), "state": NEW, "step": None, "stability": None,
            "difficulty": None, "due": None, "last_review": None, "lapses": 0, "suspended": i % 500 == 7}
        if i >= NEW_CARDS:
            learning = i % 400 == 0
            last = NOW - timedelta(days=rng.uniform(0, 60))
            row.update(state=LEARNING if learning else REVIEW, step=0 if learning else None,
                       stability=rng.uniform(0.5, 200), difficulty=rng.uniform(1, 10), last_review=last,
                       due=last + timedelta(minutes=10) if learning else NOW + timedelta(days=rng.uniform(-30, 365)),
                       lapses=min(12, int(rng.expovariate(0.7))))
            if row["lapses"] >= 8:
                tags.append({"card_id": row["id"], "tag": "leech"})
        tags += [{"card_id": row["id"], "tag": tag} for tag in tags_of(i)]
        rows.append(row)
    seen = [c["id"] for c in rows[NEW_CARDS:]]
    times = sorted(NOW - timedelta(days=rng.uniform(1, 730)) for _ in range(REVIEWS))  # the log is appended in time order
    states = (REVIEW,) * 8 + (LEARNING, RELEARNING)
    with store.write() as conn:
        conn.execute(insert(cards), rows)
        conn.execute(insert(card_tags), tags)
        for start in range(0, REVIEWS, BATCH):
            conn.execute(insert(review_log), [
                {"card_id": rng.choice(seen), "reviewed_at": at, "rating": rng.choice((1, 2, 3, 3, 3, 4)),
                 "duration_ms": rng.randrange(500, 30_000), "mode": "study", "state_before": rng.choice(states),
                 "scheduled": True}
                for at in times[start:start + BATCH]])
        for exam_id in range(1, 41):
            started = NOW - timedelta(days=400 - 10 * exam_id)
            picked = rng.sample(seen, 15)
            conn.execute(insert(exams), [{"id": exam_id, "seed": exam_id, "started_at": started, "minutes": 30,
                                          "filters": "{}", "finished_at": started + timedelta(minutes=25)}])
            conn.execute(insert(exam_questions), [
                {"exam_id": exam_id, "position": k, "card_id": cid, "kind": "qa", "status": "answered",
                 "duration_ms": 60_000, "score": rng.random()} for k, cid in enumerate(picked)])
        conn.execute(insert(mistakes), [
            {"card_id": cid, "times_wrong": rng.randint(1, 3), "last_wrong_at": NOW - timedelta(days=rng.uniform(0, 30))}
            for cid in rng.sample(seen, 300)])
        score = (select(100 * func.avg(exam_questions.c.score)).where(exam_questions.c.exam_id == exams.c.id)
                 .scalar_subquery())  # as closing an exam computes it
        conn.execute(update(exams).values(score=score))
    with store.engine.connect() as conn:
        conn.exec_driver_sql("ANALYZE")


def write_decks(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for d in range(DECKS):
        lines = [f"id: deck-{d}", f"title: Deck {d}", "language: en", "source: {file: bench.txt, sections: '1'}",
                 "cards:"]
        for i in range(d, CARDS, DECKS):
            lines.append(f"  - {{id: card-{i:05d}, kind: qa, source: '1.1', tags: [{', '.join(tags_of(i))}], "
                         f"question: q{i}, answer: a{i}, points: [p{i}]}}")
        (folder / f"deck-{d}.yaml").write_text("\n".join(lines) + "\n", "utf-8")


def timed_runs(args: list[str], env: dict[str, str], runs: int) -> list[tuple[float, float]]:
    """(wall, CPU) milliseconds of each run of a fresh process."""
    return [(wall * 1000, cpu * 1000) for wall, cpu in (timed(args, env) for _ in range(runs))]


def compared(commands: list[tuple[str, list[str]]], env: dict[str, str], quiz: list[str], revision: str,
             folder: Path, runs: int) -> None:
    """Each command on this checkout and on ``revision`` (which must read this database's schema),
    run after run in turn; the medians and their ratio (below 1: this checkout is faster). ``-P``
    keeps the working directory off the path, so PYTHONPATH alone picks the code. The revision
    gets its own copy of the database and deck cache: each may store the log's aggregate in a form
    the other does not read, and would then rebuild it on every run."""
    quiz = [quiz[0], "-P", *quiz[1:]]
    copy = folder / f"against-{revision}.db"
    with sqlite3.connect(env["QUIZ_DB"]) as source, sqlite3.connect(copy) as target:
        source.backup(target)
    with worktree(revision, folder / f"against-{revision}") as tree:
        try:
            theirs = {**env, "PYTHONPATH": str(tree), "QUIZ_DB": str(copy), "QUIZ_CACHE_DIR": str(folder / f"cache-{revision}")}
            trees = {"this checkout": with_bytecode({**env, "PYTHONPATH": str(ROOT)}, folder / "pycache-this"),
                     revision: with_bytecode(theirs, folder / "pycache-against")}
            print(f"\n| operation | {revision}, median | this checkout, median | ratio |\n| --- | ---: | ---: | ---: |")
            for name, args in commands:
                for tree_env in trees.values():  # caches and bytecode of both first
                    timed_runs([*quiz, *args], tree_env, 1)
                samples: dict[str, list[float]] = {label: [] for label in trees}
                for _ in range(runs):
                    for label, tree_env in trees.items():
                        samples[label] += [wall for wall, _ in timed_runs([*quiz, *args], tree_env, 1)]
                old, new = (statistics.median(samples[label]) for label in (revision, "this checkout"))
                print(f"| {name} | {old:.0f} ms | {new:.0f} ms | {new / old:.2f}× |")
        finally:
            copy.unlink()


def aggregate_costs(db: Path, env: dict[str, str], quiz: list[str], runs: int) -> list[tuple[str, list[tuple[float, float]]]]:
    """``quiz stats --json`` on a copy of ``db``: after 200 new answers each run, and with the
    aggregate's watermark deleted before each run (a rebuild from the whole log)."""
    from quizzer.store.backup import list_backups
    from quizzer.store.review_days import WATERMARK_KEY

    copy = db.with_name("aggregate-copy.db")
    shutil.copy(db, copy)  # every process on db has closed: its WAL is checkpointed
    scratch = {**env, "QUIZ_DB": str(copy)}
    subprocess.run([*quiz, "stats", "--json"], env=scratch, stdout=subprocess.DEVNULL, check=True)  # its backup
    store = open_store(copy)
    rng = random.Random(2)
    with store.read() as conn:
        seen = conn.execute(select(cards.c.id).where(cards.c.state != NEW)).scalars().all()
        last = conn.execute(select(func.max(review_log.c.reviewed_at))).scalar()

    def answered() -> list[tuple[float, float]]:
        nonlocal last
        with store.write() as conn:
            conn.execute(insert(review_log), [
                {"card_id": rng.choice(seen), "reviewed_at": last + timedelta(seconds=10 * (k + 1)), "rating": 3,
                 "duration_ms": 8000, "mode": "study", "state_before": REVIEW, "scheduled": True} for k in range(200)])
        last += timedelta(seconds=2000)
        return timed_runs([*quiz, "stats", "--json"], scratch, 1)

    def rebuilt() -> list[tuple[float, float]]:
        with store.write() as conn:
            conn.execute(delete(meta).where(meta.c.key == WATERMARK_KEY))
        return timed_runs([*quiz, "stats", "--json"], scratch, 1)

    rows = [("`quiz stats --json` after 200 new answers (added to the aggregate), fresh process",
             [sample for _ in range(runs) for sample in answered()]),
            ("`quiz stats --json` rebuilding the aggregate from 1,000,000 reviews, fresh process",
             [sample for _ in range(min(runs, 3)) for sample in rebuilt()])]
    store.close()
    for backup in list_backups(copy):
        backup.path.unlink()
    copy.unlink()
    return rows


def on_empty_collection(folder: Path, env: dict[str, str], quiz: list[str],
                        runs: int) -> list[tuple[str, list[tuple[float, float]]]]:
    """The two commands on a collection with no deck and no review: what a run costs before the
    first card (the interpreter, typer, SQLAlchemy, quizzer's modules, opening the database), so the
    rows above can be split into start-up and the 50,000 cards' share."""
    empty = folder / "empty"
    (empty / "decks").mkdir(parents=True, exist_ok=True)
    scratch = {**env, "QUIZ_DB": str(empty / "empty.db"), "QUIZ_DECKS": str(empty / "decks"),
               "QUIZ_CACHE_DIR": str(empty / "cache")}
    subprocess.run([*quiz, "stats", "--json"], env=scratch, stdout=subprocess.DEVNULL, check=True)  # creates it
    return [("`quiz stats --json` on an empty collection: start-up alone",
             timed_runs([*quiz, "stats", "--json"], scratch, runs)),
            ("`quiz cards --state due --json` on an empty collection: start-up alone",
             timed_runs([*quiz, "cards", "--state", "due", "--json"], scratch, runs))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--keep", type=Path, help="directory to build the database and decks in (reused if there)")
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--against", metavar="REV", help="also time the commands on this git revision, in turn")
    args = parser.parse_args()
    folder = args.keep or Path(tempfile.mkdtemp(prefix="quizzer-bench-stats-"))
    folder.mkdir(parents=True, exist_ok=True)
    try:
        run(args, folder)
    finally:  # 150 MiB of database: kept only when asked for
        if args.keep is None:
            shutil.rmtree(folder, ignore_errors=True)


def run(args: argparse.Namespace, folder: Path) -> None:
    db, decks, cache = folder / "bench.db", folder / "decks", folder / "cache"
    if not db.exists():
        start = time.perf_counter()
        store = open_store(db)
        generate(store, random.Random(1))
        store.close()
        write_decks(decks)
        print(f"generated {CARDS:,} cards / {REVIEWS:,} reviews in {time.perf_counter() - start:.0f} s "
              f"({db.stat().st_size / 2**20:.0f} MiB) at {db}")
    env = with_bytecode({**os.environ, "QUIZ_DB": str(db), "QUIZ_DECKS": str(decks), "QUIZ_CACHE_DIR": str(cache),
                         "QUIZ_CONFIG": str(folder / "config.toml"), "QUIZ_NOW": NOW.isoformat()}, folder)
    quiz = [sys.executable, "-m", "quizzer"]
    subprocess.run([*quiz, "stats", "--json"], env=env, stdout=subprocess.DEVNULL, check=True)  # cache + first sync
    if args.against:
        compared([("`quiz stats --json`", ["stats", "--json"]), ("`quiz cards --state due --json`",
                  ["cards", "--state", "due", "--json"]), ("`quiz`", [])], env, quiz, args.against, folder, args.runs)
        return

    os.environ.update(env)
    from quizzer.app.collection import open_collection
    from quizzer.app.stats import compute

    opened = open_collection(None, None)
    everything = opened.card_filter()
    one_deck = opened.card_filter(["deck-3"])
    one_tag = opened.card_filter(None, ["tag-5"])

    def in_process(chosen: CardFilter) -> list[tuple[float, float]]:
        samples = []
        for _ in range(args.runs):
            start, cpu = time.perf_counter(), time.process_time()
            compute(opened.store, chosen, NOW, [d.id for d in opened.decks])
            samples.append(((time.perf_counter() - start) * 1000, (time.process_time() - cpu) * 1000))
        return samples

    rows = [
        ("`quiz stats --json`, fresh process", timed_runs([*quiz, "stats", "--json"], env, args.runs)),
        ("`quiz stats --json --deck deck-3` (one deck of 12), fresh process",
         timed_runs([*quiz, "stats", "--json", "--deck", "deck-3"], env, args.runs)),
        ("`quiz stats --json --tag tag-5` (one tag of 40: from the log), fresh process",
         timed_runs([*quiz, "stats", "--json", "--tag", "tag-5"], env, args.runs)),
        ("`quiz cards --state due --json`, fresh process", timed_runs([*quiz, "cards", "--state", "due", "--json"],
                                                                        env, args.runs)),
        ("`quiz` (today's numbers), fresh process: the floor of any command on these decks",
         timed_runs(quiz, env, args.runs)),
        *on_empty_collection(folder, env, quiz, args.runs),
        ("for scale: `python -c pass`", timed_runs([sys.executable, "-c", "pass"], env, args.runs)),
        ("for scale: `python -c 'import sqlalchemy'`", timed_runs([sys.executable, "-c", "import sqlalchemy"],
                                                                 env, args.runs)),
        ("the figures alone (`app.stats.compute`), whole collection", in_process(everything)),
        ("the figures alone, one deck of 12", in_process(one_deck)),
        ("the figures alone, one tag of 40", in_process(one_tag)),
    ]
    opened.store.close()
    rows += aggregate_costs(db, env, quiz, args.runs)
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"{CARDS:,} cards, {REVIEWS:,} reviews; median of {args.runs} runs; Python {sys.version.split()[0]}, "
          f"{os.cpu_count()} CPUs, load average {load}\n")
    print("| operation | wall, median (max) | CPU, median |\n| --- | ---: | ---: |")
    for name, samples in rows:
        walls, cpus = [w for w, _ in samples], [c for _, c in samples]
        print(f"| {name} | {statistics.median(walls):.0f} ms ({max(walls):.0f}) | {statistics.median(cpus):.0f} ms |")


if __name__ == "__main__":
    main()
