"""Every file quizzer writes for the learner (an export, a backup, a database copy, a chapter
import's deck) is on the disk and read back before it is announced: a write that fails leaves no
file at the name asked for, no temporary file beside it, the source as it was, and one error line
naming the cause with exit 1."""

from __future__ import annotations

import errno
import hashlib
import os
import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from conftest import MINI_DECK
from quizzer.cli import app

FIXTURES = Path(__file__).resolve().parent / "fixtures"
runner = CliRunner()
NOW = "2026-01-05T10:00"


def quiz(*args: str):
    return runner.invoke(app, list(args), env={"QUIZ_NOW": NOW})


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def collection(tmp_path) -> tuple[Path, Path]:
    """A deck folder, and the test's database holding three reviews of its cards."""
    decks = tmp_path / "decks"
    decks.mkdir()
    (decks / "mini.yaml").write_text(MINI_DECK + "".join(
        f"  - {{id: q{i}, kind: qa, source: '1', question: Q{i}, answer: A{i}, points: [p]}}\n" for i in range(3)), "utf-8")
    log = tmp_path / "log.csv"
    log.write_text("card_id,review_rating,review_time,review_duration\n" + "".join(
        f"q{i},3,2026-01-0{i + 1}T09:00:00Z,4000\n" for i in range(3)), "utf-8")
    assert quiz("history", "import", str(log), "--decks", str(decks)).exit_code == 0
    return decks, Path(os.environ["QUIZ_DB"])


def writers(decks: Path, out: Path) -> dict[str, list[str]]:
    return {
        "export anki": ["export", "anki", str(out / "cards.apkg"), "--decks", str(decks)],
        "export markdown": ["export", "markdown", "--out", str(out / "sheet.md"), "--decks", str(decks)],
        "history export": ["history", "export", str(out / "log.csv"), "--decks", str(decks)],
        "import chapter": ["import", "chapter", str(FIXTURES / "chapter-small.md"), "--out", str(out / "ch.yaml")],
        "db copy": ["db", "copy", "--to", str(out / "copy.db")],
    }


WRITERS = ["export anki", "export markdown", "history export", "import chapter", "db copy"]


def no_space(*args: object) -> None:
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


FAULTS = {  # where the system refuses, and what the learner is told
    "disk full at fsync": ("fsync", errno.ENOSPC, "the disk is full", "free some disk space"),
    "no permission at rename": ("replace", errno.EACCES, "no permission to write", "make the folder writable"),
}


@pytest.mark.parametrize("fault", FAULTS)
@pytest.mark.parametrize("writer", WRITERS)
def test_a_write_the_system_refuses_is_said_and_leaves_nothing(collection, tmp_path, monkeypatch, writer, fault):
    decks, db = collection
    out = tmp_path / "out"
    out.mkdir()
    before = sha256(db)
    call, number, reason, hint = FAULTS[fault]

    def refused(*args: object) -> None:
        raise OSError(number, os.strerror(number))

    with monkeypatch.context() as patched:
        patched.setattr(os, call, refused)
        result = quiz(*writers(decks, out)[writer])
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    [line] = result.stderr.splitlines()
    assert line.startswith("Error: ") and reason in line and hint in line, line
    assert ".partial" not in line  # the file asked for is named, not the temporary one
    assert list(out.iterdir()) == []  # neither the file nor a temporary one
    assert sha256(db) == before
    assert quiz(*writers(decks, out)[writer]).exit_code == 0  # the same write, with room: the file is there alone
    assert len([p for p in out.iterdir() if not p.name.startswith(".")]) == 1
    assert [p.name for p in out.iterdir() if p.name.startswith(".")] == []


def test_a_backup_the_disk_refuses_is_said_and_leaves_nothing(collection, monkeypatch):
    _decks, db = collection
    folder = db.parent / "backups"
    listed = sorted(folder.iterdir())
    before = sha256(db)
    with monkeypatch.context() as patched:
        patched.setattr(os, "fsync", no_space)
        result = quiz("backup", "create")
    assert result.exit_code == 1 and "the disk is full" in result.stderr, result.output
    assert sorted(folder.iterdir()) == listed and sha256(db) == before
    made = quiz("backup", "create")
    assert made.exit_code == 0, made.output
    [new] = set(folder.iterdir()) - set(listed)
    with sqlite3.connect(new) as conn:  # one file holds it all: no log left to fold in
        assert conn.execute("PRAGMA journal_mode").fetchone() == ("delete",)
        assert conn.execute("SELECT count(*) FROM review_log").fetchone() == (3,)


def test_a_file_that_reads_back_wrong_never_takes_the_name(tmp_path):
    from quizzer.base.errors import QuizError
    from quizzer.base.files import write_whole

    target = tmp_path / "sheet.md"
    target.write_text("the earlier sheet\n", "utf-8")

    def refuse(written: Path) -> None:
        assert written.read_bytes() == b"new sheet\n"  # closed and on the disk when checked
        raise OSError(errno.EIO, "read back wrong")

    with pytest.raises(QuizError, match="sheet.md: cannot be written: read back wrong"):
        write_whole(target, b"new sheet\n", refuse)
    assert target.read_text("utf-8") == "the earlier sheet\n"
    assert [p.name for p in tmp_path.iterdir()] == ["sheet.md"]


def test_a_copy_missing_rows_or_schema_is_caught_when_read_back(collection, tmp_path):
    from quizzer.store.backup import Snapshot, settle

    _decks, db = collection
    copy = tmp_path / "copy.db"
    with sqlite3.connect(db) as source, sqlite3.connect(copy) as target:
        source.backup(target)
        objects = frozenset(source.execute("SELECT type, name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'"))
    settle(copy, Snapshot(objects, {"review_log": 3}))  # as it was: no error
    with pytest.raises(OSError, match="holds 3 rows of review_log, the source 4"):
        settle(copy, Snapshot(objects, {"review_log": 4}))
    with pytest.raises(OSError, match="does not hold the source's schema"):
        settle(copy, Snapshot(objects | {("trigger", "t")}, {}))


@pytest.mark.slow
def test_a_db_copy_onto_a_full_disk_fails_and_leaves_nothing(tmp_path):
    """700 cards and 5,000 reviews (a source of about 1 MB) onto a 1.4 MB disk: the copy's rows fit in its
    write-ahead log, not in the file too; `db copy` said "copied", and the file named could not
    be opened, its rows left in the log beside the temporary name."""
    from test_db_errors import REPO, quiz as run, small_disk

    environment = {**os.environ, "QUIZ_NOW": NOW,  # the bundled decks: 700 cards
                   "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
    db = tmp_path / "quiz.db"
    log = tmp_path / "log.csv"
    log.write_text("card_id,review_rating,review_time,review_duration\n" + "".join(
        f"old-{card},{1 + (card + day) % 4},2025-{1 + day % 9:02d}-{10 + day}T09:00:00Z,{1000 + card}\n"
        for card in range(500) for day in range(10)), "utf-8")
    imported = run(environment, db, "history", "import", str(log))
    assert imported.returncode == 0, imported.stderr
    before = sha256(db)
    with small_disk(tmp_path / "disk", "1400k") as disk:
        result = run(environment, db, "db", "copy", "--to", str(disk / "copy.db"))
        assert result.returncode == 1, result.stdout + result.stderr
        assert "Traceback" not in result.stderr, result.stderr
        assert result.stderr.startswith(f"Error: {disk / 'copy.db'}: cannot be written: the disk is full"), result.stderr
        assert sorted(p.name for p in disk.iterdir()) == []
    assert sha256(db) == before


def test_a_killed_writers_old_partial_file_is_cleared_by_the_next_write(tmp_path):
    from quizzer.base.files import write_whole

    gone = int(Path("/proc/sys/kernel/pid_max").read_text()) + 1  # no process can have it
    hour_ago = os.stat(tmp_path).st_mtime - 3600
    target = tmp_path / "cards.md"
    killed = tmp_path / f".cards.md.{gone}.partial"
    killed_journal = tmp_path / f".cards.md.{gone}.partial-wal"
    fresh = tmp_path / f".cards.md.{gone + 1}.partial"  # a minute old: its writer may be on another machine
    running = tmp_path / f".cards.md.{os.getppid()}.partial"  # a live writer's, however old
    other = tmp_path / f".notes.md.{gone}.partial"  # another file's
    for leftover in (killed, killed_journal, fresh, running, other):
        leftover.write_bytes(b"half")
    for old in (killed, killed_journal, running, other):
        os.utime(old, (hour_ago, hour_ago))

    write_whole(target, b"whole\n")

    assert target.read_bytes() == b"whole\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["cards.md", fresh.name, running.name, other.name])
