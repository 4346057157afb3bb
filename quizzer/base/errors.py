"""What a user can cause, as one exception hierarchy with documented exit codes.

Every layer raises these (never a bare KeyError or a driver exception) and the CLI turns
them into one line on stderr, ``Error: <what happened>`` followed by ``<what to do>``, at one
place (``QuizGroup.invoke`` in ``quizzer.cli.base``). ``QUIZ_DEBUG=1`` shows the traceback for bug reports.
"""

from __future__ import annotations

import errno
import os
import re
from collections.abc import Iterable
from enum import IntEnum
from typing import Any

from quizzer.base.i18n import N_, _, join, ngettext

# What printable() escapes: the controls, the bidi overrides and isolates, lone surrogates, and the
# invisible characters, so a quoted name that looks like a known one shows why it is not (zero-width
# spaces, joiners and direction marks, line and paragraph separators, the word joiner and invisible
# operators, the byte-order mark)
_UNPRINTABLE = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u2069\ufeff\ud800-\udfff]")
_LONGEST = 1000  # characters of one file name or message shown (a message can quote a long text)


_OS_REASONS = {
    errno.ENOENT: N_("no such file or folder"), errno.EACCES: N_("permission denied"),
    errno.EPERM: N_("operation not permitted"), errno.EISDIR: N_("it is a folder"),
    errno.ENOTDIR: N_("part of the path is not a folder"), errno.ENOSPC: N_("no space left on the disk"),
    errno.EROFS: N_("the file system is read-only"), errno.ENAMETOOLONG: N_("the name is too long"),
    errno.EEXIST: N_("a file of that name is already there"), errno.ECONNREFUSED: N_("the connection was refused"),
    errno.ETIMEDOUT: N_("the connection timed out"), errno.EHOSTUNREACH: N_("no route to the host"),
    errno.ENETUNREACH: N_("the network is unreachable"),
}


def os_reason(err: OSError) -> str:
    """Why a file could not be read or written, in the interface language: the system's own
    words (``strerror``) are English whatever the interface, so the common ones are ours."""
    known = _OS_REASONS.get(err.errno or 0)
    return _(known) if known else str(err.strerror or err)


def system_words(text: str) -> str:
    """``text`` in the interface language where it is the system's words for a common error
    (a driver passes ``strerror`` on as text: libpq's "Connection refused"), else as it is."""
    number = next((number for number in _OS_REASONS if os.strerror(number) == text), None)
    return os_reason(OSError(number, text)) if number is not None else text


def printable(given: str | os.PathLike[str]) -> str:
    """``given`` on one line, the characters a terminal would obey written as escapes (``\\x1b``), cut
    if long: a message quotes what the user gave (a key, an id, a file name) and a hostile deck."""
    text = os.fspath(given)
    text = text if len(text) <= _LONGEST else text[: _LONGEST - 1] + "…"
    return _UNPRINTABLE.sub(lambda m: m.group().encode("unicode_escape", "backslashreplace").decode("ascii"), text)


class ExitCode(IntEnum):
    """The exit codes of ``quiz`` (listed in the README)."""

    OK = 0
    ERROR = 1  # something the user can fix: a deck problem, an unknown card, an unusable database
    USAGE = 2  # a bad option or argument (click's own code)
    INTERRUPTED = 130  # Ctrl-C; every answer given so far is saved
    PIPE_CLOSED = 141  # the output's reader went away (`quiz cards | head`), as a shell reports SIGPIPE


class QuizError(Exception):
    """Base of every error a user can cause. ``hint`` says what to do about it."""

    exit_code: ExitCode = ExitCode.ERROR
    hint: str = ""  # a class's own hint is marked with N_ and translated when shown
    details: tuple[str, ...] = ()  # lines printed before the error line (e.g. every deck problem)

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        if hint is not None:
            self.hint = hint

    @property
    def message(self) -> str:
        return str(self.args[0])

    @property
    def shown_hint(self) -> str:
        """The hint in the UI language (a class's hint is an untranslated catalogue id)."""
        return _(self.hint) if self.hint else ""


class UsageError(QuizError):
    """An option value that cannot work (an unknown deck, tag or kind; a bad QUIZ_NOW)."""

    exit_code = ExitCode.USAGE


class UnknownName(UsageError):
    """A deck, tag, kind or checker name that the collection does not have."""

    WHAT = (N_("deck"), N_("tag"), N_("kind"), N_("checker"))  # ``what``, shown translated

    def __init__(self, what: str, name: str, known: list[str]) -> None:
        listed = join(known[:20]) + (" ..." if len(known) > 20 else "") if known else _("none")
        super().__init__(_("no {what} '{name}'").format(what=_(what), name=name), _("known: {names}").format(names=listed))


class CardNotFound(QuizError):
    def __init__(self, card_id: str, known: Iterable[str] = ()) -> None:
        import difflib

        like = difflib.get_close_matches(card_id, list(known), n=3, cutoff=0.6)  # a typo, or a prefix typed
        like += [one for one in sorted(known) if card_id and one.startswith(card_id) and one not in like][:3 - len(like)]
        hint = _("`quiz cards` lists the cards; card ids are in the deck files")
        if like:
            hint = _("did you mean {ids}? {hint}").format(ids=join(like), hint=hint)
        super().__init__(_("no card '{id}'").format(id=card_id), hint)


class NoUnfinishedExam(QuizError):
    def __init__(self) -> None:
        super().__init__(_("no unfinished exam to resume"), _("`quiz exam` starts a new one"))


class NoDecks(QuizError):
    def __init__(self) -> None:
        super().__init__(_("no decks: the deck folders hold no deck files (*.yaml, *.yml)"),
                         _("--decks DIR or QUIZ_DECKS names a folder of decks"))


class NothingToExamine(QuizError):
    def __init__(self) -> None:
        super().__init__(_("no cards match; nothing to examine"), _("loosen --deck / --tag / --kind"))


MAX_PROBLEMS = 100  # problems listed per deck file; one last problem says that more are not listed
UNLISTED = N_("more problems in this file are not listed; fix these first")  # an id: shown through _()


class DeckProblems(QuizError):
    """Decks that cannot be used; carries every problem (``path:line:column: message``)."""

    hint = N_("`quiz lint` lists the problems with their lines")

    def __init__(self, problems: list[Any]) -> None:  # quizzer.decks.Problem, printed path:line:column: message
        self.problems = problems
        self.details = tuple(map(str, problems))
        listed, cut = listed_problems(problems)
        if not problems:
            message = _("the decks cannot be used")
        elif cut:
            message = ngettext("the decks have more than {count} problem; the first are listed above",
                               "the decks have more than {count} problems; the first are listed above", listed)
        else:
            message = ngettext("the decks have {count} problem, listed above", "the decks have {count} problems, listed above",
                               listed)
        super().__init__(message.format(count=listed))


def listed_problems(problems: list[Any]) -> tuple[int, bool]:
    """How many problems are listed, and whether a file's list was cut (its UNLISTED line, no
    problem of its own: counted, it understated how many there are)."""
    listed = sum(problem.message != _(UNLISTED) for problem in problems)
    return listed, listed < len(problems)


def problems_counted(problems: list[Any]) -> str:
    """``3 problems``, or ``more than 100 problems`` when a list was cut."""
    listed, cut = listed_problems(problems)
    return (ngettext("more than {count} problem", "more than {count} problems", listed) if cut else
            ngettext("{count} problem", "{count} problems", listed)).format(count=listed)


class DatabaseError(QuizError):
    """The database cannot be used: not SQLite, damaged, unreadable, read-only, full, missing folder."""


class DatabaseTooNew(DatabaseError):
    hint = N_("upgrade quizzer (pip install -U quizzer), or point --db / QUIZ_DB at another database")


class SchemaMismatch(DatabaseError):
    """A table of the schema the database names is gone; ``problems`` names each (``missing table
    mistakes``), which ``quiz check`` lists as its problems."""

    def __init__(self, message: str, hint: str, problems: list[str]) -> None:
        super().__init__(message, hint)
        self.problems = problems


class UnreadCollection(DatabaseError):
    """Another learner's collection on the server that cannot be read: this login has no rights to
    it, or it is damaged (a table or column gone). The class report leaves it out."""


class OtherSchemaVersion(UnreadCollection):
    """Another learner's collection on the server is at a schema version this quizzer does not
    read (it is upgraded by its own learner's quiz, never by a reader)."""

    def __init__(self, message: str, hint: str, version: str) -> None:
        super().__init__(message, hint)
        self.version = version


class ConnectionLost(DatabaseError):
    """The server closed the connection mid-command: the transaction in progress was rolled back
    (or, if the connection went during its commit, may have been committed)."""


class ServerUnavailable(DatabaseError):
    """No connection to the server could be had (it is down, or has no free connection slot):
    nothing was sent, so the write may be tried again as it was."""


class DatabaseBusy(DatabaseError):
    hint = N_("another quiz is writing to it; finish that session and try again")


class BackupError(QuizError):
    """A backup that cannot be taken or restored (damaged, disk full, no permission)."""


class UntrustedBackup(BackupError):
    """A backup holding what quizzer does not put there: a table, column, index, trigger or view
    its schema revision does not have, or rows ``quiz check`` flags. Bad input, as a bad option is."""

    exit_code = ExitCode.USAGE


class HistoryFileError(QuizError):
    """A review-history file that cannot be imported or written; the message names the file
    and, for a bad row, its line (``FILE:LINE: message``). An import is all or nothing."""

    hint = N_("fix the file and run the command again; nothing was imported")
