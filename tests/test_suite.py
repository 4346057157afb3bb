"""The test suite's own machinery (tests/conftest.py): the template database is what the
migrations make, and the fast suite cannot start a process."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from conftest import StartsAProcess, starts_processes, upgrade_from_template

from quizzer.store import SCHEMA_HEAD, open_store


def schema_of(path: Path) -> list[tuple[str, ...]]:
    with sqlite3.connect(path) as conn:
        master = conn.execute("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name").fetchall()
        return [*master, *conn.execute("SELECT version_num FROM alembic_version").fetchall()]


@pytest.mark.real_migrations
def test_a_database_copied_from_the_template_is_the_one_the_migrations_make(tmp_path, monkeypatch, migrated_template):
    from alembic import command

    open_store(tmp_path / "migrated.db").close()
    monkeypatch.setattr(command, "upgrade", upgrade_from_template(command.upgrade, migrated_template))
    open_store(tmp_path / "copied.db").close()
    migrated = schema_of(tmp_path / "migrated.db")
    assert migrated[-1] == (SCHEMA_HEAD,) and len(migrated) > 10
    assert schema_of(tmp_path / "copied.db") == migrated


def test_an_older_database_still_runs_the_migrations(tmp_path, monkeypatch):
    """The template stands in for the migrations of an empty database only."""
    from alembic import command

    ran = []
    monkeypatch.setattr(command, "upgrade", upgrade_from_template(lambda config, revision: ran.append(revision), []))
    path = tmp_path / "old.db"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE alembic_version (version_num VARCHAR(32) NOT NULL)")
        conn.execute("INSERT INTO alembic_version VALUES ('0001')")
    open_store(path).close()
    assert ran == ["head"]


def test_an_unmarked_test_cannot_start_a_process():
    with pytest.raises(StartsAProcess, match="mark it @pytest.mark.slow"):
        subprocess.run([sys.executable, "-c", "pass"], check=True)


@pytest.mark.slow
def test_a_slow_test_can():
    assert subprocess.run([sys.executable, "-c", "print(6 * 7)"], capture_output=True, text=True).stdout == "42\n"


def a_terminal_test():
    from conftest import Terminal

    with Terminal(["--version"], {}):
        pass


def a_test_of_the_sqlite_backend(backend):
    assert backend


@pytest.mark.parametrize(("test", "fixtures", "params", "slow"), [
    (a_terminal_test, [], {}, True),
    (a_test_of_the_sqlite_backend, ["backend"], {"backend": "sqlite"}, False),
    (a_test_of_the_sqlite_backend, ["backend"], {"backend": "postgresql"}, True),
    (a_test_of_the_sqlite_backend, ["pg_server"], {}, True),
])
def test_tests_using_a_terminal_or_the_server_are_slow_by_what_they_use(test, fixtures, params, slow):
    item = SimpleNamespace(function=test, fixturenames=fixtures, callspec=SimpleNamespace(params=params))
    assert starts_processes(item) is slow  # type: ignore[arg-type]
