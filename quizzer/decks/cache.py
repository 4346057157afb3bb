"""The deck cache: a validated deck kept as JSON (an index of its cards, then a card per line),
keyed by the file's bytes and the code that validates decks, so an unchanged deck is read, not
parsed and validated again; files no deck has used for a month are pruned."""

from __future__ import annotations

import hashlib
import json
import os
import re
import time
from pathlib import Path
from typing import Any

from quizzer.base.clock import DAY_SECONDS
from quizzer.base.locations import cache_dir


def fingerprint(package: Path) -> str:
    """The code that decides what a valid deck is: a cached deck is only trusted by the same code.
    ``package``: quizzer's folder, beside which the checkers package lies (a numeric card's
    ``params`` are valid as its checker's ``Params`` say)."""
    sources = [*sorted((package / "decks").glob("*.py")), *sorted((package / "kinds").glob("*.py")),
               *sorted((package.parent / "checkers").glob("*.py"))]
    digest = hashlib.sha256()
    for source in sources:
        digest.update(source.relative_to(package.parent).as_posix().encode() + b"\0" + source.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


FINGERPRINT = fingerprint(Path(__file__).parents[1])


def paths(raw: bytes) -> tuple[Path, Path]:
    """The deck's index and its full JSON, keyed by the file's bytes and the validating code."""
    key = hashlib.sha256(FINGERPRINT.encode() + b"\0" + raw).hexdigest()
    return cache_dir() / f"{key}.index.json", cache_dir() / f"{key}.deck.jsonl"


def data_lines(deck_json: dict[str, Any]) -> list[str]:
    """A deck's JSON as the cache keeps it: the deck without its cards, then a card per line
    (JSON escapes a newline inside a string, so a card is always one line)."""
    header = {key: value for key, value in deck_json.items() if key != "cards"}
    return [json.dumps(item, ensure_ascii=False) for item in (header, *deck_json["cards"])]


CACHE_KEPT_DAYS = 30
# a cache file, or one being written (``write_atomically``): the only names pruning touches
CACHE_FILE = re.compile(r"[0-9a-f]{64}\.(index\.json|deck\.jsonl|(index|deck)\.\d+\.tmp)")


def mark_used(*files: Path) -> None:
    """A cache hit renews its files' time (at most once a day: a stat per file otherwise), so
    pruning removes only what no deck has used for CACHE_KEPT_DAYS."""
    now = time.time()
    for file in files:
        try:
            if now - file.stat().st_mtime > DAY_SECONDS:
                os.utime(file)
        except OSError:
            pass  # gone, or a read-only cache: only costs a parse one day


def prune(folder: Path, now: float) -> None:
    """Remove this cache's files unused for CACHE_KEPT_DAYS before ``now`` (seconds since the
    epoch; ``mark_used``). Every edit of a deck and every upgrade of quizzer caches a deck anew, so
    without this the folder only grows. Only names this cache writes are touched (``QUIZ_CACHE_DIR``
    may name a shared folder)."""
    cutoff = now - CACHE_KEPT_DAYS * DAY_SECONDS
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    for entry in entries:
        try:
            if CACHE_FILE.fullmatch(entry.name) and entry.stat().st_mtime < cutoff:
                os.unlink(entry.path)
        except OSError:
            pass  # gone already (another process pruned it), or not ours to remove


def write_atomically(path: Path, text: str) -> None:
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_text(text, "utf-8")
    tmp.replace(path)
