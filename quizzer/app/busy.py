"""An answer that waits for the database instead of being lost: another process's long write (a
history import of a large file) can hold the write lock past the busy timeout, which for an
answer on screen would end the session and drop the answer; a server that cannot be reached (down,
restarting, or every connection slot taken) is tried again, pausing longer each time, for up to
the ``server_retry_seconds`` setting. One that cannot be saved at all (the server stays down, the
disk is full) ends the command saying which answer is lost."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from time import monotonic, sleep
from typing import TypeVar

from quizzer.base.defaults import SERVER_RETRY_SECONDS
from quizzer.base.errors import DatabaseBusy, DatabaseError, ServerUnavailable
from quizzer.base.i18n import _

T = TypeVar("T")
FIRST_PAUSE, LONGEST_PAUSE = 0.5, 4.0  # seconds between tries to reach the server: doubling, then steady


@dataclass(frozen=True)
class Waiting:
    """Someone on screen while a write waits: ``told`` each time the lock or the server was not had
    (the screen says so); a server that cannot be reached is tried for up to ``retry_seconds``."""

    told: Callable[[DatabaseError], None]
    retry_seconds: float = SERVER_RETRY_SECONDS


def patiently(write: Callable[[], T], waiting: Waiting | None, unsaved: str = "") -> T:
    """``write()``, tried again after each DatabaseBusy while someone is ``waiting``: ``write`` is
    one transaction, so a try that found the lock taken changed nothing; and after each
    ServerUnavailable (no connection was had: nothing was sent) for up to the waiting's
    ``retry_seconds``, pausing longer each time. Ctrl-C ends the wait. ``unsaved``: what is lost
    when the write fails for good, said first in the error's hint (each earlier answer was its own
    transaction: the learner knows what to give again)."""
    deadline: float | None = None  # from the first try that found no server
    pause = FIRST_PAUSE
    while True:
        try:
            return write()
        except DatabaseError as err:
            if isinstance(err, DatabaseBusy) and waiting is not None:
                waiting.told(err)
                continue
            if isinstance(err, ServerUnavailable) and waiting is not None:
                deadline = deadline or monotonic() + waiting.retry_seconds
                if monotonic() + pause <= deadline:
                    waiting.told(err)
                    sleep(pause)
                    pause = min(pause * 2, LONGEST_PAUSE)
                    continue
            if unsaved:
                err.hint = _("{first}; {second}").format(first=unsaved, second=err.shown_hint) if err.hint else unsaved
            raise
