"""Importing and exporting review history: the 12,580 real reviews of 1,205 cards in
``../shared/data/fsrs-review-log-12k.csv`` (relative to the checkout).

Each import goes into a fresh SQLite database in a temporary folder. The baseline is the
per-review path the import used before (``quizzer.store.cards.replay``: one ORM round trip
per review); the bulk path is ``quizzer.transfer.fsrs_csv.import_history`` (FSRS states in
Python, then bulk inserts, one transaction). Prints a Markdown table of medians.

Usage: python bench/bench_history.py [--runs N] [--baseline-runs N] [--csv FILE]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TypeVar

from quizzer.scheduling.memory import DEFAULT_SCHEDULER, decide
from quizzer.store import Store, open_store
from quizzer.store.cards import ids, replay
from quizzer.store.filter import EVERYTHING
from quizzer.store.records import NEW, MemoryState, NewReview
from quizzer.transfer.fsrs_csv import (
    ARCHIVE_DECK,
    IMPORTED_KIND,
    LoggedReview,
    export_history,
    import_history,
    read_review_log,
)

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "fsrs-review-log-12k.csv"
T = TypeVar("T")
BLANK = MemoryState(NEW, None, None, None, None, None, 0, False)


def baseline_import(store: Store, reviews: list[LoggedReview]) -> int:
    """The import as it was: cards created first, then every review through ``cards.replay``
    (lock the card row, read its leech tag, add the log row, flush), in time order."""
    ordered = sorted(reviews, key=lambda r: r.reviewed_at)
    known = ids(store, EVERYTHING)
    fresh = list(dict.fromkeys(r.card_id for r in ordered if r.card_id not in known))
    new_cards = [dict(id=cid, deck=ARCHIVE_DECK, kind=IMPORTED_KIND, position=i, content_hash="", active=False,
                      first_seen=ordered[0].reviewed_at) for i, cid in enumerate(fresh)]
    replayed = [(r.card_id, NewReview(r.rating, r.reviewed_at, r.duration_ms)) for r in ordered]
    return replay(store, new_cards, replayed, partial(decide, scheduler=DEFAULT_SCHEDULER, ahead_after=None))


def replay_only(reviews: list[LoggedReview]) -> None:
    """The FSRS arithmetic of an import without the database: every card from new, in time order."""
    rule = partial(decide, scheduler=DEFAULT_SCHEDULER, ahead_after=None)
    memory: dict[str, MemoryState] = {}
    for r in sorted(reviews, key=lambda r: r.reviewed_at):
        before = memory.get(r.card_id, BLANK)
        decision = rule(before, NewReview(r.rating, r.reviewed_at, r.duration_ms))
        memory[r.card_id] = decision.after if decision.scheduled else before


def timed(make: Callable[[], T], run: Callable[[T], object], runs: int) -> list[float]:
    """Seconds per run of ``run(make())`` (``make`` is not timed)."""
    samples = []
    for _ in range(runs):
        arg = make()
        start = time.perf_counter()
        run(arg)
        samples.append(time.perf_counter() - start)
    return samples


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5, help="runs of each fast step (default 5)")
    parser.add_argument("--baseline-runs", type=int, default=1, help="runs of the slow per-review import (default 1)")
    parser.add_argument("--csv", type=Path, default=DATA, help="the review log (default: the shared 12k file)")
    args = parser.parse_args()
    if not args.csv.is_file():
        raise SystemExit(f"{args.csv} not found: the shared data folder sits beside the checkout (../shared/data)")
    with tempfile.TemporaryDirectory(prefix="quizzer-bench-history-") as tmp:
        run(args, Path(tmp))


def run(args: argparse.Namespace, folder: Path) -> None:
    opened: list[Store] = []

    def fresh_store() -> Store:
        opened.append(open_store(folder / f"db{len(opened)}.db"))
        return opened[-1]

    reviews = read_review_log(args.csv)
    cards = len({r.card_id for r in reviews})

    full = fresh_store()
    import_history(full, reviews)
    rows: list[tuple[str, list[float]]] = [
        ("read and check the CSV", timed(lambda: None, lambda _: read_review_log(args.csv), args.runs)),
        ("FSRS replay alone (`decide` for every review, no database)",
         timed(lambda: None, lambda _: replay_only(reviews), args.runs)),
        ("import, per-review ORM path (baseline)", timed(fresh_store, lambda s: baseline_import(s, reviews),
                                                        args.baseline_runs)),
        ("import, bulk path (replay in Python + bulk inserts)", timed(fresh_store, lambda s: import_history(s, reviews),
                                                                      args.runs)),
        ("re-import the same file (every review already there)", timed(lambda: full, lambda s: import_history(s, reviews),
                                                                       args.runs)),
        ("export every review", timed(lambda: full, lambda s: export_history(s, folder / "out.csv"), args.runs)),
    ]
    for store in opened:
        store.close()
    baseline = statistics.median(rows[2][1])
    bulk = statistics.median(rows[3][1])

    print(f"{args.csv.name}: {len(reviews):,} reviews of {cards:,} cards; medians of {args.runs} runs "
          f"({args.baseline_runs} for the baseline)\n")
    print("| step | median | per review |")
    print("| --- | ---: | ---: |")
    for name, samples in rows:
        median = statistics.median(samples)
        print(f"| {name} | {median * 1000:,.0f} ms | {median / len(reviews) * 1e6:,.0f} µs |")
    print(f"\nbulk import is {baseline / bulk:.1f}× faster than the per-review path")


if __name__ == "__main__":
    main()
