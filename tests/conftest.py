"""Every test gets its own database, clock and time zone, never the user's; the deck cache and the
migrated schema are built once per session (per xdist worker) and shared.

Two suites: ``python -m pytest`` runs the tests that stay in this process; ``python -m pytest -m
slow`` the ones that start a process, a pseudo-terminal, tmux or a PostgreSQL server, or run for
long (docs/testing.md). A test not marked ``slow`` that starts a process fails.
"""

from __future__ import annotations

import os
import pty
import re
import select
import sqlite3
import subprocess
import sys
import threading
import time
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

# No per-example deadline anywhere: a shared machine's pause of a quarter second is not a failure.
# `dev` (the default) tries few examples, so the suite answers in minutes; `ci-slow`
# (--hypothesis-profile ci-slow, as .ci/run runs the property tests) tries hypothesis's own default.
settings.register_profile("dev", max_examples=25, deadline=None)
settings.register_profile("ci-slow", max_examples=100, deadline=None)
settings.load_profile("dev")

os.environ["QUIZ_LANG"] = "en"  # the tests' language, unless a test gives its run another
from quizzer.base import i18n  # noqa: E402

from pg import backend, pg_server  # noqa: F401  (fixtures: a throw-away PostgreSQL server)


# the head of the small test decks: their cards follow it
MINI_DECK = 'id: mini\ntitle: Mini\nlanguage: zh\nsource: {file: course.txt, sections: "1"}\ncards:\n'

@pytest.fixture(scope="session")
def shared_deck_cache(tmp_path_factory) -> Path:
    """The session's deck cache: keyed by a deck's bytes and the validating code, so every test
    may read what another cached (tests of the cache itself take ``own_deck_cache``)."""
    return tmp_path_factory.mktemp("deck-cache")


@pytest.fixture(autouse=True)
def isolated(tmp_path_factory, monkeypatch, shared_deck_cache):
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("QUIZ_CACHE_DIR", str(shared_deck_cache))
    monkeypatch.setenv("QUIZ_DB", str(home / "quiz.db"))
    monkeypatch.delenv("QUIZ_DECKS", raising=False)
    monkeypatch.delenv("QUIZ_NOW", raising=False)
    monkeypatch.setenv("QUIZ_CONFIG", str(home / "config.toml"))  # never the developer's own settings
    for name in [n for n in os.environ if n.startswith("QUIZ_") and n.isupper()]:
        if name not in ("QUIZ_CACHE_DIR", "QUIZ_DB", "QUIZ_CONFIG"):
            monkeypatch.delenv(name, raising=False)
    for name in [n for n in os.environ if n.startswith("PG") and n.isupper()]:  # libpq's: PGUSER names the learner
        monkeypatch.delenv(name)
    monkeypatch.setenv("QUIZ_LANG", "en")  # tests read English unless they ask for Chinese
    monkeypatch.delenv("PYTHONOPTIMIZE", raising=False)  # a child process's own asserts are part of some tests
    i18n.use()
    return home


@pytest.fixture
def own_deck_cache(isolated, monkeypatch) -> Path:
    """A deck cache of this test's own, empty at its start: for tests that count, age or damage
    the cache's files."""
    folder = isolated / "cache"
    monkeypatch.setenv("QUIZ_CACHE_DIR", str(folder))
    return folder


def dumped_schema(path: Path) -> list[str]:
    """The SQL statements that rebuild the SQLite database ``path``: its tables, indexes, triggers
    and views in the order they were made (so their pages come in the same order), then its rows."""
    with sqlite3.connect(path) as conn:
        made = conn.execute("SELECT sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' ORDER BY rowid")
        return [sql for (sql,) in made] + [line for line in conn.iterdump() if line.startswith("INSERT INTO")]


@pytest.fixture(scope="session")
def migrated_template(tmp_path_factory) -> list[str]:
    """A SQLite database the migrations brought to the schema head, built once per session, as
    the statements that copy it."""
    from quizzer.store import open_store

    folder = tmp_path_factory.mktemp("template")
    with pytest.MonkeyPatch.context() as env:  # never the developer's own settings
        env.setenv("QUIZ_CONFIG", str(folder / "config.toml"))
        open_store(folder / "quiz.db").close()
    return dumped_schema(folder / "quiz.db")


@pytest.fixture(autouse=True)
def copied_template(request, monkeypatch, migrated_template) -> None:
    """A new, empty SQLite database gets the template's copy instead of running the migrations
    (the same tables, indexes and version stamp: tests/test_suite.py compares them). Databases
    with tables, other revisions and PostgreSQL run the migrations; so does every test marked
    ``real_migrations``."""
    if request.node.get_closest_marker("real_migrations"):
        return
    from alembic import command

    monkeypatch.setattr(command, "upgrade", upgrade_from_template(command.upgrade, migrated_template))


def upgrade_from_template(migrate: Any, template: list[str]) -> Any:
    """alembic's ``command.upgrade`` (``migrate``) that copies ``template`` into a new, empty SQLite
    database brought to the head, and migrates every other database."""
    from sqlalchemy import inspect

    def upgrade(config: Any, revision: str, *args: Any, **kwargs: Any) -> None:
        conn = config.attributes.get("connection")
        if revision != "head" or conn is None or conn.dialect.name != "sqlite" or inspect(conn).get_table_names():
            return migrate(config, revision, *args, **kwargs)
        for statement in template:
            conn.exec_driver_sql(statement)

    return upgrade


class StartsAProcess(AssertionError):
    """A test outside the slow suite started a process."""


PROCESS_STARTERS = [(subprocess, "Popen"), (os, "fork"), (os, "forkpty"), (pty, "fork"), (os, "system"),
                    (os, "posix_spawn"), (os, "posix_spawnp"), (os, "spawnv"), (os, "spawnve"), (os, "spawnvp"),
                    (os, "spawnvpe"), (os, "execv"), (os, "execve"), (os, "execvp"), (os, "execvpe")]
PROCESS_HELPERS = {"Terminal", "run_in_terminal"}  # a test naming one drives a program on a pseudo-terminal


def starts_processes(item: pytest.Item) -> bool:
    """Whether a test is in the slow suite by what it uses: a pseudo-terminal helper, or the
    PostgreSQL server."""
    callspec = getattr(item, "callspec", None)
    if "pg_server" in getattr(item, "fixturenames", ()) or (callspec and callspec.params.get("backend") == "postgresql"):
        return True
    code = getattr(getattr(item, "function", None), "__code__", None)
    return code is not None and not PROCESS_HELPERS.isdisjoint(code.co_names)


@pytest.hookimpl(tryfirst=True)  # before `-m` selects by marker
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if starts_processes(item):
            item.add_marker(pytest.mark.slow)


@pytest.fixture(autouse=True)
def in_process_unless_slow(request, monkeypatch) -> None:
    """Outside the slow suite every way of starting a process raises StartsAProcess, so a test
    that starts one unmarked fails instead of slowing the fast suite down."""
    if request.node.get_closest_marker("slow"):
        return

    def refused(*args: Any, **kwargs: Any) -> Any:
        raise StartsAProcess("this test starts a process: mark it @pytest.mark.slow (docs/testing.md)")

    for module, name in PROCESS_STARTERS:
        if hasattr(module, name):
            monkeypatch.setattr(module, name, refused)


@pytest.fixture(autouse=True)
def utc_local_time(monkeypatch):
    """Study days depend on the local zone; pin it so the expected days are fixed."""
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


BACKGROUND_WORK = ("solve-", "torch-prewarm")  # quizzer's own threads: a numeric card's solve, torch loading


@pytest.fixture(autouse=True)
def background_work_finished(isolated, utc_local_time):
    """A test ends once the background work its commands set going has: a command run in process
    (CliRunner) returns with a numeric card's solve and torch's loading still running, and they
    went on through the next test, whose CliRunner swaps the standard streams and the environment."""
    before = set(threading.enumerate())
    yield
    for thread in set(threading.enumerate()) - before:
        if thread.name.startswith(BACKGROUND_WORK):
            thread.join()


@pytest.fixture(scope="session")
def bench_plan():
    """bench/bench_plan.py as a module, for tests that run its simulated learner."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("bench_plan", Path(__file__).resolve().parents[1] / "bench" / "bench_plan.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_plan"] = module  # its dataclasses look their module up
    try:
        spec.loader.exec_module(module)
        yield module
    finally:
        sys.modules.pop("bench_plan", None)


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


def recall_now(scheduler: Any, card: Any, now: datetime) -> float:
    """What a card's recall now must be: py-fsrs's ``get_card_retrievability`` formula and
    constants, on the fractional days elapsed (py-fsrs floors them, Anki does not), never negative."""
    days = max(0.0, (now - card.last_review).total_seconds() / 86400)
    return float((1 + scheduler._FACTOR * days / card.stability) ** scheduler._DECAY)


def fsrs_by_study_days(scheduler: Any, card: Any, rating: int, now: datetime) -> Any:
    """py-fsrs's card after ``rating`` with the days elapsed counted as Anki counts them, in study
    days from 04:00 (a review at 08:00 after one at 09:00 the day before: 1 day, where py-fsrs
    counts 0 whole days)."""
    import fsrs

    from quizzer.base import clock

    if card.last_review is not None:
        days = (clock.study_day(now) - clock.study_day(card.last_review)).days
        card = fsrs.Card(card_id=card.card_id, state=card.state, step=card.step, stability=card.stability,
                         difficulty=card.difficulty, due=card.due, last_review=now - timedelta(days=days))
    reviewed, _ = scheduler.review_card(card, fsrs.Rating(rating), now)
    return reviewed


def run_in_terminal(args: list[str], env: dict[str, str], keys: list[str], timeout: float = 60) -> tuple[int, str]:
    """``quiz ARGS`` on a pseudo-terminal (a real tty: single keys, the editor allowed), sending
    ``keys`` one at a time, each once the program waits for input; (exit code, screen text)."""
    pid, fd = pty.fork()
    if pid == 0:  # the child: the program, with the pty as its terminal
        os.execvpe(sys.executable, [sys.executable, "-m", "quizzer", *args], {**os.environ, "COLUMNS": "100", **env})
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


class Terminal:
    """``quiz ARGS`` on a pseudo-terminal of ``columns`` x ``rows``, driven step by step: wait for
    text, send keys (escape sequences too: ``"\x1b[D"`` is the left arrow). Answers the cursor
    position requests a line editor makes, as a real terminal does. Use in a ``with`` block."""

    def __init__(self, args: list[str], env: dict[str, str], columns: int = 100, rows: int = 30,
                 resizable: bool = False) -> None:
        """``resizable``: no COLUMNS and LINES in the environment (they would fix the size), so the
        program reads the terminal's and :meth:`resize` can change it."""
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            self._size(0, columns, rows)
            sized = {} if resizable else {"COLUMNS": str(columns), "LINES": str(rows)}
            environ = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES") or not resizable}
            os.execvpe(sys.executable, [sys.executable, "-m", "quizzer", *args], {**environ, **env, **sized, "TERM": "xterm"})
        self.raw = b""
        self.code: int | None = None

    @property
    def text(self) -> str:
        """Everything shown so far, without escape sequences."""
        return ANSI.sub("", self.raw.decode("utf-8", "replace")).replace("\r", "")

    def _read(self, wait: float) -> bool:
        """Read what the program printed within ``wait`` seconds; False once it has ended."""
        if not select.select([self.fd], [], [], wait)[0]:
            return True
        try:
            chunk = os.read(self.fd, 65536)
        except OSError:  # EIO: the program ended
            chunk = b""
        if chunk.count(b"\x1b[6n"):  # where is the cursor? (prompt_toolkit asks before drawing)
            os.write(self.fd, b"\x1b[1;1R" * chunk.count(b"\x1b[6n"))
        self.raw += chunk
        return bool(chunk)

    def expect(self, text: str, timeout: float = 60, after: int = 0) -> int:
        """Wait until ``text`` is on screen (after position ``after`` of :attr:`text`); its end."""
        deadline = time.monotonic() + timeout
        while text not in self.text[after:]:
            if time.monotonic() > deadline or not self._read(0.2):
                raise AssertionError(f"{text!r} never came:\n{self.text}")
        return self.text.index(text, after) + len(text)

    def settle(self, quiet: float = 0.6) -> None:
        """Wait until the program has printed nothing for ``quiet`` seconds."""
        size = -1
        while size != len(self.raw):
            size = len(self.raw)
            self._read(quiet)

    def watch(self, seconds: float) -> None:
        """Read what the program prints for ``seconds`` (where :meth:`settle` never ends: a status
        line is drawn again every half second)."""
        until = time.monotonic() + seconds
        while time.monotonic() < until:
            self._read(min(0.1, max(0.0, until - time.monotonic())))

    def send(self, keys: str) -> None:
        os.write(self.fd, keys.encode())

    def resize(self, columns: int, rows: int = 30) -> None:
        """The window made another size, as a terminal does (its program gets SIGWINCH)."""
        self._size(self.fd, columns, rows)

    @staticmethod
    def _size(fd: int, columns: int, rows: int) -> None:
        import fcntl
        import struct
        import termios

        fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))

    def wait(self, timeout: float = 60) -> int:
        """The exit code, once the program has ended (killed after ``timeout``)."""
        deadline = time.monotonic() + timeout
        while self._read(0.2) and time.monotonic() < deadline:
            pass
        if time.monotonic() >= deadline:
            os.kill(self.pid, 9)
        _, status = os.waitpid(self.pid, 0)
        self.code = os.waitstatus_to_exitcode(status)
        return self.code

    def __enter__(self) -> "Terminal":
        return self

    def __exit__(self, *exc: object) -> None:
        if self.code is None:
            try:
                os.kill(self.pid, 9)
                os.waitpid(self.pid, 0)
            except (ProcessLookupError, ChildProcessError):
                pass
        os.close(self.fd)
