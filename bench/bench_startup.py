"""Start-up, measured as the time until the screen shows it, against a minimal typer app's
``--help`` (the floor for any typer CLI) measured in the same run.

The baseline's ``--help`` is typer's own, drawn with rich. Every command runs on a pseudo-terminal, as a learner sees it: ``--help`` until its output
ends, ``quiz study`` until the first card's panel is drawn (its bottom border follows the
title); the process is then killed, so what it does after the card is not counted. Wall
time from launch; CPU time (user + system, all threads) from /proc at that moment (for a
``--help``, from the exited process's rusage). ``quiz show`` runs until the card's question
panel is drawn, for a qa card and for a numeric one (whose worked solution, which imports torch,
comes after it). ``quiz cards`` runs twice: as usual, and with
the line breaks of its Chinese questions not yet remembered (as the first time they are shown).
The operations take turns, run after run, so a load change on the machine hits them all alike;
each figure is the median.

Run: python bench/bench_startup.py [--runs N] [--only TEXT]   (prints a Markdown table for bench/RESULTS.md)
"""

from __future__ import annotations

import argparse
import fcntl
import os
import pty
import select
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from installed import with_bytecode

MINIMAL = "import typer\napp = typer.Typer()\n@app.command()\ndef hello(name: str = 'x') -> None:\n    print(name)\n@app.command()\ndef bye() -> None:\n    pass\napp()\n"
COLUMNS, ROWS = 100, 40
TIMEOUT = 60.0  # seconds: a command that shows nothing by then is a failure, not a figure
TICK = os.sysconf("SC_CLK_TCK")


@dataclass(frozen=True)
class Operation:
    name: str
    args: list[str]
    shown: Callable[[str], bool] | None  # the screen text shows it; None: when the output ends
    before: Callable[[], None] | None = None  # done before each run, untimed


@dataclass(frozen=True)
class Sample:
    wall: float
    cpu: float


def card_drawn(screen: str) -> bool:
    """The first card's panel is complete: its title (``0 done · N new · N learning · N due``) then its
    bottom border."""
    title = screen.find(" due")
    return title >= 0 and "╰" in screen[title:]


def question_drawn(screen: str) -> bool:
    """``quiz show``'s first panel, the card's question, is complete (its bottom border)."""
    return "╰" in screen


def cpu_of(pid: int) -> float:
    """User + system seconds the process has used so far, all its threads (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK  # utime, stime: fields 14 and 15 of stat(5)


def run_once(operation: Operation, env: dict[str, str]) -> Sample:
    """Launch on a fresh pseudo-terminal and wait until the screen shows ``operation``."""
    if operation.before is not None:
        operation.before()
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLUMNS, 0, 0))
    start = time.perf_counter()
    proc = subprocess.Popen(operation.args, env=env, stdin=slave, stdout=slave, stderr=slave, start_new_session=True)
    os.close(slave)
    screen = b""
    try:
        while True:
            if time.perf_counter() - start > TIMEOUT:
                raise RuntimeError(f"{operation.name}: nothing on screen after {TIMEOUT:.0f} s:\n{screen.decode(errors='replace')}")
            if not select.select([master], [], [], 0.5)[0]:
                continue
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: every copy of the terminal's other end is closed, the output ended
                chunk = b""
            if not chunk:
                if operation.shown is not None:
                    raise RuntimeError(f"{operation.name} ended before the screen showed it:\n{screen.decode(errors='replace')}")
                wall = time.perf_counter() - start
                usage = os.wait4(proc.pid, 0)[2]
                proc.returncode = 0
                return Sample(wall, usage.ru_utime + usage.ru_stime)
            screen += chunk
            if operation.shown is not None and operation.shown(screen.decode(errors="replace")):
                wall = time.perf_counter() - start
                return Sample(wall, cpu_of(proc.pid))
    finally:
        if proc.returncode is None:
            proc.kill()
            proc.wait()
        os.close(master)


def forget_line_breaks(cache: Path) -> None:
    """Remove the memo of UAX #14's units (``quizzer.terminal.linebreak``): as on a first showing."""
    for memo in cache.glob("linebreaks-*.json"):
        memo.unlink()


# What an import adds on top of what is already imported: (name, imported before, measured).
COMPONENTS = [
    ("the card models, as study reads them (quizzer.kinds: dataclasses)", "import typer", "import quizzer.kinds"),
    ("pydantic, as deck parsing and lint validate cards (quizzer.kinds.pydantic_models)", "import typer, quizzer.kinds",
     "import quizzer.kinds.pydantic_models"),
    ("a numeric card's checker (checkers.attention: its Params and Inputs dataclasses)", "import typer",
     "import checkers.attention"),
    ("pydantic, as lint validates a checker's params and inputs (checkers.validating)", "import typer, checkers.base",
     "import checkers.validating"),
    ("typer's coercion (typer._adapters) alone", "import typer", "import typer._adapters"),
    ("SQLAlchemy Core (engine, sql)", "import typer", "import sqlalchemy"),
    ("quizzer.store (its Core tables and the modules study uses) over SQLAlchemy Core", "import sqlalchemy",
     "import quizzer.store, quizzer.store.cards"),
    ("rich.markdown over rich.console", "import rich.console", "import rich.markdown"),
    ("PyYAML (deck parsing, unused on a cache hit)", "import typer", "import yaml"),
    ("fsrs", "import typer", "import fsrs"),
]
PROBE = "{before}\nimport time\nc, w = time.process_time(), time.perf_counter()\n{what}\nprint(time.process_time() - c, time.perf_counter() - w)"


def import_cost(before: str, what: str, env: dict[str, str]) -> Sample:
    """Seconds ``what`` takes to import in a fresh interpreter that has imported ``before``."""
    out = subprocess.run([sys.executable, "-c", PROBE.format(before=before, what=what)], env=env,
                         capture_output=True, text=True, check=True).stdout.split()
    return Sample(wall=float(out[1]), cpu=float(out[0]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9, help="runs of each operation (default 9)")
    parser.add_argument("--only", metavar="TEXT", default="",
                        help="only the operations whose name holds TEXT (the baseline always), no import costs")
    options = parser.parse_args()
    runs = options.runs
    quiz = [sys.executable, "-m", "quizzer"]
    with tempfile.TemporaryDirectory() as tmp:
        minimal = Path(tmp) / "minimal.py"
        minimal.write_text(MINIMAL)
        env = {**os.environ, "QUIZ_DB": str(Path(tmp) / "q.db"), "QUIZ_CACHE_DIR": str(Path(tmp) / "cache"),
               "QUIZ_CONFIG": str(Path(tmp) / "config.toml"), "QUIZ_LANG": "en", "TERM": "xterm-256color"}
        env = with_bytecode(env, Path(tmp))
        for name in ("COLUMNS", "LINES"):
            env.pop(name, None)
        baseline = Operation("minimal typer app `--help` (baseline)", [sys.executable, str(minimal), "--help"], None)
        qa_card = Operation("`quiz study --kind qa`: first qa card on screen", [*quiz, "study", "--kind", "qa"], card_drawn)
        numeric_card = Operation("`quiz study --kind numeric`: first numeric card on screen",
                                 [*quiz, "study", "--kind", "numeric"], card_drawn)
        show_qa = Operation("`quiz show` of a qa card: its question on screen", [*quiz, "show", "bert-vs-gpt-core"],
                            question_drawn)
        show_numeric = Operation("`quiz show` of a numeric card: its question on screen (the solution after it)",
                                 [*quiz, "show", "bert-no-mask-softmax"], question_drawn)
        operations = [
            baseline,
            Operation("minimal typer app running a command with an option (pydantic for coercion, no rich)",
                      [sys.executable, str(minimal), "hello", "--name", "y"], None),
            Operation("`quiz --help`", [*quiz, "--help"], None),
            Operation("`quiz decks` (decks cached)", [*quiz, "decks"], None),
            Operation("`quiz cards` (the 229 bundled cards)", [*quiz, "cards"], None),
            Operation("`quiz cards`, its line breaks not remembered (the first showing)", [*quiz, "cards"], None,
                      before=lambda: forget_line_breaks(Path(env["QUIZ_CACHE_DIR"]))),
            Operation("`quiz lint` (the bundled decks; each of 42 numeric cards drawn 100 times, its stated "
                      "numbers recomputed with torch)", [*quiz, "lint"], None),
            Operation("`quiz study`: first card (qa) on screen", [*quiz, "study"], card_drawn),
            qa_card,
            numeric_card,
            show_qa,
            show_numeric,
        ]
        operations = [op for op in operations if op is baseline or options.only in op.name]
        subprocess.run([*quiz, "decks"], env=env, stdout=subprocess.DEVNULL, check=True)  # database and deck cache
        for operation in operations:  # warm: bytecode caches, the first sync, the first backup
            run_once(operation, env)
        samples: dict[str, list[Sample]] = {op.name: [] for op in operations}
        for _ in range(runs):
            for operation in operations:
                samples[operation.name].append(run_once(operation, env))
        costs: dict[str, list[Sample]] = {name: [] for name, _before, _what in COMPONENTS}
        for _ in range(0 if options.only else runs):
            for name, before, what in COMPONENTS:
                costs[name].append(import_cost(before, what, env))
    wall = {name: statistics.median(s.wall for s in runs_) for name, runs_ in samples.items()}
    cpu = {name: statistics.median(s.cpu for s in runs_) for name, runs_ in samples.items()}
    print(f"Median of {runs} runs on a {COLUMNS}x{ROWS} pseudo-terminal, Python {sys.version.split()[0]}, "
          f"{os.cpu_count()} cores; ratios against the baseline measured in the same run.\n")
    print("| operation | wall | CPU | wall ratio | CPU ratio |\n| --- | ---: | ---: | ---: | ---: |")
    for operation in operations:
        name = operation.name
        print(f"| {name} | {wall[name] * 1000:.0f} ms | {cpu[name] * 1000:.0f} ms "
              f"| {wall[name] / wall[baseline.name]:.2f}x | {cpu[name] / cpu[baseline.name]:.2f}x |")
    print("\nTargets:")
    if qa_card.name in wall:
        print(f"- first qa card within 2.5x of the baseline: {wall[qa_card.name] / wall[baseline.name]:.2f}x wall, "
              f"{cpu[qa_card.name] / cpu[baseline.name]:.2f}x CPU")
    for numeric, qa, goal in ((numeric_card, qa_card, "1.1x"), (show_numeric, show_qa, "1.2x")):
        if numeric.name in wall and qa.name in wall:
            print(f"- {numeric.name} within {goal} of {qa.name}: {wall[numeric.name] / wall[qa.name]:.2f}x wall, "
                  f"{cpu[numeric.name] / cpu[qa.name]:.2f}x CPU")
    if options.only:
        return
    print("\nWhere the time goes: what one import adds, in a fresh interpreter (median), against the baseline's CPU.\n")
    print("| import | wall | CPU | CPU / baseline CPU |\n| --- | ---: | ---: | ---: |")
    for name, runs_ in costs.items():
        import_cpu = statistics.median(s.cpu for s in runs_)
        print(f"| {name} | {statistics.median(s.wall for s in runs_) * 1000:.0f} ms | {import_cpu * 1000:.0f} ms "
              f"| {import_cpu / cpu[baseline.name]:.2f}x |")


if __name__ == "__main__":
    main()
