"""How long a checker takes to produce a question: warm (torch loaded) and cold (fresh process).

Run: python bench/bench_checkers.py   (prints a Markdown report)
"""

from __future__ import annotations

import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
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


def fresh(code: str, *args: str) -> str:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, check=True, cwd=ROOT, env=env).stdout


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f}"


def main() -> None:
    sys.path.insert(0, str(ROOT))
    from checkers import registry
    from checkers.grading import grade

    import torch

    print("# Checker timings\n")
    print(f"Python {platform.python_version()}, torch {torch.__version__}, {platform.machine()}, {os.cpu_count()} CPUs.\n")
    torch_import = statistics.median(float(fresh(TORCH_ONLY)) for _ in range(COLD_RUNS))
    print(f"`import torch` alone in a fresh process: **{ms(torch_import)} ms** (median of {COLD_RUNS}).\n")

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


if __name__ == "__main__":
    main()
