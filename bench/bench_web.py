"""``quiz serve`` on a large collection (``bench_stats.py``'s: 50,000 cards in 12 decks,
1,000,000 reviews): the server's time to take an answer and draw the next card, in process
(Starlette's TestClient: no network), and the time of the first page (today's numbers).

Each answer is two requests, as the browser sends them: the POST of the rating and the GET of
the page it redirects to (the next card); the figure is their sum, per answer. Prints the
median, the 95th percentile and the worst of ``--answers`` answers, and the first page's time.
Usage: python bench/bench_web.py [--answers N] [--keep DIR]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import tempfile
import time
from pathlib import Path

from bench_stats import NOW, generate, write_decks

from quizzer.app.collection import open_collection
from quizzer.settings import DEFAULTS
from quizzer.store import open_store


def build(folder: Path) -> tuple[Path, Path]:
    db, decks = folder / "web.db", folder / "decks"
    if not db.exists():
        store = open_store(db)
        generate(store, random.Random(7))
        store.close()
        write_decks(decks)
    return db, decks


def bench(folder: Path, answers: int) -> None:
    from starlette.testclient import TestClient

    from quizzer.web.server import create_app

    os.environ["QUIZ_NOW"] = NOW.isoformat()
    os.environ.setdefault("QUIZ_CACHE_DIR", str(folder / "cache"))
    db, decks = build(folder)
    collection = open_collection(decks, db)
    client = TestClient(create_app(collection, DEFAULTS), follow_redirects=False)
    start = time.perf_counter()
    client.get("/")
    first_page = (time.perf_counter() - start) * 1000
    client.get("/study?deck=")  # starts the session of every deck, and redirects to its page
    page = client.get("/study").text
    csrf = page.split('name="csrf" value="', 1)[1].split('"', 1)[0]
    samples = []
    for _ in range(answers):
        client.post("/study", data={"csrf": csrf, "action": "reveal"})
        client.get("/study")
        start = time.perf_counter()
        client.post("/study", data={"csrf": csrf, "action": "rate", "rating": "3"})
        client.get("/study")
        samples.append((time.perf_counter() - start) * 1000)
    samples.sort()
    p95 = samples[max(0, int(len(samples) * 0.95) - 1)]
    print("| measure | ms |\n| --- | ---: |")
    print(f"| first page (today), 50,000 cards | {first_page:.1f} |")
    print(f"| answer + next card, median of {answers} | {statistics.median(samples):.1f} |")
    print(f"| answer + next card, p95 | {p95:.1f} |")
    print(f"| answer + next card, worst | {samples[-1]:.1f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--answers", type=int, default=200)
    parser.add_argument("--keep", type=Path, help="build (or reuse) the collection in this folder")
    args = parser.parse_args()
    if args.keep:
        args.keep.mkdir(parents=True, exist_ok=True)
        bench(args.keep, args.answers)
    else:
        with tempfile.TemporaryDirectory() as folder:
            bench(Path(folder), args.answers)


if __name__ == "__main__":
    main()
