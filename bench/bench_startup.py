"""Start-up: `quiz --help` against a minimal typer app (the floor for any typer CLI), and the
time until `quiz study` shows its first card.

Run: python bench/bench_startup.py   (prints a Markdown table for the README)
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RUNS = 15
MINIMAL = "import typer\napp = typer.Typer()\n@app.command()\ndef hello(name: str = 'x') -> None:\n    print(name)\n@app.command()\ndef bye() -> None:\n    pass\napp()\n"


def median_run(args: list[str], env: dict[str, str]) -> float:
    times = []
    for _ in range(RUNS):
        start = time.perf_counter()
        subprocess.run(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def first_card(env: dict[str, str], kind: str) -> float:
    """Seconds from launch until the first card's prompt is on screen."""
    times = []
    for _ in range(5):
        start = time.perf_counter()
        proc = subprocess.Popen([sys.executable, "-m", "quizzer", "study", "--kind", kind], env=env,
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        assert proc.stdout
        for line in proc.stdout:
            if "show answer" in line or line.startswith("answer"):
                times.append(time.perf_counter() - start)
                break
        proc.kill()
        proc.wait()
    return statistics.median(times)


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "QUIZ_DB": str(Path(tmp) / "q.db"), "QUIZ_CACHE_DIR": str(Path(tmp) / "cache")}
        minimal = Path(tmp) / "minimal.py"
        minimal.write_text(MINIMAL)
        subprocess.run([sys.executable, "-m", "quizzer", "decks"], env=env, stdout=subprocess.DEVNULL, check=True)
        rows = [
            ("minimal typer app `--help` (floor)", median_run([sys.executable, str(minimal), "--help"], env)),
            ("`quiz --help`", median_run([sys.executable, "-m", "quizzer", "--help"], env)),
            ("`quiz decks` (decks cached)", median_run([sys.executable, "-m", "quizzer", "decks"], env)),
            ("`quiz study`: first qa card on screen", first_card(env, "qa")),
            ("`quiz study`: first numeric card on screen (imports torch)", first_card(env, "numeric")),
        ]
    print(f"median of {RUNS} runs (5 for first card), Python {sys.version.split()[0]}\n")
    print("| command | median |\n| --- | --- |")
    for name, seconds in rows:
        print(f"| {name} | {seconds * 1000:.0f} ms |")


if __name__ == "__main__":
    main()
