"""Reading deck files, which come from pull requests and so are assumed hostile.

Only regular files are opened (a FIFO or a device never is), a file larger than
:data:`MAX_DECK_BYTES` is refused from its size before it is read, and the read itself stops
there. Reading never leaves the repository: inside a git work tree, a deck file or folder whose
real path is outside the work tree's real path is refused unopened, whether the symlink is the
file, a folder on the way or the folder given; a symlinked deck file stays in its own folder.
The YAML limits (depth, values, text length, control characters) are in ``yamlsource``.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import BinaryIO, Iterable

from quizzer.decks.problems import Problem
from quizzer.base.errors import os_reason
from quizzer.base.files import special_kind
from quizzer.base.i18n import _

DECK_SUFFIXES = (".yaml", ".yml")
MAX_DECK_BYTES = 8_000_000  # the shipped decks are 60, 74 and 9 kB; bench/bench_decks.py's 10,000 cards are 5.5 MB


def deck_files(paths: Iterable[Path]) -> list[Path]:
    """The deck files of the given files and folders. A folder that leads out of its repository
    is not listed: it stands for itself, and reading it says why it is refused."""
    files: list[Path] = []
    for path in paths:
        if path.is_dir() and leaves_repository(path) is None:
            files.extend(sorted(p for p in path.iterdir() if p.suffix in DECK_SUFFIXES))
        else:
            files.append(path)
    return files


def display(path: Path) -> str:
    """A path as a contributor would type it: relative to the working directory if inside.

    The file keeps its own name even when it is a symlink (and a symlink loop is no error here).
    """
    try:
        return str((Path(os.path.realpath(path.parent)) / path.name).relative_to(Path.cwd()))
    except (ValueError, OSError):
        return str(path)


def work_tree(path: Path) -> Path | None:
    """The git work tree ``path`` lies in, as written: the nearest folder at or above it that
    holds a ``.git`` entry, found without running git. A folder that is a symlink is passed
    over (its target's ``.git`` is another repository's)."""
    start = Path(os.path.abspath(path))
    for folder in (start, *start.parents):
        if not os.path.islink(folder) and os.path.lexists(folder / ".git"):
            return folder
    return None


def _inside(target: str, folder: str) -> bool:
    """Whether ``target`` is ``folder`` or below it."""
    try:
        return os.path.commonpath([target, folder]) == folder
    except ValueError:  # different drives
        return False


def leaves_repository(path: Path) -> str | None:
    """Why reading the deck file or folder ``path`` would leave its git work tree, or None.

    Outside a work tree the folder given is the boundary, which a folder never leaves, and a
    file's own folder is held by the symlink rule of :func:`read_bytes`."""
    tree = work_tree(path)
    if tree is None:
        return None
    real_tree = os.path.realpath(tree)
    if _inside(os.path.realpath(path), real_tree):
        return None
    return _("leads outside the git work tree {tree} (a symlink); decks are read only inside it").format(tree=tree)


_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)


def _is_symlink(path: Path) -> bool:
    try:
        return stat.S_ISLNK(os.lstat(path).st_mode)
    except OSError:
        return False


def _not_regular(path: Path, mode: int) -> str:
    what = special_kind(mode)
    if _is_symlink(path):
        return _("not a regular file (a symlink to {what}); a deck is a plain file").format(what=what)
    return _("not a regular file ({what}); a deck is a plain file").format(what=what)


def read_bytes(path: Path) -> bytes | str:
    """The bytes of a regular file of at most MAX_DECK_BYTES, or why it is not read.

    Nothing outside the repository is opened (:func:`leaves_repository`), a FIFO or a device
    never is (the type is checked before), the open does not block (O_NONBLOCK, in case the file
    was swapped since), the read stops past the limit, and a symlink is followed only within its
    folder: a deck must not link to a file elsewhere on the machine that checks it (lint would
    quote it).
    """
    try:
        if (leaving := leaves_repository(path)) is not None:
            return leaving
        info = os.stat(path)  # follows symlinks; a loop is ELOOP
        if not stat.S_ISREG(info.st_mode):
            return _not_regular(path, info.st_mode)
        if _is_symlink(path) and not _inside(os.path.realpath(path), os.path.realpath(path.parent)):
            return _("a symlink to a file outside its folder; a deck file stays in the deck folder (copy it in)")
        if info.st_size > MAX_DECK_BYTES:
            return _too_large(info.st_size)
        fd = os.open(path, _OPEN_FLAGS)
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                return _not_regular(path, info.st_mode)
            chunks: list[bytes] = []
            size = 0
            while size <= MAX_DECK_BYTES:
                chunk = os.read(fd, min(1 << 20, MAX_DECK_BYTES + 1 - size))
                if not chunk:
                    break
                chunks.append(chunk)
                size += len(chunk)
        finally:
            os.close(fd)
    except OSError as err:
        if err.errno == errno.ELOOP:
            return _("symlink loop")
        if err.errno == errno.ENOENT and _is_symlink(path):
            return _("symlink to a file that does not exist")
        return _("cannot read: {reason}").format(reason=os_reason(err))
    if size > MAX_DECK_BYTES:  # it grew since, or its size said 0 (/proc)
        return _too_large(None)
    return b"".join(chunks)


def _too_large(size: int | None) -> str:
    limit = MAX_DECK_BYTES // 1_000_000
    if size is None:
        return _("the file is larger than the {limit} MB a deck may be; split it").format(limit=limit)
    return _("the file is {size} MB, larger than the {limit} MB a deck may be; split it").format(size=f"{size / 1e6:.1f}", limit=limit)


def read_stream(stream: BinaryIO, path: Path) -> tuple[str | None, bytes | None, list[Problem]]:
    """As :func:`read_file`, from a stream already open (standard input) that ``path`` names in messages."""
    raw = stream.read(MAX_DECK_BYTES + 1)
    if len(raw) > MAX_DECK_BYTES:
        return None, None, [Problem(str(path), 1, 1, _too_large(None))]
    text, problems = decode(path, raw)
    return text, raw, problems


def read_file(path: Path) -> tuple[str | None, bytes | None, list[Problem]]:
    """The file's text (and bytes, the cache key), or the problem that stops reading it."""
    raw = read_bytes(path)
    if isinstance(raw, str):
        return None, None, [Problem(display(path), 1, 1, raw)]
    text, problems = decode(path, raw)
    return text, raw, problems


def decode(path: Path, raw: bytes) -> tuple[str | None, list[Problem]]:
    """The text of a deck file's bytes, or where it is not UTF-8."""
    try:
        return raw.decode("utf-8"), []
    except UnicodeDecodeError as err:
        line = raw[: err.start].count(b"\n") + 1
        return None, [Problem(display(path), line, 1, _("the file is not UTF-8"))]
