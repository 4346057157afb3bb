"""``quiz serve`` on a large collection (``bench_stats.py``'s: 50,000 cards in 12 decks,
1,000,000 reviews): the server's time to take an answer and draw the next card, in process
(Starlette's TestClient: no network), the time of the first page (today's numbers), and the
same answer in the study session alone, as the terminal drives it (nothing drawn). Then the
card browser: its page, ``quiz cards --state due``'s app call, and the short ids of a table's
rows (``LOOKS`` times each).

Each answer is two requests, as the browser sends them: the POST of the rating and the GET of
the page it redirects to (the next card); the figure is their sum, per answer. The reveal
before it (POST and GET: the back, with each rating's wait) is timed apart. Prints the median,
the 95th percentile and the worst of ``--answers`` answers. ``--against REV`` times git
revision REV too, checked out beside this one, each tree in fresh processes on a fresh copy of
the same collection, ``--rounds`` times in turn, and gives this checkout's figures as a ratio
of REV's (the machine's load moves both alike).
Usage: python bench/bench_web.py [--answers N] [--keep DIR] [--against REV [--rounds R]]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from bench_stats import NOW, generate, write_decks
from installed import ROOT, worktree

from quizzer.app.collection import open_collection
from quizzer.settings import DEFAULTS
from quizzer.store import open_store

MEASURES = {"first": "first page (today), 50,000 cards", "answer": "answer + next card (POST and GET)",
            "served": "answer + next card, the server's own time (inside the application)",
            "reveal": "reveal (POST and GET: the back with each rating's wait)",
            "session": "answer + next card in the study session alone (the terminal's path)",
            "cards": "card browser page (GET /cards: the first 100 of 50,000 cards)",
            "browse": "`quiz cards --state due`'s app call (browse, in process: the due cards)",
            "short": "short ids of 100 cards among 50,000 (`quiz cards`' share, a fresh process's)"}
LOOKS = 3  # card browser pages, browse calls and short-id tables timed per run


def build(folder: Path) -> tuple[Path, Path]:
    db, decks = folder / "web.db", folder / "decks"
    if not db.exists():
        store = open_store(db)
        generate(store, random.Random(7))
        store.close()
        write_decks(decks)
    return db, decks


def measure(folder: Path, answers: int) -> dict[str, list[float]]:
    """Each measure's samples (ms) over the collection in ``folder`` (built there if missing)."""
    from starlette.testclient import TestClient

    from quizzer.app.queue import Planned, plan_session
    from quizzer.app.study import StudySession
    from quizzer.app.study_views import Rate, Reveal
    from quizzer.web.server import create_app

    os.environ["QUIZ_NOW"] = NOW.isoformat()
    os.environ.setdefault("QUIZ_CACHE_DIR", str(folder / "cache"))
    db, decks = build(folder)
    collection = open_collection(decks, db)
    inside: list[float] = []  # the application's time per request, the test client's own left out
    client = TestClient(timed_app(create_app(collection, DEFAULTS), inside), follow_redirects=False)
    samples: dict[str, list[float]] = {name: [] for name in MEASURES}
    start = time.perf_counter()
    client.get("/")
    samples["first"].append((time.perf_counter() - start) * 1000)
    client.get("/study?deck=")  # starts the session of every deck, and redirects to its page
    page = client.get("/study").text
    csrf = page.split('name="csrf" value="', 1)[1].split('"', 1)[0]
    for _ in range(answers):
        for name, fields in (("reveal", {"action": "reveal"}), ("answer", {"action": "rate", "rating": "3"})):
            start = time.perf_counter()
            client.post("/study", data={"csrf": csrf, **fields})
            client.get("/study")
            samples[name].append((time.perf_counter() - start) * 1000)
        samples["served"].append(sum(inside[-2:]) * 1000)
    planned = plan_session(collection, collection.card_filter(None, None, None), DEFAULTS, NOW)
    assert isinstance(planned, Planned), "the web session answered every card due"
    session = StudySession(collection, planned.queue, settings=DEFAULTS)
    session.start()
    for _ in range(answers):
        session.handle(Reveal())
        start = time.perf_counter()
        session.handle(Rate(3))
        session.prepare()
        samples["session"].append((time.perf_counter() - start) * 1000)
    samples.update(browsing(client, collection))
    return samples


def browsing(client: Any, collection: Any) -> dict[str, list[float]]:
    """The card browser's samples (ms): the web page, ``quiz cards``' app call, and the short ids
    of a table's rows worked out from the collection's ids (what a fresh process pays)."""
    from quizzer.app import short_ids
    from quizzer.app.browse import browse

    shown = list(collection.cards)[:100]

    def table() -> list[str]:
        shortened = short_ids.of_collection(collection.cards, shown)
        return [shortened[card_id] for card_id in shown]

    calls = {"cards": lambda: client.get("/cards"), "browse": lambda: browse(collection, NOW, state="due"),
             "short": table}
    samples: dict[str, list[float]] = {}
    for name, call in calls.items():
        for _ in range(LOOKS):
            start = time.perf_counter()
            call()
            samples.setdefault(name, []).append((time.perf_counter() - start) * 1000)
    return samples


def timed_app(app: Any, inside: list[float]) -> Any:
    """``app``, each request's time in it (from its call to its response's end) added to ``inside``."""
    async def timed(scope: Any, receive: Any, send: Any) -> None:
        start = time.perf_counter()
        await app(scope, receive, send)
        inside.append(time.perf_counter() - start)
    return timed


def figures(samples: list[float]) -> tuple[float, float, float]:
    """Median, 95th percentile and worst."""
    ordered = sorted(samples)
    return statistics.median(ordered), ordered[max(0, int(len(ordered) * 0.95) - 1)], ordered[-1]


def report(samples: dict[str, list[float]], answers: int) -> None:
    print("| measure | median ms | p95 ms | worst ms |\n| --- | ---: | ---: | ---: |")
    for name, label in MEASURES.items():
        median, p95, worst = figures(samples[name])
        runs = "" if name == "first" else f", {LOOKS} runs" if name in ("cards", "browse", "short") else f", {answers} answers"
        print(f"| {label}{runs} | {median:.1f} | {p95:.1f} | {worst:.1f} |")


def against(revision: str, answers: int, rounds: int, folder: Path) -> None:
    """This checkout and ``revision`` in turn, each run a fresh process on a fresh copy."""
    pristine = folder / "pristine"
    build(pristine)
    kept: dict[str, dict[str, list[float]]] = {}
    with ExitStack() as checked_out:
        trees = {revision: checked_out.enter_context(worktree(revision, folder / "against")), "this checkout": ROOT}
        for _ in range(rounds):
            for name, tree in trees.items():
                run = folder / "run"
                shutil.rmtree(run, ignore_errors=True)
                shutil.copytree(pristine, run)
                env = {**os.environ, "PYTHONPATH": f"{tree}{os.pathsep}{ROOT / 'bench'}"}
                child = subprocess.run([sys.executable, str(ROOT / "bench" / "bench_web.py"), "--child", str(run),
                                        "--answers", str(answers)], env=env, check=True, capture_output=True, text=True)
                for measure_name, values in json.loads(child.stdout).items():
                    kept.setdefault(name, {}).setdefault(measure_name, []).extend(values)
    print(f"| measure ({rounds} runs each, in turn) | {revision} median | {revision} p95 | this median | this p95 "
          "| median ratio | p95 ratio |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for measure_name, label in MEASURES.items():
        (base_median, base_p95, _), (median, p95, _) = (figures(kept[tree][measure_name]) for tree in trees)
        print(f"| {label} | {base_median:.1f} | {base_p95:.1f} | {median:.1f} | {p95:.1f} "
              f"| {median / base_median:.2f}× | {p95 / base_p95:.2f}× |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--answers", type=int, default=200)
    parser.add_argument("--keep", type=Path, help="build (or reuse) the collection in this folder")
    parser.add_argument("--against", metavar="REV", help="time git revision REV too, in turn with this checkout")
    parser.add_argument("--rounds", type=int, default=3, help="with --against: fresh runs of each tree")
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)  # one run of --against: samples as JSON
    args = parser.parse_args()
    if args.child:
        print(json.dumps(measure(args.child, args.answers)))
        return
    with tempfile.TemporaryDirectory() as scratch:
        folder = args.keep or Path(scratch)
        folder.mkdir(parents=True, exist_ok=True)
        if args.against:
            against(args.against, args.answers, args.rounds, folder)
        else:
            report(measure(folder, args.answers), args.answers)


if __name__ == "__main__":
    main()
