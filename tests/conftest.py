"""Every test gets its own deck cache, database, clock and time zone, never the user's."""

from __future__ import annotations

import time

import pytest


@pytest.fixture(autouse=True)
def isolated(tmp_path_factory, monkeypatch):
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("QUIZ_CACHE_DIR", str(home / "cache"))
    monkeypatch.setenv("QUIZ_DB", str(home / "quiz.db"))
    monkeypatch.delenv("QUIZ_DECKS", raising=False)
    monkeypatch.delenv("QUIZ_NOW", raising=False)
    return home


@pytest.fixture(autouse=True)
def utc_local_time(monkeypatch):
    """Study days depend on the local zone; pin it so the expected days are fixed."""
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.fixture
def deck_folder(tmp_path):
    """Write one deck's YAML into a fresh folder, for commands that take ``--decks``."""

    def write(text: str, name: str = "mini.yaml"):
        folder = tmp_path / "decks"
        folder.mkdir(exist_ok=True)
        (folder / name).write_text(text, "utf-8")
        return folder

    return write
