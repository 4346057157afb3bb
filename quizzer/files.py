"""Writing a file so that a failure leaves the old one whole: the new content goes to a partial
file beside it, which replaces the file once complete. A symlink is written through (the file
it names is replaced and the link stays, as a dotfile manager's link to config.toml must), and a
target that is not a regular file (a terminal, a pipe, ``/dev/stdout``) is written in place,
since it cannot be replaced."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import IO, Any


@contextmanager
def replacing(path: Path, mode: str = "w", **options: Any) -> Iterator[IO[Any]]:
    """A handle to write ``path``'s new content through (``mode`` and ``options`` as ``open``'s);
    an exception inside leaves ``path`` as it was and removes the partial file."""
    if path.exists() and not path.is_file():  # followed through links: /dev/stdout names a pipe or terminal
        with open(path, mode, **options) as handle:
            yield handle
        return
    target = Path(os.path.realpath(path))
    partial = target.with_name(f".{target.name}.{os.getpid()}.partial")  # one per process: two writers never share it
    try:
        with open(partial, mode, **options) as handle:
            yield handle
        os.replace(partial, target)
    except BaseException:
        with suppress(OSError):
            partial.unlink()
        raise
