"""A database that cannot be used ends `quiz` with one line, never a traceback.

Each case runs the real CLI in a subprocess against a database it cannot use and checks:
exit code 1, stderr exactly one line `Error: ...` naming the database file, no
"Traceback" anywhere, no card shown, and the database file's bytes unchanged.

Read-only and full-disk cases need a real fault, and file modes do not stop root (the
tests run as root in CI): as root they use an immutable file (``chattr +i``), a
read-only bind mount or a small tmpfs; as another user, ``chmod``. A mechanism this
machine does not allow is skipped with the reason.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sqlite3
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # every test here starts a process

REPO = Path(__file__).resolve().parents[1]
NOW = "2026-01-05T10:00:00+00:00"
LATER = "2026-01-05T12:00:00+00:00"  # two hours on
IS_ROOT = os.geteuid() == 0


def write_deck(folder: Path, cards: int = 5) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    rows = "".join(
        f"  - {{id: c{i}, kind: qa, source: '1', question: Q{i}, answer: A{i}, points: [p]}}\n" for i in range(cards)
    )
    (folder / "d.yaml").write_text(f"id: d\ntitle: D\nlanguage: en\nsource: {{file: f, sections: s}}\ncards:\n{rows}", "utf-8")
    return folder


@pytest.fixture
def env(tmp_path) -> dict[str, str]:
    variables = {key: value for key, value in os.environ.items() if key not in ("QUIZ_DEBUG", "QUIZ_DB")}
    return {
        **variables,
        "QUIZ_DECKS": str(write_deck(tmp_path / "decks")),
        "QUIZ_CACHE_DIR": str(tmp_path / "cache"),
        "QUIZ_NOW": NOW,
        "COLUMNS": "200",  # one error line stays one line
        "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])),
    }


def quiz(env: dict[str, str], db: Path | None, *args: str, stdin: str = "", **extra: str) -> subprocess.CompletedProcess[str]:
    run_env = {**env, **extra}
    if db is not None:
        run_env["QUIZ_DB"] = str(db)
    return subprocess.run([sys.executable, "-m", "quizzer", *args], input=stdin, capture_output=True,
                          text=True, env=run_env, cwd=REPO, timeout=120)


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def beside(db: Path) -> list[str]:
    """The database's own files and backups: a refused database gets no -wal, -shm or backups."""
    return sorted(p.name for p in db.parent.iterdir() if p.name.startswith(db.name) or p.name == "backups")


def assert_refused(result: subprocess.CompletedProcess[str], db: Path, *words: str) -> str:
    """Exit 1, one `Error:` line naming ``db`` (and ``words``), no traceback, no card shown."""
    output = result.stdout + result.stderr
    assert "Traceback" not in output, output
    assert result.returncode == 1, output
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: ") and len(lines[0]) > len("Error: "), result.stderr
    assert str(db) in lines[0], lines[0]
    for word in words:
        assert word in lines[0], lines[0]
    assert "show answer" not in result.stdout  # refused before any card
    return lines[0]


def assert_warned(result: subprocess.CompletedProcess[str], db: Path, *words: str) -> None:
    """An automatic backup that failed: one `Warning:` line naming ``db`` (and ``words``), and
    the command went on (exit 0), no traceback."""
    output = result.stdout + result.stderr
    assert "Traceback" not in output, output
    assert result.returncode == 0, output
    [line] = [line for line in result.stderr.splitlines() if line.startswith("Warning: ")]
    assert str(db) in line and "the work goes on without it" in line, line
    for word in words:
        assert word in line, line


@pytest.fixture
def good_db(env, tmp_path) -> Path:
    """A database made by `quiz` itself (schema, cards, one automatic backup)."""
    db = tmp_path / "data" / "quiz.db"
    db.parent.mkdir()
    result = quiz(env, db)
    assert result.returncode == 0, result.stdout + result.stderr
    return db


STUDY = ("study",)
STUDY_INPUT = "\n3\n\n3\nq\n"  # reveal and rate cards, if a card were ever shown


# -- faults that need privileges -----------------------------------------------


def _sh(*cmd: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, capture_output=True, text=True)


@contextmanager
def read_only(path: Path, how: str):
    """Make ``path`` (a file or a folder) genuinely read-only for this machine's user."""
    if how == "chmod":
        if IS_ROOT:
            pytest.skip("file modes do not stop root from writing; see the immutable and read-only mount cases")
        mode = path.stat().st_mode
        path.chmod(0o555 if path.is_dir() else 0o444)
        try:
            yield
        finally:
            path.chmod(mode)
    elif how == "immutable":
        if not IS_ROOT or shutil.which("chattr") is None:
            pytest.skip("chattr +i needs root (CAP_LINUX_IMMUTABLE) and the chattr tool")
        done = _sh("chattr", "+i", str(path))
        if done.returncode:
            pytest.skip(f"chattr +i is not possible here: {done.stderr.strip()}")
        try:
            yield
        finally:
            _sh("chattr", "-i", str(path))
    elif how == "read-only mount":
        if not IS_ROOT or shutil.which("mount") is None:
            pytest.skip("a read-only bind mount needs root (CAP_SYS_ADMIN) and the mount tool")
        done = _sh("mount", "--bind", str(path), str(path))
        if done.returncode:
            pytest.skip(f"bind mounts are not permitted here: {done.stderr.strip()}")
        try:
            done = _sh("mount", "-o", "remount,bind,ro", str(path))
            if done.returncode:
                pytest.skip(f"read-only remounts are not permitted here: {done.stderr.strip()}")
            yield
        finally:
            _unmount(path)
    else:
        raise ValueError(how)


def _unmount(path: Path) -> None:
    if _sh("umount", str(path)).returncode:
        _sh("umount", "-l", str(path))


@contextmanager
def small_disk(path: Path, size: str = "2m"):
    """A tmpfs of ``size`` mounted at ``path`` (root only)."""
    if not IS_ROOT or shutil.which("mount") is None:
        pytest.skip("mounting a small tmpfs needs root (CAP_SYS_ADMIN) and the mount tool")
    path.mkdir(parents=True)
    done = _sh("mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path))
    if done.returncode:
        pytest.skip(f"mounting a tmpfs is not permitted here: {done.stderr.strip()}")
    try:
        yield path
    finally:
        _unmount(path)


def fill(disk: Path, leave: int = 64 * 1024) -> None:
    """Fill ``disk`` to the last byte, then free ``leave`` bytes (room for SQLite's -shm
    and -wal files, so what fails is the write itself)."""
    fd = os.open(disk / "filler", os.O_WRONLY | os.O_CREAT)
    try:
        while True:
            os.write(fd, b"\0" * 65536)
    except OSError:  # ENOSPC
        pass
    try:
        while True:
            os.write(fd, b"\0" * 512)
    except OSError:
        pass
    os.ftruncate(fd, max(0, os.fstat(fd).st_size - leave))
    os.close(fd)


READ_ONLY_WAYS = ["chmod", "immutable", "read-only mount"]


# -- 1, 2: not SQLite, truncated, damaged ------------------------------------------


def test_a_text_file_is_not_a_database(env, tmp_path):
    db = tmp_path / "notes.db"
    db.write_text("these are my notes, not a database\n" * 20, "utf-8")
    before = sha256(db)
    assert_refused(quiz(env, db), db, "not a SQLite database")
    assert sha256(db) == before
    assert beside(db) == ["notes.db"]


@pytest.mark.parametrize("url", ["mysql://user@host/db", "http://example.com/db"])
def test_a_database_url_quizzer_cannot_use_is_a_usage_error(env, url):
    """Each was a traceback (a missing driver module, or no such dialect)."""
    result = quiz(env, None, "--json", QUIZ_DB=url)
    assert result.returncode == 2 and result.stdout == "", result.stderr
    [line] = result.stderr.splitlines()
    assert line.startswith("Error: ") and "SQLite file or on a PostgreSQL server" in line


def test_a_value_another_tool_wrote_is_an_error_line_not_a_traceback(env, good_db):
    """A stability of 'abc' (SQLite keeps any type in any column) was a TypeError traceback in
    `quiz cards` and `quiz show`; the last boundary now names it in one line, exit 1."""
    with sqlite3.connect(good_db) as conn:
        conn.execute("UPDATE cards SET stability = 'abc', state = 2, difficulty = 5, last_review = "
                     "'2026-01-01 10:00:00.000000', due = '2026-01-02 10:00:00.000000' WHERE id = 'c0'")
    conn.close()
    for args in (["cards"], ["show", "c0"]):
        result = quiz(env, good_db, *args)
        assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
        [line] = result.stderr.splitlines()
        assert line.startswith("Error: unexpected TypeError: ") and "quiz check" in line and "QUIZ_DEBUG=1" in line
    debug = quiz(env, good_db, "cards", QUIZ_DEBUG="1")
    assert debug.returncode == 1 and "Traceback" in debug.stderr  # for the bug report


def test_a_truncated_database_is_damaged(env, good_db):
    data = good_db.read_bytes()
    good_db.write_bytes(data[: len(data) // 2])
    before = sha256(good_db)
    assert_refused(quiz(env, good_db, *STUDY, stdin=STUDY_INPUT), good_db, "damaged")
    assert sha256(good_db) == before


def test_a_damaged_schema_page_is_found_at_open(env, good_db):
    data = bytearray(good_db.read_bytes())
    data[100:400] = b"\xff" * 300  # scribble over the schema table on page 1, after the header
    good_db.write_bytes(bytes(data))
    before = sha256(good_db)
    assert_refused(quiz(env, good_db, "card", "c1"), good_db, "damaged")
    assert sha256(good_db) == before


def test_the_damage_hint_works_restore_over_a_damaged_database(env, good_db):
    """The damaged-database hint points at `quiz backup restore`, so that must work."""
    data = good_db.read_bytes()
    good_db.write_bytes(data[: len(data) // 2])
    damaged = sha256(good_db)
    restored = quiz(env, good_db, "backup", "restore", "latest", "--yes", QUIZ_NOW=LATER)
    assert restored.returncode == 0, restored.stdout + restored.stderr
    kept = list((good_db.parent / "backups").glob("*-damaged.db"))
    assert len(kept) == 1 and sha256(kept[0]) == damaged  # the damaged bytes are kept, out of the backup list
    assert quiz(env, good_db, QUIZ_NOW=LATER).returncode == 0


# -- 3: read-only ----------------------------------------------------------------


@pytest.mark.parametrize("how", READ_ONLY_WAYS)
def test_a_read_only_database_file_is_refused_before_any_card(env, good_db, how):
    before = sha256(good_db)
    with read_only(good_db, how):
        result = quiz(env, good_db, *STUDY, stdin=STUDY_INPUT)
    assert_refused(result, good_db, "read-only")
    assert sha256(good_db) == before


@pytest.mark.parametrize("how", READ_ONLY_WAYS)
def test_a_database_in_a_read_only_folder_is_refused_before_any_card(env, good_db, how):
    """WAL needs to create quiz.db-wal and quiz.db-shm beside the database."""
    before = sha256(good_db)
    with read_only(good_db.parent, how):
        result = quiz(env, good_db, *STUDY, stdin=STUDY_INPUT)
    assert_refused(result, good_db, "read-only")
    assert sha256(good_db) == before


# -- 4, 5: a directory, a missing folder --------------------------------------------


def test_a_directory_is_not_a_database(env, tmp_path):
    db = tmp_path / "quiz.db"
    db.mkdir()
    assert_refused(quiz(env, db, "card", "c1"), db, "directory")
    assert list(db.iterdir()) == []


@pytest.mark.parametrize("via", ["QUIZ_DB", "--db"])
def test_a_missing_folder_is_an_error_not_created(env, tmp_path, via):
    db = tmp_path / "typo" / "sub" / "quiz.db"
    result = quiz(env, db) if via == "QUIZ_DB" else quiz(env, None, "study", "--db", str(db))
    assert_refused(result, db, "does not exist")
    assert not (tmp_path / "typo").exists()


def test_the_default_data_folder_is_still_created(env, tmp_path):
    data_home = tmp_path / "xdg"  # platformdirs: $XDG_DATA_HOME/quizzer/quizzer.db
    result = quiz(env, None, XDG_DATA_HOME=str(data_home))
    assert result.returncode == 0, result.stdout + result.stderr
    assert (data_home / "quizzer" / "quizzer.db").is_file()


# -- 6, 7: a schema this code does not know -----------------------------------------


@pytest.mark.parametrize("stamp", ["", "[bold]x[/]"])
def test_a_schema_stamp_no_quizzer_wrote_is_not_called_newer(env, good_db, stamp):
    """'' and '[bold]x[/]' were reported as a schema "newer than this quizzer knows"."""
    with sqlite3.connect(good_db) as conn:
        conn.execute("UPDATE alembic_version SET version_num = ?", (stamp,))
    conn.close()
    line = assert_refused(quiz(env, good_db, QUIZ_NOW=LATER), good_db, f"its schema stamp {stamp!r} is no quizzer revision")
    assert "newer" not in line


def test_a_database_from_a_newer_quizzer_is_refused_untouched(env, good_db):
    with sqlite3.connect(good_db) as conn:
        conn.execute("UPDATE alembic_version SET version_num = '9999'")
    conn.close()
    before, backups = sha256(good_db), sorted((good_db.parent / "backups").iterdir())
    line = assert_refused(quiz(env, good_db, QUIZ_NOW=LATER), good_db, "newer", "9999")
    assert "upgrade quizzer" in line  # DatabaseTooNew's hint
    assert sha256(good_db) == before
    assert sorted((good_db.parent / "backups").iterdir()) == backups


def test_a_backup_from_a_newer_quizzer_is_not_restored(env, good_db, tmp_path):
    """It was restored ("restored"), and then every command refused the database."""
    newer = tmp_path / "newer.db"
    shutil.copy(good_db, newer)
    with sqlite3.connect(newer) as conn:
        conn.execute("UPDATE alembic_version SET version_num = '9999'")
    conn.close()
    before = sha256(good_db)
    result = quiz(env, good_db, "backup", "restore", str(newer), "--yes")
    assert result.returncode == 1 and "schema is newer than this quizzer knows" in result.stderr, result.stderr
    assert sha256(good_db) == before and quiz(env, good_db).returncode == 0


def test_quizzer_like_tables_without_a_version_table_are_refused_untouched(env, tmp_path):
    """Made by hand with sqlite3 (rollback journal): not even the journal mode may change."""
    db = tmp_path / "quiz.db"
    with sqlite3.connect(db) as conn:
        conn.execute("CREATE TABLE cards (id TEXT PRIMARY KEY, deck TEXT, kind TEXT)")
        conn.execute("CREATE TABLE review_log (id INTEGER PRIMARY KEY, card_id TEXT REFERENCES cards (id))")
        conn.execute("INSERT INTO cards VALUES ('c1', 'd', 'qa')")
    conn.close()
    before = sha256(db)
    assert_refused(quiz(env, db), db, "alembic_version")
    assert sha256(db) == before
    assert beside(db) == ["quiz.db"]


def test_a_lost_version_table_is_refused_untouched(env, good_db):
    with sqlite3.connect(good_db) as conn:
        conn.execute("DROP TABLE alembic_version")
    conn.close()
    before = sha256(good_db)
    assert_refused(quiz(env, good_db, "card", "c1"), good_db, "alembic_version")
    assert sha256(good_db) == before


# -- 8, 9: a full disk, a write lock held too long -------------------------------------


def test_a_full_disk_during_a_write_says_the_disk_is_full(env, tmp_path):
    with small_disk(tmp_path / "disk") as disk:
        db = disk / "quiz.db"
        made = quiz(env, db)  # schema, 5 cards and a backup, taken at NOW
        assert made.returncode == 0, made.stdout + made.stderr
        before = sha256(db)
        fill(disk)
        big = write_deck(tmp_path / "big", cards=3000)  # syncing these needs far more than the room left
        result = quiz(env, db, QUIZ_DECKS=str(big))  # same QUIZ_NOW: no backup due, the sync write fails
        assert_refused(result, db, "disk is full")
        assert sha256(db) == before


def test_a_write_lock_held_past_the_busy_timeout_is_busy(env, good_db):
    before = sha256(good_db)
    holder = sqlite3.connect(good_db, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # another process writing, for longer than the timeout
    try:
        result = quiz(env, good_db, *STUDY, stdin=STUDY_INPUT, QUIZ_BUSY_TIMEOUT_MS="300")
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    line = assert_refused(result, good_db, "locked")
    assert "another quiz is writing" in line  # DatabaseBusy's hint
    assert sha256(good_db) == before


def test_an_answer_waits_out_a_long_write_instead_of_being_lost(env, good_db):
    """A `history import` holding the write lock past the busy timeout ended the study session
    with "is locked" and dropped the answer on screen."""
    import threading
    import time

    proc = subprocess.Popen([sys.executable, "-m", "quizzer", "study", "--limit", "1"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO,
                            env={**env, "QUIZ_DB": str(good_db), "QUIZ_BUSY_TIMEOUT_MS": "300", "QUIZ_LANG": "en"})
    assert proc.stdin is not None and proc.stdout is not None
    shown: list[str] = []
    threading.Thread(target=lambda: shown.extend(iter(proc.stdout.readline, "")), daemon=True).start()

    def seen(text: str) -> bool:  # lines wrap where the database's path ends: words, not line breaks
        deadline = time.monotonic() + 60
        while text not in " ".join("".join(shown).split()):
            if time.monotonic() > deadline or proc.poll() is not None:
                return False
            time.sleep(0.05)
        return True

    assert seen("╭"), "".join(shown)  # the card is on screen: the session is open
    holder = sqlite3.connect(good_db, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # another process's long write starts
    try:
        proc.stdin.write("\n3\n")  # reveal, Good
        proc.stdin.flush()
        assert seen("is locked: another process held its write lock"), "".join(shown)
        assert seen("this answer waits and is saved once it is free"), "".join(shown)
    finally:
        holder.execute("COMMIT")
        holder.close()
    proc.stdin.close()
    assert proc.wait(timeout=60) == 0, proc.stderr.read() if proc.stderr else ""
    assert seen("Reviewed 1")
    with sqlite3.connect(good_db) as conn:
        assert conn.execute("SELECT count(*) FROM review_log").fetchone() == (1,)


# -- 10: backups -------------------------------------------------------------------


@pytest.mark.parametrize("damage", ["truncated", "text"])
def test_restoring_a_damaged_backup_is_refused(env, good_db, tmp_path, damage):
    backup = next((good_db.parent / "backups").glob("quiz-*.db"))
    bad = tmp_path / "bad-backup.db"
    if damage == "truncated":
        bad.write_bytes(backup.read_bytes()[: backup.stat().st_size // 2])
    else:
        bad.write_text("not a backup\n", "utf-8")
    before, backups = sha256(good_db), sorted((good_db.parent / "backups").iterdir())
    line = assert_refused(quiz(env, good_db, "backup", "restore", str(bad), "--yes", QUIZ_NOW=LATER), good_db, "damaged")
    assert str(bad) in line
    assert sha256(good_db) == before
    assert sorted((good_db.parent / "backups").iterdir()) == backups  # not even a safety backup


def no_backup_yet(folder: Path) -> None:
    """Empty the backups folder, so the next command's automatic backup is due (backups go by the
    real clock, which QUIZ_NOW does not move)."""
    for backup in folder.iterdir():
        backup.unlink()


def test_a_backup_on_a_full_disk_leaves_no_partial_file(env, tmp_path):
    with small_disk(tmp_path / "disk") as disk:
        db = disk / "quiz.db"
        made = quiz(env, db)
        assert made.returncode == 0, made.stdout + made.stderr
        no_backup_yet(disk / "backups")
        backups = sorted((disk / "backups").iterdir())
        before = sha256(db)
        fill(disk)  # the database (~100 kB) no longer fits in the room left
        result = quiz(env, db)  # a backup is due first: it fails, and the overview is shown all the same
        assert_warned(result, db, "backup", "disk is full")
        assert sorted((disk / "backups").iterdir()) == backups  # no .partial left
        assert sha256(db) == before


@pytest.mark.parametrize("how", READ_ONLY_WAYS)
def test_a_backup_into_a_read_only_folder_fails_cleanly(env, good_db, how):
    folder = good_db.parent / "backups"
    no_backup_yet(folder)
    backups = sorted(folder.iterdir())
    before = sha256(good_db)
    with read_only(folder, how):
        result = quiz(env, good_db)  # a backup is due first: it fails, and the overview is shown all the same
    assert_warned(result, good_db, "backup", "permission")
    assert sorted(folder.iterdir()) == backups
    assert sha256(good_db) == before


@pytest.mark.parametrize("how", READ_ONLY_WAYS)
def test_a_restore_with_a_read_only_backups_folder_says_so_not_that_the_backup_is_damaged(env, good_db, how):
    """A valid backup was "damaged (cannot be opened ...)": SQLite cannot open it where it cannot put
    its -shm, and the database could not have been saved there before the restore anyway."""
    folder = good_db.parent / "backups"
    backups = sorted(folder.iterdir())
    before = sha256(good_db)
    with read_only(folder, how):
        result = quiz(env, good_db, "backup", "restore", "latest", "--yes", QUIZ_NOW=LATER)
    line = assert_refused(result, good_db, f"the backups folder {folder} cannot be written", "unchanged")
    assert "damaged" not in line
    assert sorted(folder.iterdir()) == backups
    assert sha256(good_db) == before


def test_a_file_in_the_way_of_the_backups_folder_is_said_in_the_interface_language(env, good_db):
    """A file named ``backups`` beside the database: "失败：File exists: .../backups"."""
    folder = good_db.parent / "backups"
    shutil.rmtree(folder)
    folder.write_text("", "utf-8")
    result = quiz(env, good_db, "backup", "create", QUIZ_LANG="zh")
    assert result.returncode == 1 and result.stderr == (
        f"错误：把 {good_db} 备份到 {folder} 失败：已经有同名的文件：{folder}（数据库本身没有改动）\n"), result.stderr


# -- a PostgreSQL server (tests/pg.py) ---------------------------------------------


def assert_server_refused(result: subprocess.CompletedProcess[str], shown: str, *words: str) -> str:
    """Exit 1, one `Error:` line naming the server as ``shown`` (never a password), no traceback."""
    output = result.stdout + result.stderr
    assert "Traceback" not in output, output
    assert result.returncode == 1, output
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.stderr
    assert shown in lines[0], lines[0]
    for word in words:
        assert word in lines[0], lines[0]
    assert "s3cret" not in output
    assert "show answer" not in result.stdout
    return lines[0]


def test_a_server_that_is_down_is_one_line(env):
    from pg import free_port

    port = free_port()  # nothing listens there
    result = quiz(env, None, *STUDY, stdin=STUDY_INPUT, QUIZ_DB=f"postgresql://ann:s3cret@127.0.0.1:{port}/quiz")
    assert_server_refused(result, f"postgresql://ann:***@127.0.0.1:{port}/quiz", "cannot connect", "refused")


def test_why_a_server_cannot_be_reached_is_in_the_interface_language(env):
    """libpq passes the system's words on: "无法连接数据库服务器：Connection refused"."""
    from pg import free_port

    url = f"postgresql://ann@127.0.0.1:{free_port()}/quiz"
    result = quiz(env, None, "db", "copy", "--to", url, QUIZ_LANG="zh")
    assert result.returncode == 1 and result.stderr.startswith(f"错误：{url}：无法连接数据库服务器：连接被拒绝（"), result.stderr


def test_a_server_that_is_down_on_its_socket_cannot_be_connected_to(env, tmp_path):
    """Over a Unix socket the same case said "the server closed the connection ... a change in
    progress was rolled back", though nothing was ever connected."""
    url = f"postgresql://ann@/quiz?host={tmp_path}&port=5432"  # no server's socket in that folder
    result = quiz(env, None, *STUDY, stdin=STUDY_INPUT, QUIZ_DB=url)
    assert result.returncode == 1 and "cannot connect to the database server" in result.stderr, result.stderr
    assert "closed the connection" not in result.stderr


def test_a_host_that_does_not_resolve_cannot_be_connected_to(env):
    """A misspelt host said "the server closed the connection: failed to resolve host ... Name or
    service not known (a change in progress was rolled back ...)": nothing was ever connected."""
    url = "postgresql://ann@nohost.invalid/quiz"  # .invalid never resolves (RFC 2606)
    result = quiz(env, None, "db", "copy", "--to", url, QUIZ_LANG="zh")
    assert result.returncode == 1 and result.stderr.startswith(f"错误：{url}：无法连接数据库服务器：没有这个主机：nohost.invalid（")
    assert "rolled back" not in result.stderr and "回滚" not in result.stderr, result.stderr


def test_a_port_that_is_no_number_is_a_usage_error(env):
    """`?port=abc` was "unexpected ArgumentError ... this is a bug", exit 1."""
    for url in ("postgresql://ann@/quiz?host=/tmp&port=abc", "postgresql://ann@localhost:abc/quiz"):
        result = quiz(env, None, "stats", QUIZ_DB=url)
        assert result.returncode == 2 and result.stderr.startswith("Error: ") and "unexpected" not in result.stderr, url


def test_server_url_typos_are_said_as_such(env, pg_server):
    """?sslmod= was "unexpected ProgrammingError ... (Background on this error at: https://sqlalche.me/...)";
    port 99999 "the server closed the connection ... rolled back"; POSTGRESQL:// and
    postgresql+psycopg2:// were "not SQLite or PostgreSQL"."""
    url = pg_server.create()
    result = quiz(env, None, "stats", QUIZ_DB=url + "?sslmod=require")
    assert result.returncode == 1 and result.stderr.startswith(f"Error: {url}?sslmod=require: not a connection option: sslmod ("), result.stderr
    assert "sqlalche.me" not in result.stderr and "unexpected" not in result.stderr and len(result.stderr.splitlines()) == 1
    result = quiz(env, None, "stats", QUIZ_DB=url.replace(url.split("@")[1].split("/")[0], "127.0.0.1:99999"))
    assert result.returncode == 2 and "the port is not a number from 1 to 65535" in result.stderr, result.stderr
    for other in (url.replace("postgresql://", "POSTGRESQL://"), url.replace("postgresql://", "postgresql+psycopg2://")):
        result = quiz(env, None, "stats", QUIZ_DB=other)
        assert result.returncode == 0, result.stderr
    result = quiz(env, None, "stats", QUIZ_DB=url.replace("postgresql://", "postgresql+asyncpg://"))
    assert result.returncode == 2 and "through psycopg, not asyncpg" in result.stderr, result.stderr


def test_a_refused_login_is_one_line_without_the_password(env, pg_server):
    url = pg_server.url("postgres").replace("postgres@", "ghost:s3cret@")  # no such role on the server
    result = quiz(env, None, *STUDY, stdin=STUDY_INPUT, QUIZ_DB=url)
    assert_server_refused(result, url.replace("s3cret", "***"), "refused the login", "ghost")


def test_a_missing_database_on_the_server_is_one_line(env, pg_server):
    url = pg_server.url("no_such_db")
    assert_server_refused(quiz(env, None, *STUDY, stdin=STUDY_INPUT, QUIZ_DB=url), url, "does not exist")


def test_a_url_without_a_database_is_libpqs_default_and_named(env, pg_server):
    """postgresql://host/ is the database libpq defaults to, as for psql: PGDATABASE, else the user's
    name. It went unnamed: "the database does not exist" with no name, and a collection started in
    the database postgres was said to be "on postgresql://postgres@host"."""
    import psycopg

    named = pg_server.create("default")
    server = named.rsplit("/", 1)[0]  # postgresql://postgres@127.0.0.1:PORT
    result = quiz(env, None, "stats", QUIZ_DB=server + "/", PGDATABASE=named.rsplit("/", 1)[1], QUIZ_USER="dflt")
    assert result.returncode == 0 and f"New collection for learner dflt on {named} (" in result.stderr, result.stderr
    with psycopg.connect(named) as conn:
        assert conn.execute("SELECT to_regnamespace('learner_dflt') IS NOT NULL").fetchone() == (True,)
    with psycopg.connect(pg_server.url("postgres"), autocommit=True) as conn:
        conn.execute("CREATE ROLE erin LOGIN")
    as_erin = server.replace("postgres@", "erin@")
    assert_server_refused(quiz(env, None, *STUDY, stdin=STUDY_INPUT, QUIZ_DB=as_erin), as_erin,
                          "the database erin does not exist", "createdb erin", "PGDATABASE")


def test_a_server_given_with_the_db_option_is_used(env, pg_server):
    """``--db postgresql://...`` studies on the server (the option is a path: ``//`` must survive)."""
    import psycopg

    url = pg_server.create()
    result = quiz(env, None, "--db", url, *STUDY, stdin="\n3\nq\n")
    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stdout + result.stderr
    with psycopg.connect(url) as conn:
        row = conn.execute('SELECT count(*) FROM "learner_postgres".review_log').fetchone()  # the URL's user's own
    assert row == (1,)


def test_backups_on_a_server_say_the_servers_own_backups_apply(env):
    url = "postgresql://ann:s3cret@db.example:5432/quiz"
    result = quiz(env, None, "backup", "list", QUIZ_DB=url)
    assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr
    assert "postgresql://ann:***@db.example:5432/quiz" in result.stderr and "s3cret" not in result.stderr
    assert "own backups" in result.stderr and "pg_dump" in result.stderr
    # a name with a dot: pg_dump --schema=learner_a.b was "cross-database references are not implemented"
    result = quiz(env, None, "backup", "list", QUIZ_DB=url, QUIZ_USER="a.b")
    assert "pg_dump --schema='\"learner_a.b\"'" in result.stderr, result.stderr


def test_check_on_a_server_that_is_down_is_one_line(env):
    """``quiz check`` talks to a server (tests/test_check.py); one that is not there is an error
    naming it, without the password."""
    from pg import free_port

    url = f"postgresql://ann:s3cret@127.0.0.1:{free_port()}/quiz"
    result = quiz(env, None, "check", QUIZ_DB=url)
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert lines[0].startswith("Error: postgresql://ann:***@127.0.0.1:") and "s3cret" not in result.stderr


@pytest.mark.parametrize("args", [(), ("check",), ("history", "export", "{loop}"), ("export", "markdown", "--out", "{loop}"),
                                  ("export", "anki", "{loop}.apkg"), ("lint", "{loop}")])
def test_a_symlink_loop_is_a_plain_error_not_a_bug_report(env, good_db, tmp_path, args):
    """Path.resolve raised "RuntimeError: Symlink loop", which the boundary called a bug."""
    loop = tmp_path / "loop"
    (tmp_path / "loop2").symlink_to(loop)
    loop.symlink_to(tmp_path / "loop2")
    (tmp_path / "loop.apkg").symlink_to(tmp_path / "loop.apkg")
    db = loop if not args or args == ("check",) else good_db
    result = quiz(env, db, *(arg.format(loop=loop) for arg in args))
    assert result.returncode in (1, 2), result.stderr
    assert "unexpected" not in result.stderr and "Traceback" not in result.stderr, result.stderr


def test_tables_that_do_not_match_their_schema_stamp_are_one_line_and_left_alone(env, good_db):
    """A file stamped 0001 whose tables are at the head (a backup edited by another tool, then
    restored) failed every command with "unexpected OperationalError" and the SQL on one line."""
    with sqlite3.connect(good_db) as conn:
        conn.execute("UPDATE alembic_version SET version_num = '0001'")
    kept = sorted((good_db.parent / "backups").iterdir())
    for _ in range(2):
        result = quiz(env, good_db)
        line = assert_refused(result, good_db, "its tables do not match the schema it names (0001)")
        assert "table exams already exists" in line and "CREATE TABLE" not in line and "unexpected" not in line
    with sqlite3.connect(good_db) as conn:  # the migration rolled back
        assert conn.execute("SELECT version_num FROM alembic_version").fetchall() == [("0001",)]
    # and left no copy of the file it did not change: each refusal added one, which `latest` then named
    assert sorted((good_db.parent / "backups").iterdir()) == kept
