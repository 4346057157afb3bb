"""The environment a timed ``quiz`` runs in, as an installed package would: its bytecode kept.

This machine (and CI) sets ``PYTHONDONTWRITEBYTECODE=1``, which makes every run compile quizzer
and its dependencies' uncached modules again (about 0.2 s); an installed package has its
``.pyc`` files. The bytecode goes to a folder of the benchmark's own, so the checkout stays clean.
"""

from __future__ import annotations

from pathlib import Path


def with_bytecode(env: dict[str, str], folder: Path) -> dict[str, str]:
    """``env`` with bytecode written to (and read from) ``folder``."""
    kept = {**env, "PYTHONPYCACHEPREFIX": str(folder / "pycache")}
    kept.pop("PYTHONDONTWRITEBYTECODE", None)
    return kept

