"""What a user can cause, as one exception hierarchy with documented exit codes.

Every layer raises these (never a bare KeyError or a driver exception) and the CLI turns
them into one line on stderr, ``Error: <what happened>`` followed by ``<what to do>``, at one
place (``quizzer.cli.main``). ``QUIZ_DEBUG=1`` shows the traceback for bug reports.
"""

from __future__ import annotations

from enum import IntEnum
from typing import Any


class ExitCode(IntEnum):
    """The exit codes of ``quiz`` (listed in the README)."""

    OK = 0
    ERROR = 1  # something the user can fix: a deck problem, an unknown card, an unusable database
    USAGE = 2  # a bad option or argument (click's own code)
    INTERRUPTED = 130  # Ctrl-C; every answer given so far is saved


class QuizError(Exception):
    """Base of every error a user can cause. ``hint`` says what to do about it."""

    exit_code: ExitCode = ExitCode.ERROR
    hint: str = ""
    details: tuple[str, ...] = ()  # lines printed before the error line (e.g. every deck problem)

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        if hint is not None:
            self.hint = hint

    @property
    def message(self) -> str:
        return str(self.args[0])


class UsageError(QuizError):
    """An option value that cannot work (an unknown deck, tag or kind; a bad QUIZ_NOW)."""

    exit_code = ExitCode.USAGE


class UnknownName(UsageError):
    """A deck, tag, kind or checker name that the collection does not have."""

    def __init__(self, what: str, name: str, known: list[str]) -> None:
        listed = ", ".join(known[:20]) + (" ..." if len(known) > 20 else "") if known else "none"
        super().__init__(f"no {what} '{name}'", f"known: {listed}")


class CardNotFound(QuizError):
    def __init__(self, card_id: str) -> None:
        super().__init__(f"no card '{card_id}'", "`quiz decks` lists the decks; card ids are in the deck files")


class NoUnfinishedExam(QuizError):
    def __init__(self) -> None:
        super().__init__("no unfinished exam to resume", "`quiz exam` starts a new one")


class NothingToExamine(QuizError):
    def __init__(self) -> None:
        super().__init__("no cards match; nothing to examine", "loosen --deck / --tag / --kind")


class DeckProblems(QuizError):
    """Decks that cannot be used; carries every problem (``path:line:column: message``)."""

    hint = "`quiz lint` lists every problem with its line"

    def __init__(self, problems: list[Any]) -> None:  # quizzer.decks.Problem, printed path:line:column: message
        self.problems = problems
        self.details = tuple(map(str, problems))
        super().__init__(f"the decks have {len(problems)} problem(s), listed above" if problems else "the decks cannot be used")


class DatabaseError(QuizError):
    """The database cannot be used: not SQLite, damaged, unreadable, read-only, full, missing folder."""


class DatabaseTooNew(DatabaseError):
    hint = "upgrade quizzer (pip install -U quizzer), or point --db / QUIZ_DB at another database"


class DatabaseBusy(DatabaseError):
    hint = "another quiz is writing to it; finish that session and try again"


class BackupError(QuizError):
    """A backup that cannot be taken or restored (damaged, disk full, no permission)."""


class HistoryFileError(QuizError):
    """A review-history file that cannot be imported or written; the message names the file
    and, for a bad row, its line (``FILE:LINE: message``). An import is all or nothing."""

    hint = "fix the file and run the command again; nothing was imported"
