"""Storage: open the database, keep its schema current, sync deck cards."""

from __future__ import annotations

from pathlib import Path

from quizzer.store.engine import Store, default_db_path, make_engine, resolve
from quizzer.store.models import NEW, LEARNING, REVIEW, RELEARNING, LEECH_TAG, Card, CardTag, Exam, ExamQuestion, Meta, Mistake, Review
from quizzer.store.schema import SCHEMA_HEAD, ensure_schema
from quizzer.store.sync import CardRef, SyncResult, sync_cards


def open_store(url_or_path: str | Path | None = None) -> Store:
    """Open (creating or upgrading as needed) the database.

    None means ``$QUIZ_DB`` or else ``quizzer.db`` in the platform user data dir;
    a string containing ``://`` is a SQLAlchemy URL, anything else a file path.
    """
    url, path = resolve(url_or_path)
    store = Store(make_engine(url, path), path)
    ensure_schema(store)
    return store


__all__ = [
    "NEW", "LEARNING", "REVIEW", "RELEARNING", "LEECH_TAG", "SCHEMA_HEAD",
    "Card", "CardRef", "CardTag", "Exam", "ExamQuestion", "Meta", "Mistake", "Review", "Store", "SyncResult",
    "default_db_path", "open_store", "sync_cards",
]
