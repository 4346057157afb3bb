"""Writing a file so that a failure leaves the old one whole, and a file said to be written is on
the disk as it was meant: the new content goes to a temporary file in the same folder, is synced
to the disk and checked once closed (read back), and only then replaces the file, whose folder is
synced too. A symlink is written through (the file it names is replaced and the link stays, as a
dotfile manager's link to config.toml must). A target that cannot be replaced is written in
place: this process's own standard output or error (``/dev/stdout`` while it is redirected to a
file, which a replace would cut off from the shell), a terminal or a pipe."""

from __future__ import annotations

import errno
import glob
import os
import stat
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import IO, Any

from quizzer.base.errors import QuizError, os_reason, printable
from quizzer.base.i18n import N_, _

FileCheck = Callable[[Path], None]  # reads the closed temporary file; raises OSError when it is not as meant
JOURNALS = ("-journal", "-wal", "-shm")  # what SQLite may put beside a database file


@contextmanager
def replaced(path: Path) -> Iterator[Path]:
    """A temporary path beside ``path`` to write its new content to (by name: a database through
    SQLite). The block writes and checks it; once the block ends without an exception, the file
    is synced, takes ``path``'s permissions and replaces it, and the folder is synced. An exception
    leaves ``path`` as it was and removes the temporary file and any journal beside it."""
    target = Path(os.path.realpath(path))
    partial = target.with_name(f".{target.name}.{os.getpid()}.partial")  # one per process: two writers never share it
    try:
        remove_database(partial)  # a killed writer's, of the same process id: SQLite would replay its journal
        _remove_stale_partials(target)
        yield partial
        _sync(partial)
        with suppress(FileNotFoundError):  # the file keeps its permissions (a 0444 config stays 0444)
            os.chmod(partial, stat.S_IMODE(os.stat(target).st_mode))
        os.replace(partial, target)
        _sync(target.parent)
    except BaseException:
        remove_database(partial)
        raise


@contextmanager
def replacing(path: Path, mode: str = "w", check: FileCheck | None = None, **options: Any) -> Iterator[IO[Any]]:
    """A handle to write ``path``'s new content through (``mode`` and ``options`` as ``open``'s),
    synced before it is closed and given to ``check`` after (see ``replaced``); an exception
    inside leaves ``path`` as it was and removes the partial file."""
    stream = _own_stream(path)
    if stream is not None:  # at its own offset, appending where the shell appends: no truncation
        stream.flush()
        with os.fdopen(os.dup(stream.fileno()), mode, **options) as handle:
            yield handle
        return
    if path.exists() and not path.is_file():  # followed through links: a terminal or a pipe
        with open(path, mode, **options) as handle:
            yield handle
        return
    with replaced(path) as partial:
        with open(partial, mode, **options) as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        if check is not None:
            check(partial)


def write_whole(path: Path, data: bytes, check: FileCheck | None = None) -> None:
    """``data`` as ``path``'s content (see ``replacing``), read back equal to it and passing
    ``check`` before it replaces ``path``; a failure is a QuizError naming its cause."""
    def read_back(written: Path) -> None:
        if written.read_bytes() != data:
            raise OSError(errno.EIO, _("the file read back differs from what was written"))
        if check is not None:
            check(written)

    try:
        with replacing(path, "wb", read_back) as handle:
            handle.write(data)
    except OSError as exc:
        raise not_written(path, exc) from None


def not_written(path: Path, exc: BaseException) -> QuizError:
    """The error for a file that could not be written: its cause in a few words, and what to do."""
    reason, hint = write_failure(exc)
    return QuizError(_("{file}: cannot be written: {reason}").format(file=printable(path), reason=reason),
                     hint or _("check that its folder exists and is writable"))


_SQLITE_FULL, _SQLITE_READONLY = 13, 8  # SQLite's primary result codes
_FULL_HINT = N_("free some disk space and try again")
_PERMISSION_HINT = N_("make the folder writable and try again")


def write_failure(exc: BaseException) -> tuple[str, str | None]:
    """Why a write failed (an OSError, or SQLite's error writing a database), in a few words (the
    disk is full, no permission, or the error's own text), and what to do about it when that is clear."""
    if isinstance(exc, OSError):
        if exc.errno in (errno.ENOSPC, errno.EDQUOT):
            return _("the disk is full"), _(_FULL_HINT)
        if isinstance(exc, PermissionError) or exc.errno == errno.EROFS:
            return _("no permission to write: {reason}").format(reason=os_reason(exc)), _(_PERMISSION_HINT)
        return one_line(_("{reason}: {file}").format(reason=os_reason(exc), file=exc.filename) if exc.filename
                        else os_reason(exc)), None
    code = getattr(exc, "sqlite_errorcode", None)  # Python 3.11+; else SQLite's message
    primary = code & 0xFF if code is not None else None
    if primary == _SQLITE_FULL or "database or disk is full" in str(exc):
        return _("the disk is full"), _(_FULL_HINT)
    if primary == _SQLITE_READONLY or "readonly database" in str(exc):  # SQLite's own English said nothing more
        return _("no permission to write"), _(_PERMISSION_HINT)
    return one_line(str(exc)), None


def one_line(text: str) -> str:
    return " ".join(text.split())


def remove_database(path: Path) -> None:
    """Delete a failed copy and any journal SQLite left beside it (what cannot be deleted stays)."""
    for leftover in (path, *(path.with_name(path.name + suffix) for suffix in JOURNALS)):
        with suppress(OSError):
            leftover.unlink(missing_ok=True)


STALE_PARTIAL_SECONDS = 600  # a partial file this old whose writer is gone is a killed writer's leftover


def _remove_stale_partials(target: Path) -> None:
    """Delete the partial files other writers of ``target`` left when they were killed: those whose
    process is gone and that were last written over ``STALE_PARTIAL_SECONDS`` ago (the age keeps a
    writer on another machine sharing the folder, whose process id means nothing here, safe)."""
    now = time.time()
    for leftover in target.parent.glob(f".{glob.escape(target.name)}.*.partial"):
        pid = leftover.name[len(target.name) + 2:-len(".partial")]
        with suppress(OSError, ValueError):
            if now - leftover.stat().st_mtime > STALE_PARTIAL_SECONDS and not _process_alive(int(pid)):
                remove_database(leftover)


def _process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # alive, another user's
        return True
    return True


def _sync(path: Path) -> None:
    """Flush ``path`` (a file or a folder: a rename is in its folder) to the disk."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


_FILE_TYPES = ((stat.S_ISDIR, N_("a folder")), (stat.S_ISFIFO, N_("a named pipe")), (stat.S_ISCHR, N_("a character device")),
               (stat.S_ISBLK, N_("a block device")), (stat.S_ISSOCK, N_("a socket")))


def special_kind(mode: int) -> str:
    """What a file that is not a regular one is (``os.stat``'s ``mode``), in the interface language."""
    return _(next((name for test, name in _FILE_TYPES if test(mode)), N_("a special file")))


def _own_stream(path: Path) -> IO[str] | None:
    """Standard output or error, if ``path`` names the very file it writes to."""
    try:
        named = os.stat(path)
    except (OSError, ValueError):
        return None
    for stream in (sys.stdout, sys.stderr):
        with suppress(OSError, ValueError, AttributeError):
            if stream is not None and os.path.samestat(named, os.fstat(stream.fileno())):
                return stream
    return None
