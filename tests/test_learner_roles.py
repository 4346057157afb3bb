"""On a server where each learner logs in as a role of their own, a learner's name is theirs
(issue 36, item 6): a login opens or starts only the learner named as itself, a member of the
teachers' role (``quiz_teacher``, which docs/server.md's set-up creates) any; the class report
lists only the collections the login may read.

Roles are the server's (cluster-wide), so each test names its own after its database; what the
server holds is read with psycopg directly, as the superuser.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from test_learners import DECK, T0, answers, finished, quiz

pytestmark = pytest.mark.slow
TEACHERS = "quiz_teacher"


@pytest.fixture
def decks(deck_folder) -> Path:
    return deck_folder(DECK, "class.yaml")


def as_superuser(url: str, *statements: str) -> None:
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        for statement in statements:
            conn.execute(statement)


def roles(url: str, *names: str, create: bool = True) -> dict[str, str]:
    """``{name: url}``: a login role per name, suffixed with the database's number (roles outlive a
    database), each allowed to create schemas in it when ``create``."""
    database = url.rsplit("/", 1)[1]
    logins = {name: f"{name}{database.rsplit('_', 1)[1]}" for name in names}
    for login in logins.values():
        as_superuser(url, f'CREATE ROLE "{login}" LOGIN',
                     *([f'GRANT CREATE ON DATABASE "{database}" TO "{login}"'] if create else []))
    return {name: login for name, login in logins.items()}


def login_url(url: str, login: str) -> str:
    return url.replace("postgres@", f"{login}@")


def teachers_role(url: str) -> None:
    """The group role of docs/server.md's set-up (one per server: made by the first test needing it)."""
    as_superuser(url, f"DO $$ BEGIN CREATE ROLE {TEACHERS} NOLOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$",
                 f'GRANT CREATE ON DATABASE "{url.rsplit("/", 1)[1]}" TO {TEACHERS}')


def schemas(url: str) -> dict[str, str]:
    """{learner schema: its owner} on the server."""
    import psycopg

    with psycopg.connect(url) as conn:
        rows = conn.execute("SELECT nspname, pg_get_userbyid(nspowner) FROM pg_namespace "
                            "WHERE nspname LIKE 'learner\\_%'").fetchall()
    return dict(rows)


def test_a_login_may_not_start_another_learners_collection(pg_server, decks):
    """The takeover: alice (allowed to create schemas) with QUIZ_USER=carol created learner_carol,
    owned by alice, and carol was then told to log in as its owner."""
    db = pg_server.create("takeover")
    login = roles(db, "alice", "carol")
    alice, carol = login_url(db, login["alice"]), login_url(db, login["carol"])

    code, out, err = finished(quiz("stats", db=alice, user=login["carol"], now=T0))
    assert code == 2 and out == "", err
    lines = err.strip().splitlines()
    assert len(lines) <= 2 and lines[0].startswith("Error:") and "Traceback" not in err
    assert f"login {login['alice']} may not open learner {login['carol']}'s collection" in lines[0]
    assert TEACHERS in lines[0]
    assert schemas(db) == {}  # nothing was created for carol, nor for alice

    # each one's own is theirs to start: the name is the login's
    for name, url in (("alice", alice), ("carol", carol)):
        code, _, err = finished(quiz("study", "--decks", str(decks), db=url, user=None, now=T0, stdin=answers(3)))
        assert code == 0, err
    assert schemas(db) == {f"learner_{login['alice']}": login["alice"], f"learner_{login['carol']}": login["carol"]}
    # and once there, still not the other's to open
    code, _, err = finished(quiz("stats", db=carol, user=login["alice"], now=T0))
    assert code == 2 and f"belongs to role {login['alice']}" in err and "Traceback" not in err


def test_a_collection_another_login_made_under_ones_name_is_refused(pg_server):
    """A learner_carol that alice made before this rule held is not carol's: opening it says whose it is."""
    db = pg_server.create("taken")
    login = roles(db, "alice", "carol")
    as_superuser(db, f'SET ROLE "{login["alice"]}"', f'CREATE SCHEMA "learner_{login["carol"]}"')
    code, out, err = finished(quiz("stats", db=login_url(db, login["carol"]), user=None, now=T0))
    assert code == 2 and out == "" and "Traceback" not in err
    assert f'schema "learner_{login["carol"]}" belongs to role {login["alice"]}' in err


def test_a_teacher_reads_every_learner_and_a_learner_only_itself(pg_server, decks):
    db = pg_server.create("teach")
    teachers_role(db)
    login = roles(db, "ann", "bob")
    login |= roles(db, "carol", create=False)
    teacher = roles(db, "teacher", create=False)["teacher"]
    as_superuser(db, f'GRANT {TEACHERS} TO "{teacher}"')
    given = {"ann": answers(3, 1), "bob": answers(4)}  # two reviews for ann, one for bob
    for name, stdin in given.items():
        code, _, err = finished(quiz("study", "--decks", str(decks), db=login_url(db, login[name]), user=None, now=T0,
                                     stdin=stdin))
        assert code == 0, err

    def listed(who: str) -> dict[str, int]:
        code, out, err = finished(quiz("class", "report", "--json", db=login_url(db, who), user=None, now=T0))
        assert code == 0, err
        shown = json.loads(out)
        assert shown["unread"] == []
        return {one["learner"]: one["reviews"] for one in shown["learners"]}

    assert listed(teacher) == {login["ann"]: 2, login["bob"]: 1}
    assert listed(login["ann"]) == {login["ann"]: 2}  # bob's is not ann's to read, nor to name
    assert listed(login["carol"]) == {}

    # a teacher may start a collection under any name (a shared class login is one)
    code, _, err = finished(quiz("stats", db=login_url(db, teacher), user="dave", now=T0))
    assert code == 0, err
    assert schemas(db)["learner_dave"] == teacher


def test_a_teacher_is_told_of_a_collection_not_granted_to_it(pg_server, decks):
    """A collection started before the teachers' role existed is not the teachers' to read: the
    report names it as left out, and opening it says what to grant."""
    db = pg_server.create("ungranted")
    teachers_role(db)
    login = roles(db, "ann", "bob")
    teacher = roles(db, "teacher", create=False)["teacher"]
    as_superuser(db, f'GRANT {TEACHERS} TO "{teacher}"')
    for name in ("ann", "bob"):
        code, _, err = finished(quiz("study", "--decks", str(decks), db=login_url(db, login[name]), user=None, now=T0,
                                     stdin=answers(3)))
        assert code == 0, err
    bob_schema = f"learner_{login['bob']}"
    as_superuser(db, f'REVOKE ALL ON ALL TABLES IN SCHEMA "{bob_schema}" FROM {TEACHERS}',
                 f'REVOKE USAGE ON SCHEMA "{bob_schema}" FROM {TEACHERS}')
    as_teacher = login_url(db, teacher)
    code, out, err = finished(quiz("class", "report", "--json", db=as_teacher, user=None, now=T0))
    assert code == 0, err
    shown = json.loads(out)
    assert [one["learner"] for one in shown["learners"]] == [login["ann"]]
    assert [one["learner"] for one in shown["unread"]] == [login["bob"]]
    code, _, err = finished(quiz("stats", db=as_teacher, user=login["bob"], now=T0))
    assert code == 1 and f"learner {login['bob']}'s collection is there, but this login may not read it" in err
    assert f'use of schema "{bob_schema}"' in err and "Traceback" not in err
