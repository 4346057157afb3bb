"""A throw-away PostgreSQL server for the tests, and the ``backend`` fixture.

The server is a fresh cluster (``initdb``) in a temporary folder, started with ``pg_ctl`` on a
free TCP port of 127.0.0.1 with trust authentication, once per test session, and stopped
(and deleted) at its end. ``initdb`` refuses to run as root, so as root the cluster belongs
to ``nobody`` and the server runs as that user (``runuser``). Durability settings are off
(fsync, synchronous commit): the tests kill clients, never the server.

Where the PostgreSQL binaries are missing (``initdb``, ``pg_ctl`` on PATH or in
/usr/lib/postgresql/*/bin), or psycopg is not installed, every test that needs the server
is skipped with a reason that says so. Binaries that are there but cannot start a server
fail those tests, with the server's log.
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import count
from pathlib import Path

import pytest

UNPRIVILEGED = "nobody"  # the cluster's owner when the tests run as root
BACKENDS = ["sqlite", "postgresql"]


def find_binary(name: str) -> str | None:
    """A PostgreSQL program: on PATH, else in the newest Debian-packaged version's bin folder."""
    found = shutil.which(name)
    if found:
        return found
    candidates = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"), key=lambda p: int(Path(p).parts[4]))
    return candidates[-1] if candidates else None


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass
class Server:
    """A running throw-away server: ``url(name)`` of a database on it, ``create(name)`` a new one."""

    port: int
    folder: Path
    _names: Iterator[int] = field(default_factory=lambda: count(1))

    def url(self, database: str) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def create(self, prefix: str = "t") -> str:
        """A new, empty database: its URL."""
        import psycopg

        name = f"{prefix}_{next(self._names)}"
        with psycopg.connect(self.url("postgres"), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)


def _as_owner(command: list[str]) -> list[str]:
    """``command`` run as the cluster's owner: ``nobody`` when we are root, else ourselves."""
    if os.geteuid() != 0:
        return command
    runuser = shutil.which("runuser")
    if runuser:
        return [runuser, "-u", UNPRIVILEGED, "--", *command]
    return ["su", UNPRIVILEGED, "-s", "/bin/sh", "-c", " ".join(map(repr, command))]


class ServerMissing(Exception):
    """No PostgreSQL binaries or no psycopg here: the tests that need a server are skipped."""


def start_server(max_connections: int = 100) -> Server:
    """Start a cluster (ServerMissing without binaries or driver; RuntimeError if it fails)."""
    initdb, pg_ctl = find_binary("initdb"), find_binary("pg_ctl")
    if not initdb or not pg_ctl:
        raise ServerMissing("PostgreSQL server binaries (initdb, pg_ctl) not found on PATH or in /usr/lib/postgresql/*/bin")
    try:
        import psycopg  # noqa: F401
    except ImportError:
        raise ServerMissing("psycopg is not installed (pip install 'psycopg[binary]')") from None
    # under /tmp, which the cluster's owner can reach (TMPDIR may be private to root)
    folder = Path(tempfile.mkdtemp(prefix="quiz-pg-", dir="/tmp" if os.path.isdir("/tmp") else None))
    if os.geteuid() == 0:
        shutil.chown(folder, UNPRIVILEGED)
    data, port = folder / "data", free_port()
    steps = [
        [initdb, "-D", str(data), "-A", "trust", "-U", "postgres", "-E", "UTF8", "--no-sync", "--locale=C"],
        _start_command(pg_ctl, folder, port, max_connections),
    ]
    for step in steps:
        done = subprocess.run(_as_owner(step), capture_output=True, text=True)
        if done.returncode != 0:
            log = folder / "server.log"
            detail = (done.stderr or done.stdout).strip() + (f"\n{log.read_text()}" if log.exists() else "")
            shutil.rmtree(folder, ignore_errors=True)
            raise RuntimeError(f"the PostgreSQL test server could not be started ({Path(step[0]).name}): {detail}")
    return Server(port, folder)


def _start_command(pg_ctl: str, folder: Path, port: int, max_connections: int) -> list[str]:
    return [pg_ctl, "-D", str(folder / "data"), "-l", str(folder / "server.log"), "-w", "-t", "60", "-o",
            f"-h 127.0.0.1 -p {port} -k {folder} -c fsync=off -c synchronous_commit=off -c full_page_writes=off "
            f"-c max_connections={max_connections}", "start"]


def pause_server(server: Server) -> None:
    """Stop the server, keeping its data: ``resume_server`` starts it again on the same port."""
    pg_ctl = find_binary("pg_ctl")
    assert pg_ctl
    subprocess.run(_as_owner([pg_ctl, "-D", str(server.folder / "data"), "-m", "fast", "-w", "stop"]),
                   capture_output=True, check=True)


def resume_server(server: Server, max_connections: int = 100) -> None:
    pg_ctl = find_binary("pg_ctl")
    assert pg_ctl
    subprocess.run(_as_owner(_start_command(pg_ctl, server.folder, server.port, max_connections)),
                   capture_output=True, check=True)


def stop_server(server: Server) -> None:
    pg_ctl = find_binary("pg_ctl")
    assert pg_ctl
    subprocess.run(_as_owner([pg_ctl, "-D", str(server.folder / "data"), "-m", "immediate", "-w", "stop"]),
                   capture_output=True)
    shutil.rmtree(server.folder, ignore_errors=True)


@pytest.fixture(scope="session")
def pg_server() -> Iterator[Server]:
    """The session's PostgreSQL server (started on first use); skips the test when there is none."""
    try:
        server = start_server()
    except ServerMissing as why:
        pytest.skip(str(why))
    yield server
    stop_server(server)


@pytest.fixture(params=BACKENDS)
def backend(request, tmp_path) -> str:
    """Where a test's database is: a fresh SQLite file, or a fresh database on the test server
    (as the string ``--db`` / ``QUIZ_DB`` take)."""
    if request.param == "sqlite":
        return str(tmp_path / "quiz.db")
    return request.getfixturevalue("pg_server").create()
