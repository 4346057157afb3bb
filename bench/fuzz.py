"""Fuzzing the two doors untrusted input comes through: deck files and the line protocol.

1. Decks: mutated copies of the shipped decks (byte flips, insertions of control bytes and
   invalid UTF-8, deletions, duplicated and truncated spans) through lint, in process: each
   must give a deck or positioned problems, never an exception.
2. Sessions: `quiz study` and `quiz exam` as real processes fed random and adversarial lines
   (commands in any order, binary, over-long, huge numbers, markup, escape sequences): each
   must end by itself without a traceback.

Run: python bench/fuzz.py [--decks N] [--sessions N] [--seed S] [--json]
(prints the counts for bench/RESULTS.md; exits 1 if any traceback or hang was seen)
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SESSION_TIMEOUT = 90  # seconds: longer than any session of these lines can take is a hang

LINES = [
    "", "q", "u", "b", "s", "e", "!b", "!q", "!f", "!e", "1", "2", "3", "4", "5", "0", "a", "A", "B", "C", "AB",
    "ab c", "Z", "0.5", "[0.1, 0.9]", "110M", "1.1亿", "3/4", "1/" * 1500 + "1", "1e" + "9" * 5000, "-1e308",
    "²", "１ ２", "1 3", "a", "all", "15%; 80%", ";;;;", "[/]", "[bold]x[/]", "\x1b[31mred\x1b[0m", "\x1b]52;c;aGk=\x07",
    "\x00\x01\x02", "ÿþ", "x" * 10000, "中文答案", "\u202eevil", "NaN", "inf", "-0", "1e-400", "((((1))))",
]


def mutate(data: bytes, rng: random.Random) -> bytes:
    """A few random edits of a deck's bytes."""
    out = bytearray(data)
    for _ in range(rng.randint(1, 8)):
        at = rng.randrange(len(out) + 1)
        choice = rng.random()
        if choice < 0.3 and out:
            out[min(at, len(out) - 1)] = rng.randrange(256)
        elif choice < 0.5:
            out[at:at] = bytes([rng.choice([0, 7, 27, 127, 0x85, 0xC3, 0xFF, 0x0D, 0x09])])
        elif choice < 0.7:
            del out[at:at + rng.randint(1, 40)]
        elif choice < 0.85:
            span = bytes(out[at:at + rng.randint(1, 200)])
            out[at:at] = span
        else:
            out[at:at] = rng.choice([b"{{", b"}}", b"&a ", b"*a", b"!!python/object ", b"\n- ", b": ", b"[", b"'", b'"'])
    return bytes(out)


def fuzz_decks(count: int, rng: random.Random) -> dict[str, int]:
    from quizzer.decks import lint

    sources = sorted((ROOT / "decks").glob("*.yaml"))
    crashes = with_problems = clean = 0
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(count):
            source = sources[i % len(sources)]
            path = Path(tmp) / f"m{i}.yaml"
            path.write_bytes(mutate(source.read_bytes(), rng))
            try:
                problems = lint([path])
            except Exception as err:  # noqa: BLE001  (this is what the fuzzer counts)
                crashes += 1
                print(f"crash on mutation {i} of {source.name}: {type(err).__name__}: {err}"[:300], file=sys.stderr)
            else:
                with_problems += bool(problems)
                clean += not problems
            path.unlink()
    return {"mutated_decks": count, "deck_crashes": crashes, "decks_with_problems": with_problems, "decks_clean": clean}


def fuzz_sessions(count: int, rng: random.Random) -> dict[str, int]:
    tracebacks = hangs = 0
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "QUIZ_DB": str(Path(tmp) / "fuzz.db"), "QUIZ_CACHE_DIR": str(Path(tmp) / "cache"),
               "QUIZ_CONFIG": str(Path(tmp) / "config.toml"), "EDITOR": "true", "COLUMNS": "80"}
        for i in range(count):
            command = ["study", "--limit", "6"] if i % 2 == 0 else ["exam", "--count", "4", "--minutes", "1"]
            lines = [rng.choice(LINES) for _ in range(rng.randint(1, 25))]
            stdin = "\n".join(lines).encode("utf-8", "surrogatepass") + rng.choice([b"", b"\n", b"\xff\xfe"])
            try:
                result = subprocess.run([sys.executable, "-m", "quizzer", *command], input=stdin, capture_output=True,
                                        env=env, timeout=SESSION_TIMEOUT)
            except subprocess.TimeoutExpired:
                hangs += 1
                print(f"hang: quiz {' '.join(command)} with {lines!r}"[:300], file=sys.stderr)
                continue
            if b"Traceback" in result.stderr or b"Traceback" in result.stdout:
                tracebacks += 1
                print(f"traceback: quiz {' '.join(command)} with {lines!r}\n{result.stderr.decode()[-800:]}", file=sys.stderr)
    return {"sessions": count, "session_tracebacks": tracebacks, "session_hangs": hangs}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decks", type=int, default=3000)
    parser.add_argument("--sessions", type=int, default=60)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    started = time.monotonic()
    counts = {**fuzz_decks(args.decks, rng), **fuzz_sessions(args.sessions, rng),
              "seconds": round(time.monotonic() - started)}
    if args.json:
        print(json.dumps(counts))
    else:
        print("| what | count |\n| --- | ---: |")
        for key, value in counts.items():
            print(f"| {key.replace('_', ' ')} | {value:,} |")
    sys.exit(1 if counts["deck_crashes"] or counts["session_tracebacks"] or counts["session_hangs"] else 0)


if __name__ == "__main__":
    main()
