"""``quiz serve user list`` and ``quiz serve user remove``: an account removed while the server
runs signs its browsers out at their next page, and leaves the others signed in."""

from __future__ import annotations

import test_web
from test_web import csrf
from typer.testing import CliRunner

from quizzer.cli import app

make_client = test_web.make_client  # the fixture: a client of the web drill over a fresh collection
runner = CliRunner()


def add(name: str) -> None:
    done = runner.invoke(app, ["serve", "user", "add", name], input="correct horse\n")
    assert done.exit_code == 0, done.output


def sign_in(client, name: str):
    """``client`` (a browser) signed in as ``name``."""
    page = client.get("/login").text
    client.post("/login", data={"csrf": csrf(page), "name": name, "password": "correct horse"})
    return client


def test_accounts_are_listed_and_removed(isolated):
    for name in ("bob", "ann"):
        add(name)
    assert runner.invoke(app, ["serve", "user", "list"]).stdout.split() == ["ann", "bob"]
    removed = runner.invoke(app, ["serve", "user", "remove", "ann"])
    assert removed.exit_code == 0 and "ann" in removed.stdout
    assert runner.invoke(app, ["serve", "user", "list"]).stdout.split() == ["bob"]


def test_removing_an_account_there_is_not_names_those_there_are(isolated):
    add("bob")
    done = runner.invoke(app, ["serve", "user", "remove", "ann"])
    assert done.exit_code == 2 and "ann" in done.stderr and "bob" in done.stderr
    assert "Traceback" not in done.output
    assert runner.invoke(app, ["serve", "user", "list"]).stdout.split() == ["bob"]


def test_a_removed_account_is_signed_out_at_its_next_page(make_client):
    for name in ("ann", "bob"):
        add(name)
    ann = sign_in(make_client(login=True), "ann")
    bob = sign_in(test_web.TestClient(ann.app, follow_redirects=True), "bob")  # another browser, the same server
    page = ann.get("/study?deck=mini")
    assert page.url.path == "/study" and "问题一" in page.text
    assert runner.invoke(app, ["serve", "user", "remove", "ann"]).exit_code == 0
    assert ann.get("/study").url.path == "/login"
    assert ann.post("/study", data={"csrf": csrf(page.text), "action": "bury"}).status_code == 403
    assert bob.get("/").url.path == "/"  # another account stays signed in

