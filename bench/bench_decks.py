"""Deck loading and linting at scale: a YAML file of 10,000 random cards, and a collection of
five such files (50,000 cards) read from the cache as every command starts.

Run: python bench/bench_decks.py   (prints a Markdown table for bench/RESULTS.md)

cold  = parse + validate + write the cache (first start after a deck changed)
warm  = read the cache (every other start): ids, tags and digests, no card built
lint  = `quiz lint` on the file (parse + validate + line numbers, no cache)
"""

from __future__ import annotations

import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

KINDS = ("qa", "choice", "mistake")


def random_deck(n: int, seed: int = 0, name: str = "bench") -> str:
    rng = random.Random(seed)

    def text() -> str:
        words = ("注意力", "机制", "掩码", "参数量", "编码器", "解码器", "BERT", "GPT", "softmax", "token")
        return " ".join(rng.choice(words) for _ in range(rng.randint(3, 20)))

    lines = [
        "# yaml-language-server: $schema=./schema.json",
        f"id: {name}", f"title: {name}", "language: zh", "source: {file: bench.txt, sections: '1'}", "cards:",
    ]
    for i in range(n):
        kind = KINDS[i % 3]
        lines += [f"  - id: {name}-{i}", f"    kind: {kind}", f"    source: '{rng.randint(1, 9)}.{rng.randint(1, 10)}'", "    tags: [bench]"]
        if kind == "qa":
            lines += [f"    question: {text()}", "    answer: |", f"      {text()}", f"      {text()}", "    points:", f"      - {text()}", f"      - {text()}"]
        elif kind == "choice":
            lines += [f"    question: {text()}", "    options:"] + [f"      - {text()}" for _ in range(4)] + [f"    answer: {'ABCD'[rng.randrange(4)]}", f"    explanation: {text()}"]
        else:
            lines += [f"    claim: {text()}", f"    correction: {text()}", f"    why: {text()}"]
    return "\n".join(lines) + "\n"


def timed(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "decks"
        folder.mkdir()
        deck = folder / "bench.yaml"
        deck.write_text(random_deck(10_000), "utf-8")
        os.environ["QUIZ_CACHE_DIR"] = str(Path(tmp) / "cache")
        from quizzer import decks
        from quizzer.decks import cache as deck_cache

        def cold() -> None:
            for entry in deck_cache.cache_dir().glob("*.json"):
                entry.unlink()
            decks.load_decks([folder])

        size = deck.stat().st_size / 1e6
        rows = [
            ("load, cold (parse + validate + cache)", timed(cold, 3)),
            ("load, warm (cache hit)", timed(lambda: decks.load_decks([folder]), 5)),
            ("quiz lint", timed(lambda: decks.lint([folder]), 3)),
        ]
        collection = Path(tmp) / "collection"
        collection.mkdir()
        for number in range(5):
            (collection / f"deck-{number}.yaml").write_text(random_deck(10_000, number, f"deck-{number}"), "utf-8")
        decks.load_decks([collection])  # validates the 50,000 cards once and caches them (after `cold` cleared the cache)
        rows.append(("load 50,000 cards in 5 decks, warm (cache hit)", timed(lambda: decks.load_decks([collection]), 5)))
        print(f"10,000 cards, {size:.1f} MB of YAML, Python {sys.version.split()[0]}\n")
        print("| step | median |\n| --- | --- |")
        for name, seconds in rows:
            print(f"| {name} | {seconds * 1000:.0f} ms |")


if __name__ == "__main__":
    main()
