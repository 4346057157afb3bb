"""How long a checker takes to produce a question: warm (torch loaded) and cold (fresh process);
then the commands that compute every numeric card's answers (``quiz lint``, ``quiz export anki``,
``quiz export markdown``), each in a fresh process, against ``import torch`` timed in the same run.

``--against REV`` times only those commands, on this checkout and on git revision REV (a
worktree), run after run in turn, and prints each median's ratio to REV's: this machine's speed
drifts by half within an hour, so only a comparison made in one run holds.

Run: python bench/bench_checkers.py [--runs N] [--against REV]   (prints a Markdown report)
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from installed import ROOT, timed, with_bytecode, worktree

WARM_RUNS = 200
COLD_RUNS = 3

# Runs in a fresh interpreter: registry import, then the first question (which imports torch).
COLD = """
import json, sys, time
t0 = time.perf_counter()
from checkers import registry
t1 = time.perf_counter()
checker = registry.get(sys.argv[1])
checker.generate(0)
t2 = time.perf_counter()
checker.generate(1)
t3 = time.perf_counter()
print(json.dumps({"registry": t1 - t0, "first": t2 - t1, "second": t3 - t2}))
"""

TORCH_ONLY = "import time; t = time.perf_counter(); import torch; print(time.perf_counter() - t)"

# Every numeric card's answers computed with torch: lint draws 100 questions of each and checks the
# numbers the deck states; the exports write 3 variants of each with their worked solutions.
COMMANDS = [("`quiz lint`", ["lint"]), ("`quiz export anki`", ["export", "anki", "{folder}/decks.apkg"]),
            ("`quiz export markdown`", ["export", "markdown", "--out", "{folder}/decks.md"])]


def fresh(code: str, *args: str) -> str:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, check=True, cwd=ROOT, env=env).stdout


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f}"


def commands(runs: int, torch_import: float, against: str | None) -> None:
    """Each command in a fresh process, on this checkout (and on ``against``), run after run in turn.
    ``-P`` keeps the working directory off the path, so PYTHONPATH alone picks the code; each tree
    has its own deck cache and bytecode, and the database and config are the run's own."""
    with tempfile.TemporaryDirectory(prefix="quizzer-bench-checkers-") as scratch:
        folder = Path(scratch)
        base = {**os.environ, "QUIZ_DB": str(folder / "quiz.db"), "QUIZ_CONFIG": str(folder / "config.toml")}
        with contextlib.ExitStack() as checked_out:
            trees = {"this checkout": ROOT}
            if against:
                trees = {against: checked_out.enter_context(worktree(against, folder / "against")), **trees}
            envs = {label: with_bytecode({**base, "PYTHONPATH": str(tree), "QUIZ_CACHE_DIR": str(folder / f"cache-{i}")},
                                         folder / f"bytecode-{i}") for i, (label, tree) in enumerate(trees.items())}
            print(f"\nCommands, each in a fresh process, median of {runs} (the trees in turn, run after run); "
                  "÷ import torch: against `import torch` alone, measured above.\n")
            heads = [f"{label} wall ms | {label} CPU ms" for label in trees]
            ratio = " | wall ratio | CPU ratio" if against else ""
            print(f"| command | {' | '.join(heads)}{ratio} | ÷ import torch (wall) |")
            print("| --- |" + " ---: |" * (2 * len(trees) + (2 if against else 0) + 1))
            for name, args in COMMANDS:
                argv = [sys.executable, "-P", "-m", "quizzer", *(a.format(folder=folder) for a in args)]
                for env in envs.values():  # deck caches and bytecode first, untimed
                    timed(argv, env)
                samples: dict[str, list[tuple[float, float]]] = {label: [] for label in trees}
                for _ in range(runs):
                    for label, env in envs.items():
                        samples[label].append(timed(argv, env))
                wall = {label: statistics.median(w for w, _ in runs_) for label, runs_ in samples.items()}
                cpu = {label: statistics.median(c for _, c in runs_) for label, runs_ in samples.items()}
                cells = [f"{ms(wall[label])} | {ms(cpu[label])}" for label in trees]
                if against:
                    cells += [f"{wall['this checkout'] / wall[against]:.2f}×", f"{cpu['this checkout'] / cpu[against]:.2f}×"]
                print(f"| {name} | {' | '.join(cells)} | {wall['this checkout'] / torch_import:.2f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=7, help="fresh processes per command and tree")
    parser.add_argument("--against", metavar="REV", help="time only the commands, on this checkout and on REV, in turn")
    options = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    from checkers import registry
    from checkers.grading import grade

    import torch

    print("# Checker timings\n")
    print(f"Python {platform.python_version()}, torch {torch.__version__}, {platform.machine()}, {os.cpu_count()} CPUs.\n")
    torch_import = statistics.median(float(fresh(TORCH_ONLY)) for _ in range(COLD_RUNS))
    print(f"`import torch` alone in a fresh process: **{ms(torch_import)} ms** (median of {COLD_RUNS}).\n")
    if options.against:
        commands(options.runs, torch_import, options.against)
        return

    print(f"Warm: torch loaded, median / p95 over {WARM_RUNS} seeds after 20 warm-up questions; grade = grading the displayed answer (µs).")
    print("Cold: fresh process, median of", COLD_RUNS, "runs; first question includes importing torch and the reference;")
    print("first ÷ import torch: the first question against `import torch` alone, measured in this run.\n")
    print("| checker | warm generate ms (median) | warm p95 ms | grade µs | cold registry import ms | cold first question ms | first ÷ import torch | cold second question ms |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for name in registry.names():
        checker = registry.get(name)
        for seed in range(20):
            checker.generate(10_000 + seed)
        gen, grading = [], []
        for seed in range(WARM_RUNS):
            t0 = time.perf_counter()
            q = checker.generate(seed)
            t1 = time.perf_counter()
            grade(q.answer_text, q)
            grading.append(time.perf_counter() - t1)
            gen.append(t1 - t0)
        cold = [json.loads(fresh(COLD, name)) for _ in range(COLD_RUNS)]
        cold_median = {k: statistics.median(run[k] for run in cold) for k in cold[0]}
        p95 = statistics.quantiles(gen, n=20)[-1]
        print(
            f"| {name} | {ms(statistics.median(gen))} | {ms(p95)} | {statistics.median(grading) * 1e6:.0f} | "
            f"{ms(cold_median['registry'])} | {ms(cold_median['first'])} | {cold_median['first'] / torch_import:.2f} | "
            f"{ms(cold_median['second'])} |"
        )
    commands(options.runs, torch_import, None)


if __name__ == "__main__":
    main()
