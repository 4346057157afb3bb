"""Where the decks are (the folders every command reads) and where the caches go, found without loading anything."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path


def bundled_decks() -> Path:
    """The decks shipped with quizzer: the checkout's ``decks/``, else the wheel's copy."""
    package = Path(__file__).resolve().parents[1]  # quizzer/
    checkout = package.parent / "decks"
    return checkout if checkout.is_dir() else package / "bundled_decks"


def deck_dirs(option: Path | None = None, environ: Mapping[str, str] = os.environ) -> list[Path]:
    """``--decks`` wins, then ``QUIZ_DECKS`` (os.pathsep-separated), then the bundled decks."""
    if option is not None:
        return [option]
    env = environ.get("QUIZ_DECKS")
    if env:  # a folder named twice is read once (its every card was a duplicate of itself)
        return list(dict.fromkeys(Path(os.path.abspath(p)) for p in env.split(os.pathsep) if p))
    return [bundled_decks()]


def cache_dir() -> Path:
    """The folder of the caches (decks validated, line breaks): ``QUIZ_CACHE_DIR``, else the user cache directory."""
    env = os.environ.get("QUIZ_CACHE_DIR")
    if env:
        return Path(env)
    import platformdirs

    return Path(platformdirs.user_cache_dir("quizzer")) / "decks"
