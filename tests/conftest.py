"""Every test gets its own deck cache, database, clock and time zone, never the user's."""

from __future__ import annotations

import os
import pty
import re
import select
import sys
import time

import pytest

from quizzer import i18n


@pytest.fixture(autouse=True)
def isolated(tmp_path_factory, monkeypatch):
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("QUIZ_CACHE_DIR", str(home / "cache"))
    monkeypatch.setenv("QUIZ_DB", str(home / "quiz.db"))
    monkeypatch.delenv("QUIZ_DECKS", raising=False)
    monkeypatch.delenv("QUIZ_NOW", raising=False)
    monkeypatch.setenv("QUIZ_CONFIG", str(home / "config.toml"))  # never the developer's own settings
    for name in [n for n in os.environ if n.startswith("QUIZ_") and n.isupper()]:
        if name not in ("QUIZ_CACHE_DIR", "QUIZ_DB", "QUIZ_CONFIG"):
            monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("QUIZ_LANG", "en")  # tests read English unless they ask for Chinese
    i18n.use()
    return home


@pytest.fixture(autouse=True)
def utc_local_time(monkeypatch):
    """Study days depend on the local zone; pin it so the expected days are fixed."""
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.fixture
def deck_folder(tmp_path):
    """Write one deck's YAML into a fresh folder, for commands that take ``--decks``."""

    def write(text: str, name: str = "mini.yaml"):
        folder = tmp_path / "decks"
        folder.mkdir(exist_ok=True)
        (folder / name).write_text(text, "utf-8")
        return folder

    return write


ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07")


def run_in_terminal(args: list[str], env: dict[str, str], keys: list[str], timeout: float = 60) -> tuple[int, str]:
    """``quiz ARGS`` on a pseudo-terminal (a real tty: single keys, the editor allowed), sending
    ``keys`` one at a time, each once the program waits for input; (exit code, screen text)."""
    pid, fd = pty.fork()
    if pid == 0:  # the child: the program, with the pty as its terminal
        os.execvpe(sys.executable, [sys.executable, "-m", "quizzer", *args], {**os.environ, **env, "COLUMNS": "100"})
    output = b""
    pending = list(keys)
    answered = True  # the program has printed something since the last key
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.4)
        if ready:
            try:
                chunk = os.read(fd, 65536)
            except OSError:  # EIO: the program ended and closed the terminal
                break
            if not chunk:
                break
            output += chunk
            answered = True
        elif pending and answered and output:  # it printed, then went quiet: it waits for a key
            os.write(fd, pending.pop(0).encode())
            answered = False
    else:
        os.kill(pid, 9)
    _, status = os.waitpid(pid, 0)
    os.close(fd)
    return os.waitstatus_to_exitcode(status), ANSI.sub("", output.decode("utf-8", "replace")).replace("\r", "")
