"""An answer that waits for the database instead of being lost: another process's long write (a
history import of a large file) can hold the write lock past the busy timeout, which for an
answer on screen would end the session and drop the answer."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from quizzer.errors import DatabaseBusy

T = TypeVar("T")
Waiting = Callable[[DatabaseBusy], None]  # told each time the lock was not had (the screen says so)


def patiently(write: Callable[[], T], waiting: Waiting | None) -> T:
    """``write()``, tried again after each DatabaseBusy while someone is ``waiting``: ``write`` is
    one transaction, so a try that found the lock taken changed nothing. Ctrl-C ends the wait."""
    while True:
        try:
            return write()
        except DatabaseBusy as busy:
            if waiting is None:
                raise
            waiting(busy)
