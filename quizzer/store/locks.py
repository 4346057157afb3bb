"""How long quizzer waits for another process's write lock on the database before giving up
with DatabaseBusy: the store's every write, and a backup's restore, which writes through SQLite."""

from __future__ import annotations

import os

from quizzer.base.errors import DatabaseBusy, UsageError
from quizzer.base.i18n import _

BUSY_TIMEOUT_MS = 10_000
BUSY_TIMEOUT_ENV = "QUIZ_BUSY_TIMEOUT_MS"  # overrides BUSY_TIMEOUT_MS (the tests use a short one)


def busy_timeout_ms() -> int:
    """BUSY_TIMEOUT_MS, or ``$QUIZ_BUSY_TIMEOUT_MS`` when set."""
    value = os.environ.get(BUSY_TIMEOUT_ENV, "").strip()
    if not value:
        return BUSY_TIMEOUT_MS
    try:
        timeout = int(value)
    except ValueError:
        timeout = -1
    if timeout < 0:
        raise UsageError(_("{variable}={value} is not a number of milliseconds").format(
            variable=BUSY_TIMEOUT_ENV, value=repr(value)))
    return timeout


def locked(where: object) -> DatabaseBusy:
    """The error for a database another process held locked past the busy timeout."""
    return DatabaseBusy(_("{where} is locked: another process held its write lock for more than {seconds} s").format(
        where=where, seconds=f"{busy_timeout_ms() / 1000:g}"))
