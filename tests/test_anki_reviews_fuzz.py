"""Hostile Anki files for ``quiz history import``: whatever bytes a package or collection holds,
and whatever values its review log rows have, the read gives reviews or one HistoryFileError,
never another exception, and the database is left alone."""

from __future__ import annotations

import io
import os
import sqlite3
import zipfile
from contextlib import closing
from datetime import datetime, timezone
from pathlib import Path

import genanki
import pytest
from conftest import MINI_DECK
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from quizzer.cli import app
from quizzer.base.errors import HistoryFileError
from quizzer.transfer.anki_reviews import read_anki_reviews

runner = CliRunner()
NOW = datetime(2030, 1, 1, tzinfo=timezone.utc)
DECK = MINI_DECK + """\
  - {id: f-one, kind: qa, source: "1.1", question: 问题一, answer: 答案一, points: [要点]}
"""
GUIDS = {genanki.guid_for("f-one"): "f-one"}
VALUES = st.one_of(st.none(), st.integers(min_value=-2**63, max_value=2**63 - 1), st.floats(allow_nan=True),
                   st.text(max_size=20), st.binary(max_size=20))


@pytest.fixture(scope="module")
def collection(tmp_path_factory) -> bytes:
    """The SQLite collection of a one-card export, with one review in its log."""
    folder = tmp_path_factory.mktemp("decks")
    (folder / "mini.yaml").write_text(DECK, "utf-8")
    package = folder.parent / "fuzz.apkg"
    assert runner.invoke(app, ["export", "anki", str(package), "--decks", str(folder), "--new"]).exit_code == 0
    with zipfile.ZipFile(package) as archive:
        data = archive.read("collection.anki2")
    path = folder.parent / "one.anki2"
    path.write_bytes(data)
    with closing(sqlite3.connect(path)) as db, db:
        (card_id,) = db.execute("SELECT id FROM cards").fetchone()
        db.execute("INSERT INTO revlog VALUES (1700000000000, ?, -1, 3, 1, 0, 2500, 4000, 1)", (card_id,))
    return path.read_bytes()


def test_the_collection_reads_as_one_review(collection, tmp_path):
    path = tmp_path / "c.anki2"
    path.write_bytes(collection)
    found = read_anki_reviews(path, GUIDS, NOW)
    assert [(r.card_id, r.rating, r.reviewed_at, r.duration_ms) for r in found.reviews] == [
        ("f-one", 3, datetime(2023, 11, 14, 22, 13, 20, tzinfo=timezone.utc), 4000)]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.integers(min_value=0), st.integers(min_value=0, max_value=255)), min_size=1, max_size=8))
def test_flipped_bytes_give_reviews_or_one_error(collection, tmp_path, flips):
    data = bytearray(collection)
    for at, value in flips:
        data[at % len(data)] = value
    path = tmp_path / "c.anki2"
    path.write_bytes(bytes(data))
    try:
        read_anki_reviews(path, GUIDS, NOW)
    except HistoryFileError:
        pass


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.tuples(VALUES, VALUES, VALUES, VALUES))
def test_any_review_log_values_give_reviews_or_one_error(collection, tmp_path, row):
    path = tmp_path / "c.anki2"
    path.write_bytes(collection)
    revlog_id, ease, duration, kind = row
    with closing(sqlite3.connect(path)) as db, db:  # a hostile file's table has no types and no constraints
        (card_id,) = db.execute("SELECT cid FROM revlog").fetchone()
        db.execute("DROP TABLE revlog")
        db.execute("CREATE TABLE revlog (id, cid, usn, ease, ivl, lastIvl, factor, time, type)")
        db.execute("INSERT INTO revlog VALUES (?, ?, -1, ?, 0, 0, 0, ?, ?)", (revlog_id, card_id, ease, duration, kind))
    try:
        found = read_anki_reviews(path, GUIDS, NOW)
    except HistoryFileError:
        return
    assert all(1 <= r.rating <= 4 and r.reviewed_at <= NOW for r in found.reviews)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.binary(max_size=300), st.sampled_from(["collection.anki21b", "collection.anki21", "collection.anki2", "x"]))
def test_any_package_gives_reviews_or_one_error(tmp_path, inner, name):
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr(name, inner)
    path = tmp_path / "p.apkg"
    path.write_bytes(out.getvalue())
    with pytest.raises(HistoryFileError):  # no such bytes make a collection
        read_anki_reviews(path, GUIDS, NOW)


def test_a_hostile_file_through_the_cli_changes_nothing(tmp_path):
    assert runner.invoke(app, ["history", "export", "-"]).exit_code == 0  # the database made
    before = Path(os.environ["QUIZ_DB"]).read_bytes()
    bad = tmp_path / "bad.colpkg"
    bad.write_bytes(b"PK\x03\x04" + b"\x00" * 50)
    result = runner.invoke(app, ["history", "import", str(bad)])
    assert result.exit_code == 1 and result.stderr.startswith(f"Error: {bad}: neither an Anki package"), result.output
    assert Path(os.environ["QUIZ_DB"]).read_bytes() == before
