"""An answer that waits for the database instead of being lost: another process's long write (a
history import of a large file) can hold the write lock past the busy timeout, which for an
answer on screen would end the session and drop the answer. One that cannot be saved at all (the
server went down, the disk is full) ends the command saying which answer is lost."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from quizzer.errors import DatabaseBusy, DatabaseError
from quizzer.i18n import _

T = TypeVar("T")
Waiting = Callable[[DatabaseBusy], None]  # told each time the lock was not had (the screen says so)


def patiently(write: Callable[[], T], waiting: Waiting | None, unsaved: str = "") -> T:
    """``write()``, tried again after each DatabaseBusy while someone is ``waiting``: ``write`` is
    one transaction, so a try that found the lock taken changed nothing. Ctrl-C ends the wait.
    ``unsaved``: what is lost when the write fails for good, said first in the error's hint (each
    earlier answer was its own transaction: the learner knows what to give again)."""
    while True:
        try:
            return write()
        except DatabaseError as err:
            if isinstance(err, DatabaseBusy) and waiting is not None:
                waiting(err)
                continue
            if unsaved:
                err.hint = _("{first}; {second}").format(first=unsaved, second=err.shown_hint) if err.hint else unsaved
            raise
