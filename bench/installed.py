"""Timing ``quiz`` as it runs installed: one fresh process's wall and CPU time, the environment it
runs in (its bytecode kept), and another revision checked out beside this one to compare with.

This machine (and CI) sets ``PYTHONDONTWRITEBYTECODE=1``, which makes every run compile quizzer
and its dependencies' uncached modules again (about 0.2 s); an installed package has its
``.pyc`` files. The bytecode goes to a folder of the benchmark's own, so the checkout stays clean.
"""

from __future__ import annotations

import resource
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def with_bytecode(env: dict[str, str], folder: Path) -> dict[str, str]:
    """``env`` with bytecode written to (and read from) ``folder``."""
    kept = {**env, "PYTHONPYCACHEPREFIX": str(folder / "pycache")}
    kept.pop("PYTHONDONTWRITEBYTECODE", None)
    return kept



def timed(args: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall, CPU) seconds of one fresh process, its output thrown away."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(args, env=env, stdout=subprocess.DEVNULL, check=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime


@contextmanager
def worktree(revision: str, tree: Path) -> Iterator[Path]:
    """``revision`` checked out at ``tree`` for the ``with`` block; git keeps a record of every
    worktree, so it is removed afterwards, not left behind."""
    subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(tree), revision], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        yield tree
    finally:
        subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tree)], check=True)
