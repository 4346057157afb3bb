"""Writing a file so that a failure leaves the old one whole: the new content goes to a partial
file beside it, which replaces the file once complete. A symlink is written through (the file
it names is replaced and the link stays, as a dotfile manager's link to config.toml must). A
target that cannot be replaced is written in place: this process's own standard output or error
(``/dev/stdout`` while it is redirected to a file, which a replace would cut off from the shell),
a terminal or a pipe."""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import IO, Any


@contextmanager
def replacing(path: Path, mode: str = "w", **options: Any) -> Iterator[IO[Any]]:
    """A handle to write ``path``'s new content through (``mode`` and ``options`` as ``open``'s);
    an exception inside leaves ``path`` as it was and removes the partial file."""
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
    target = Path(os.path.realpath(path))
    partial = target.with_name(f".{target.name}.{os.getpid()}.partial")  # one per process: two writers never share it
    try:
        with open(partial, mode, **options) as handle:
            yield handle
        with suppress(FileNotFoundError):  # the file keeps its permissions (a 0444 config stayed 0444 no more)
            os.chmod(partial, stat.S_IMODE(os.stat(target).st_mode))
        os.replace(partial, target)
    except BaseException:
        with suppress(OSError):
            partial.unlink()
        raise


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
