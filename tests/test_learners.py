"""Several learners on one PostgreSQL server (tests/pg.py starts it): each learner's collection is
their own, two of them study at once, and `quiz class report` says what an independent count of
their answers says. On SQLite the same report is a class of one.

Expected figures come from the answers each session printed (`saved CARD → RATING`) and from
the deck written here, never from the project's own queries; the server's rows are read with
psycopg directly.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # every test here starts a process

REPO = Path(__file__).resolve().parents[1]
T0 = datetime(2026, 3, 2, 9, 0, tzinfo=timezone.utc)
LATER = T0 + timedelta(days=40)  # every card rated Easy on T0 is due again (an Easy interval is days, not weeks)
TAGS = {"c1": ["attention"], "c2": ["attention", "bert"], "c3": ["bert"], "c4": ["gpt"]}
DECK = ('id: class\ntitle: class\nlanguage: zh\nsource: {file: c.txt, sections: "1"}\ncards:\n' + "".join(
    f'  - {{id: {card}, kind: qa, source: "1.{n}", question: 问{n}, answer: 答{n}, points: [点], tags: [{", ".join(tags)}]}}\n'
    for n, (card, tags) in enumerate(TAGS.items(), 1)))
RATINGS = {"1": "Again", "2": "Hard", "3": "Good", "4": "Easy"}


@pytest.fixture
def decks(deck_folder) -> Path:
    return deck_folder(DECK, "class.yaml")


def quiz(*args: str, db: str, user: str | None, now: datetime, stdin: str = "") -> subprocess.Popen[str]:
    env = {**os.environ, "QUIZ_DB": db, "QUIZ_NOW": now.isoformat(), "QUIZ_LANG": "en", "COLUMNS": "200",
           "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
    env.pop("QUIZ_USER", None)
    if user is not None:
        env["QUIZ_USER"] = user
    process = subprocess.Popen([sys.executable, "-m", "quizzer", *args], env=env, cwd=REPO, text=True,
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert process.stdin is not None
    process.stdin.write(stdin)  # small: the pipe's buffer holds it while the program starts
    process.stdin.close()
    process.stdin = None  # written: communicate() only reads
    return process


def finished(process: subprocess.Popen[str]) -> tuple[int, str, str]:
    out, err = process.communicate(timeout=120)
    return process.returncode, out, err


def answers(*ratings: int) -> str:
    """Reveal and rate one card per rating, then quit."""
    return "".join(f"\n{rating}\n" for rating in ratings) + "q\n"


def saved(out: str) -> list[tuple[str, str]]:
    """(card, rating word) of every committed review a session printed."""
    lines = [line.split()[1:4] for line in out.splitlines() if line.startswith("saved ")]
    return [(card, rating) for card, _arrow, rating in lines]


def server_reviews(url: str, learner: str) -> list[tuple[str, str]]:
    import psycopg

    with psycopg.connect(url) as conn:
        rows = conn.execute(f'SELECT card_id, rating FROM "learner_{learner}".review_log ORDER BY id').fetchall()
    return [(card, RATINGS[str(rating)]) for card, rating in rows]


def report(db: str, user: str | None, days: int) -> dict:
    code, out, err = finished(quiz("class", "report", "--json", "--days", str(days), db=db, user=user, now=LATER))
    assert code == 0, err
    return json.loads(out)


def expected_failed(sessions: dict[str, list[tuple[str, str]]], of: dict[str, list[str]]) -> dict[str, tuple[int, int]]:
    """{name: (failed reviews, learners who failed it)}, cards or tags (``of`` maps a card to its names)."""
    failures: dict[str, Counter[str]] = {}
    for learner, reviews in sessions.items():
        for card, rating in reviews:
            if rating == "Again":
                for name in of[card]:
                    failures.setdefault(name, Counter())[learner] += 1
    return {name: (sum(by.values()), len(by)) for name, by in failures.items()}


def test_two_learners_study_at_once_and_the_class_report_counts_them(pg_server, decks):
    db = pg_server.create("class")
    # at once: ann rates every new card Easy (into review), bob fails two
    ann, bob = (quiz("study", "--decks", str(decks), db=db, user=user, now=T0, stdin=stdin)
                for user, stdin in (("ann", answers(4, 4, 4, 4)), ("bob", answers(1, 1, 4, 4))))
    (ann_code, ann_out, ann_err), (bob_code, bob_out, bob_err) = finished(ann), finished(bob)
    assert ann_code == 0 and bob_code == 0, ann_err + bob_err
    # forty days on, ann's four cards are due in review: two forgotten, two recalled, then the relearning ones
    code, later_out, err = finished(quiz("study", "--decks", str(decks), db=db, user="ann", now=LATER,
                                         stdin=answers(1, 3, 3, 1, 3, 3)))
    assert code == 0, err
    sessions = {"ann": saved(ann_out) + saved(later_out), "bob": saved(bob_out)}
    assert [rating for _, rating in saved(ann_out)] == ["Easy"] * 4 and len(saved(later_out)) == 6
    assert sorted(card for card, _ in saved(bob_out)) == sorted(TAGS)

    # no review crossed learners: each schema holds exactly that learner's answers, in order
    assert server_reviews(db, "ann") == sessions["ann"]
    assert server_reviews(db, "bob") == sessions["bob"]

    # the report, read by someone who studies nothing (no collection is made for them)
    shown = report(db, "teacher", days=41)
    assert [one["learner"] for one in shown["learners"]] == ["ann", "bob"]
    by_name = {one["learner"]: one for one in shown["learners"]}
    assert by_name["ann"]["reviews"] == len(sessions["ann"]) and by_name["ann"]["days_studied"] == 2
    assert by_name["bob"]["reviews"] == len(sessions["bob"]) and by_name["bob"]["days_studied"] == 1
    # true retention: each card's first review of a day in review state (ann's first four of day 40)
    first_of_day = {card: rating for card, rating in reversed(saved(later_out)[:4])}
    passed = sum(rating != "Again" for rating in first_of_day.values())
    assert by_name["ann"]["retention"] == {"passed": passed, "failed": 4 - passed, "rate": passed / 4}
    assert by_name["bob"]["retention"]["rate"] is None  # bob's cards never reached review
    cards = expected_failed(sessions, {card: [card] for card in TAGS})
    tags = expected_failed(sessions, TAGS)
    assert {c["name"]: (c["failures"], c["learners"]) for c in shown["cards"]} == cards
    assert {t["name"]: (t["failures"], t["learners"]) for t in shown["tags"]} == tags
    assert all(row["share"] == row["learners"] / 2 for row in shown["cards"] + shown["tags"])
    with __import__("psycopg").connect(db) as conn:
        schemas = {name for (name,) in conn.execute("SELECT nspname FROM pg_namespace")}
    assert "learner_teacher" not in schemas

    # a window that leaves day one out: only ann's day-40 reviews
    recent = {one["learner"]: one for one in report(db, "teacher", days=7)["learners"]}
    assert recent["ann"]["reviews"] == len(saved(later_out)) and recent["bob"]["reviews"] == 0


def test_a_learner_without_reviews_is_listed_but_not_counted_in_the_class(pg_server, decks):
    """Any command made a collection for any name, and an empty one counted in the class: two
    learners failing a card were "2 (17%)" of a class inflated by typos. A new collection is said
    once, on stderr, so the typo is seen; the report's shares are of the learners who reviewed."""
    db = pg_server.create("ghosts")
    for user in ("ann", "bob"):
        code, _, err = finished(quiz("study", "--decks", str(decks), db=db, user=user, now=T0, stdin=answers(1)))
        assert code == 0, err
    code, _, err = finished(quiz("stats", "--decks", str(decks), db=db, user="bbo", now=T0))  # a typo
    assert code == 0 and f"New collection for learner bbo on {db}" in err, err
    code, _, err = finished(quiz("stats", "--decks", str(decks), db=db, user="bbo", now=T0))
    assert code == 0 and "New collection" not in err, err  # once
    code, _, err = finished(quiz("stats", "--decks", str(decks), db=db, user="ann", now=T0))
    assert code == 0 and "New collection" not in err, err
    shown = report(db, "teacher", days=41)
    assert [(one["learner"], one["reviews"]) for one in shown["learners"]] == [("ann", 1), ("bbo", 0), ("bob", 1)]
    assert shown["class_size"] == 2
    assert [(card["learners"], card["share"]) for card in shown["cards"]] == [(2, 1.0)]
    code, out, err = finished(quiz("class", "report", "--days", "3", db=db, user="teacher", now=T0))
    assert code == 0 and "having no review in these days: bbo" in " ".join(out.split()), out + err
    assert "2 (100.0%)" in out, out


@pytest.mark.parametrize("command", [["check"], ["config", "set", "desired_retention", "0.85"], ["db", "copy", "--to", "COPY"]])
def test_every_command_that_starts_a_collection_says_so(pg_server, decks, tmp_path, command):
    """Those that open the database without the decks started a collection in silence: `quiz check`
    said only "ok", `config set desired_retention` showed due counts of a new, empty collection, and
    `db copy` copied one, a mistyped name unseen."""
    db = pg_server.create("said")
    for run, said in ((1, True), (2, False)):  # said once
        args = [str(tmp_path / f"copy{run}.db") if word == "COPY" else word for word in command]
        code, _, err = finished(quiz(*args, db=db, user="typo", now=T0))
        assert code == 0 and (f"New collection for learner typo on {db}" in err) == said, err


def test_interview_and_parameters_are_each_learners_own(pg_server, decks):
    db = pg_server.create("own")
    code, _, err = finished(quiz("plan", "--date", "2026-04-15", "--decks", str(decks), db=db, user="ann", now=T0))
    assert code == 0, err
    code, _, err = finished(quiz("study", "--decks", str(decks), db=db, user="bob", now=T0, stdin=answers(3)))
    assert code == 0, err
    learners = {one["learner"]: one for one in report(db, "ann", days=14)["learners"]}
    assert learners["ann"]["interview"] == "2026-04-15" and learners["bob"]["interview"] is None
    code, out, err = finished(quiz("plan", "--json", "--decks", str(decks), db=db, user="bob", now=T0))
    assert code == 0 and json.loads(out)["interview"] is None, err


def test_class_report_on_sqlite_is_a_class_of_one(tmp_path, decks):
    db = str(tmp_path / "one.db")
    code, out, err = finished(quiz("study", "--decks", str(decks), db=db, user="dana", now=LATER, stdin=answers(1, 3)))
    assert code == 0, err
    shown = report(db, "dana", days=3)
    assert [(one["learner"], one["reviews"]) for one in shown["learners"]] == [("dana", len(saved(out)))]
    failed = [card for card, rating in saved(out) if rating == "Again"]
    assert [(c["name"], c["failures"], c["share"]) for c in shown["cards"]] == [(failed[0], 1, 1.0)]


def test_the_class_report_leaves_a_learners_aggregate_as_it_was(tmp_path, decks):
    """A report read under another day start rebuilt each learner's review-day table by its own
    rule and stored it, so the learner's next `quiz stats` rebuilt it again (seconds a million
    reviews), and the two kept forcing each other."""
    import sqlite3

    db = str(tmp_path / "one.db")
    assert finished(quiz("study", "--decks", str(decks), db=db, user="dana", now=LATER, stdin=answers(1, 3)))[0] == 0
    assert finished(quiz("stats", "--json", db=db, user="dana", now=LATER))[0] == 0

    def watermark() -> str:
        with sqlite3.connect(db) as conn:
            return conn.execute("SELECT value FROM meta WHERE key = 'review_days'").fetchone()[0]

    kept = watermark()
    assert finished(quiz("config", "set", "day_start_hour", "0", db=db, user="dana", now=LATER))[0] == 0
    assert report(db, "dana", days=3)["learners"][0]["reviews"] == 2
    assert watermark() == kept


@pytest.mark.parametrize("language", ["en", "zh"])
def test_the_class_report_never_cuts_a_figure_or_date_however_narrow(language):
    """At 100 columns a 40-character learner left `2027-01-1` of the interview date (2027-01-15), at
    80 the header `int`, at 60 even short names left `2027-01-` and `retenti`: the names wrap instead."""
    from datetime import date

    from rich.console import Console

    from quizzer.base import i18n
    from quizzer.app.classroom import ClassReport, Failed, LearnerFigures
    from quizzer.app.stats import Retention
    from quizzer.terminal.classroom import show
    from quizzer.terminal.linebreak import install

    install()  # as the terminal's console does (render.console): Chinese breaks between characters

    long_name = "a" * 20 + "." + "b" * 19
    learners = [LearnerFigures(name, 12_580, 14, Retention(5, 3, 0.625), [60.0, 62.5], 2.5, date(2027, 1, 15))
                for name in ("ann", long_name)]
    cards = [Failed("bert-embedding-table-and-its-positions", 1_234, 2, 1.0)]
    report = ClassReport(date(2026, 11, 19), date(2026, 12, 2), learners, 2, cards, cards, 1, 1, [], False)
    i18n.use(language)
    try:
        headers = [i18n._(word) for word in ("reviews", "days studied", "true retention", "interview", "failed")]
        for width in (60, 80, 100):
            console = Console(width=width, record=True, color_system=None, legacy_windows=False)
            show(console, report)
            out = console.export_text()
            words = {word for line in out.splitlines() for word in line.split()}
            assert max(map(len, out.splitlines())) <= width, out
            for figure in ("12,580", "14", "62.5%", "2027-01-15", "1,234", "2", "(100.0%)"):  # exam 62.5: was 62%
                assert figure in words, (width, figure, out)
            if language == "en":  # each header word whole (a Chinese header may break between characters)
                assert {word for header in headers for word in header.split()} <= words, (width, out)
            assert "+2.5/exam" in words or language == "zh", (width, out)
    finally:
        i18n.use("en")


def test_a_learner_name_that_cannot_name_a_collection_is_refused(pg_server):
    db = pg_server.create("names")
    code, out, err = finished(quiz("stats", db=db, user="Ann Smith", now=T0))
    assert code == 2 and out == ""
    assert err.count("\n") <= 2 and "QUIZ_USER" in err and "'Ann Smith'" in err and "Traceback" not in err


def test_a_login_without_rights_gets_one_line_not_a_collection(pg_server, decks):
    """A role that may not create schemas cannot start its collection, and says so in one line; it
    lists no learner in the class report (it may read none); another's collection is not its to open."""
    import psycopg

    db = pg_server.create("rights")
    code, _, err = finished(quiz("study", "--decks", str(decks), db=db, user="ann", now=T0, stdin=answers(3)))
    assert code == 0, err
    with psycopg.connect(db, autocommit=True) as conn:
        conn.execute("CREATE ROLE carol LOGIN")
    as_carol = db.replace("postgres@", "carol@")
    code, out, err = finished(quiz("stats", db=as_carol, user="carol", now=T0))
    assert code == 1 and "carol" in err and "CREATE SCHEMA" in err and "Traceback" not in err
    code, out, err = finished(quiz("class", "report", "--json", db=as_carol, user="carol", now=T0))
    assert code == 0 and json.loads(out)["learners"] == [], err
    # ann's collection exists: carol may not open it, which is not "no collection there"
    code, out, err = finished(quiz("stats", db=as_carol, user="ann", now=T0))
    assert code == 2 and "login carol may not open learner ann's collection" in err, err
    assert "CREATE SCHEMA" not in err and "Traceback" not in err


def test_a_login_that_may_create_schemas_but_not_read_anothers_is_told_so(pg_server, decks):
    """With CREATE on the database (as a learner needs to start a collection) but no rights to
    ann's schema, opening ann's is one line naming the rule and whose schema it is, never a schema
    mismatch or a backup to restore."""
    import psycopg

    db = pg_server.create("usage")
    code, _, err = finished(quiz("study", "--decks", str(decks), db=db, user="ann", now=T0, stdin=answers(3)))
    assert code == 0, err
    with psycopg.connect(db, autocommit=True) as conn:
        conn.execute("CREATE ROLE bob LOGIN")
        conn.execute(f"GRANT CREATE ON DATABASE {db.rsplit('/', 1)[1]} TO bob")
    as_bob = db.replace("postgres@", "bob@")
    code, out, err = finished(quiz("stats", db=as_bob, user="ann", now=T0))
    assert code == 2 and "login bob may not open learner ann's collection" in err, err
    assert 'schema "learner_ann" belongs to role postgres' in err
    assert "None" not in err and "backup" not in err and "Traceback" not in err and len(err.splitlines()) == 1
    code, _, err = finished(quiz("stats", db=as_bob, user="bob", now=T0))  # bob's own is his to make
    assert code == 0, err


def learner_schemas(url: str) -> set[str]:
    import psycopg

    with psycopg.connect(url) as conn:
        return {name for (name,) in conn.execute("SELECT nspname FROM pg_namespace WHERE nspname LIKE 'learner_%'")}


def test_the_learner_is_the_urls_user_unless_quiz_user_or_the_setting_names_one(pg_server, tmp_path, monkeypatch):
    """README's `QUIZ_DB=postgresql://ann@.../quiz` then `quiz study` opened learner_<login name>: one
    learner on two devices with other logins had two collections. The order: QUIZ_USER, the user
    setting, the URL's user name, the login name; `quiz config` says which gave it."""
    import psycopg

    from quizzer.base.learners import login_name

    db = pg_server.create("whose")
    with psycopg.connect(db, autocommit=True) as conn:
        conn.execute("CREATE ROLE ann LOGIN")
        conn.execute(f"GRANT CREATE ON DATABASE {db.rsplit('/', 1)[1]} TO ann")
    as_ann = db.replace("postgres@", "ann@")
    code, _, err = finished(quiz("stats", db=as_ann, user=None, now=T0))
    assert code == 0, err
    assert learner_schemas(db) == {"learner_ann"}
    code, out, err = finished(quiz("config", "--json", db=as_ann, user=None, now=T0))
    assert code == 0 and json.loads(out)["settings"]["user"] | {"allowed": ""} == {
        "value": "ann", "source": "url", "allowed": ""}, out + err
    code, out, err = finished(quiz("config", db=as_ann, user=None, now=T0))
    assert code == 0 and any(line.split()[:3] == ["user", "ann", "url"] for line in out.splitlines()), out
    as_option = as_ann.replace("ann@", "") + "?user=ann"  # libpq's other way to name it
    code, out, err = finished(quiz("config", "--json", db=as_option, user=None, now=T0))
    assert code == 0 and json.loads(out)["settings"]["user"]["value"] == "ann", out + err
    code, out, err = finished(quiz("config", "--json", db=str(tmp_path / "q.db"), user=None, now=T0))
    assert code == 0 and json.loads(out)["settings"]["user"] | {"allowed": ""} == {
        "value": login_name(), "source": "login", "allowed": ""}, out + err

    config = tmp_path / "config.toml"
    config.write_text('user = "bob"\n', "utf-8")
    monkeypatch.setenv("QUIZ_CONFIG", str(config))
    assert finished(quiz("stats", db=db, user=None, now=T0))[0] == 0  # the setting wins over the URL's postgres
    assert finished(quiz("stats", db=db, user="cat", now=T0))[0] == 0  # QUIZ_USER wins over the setting
    code, out, err = finished(quiz("config", "--json", db=as_ann, user=None, now=T0))
    assert json.loads(out)["settings"]["user"]["source"] == "file", out + err
    assert learner_schemas(db) == {"learner_ann", "learner_bob", "learner_cat"}


def test_the_learner_is_whom_libpq_logs_in_as_pguser_when_the_url_names_nobody(pg_server, monkeypatch):
    """PGUSER=ann with a URL that names no user: libpq (and psql) log in as ann, but the learner was the
    login name, a collection of that name owned by ann. The URL's user still comes first, as for libpq."""
    import psycopg

    db = pg_server.create("pguser")
    with psycopg.connect(db, autocommit=True) as conn:
        conn.execute("CREATE ROLE dora LOGIN")
        conn.execute(f"GRANT CREATE ON DATABASE {db.rsplit('/', 1)[1]} TO dora")
    monkeypatch.setenv("PGUSER", "dora")
    nobody = db.replace("postgres@", "")
    code, _, err = finished(quiz("stats", db=nobody, user=None, now=T0))
    assert code == 0 and "New collection for learner dora on" in err, err
    with psycopg.connect(db) as conn:
        owners = dict(conn.execute("SELECT nspname, nspowner::regrole::text FROM pg_namespace "
                                   "WHERE nspname LIKE 'learner_%'").fetchall())
    assert owners == {"learner_dora": "dora"}
    code, out, err = finished(quiz("config", "--json", db=nobody, user=None, now=T0))
    assert code == 0 and json.loads(out)["settings"]["user"] | {"allowed": ""} == {
        "value": "dora", "source": "PGUSER", "allowed": ""}, out + err
    code, out, err = finished(quiz("config", "--json", db=db, user=None, now=T0))  # the URL's postgres@ wins
    assert code == 0 and json.loads(out)["settings"]["user"]["value"] == "postgres", out + err


def test_db_copy_takes_one_learners_collection(pg_server, decks, tmp_path):
    db = pg_server.create("copy")
    for user, ratings in (("ann", (4, 4)), ("bob", (1, 1, 1))):
        code, _, err = finished(quiz("study", "--decks", str(decks), db=db, user=user, now=T0, stdin=answers(*ratings)))
        assert code == 0, err
    target = tmp_path / "bob.db"
    code, out, err = finished(quiz("db", "copy", "--to", str(target), "--json", db=db, user="bob", now=T0))
    assert code == 0, err
    assert json.loads(out)["rows"]["review_log"] == len(server_reviews(db, "bob")) == 3
    import sqlite3

    with sqlite3.connect(target) as conn:
        copied = conn.execute("SELECT card_id, rating FROM review_log ORDER BY id").fetchall()
    assert [(card, RATINGS[str(rating)]) for card, rating in copied] == server_reviews(db, "bob")


def test_db_copy_replaces_a_collection_that_only_opening_it_made(pg_server, decks, tmp_path):
    """Once fay had run any command on the server, `db copy --to URL` was refused: "not empty (it
    has rows in cards, meta, card_tags)", the deck's cards that opening synced, with advice for a
    new database. Other learners' collections never counted; fay's own reviews do."""
    db = pg_server.create("copyin")
    code, _, err = finished(quiz("study", "--decks", str(decks), db=db, user="ann", now=T0, stdin=answers(1)))
    assert code == 0, err
    code, _, err = finished(quiz("stats", "--decks", str(decks), db=db, user="fay", now=T0))  # opened once
    assert code == 0, err
    before = str(tmp_path / "fay.db")
    code, studied, err = finished(quiz("study", "--decks", str(decks), db=before, user="fay", now=T0,
                                       stdin=answers(3, 1)))
    assert code == 0, err
    code, _, err = finished(quiz("db", "copy", "--to", db, db=before, user="fay", now=T0))
    assert code == 0, err
    assert server_reviews(db, "fay") == saved(studied) != []
    code, _, err = finished(quiz("db", "copy", "--to", db, db=before, user="fay", now=T0))
    assert code == 2 and "learner fay's collection there is not empty (it has rows in " in err, err
    assert "review_log" in err and 'DROP SCHEMA "learner_fay" CASCADE' in err and "empty database" not in err


def test_a_collection_kept_before_learners_is_the_first_learners(pg_server, decks):
    """A database whose collection predates learners (tables in ``public``) loses nothing: the
    first learner to open it gets it; the next starts a collection of their own."""
    import psycopg

    db = pg_server.create("before")
    code, out, err = finished(quiz("study", "--decks", str(decks), db=db, user="old", now=T0, stdin=answers(3, 1)))
    assert code == 0, err
    reviewed = saved(out)
    with psycopg.connect(db, autocommit=True) as conn:  # as the quizzer before learners kept it
        for (table,) in conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'learner_old'").fetchall():
            conn.execute(f'ALTER TABLE "learner_old"."{table}" SET SCHEMA public')
        conn.execute('DROP SCHEMA "learner_old"')
    # the class report said "No learner has a collection on this database yet", the old one unmentioned
    assert report(db, "teacher", days=41)["public_collection"] is True
    code, out, err = finished(quiz("class", "report", db=db, user="teacher", now=T0))
    assert code == 0 and "a collection kept before quizzer had learners, still in the schema public" in " ".join(out.split()), out + err
    # two learners open it at once: exactly one of them gets the old collection
    first, second = (quiz("stats", "--json", "--decks", str(decks), db=db, user=user, now=T0) for user in ("ann", "bob"))
    (code1, out1, err1), (code2, out2, err2) = finished(first), finished(second)
    assert code1 == 0 and code2 == 0, err1 + err2
    totals = sorted(json.loads(out)["reviews_total"] for out in (out1, out2))
    assert totals == [0, len(reviewed)]
    owner = "ann" if json.loads(out1)["reviews_total"] else "bob"
    assert server_reviews(db, owner) == reviewed
    with psycopg.connect(db) as conn:
        left = conn.execute("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'").fetchone()
    assert left == (0,)
    assert report(db, "teacher", days=41)["public_collection"] is False


def test_the_class_report_says_how_many_failed_cards_and_tags_it_does_not_list():
    """Only the ten failed most are listed: the twelfth card someone failed was passed over in silence."""
    from datetime import date

    from rich.console import Console

    from quizzer.app.classroom import HARDEST, ClassReport, Failed, LearnerFigures
    from quizzer.app.stats import Retention
    from quizzer.terminal.classroom import show

    learners = [LearnerFigures("ann", 30, 2, Retention(5, 3, 0.625), [], None, None)]
    listed = [Failed(f"card-{n}", 1, 1, 1.0) for n in range(HARDEST)]
    for cards_failed, tags_failed, said in ((12, 11, ["and 2 more cards failed", "and 1 more tag failed"]),
                                            (HARDEST, HARDEST, [])):
        report = ClassReport(date(2026, 11, 19), date(2026, 12, 2), learners, 1, listed, listed, cards_failed,
                             tags_failed, [], False)
        console = Console(width=100, record=True, color_system=None)
        show(console, report)
        out = console.export_text()
        assert [line.strip() for line in out.splitlines() if line.startswith("and ")] == said, out


def test_a_collection_newer_than_this_quizzer_says_this_quizzer_is_behind():
    """A collection a later quizzer upgraded was said to wait for "their own quiz" to upgrade it."""
    from datetime import date

    from rich.console import Console

    from quizzer.app.classroom import ClassReport, Unread
    from quizzer.store.schema import SCHEMA_HEAD
    from quizzer.terminal.classroom import show

    report = ClassReport(date(2026, 11, 19), date(2026, 12, 2), [], 0, [], [], 0, 0,
                         [Unread("bob", "0002", "older"), Unread("dave", "9999", "newer")], False)
    assert "0002" < SCHEMA_HEAD < "9999"
    console = Console(width=200, record=True, color_system=None)
    show(console, report)
    out = console.export_text()
    assert "an older schema version, which only their own quiz upgrades: bob (0002)" in out, out
    assert "a newer schema version than this quizzer reads: upgrade quizzer to include them: dave (9999)" in out, out


def test_a_collection_at_another_schema_version_is_left_out_not_upgraded(pg_server, decks):
    import psycopg

    db = pg_server.create("versions")
    for user in ("ann", "bob"):
        code, _, err = finished(quiz("study", "--decks", str(decks), db=db, user=user, now=T0, stdin=answers(1)))
        assert code == 0, err
    with psycopg.connect(db, autocommit=True) as conn:  # bob's laptop still runs an older quizzer
        conn.execute('UPDATE "learner_bob".alembic_version SET version_num = \'0002\'')
    shown = report(db, "ann", days=3)
    assert [one["learner"] for one in shown["learners"]] == ["ann"]
    assert [(one["learner"], one["version"]) for one in shown["unread"]] == [("bob", "0002")]
    assert "bob's collection is at schema 0002" in shown["unread"][0]["reason"]
    assert all(row["learners"] == 1 and row["share"] == 1.0 for row in shown["cards"])  # a class of one read
    with psycopg.connect(db) as conn:
        assert conn.execute('SELECT version_num FROM "learner_bob".alembic_version').fetchone() == ("0002",)


def test_a_damaged_collection_is_left_out_and_the_class_still_reported(pg_server, decks):
    """A table gone from one learner's schema stopped the whole report with an unexpected error;
    the others are reported, and the damaged one is named with the reason in one line."""
    import psycopg

    db = pg_server.create("damaged")
    for user in ("ann", "bob", "cat"):
        code, _, err = finished(quiz("study", "--decks", str(decks), db=db, user=user, now=T0, stdin=answers(1, 3)))
        assert code == 0, err
    with psycopg.connect(db, autocommit=True) as conn:
        conn.execute('DROP TABLE "learner_bob".exam_questions, "learner_bob".exams')
    shown = report(db, "ann", days=3)
    assert [one["learner"] for one in shown["learners"]] == ["ann", "cat"]
    assert [(one["learner"], one["version"]) for one in shown["unread"]] == [("bob", None)]
    assert "bob's collection cannot be read" in shown["unread"][0]["reason"] and "exams" in shown["unread"][0]["reason"]
    code, out, err = finished(quiz("class", "report", "--days", "3", db=db, user="ann", now=LATER))
    assert code == 0 and "Traceback" not in err, err
    assert "Left out: bob's collection cannot be read" in " ".join(out.split()) and "cat" in out


def test_the_user_setting_picks_the_learner_and_is_checked(pg_server, decks, tmp_path, monkeypatch):
    import psycopg

    monkeypatch.setenv("QUIZ_CONFIG", str(tmp_path / "config.toml"))
    db = pg_server.create("setting")
    code, _, err = finished(quiz("config", "set", "user", "Bad Name", db=db, user=None, now=T0))
    assert code == 2 and "user: a learner name is" in err and "'Bad Name'" in err
    code, out, err = finished(quiz("config", "set", "user", "Ann.Lee", db=db, user=None, now=T0))
    assert code == 0 and "→ ann.lee" in out, err
    code, out, err = finished(quiz("study", "--decks", str(decks), db=db, user=None, now=T0, stdin=answers(3)))
    assert code == 0, err
    assert server_reviews(db, "ann.lee") == saved(out) != []
    with psycopg.connect(db) as conn:  # only the setting's learner was made, not the login's
        assert conn.execute("SELECT count(*) FROM pg_namespace WHERE nspname LIKE 'learner_%'").fetchone() == (1,)
    code, _, err = finished(quiz("stats", db=db, user="bob", now=T0))  # QUIZ_USER wins over the file
    assert code == 0, err
    assert {one["learner"] for one in report(db, None, days=1)["learners"]} == {"ann.lee", "bob"}
