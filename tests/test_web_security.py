"""``quiz serve``'s security rules, in process: the CSRF token, deck text escaped on every page,
the body size limit, the session cookie, the login and its throttle, accounts as learners on a
shared server, and a reverse proxy's root path."""

from __future__ import annotations

import re

import pytest
import test_web
from typer.testing import CliRunner
from test_web import DECK, HOSTILE, T0, TestClient, csrf, exam_post, post

from quizzer.app import accounts
from quizzer.app.collection import open_collection
from quizzer.cli import app
from quizzer.settings import DEFAULTS

make_client = test_web.make_client  # the fixture: a client of the web drill over a fresh collection


def test_a_post_without_the_csrf_token_is_refused_and_changes_nothing(make_client):
    client = make_client()
    client.get("/study?deck=mini")
    refused = client.post("/study", data={"action": "bury"})
    assert refused.status_code == 403
    assert refused.text.count("go back") and "问题一" in client.get("/study").text


def test_deck_text_shows_as_text_never_as_markup(make_client):
    client = make_client(HOSTILE)
    page = client.get("/study?deck=mini").text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page and "<script>alert" not in page
    assert "<img" not in page and "onerror=alert(2)" in page  # in the text, escaped, not an attribute
    back = post(client, page, action="reveal").text
    assert "<b onmouseover" not in back and "&lt;b onmouseover=alert(3)&gt;" in back
    assert "script-src" in client.get("/").headers["content-security-policy"] or \
        "default-src 'self'" in client.get("/").headers["content-security-policy"]


def test_a_body_larger_than_the_limit_is_refused(make_client):
    client = make_client()
    page = client.get("/study?deck=mini").text
    assert post(client, page, action="answer", answer="x" * 100_000).status_code == 413


def test_the_session_cookie_is_httponly_and_samesite(make_client):
    client = make_client()
    cookie = client.get("/").headers["set-cookie"].lower()
    assert "httponly" in cookie and "samesite=strict" in cookie


def test_with_a_login_every_page_asks_for_an_account_and_attempts_are_limited(make_client):
    accounts.add("ann", "correct horse")
    client = make_client(login=True)
    page = client.get("/")
    assert page.url.path == "/login"
    assert client.post("/study", data={"csrf": csrf(page.text), "action": "bury"}).status_code == 403
    for _ in range(5):
        assert client.post("/login", data={"csrf": csrf(page.text), "name": "ann", "password": "wrong"}).status_code == 401
    throttled = client.post("/login", data={"csrf": csrf(page.text), "name": "ann", "password": "correct horse"})
    assert throttled.status_code == 429


def test_the_right_password_signs_in(make_client):
    accounts.add("ann", "correct horse")
    client = make_client(login=True)
    page = client.get("/login").text
    signed = client.post("/login", data={"csrf": csrf(page), "name": "ann", "password": "correct horse"})
    assert signed.url.path == "/" and "Mini" in signed.text


def test_serving_beyond_the_loopback_address_needs_an_account(isolated):
    done = CliRunner().invoke(app, ["serve", "--host", "0.0.0.0"])
    assert done.exit_code == 2 and "quiz serve user add NAME" in done.stderr
    assert "Traceback" not in done.output


def test_the_card_pages_escape_deck_text_too(make_client):
    client = make_client(HOSTILE)
    for page in (client.get("/cards").text, client.get("/cards/evil").text):
        assert "<script>alert" not in page and "<img" not in page and "<b onmouseover" not in page
        assert "&lt;script&gt;" in page


@pytest.mark.slow
def test_on_a_shared_server_each_account_studies_its_own_collection(pg_server, deck_folder, monkeypatch):
    """Ann's answers and exams are hers: Bob's pages, with every id Ann's pages showed, see none of them."""
    from functools import partial

    from quizzer.web.server import create_app

    monkeypatch.setenv("QUIZ_NOW", T0.isoformat())
    db, decks = pg_server.create("web"), deck_folder(DECK)
    for name in ("ann", "bob"):
        accounts.add(name, "correct horse")
    learners = partial(open_collection, decks, db)
    app = create_app(learners("server"), DEFAULTS, login=True, learners=learners)
    ann, bob = TestClient(app, follow_redirects=True), TestClient(app, follow_redirects=True)
    for client, name in ((ann, "ann"), (bob, "bob")):
        page = client.get("/login").text
        client.post("/login", data={"csrf": csrf(page), "name": name, "password": "correct horse"})
    page = ann.get("/study?deck=mini").text
    page = post(ann, page, action="reveal").text
    post(ann, page, action="rate", rating="3")
    ann_exam = exam_post(ann, ann.get("/exam").text, action="start", count="2", minutes="30")
    assert "Question 1 of 2" in ann_exam
    reviews = re.search(r"<th>reviews</th><td>(\d+)</td>", ann.get("/cards/q-one").text)
    assert reviews and reviews[1] == "1"
    assert re.search(r"<th>reviews</th><td>0</td>", bob.get("/cards/q-one").text)  # the same card id, Bob's own
    assert 'value="resume"' not in bob.get("/exam").text  # Ann's unfinished exam is not Bob's to resume
    today = bob.get("/").text
    assert re.search(r'<td class="n new">6</td><td class="n learning">0</td>', today)  # nothing studied


def test_behind_a_proxy_every_link_and_redirect_keeps_the_root_path(make_client):
    client = make_client()
    proxied = TestClient(client.app, root_path="/quiz", follow_redirects=False)
    page = proxied.get("/quiz/").text
    links = re.findall(r'(?:href|action|src)="(/[^"]*)"', page)
    assert links and all(link.startswith("/quiz/") for link in links)
    started = proxied.get("/quiz/study?deck=mini")
    assert started.status_code == 303 and started.headers["location"] == "/quiz/study"


def test_serving_behind_a_proxy_needs_an_account_even_on_the_loopback_address(isolated):
    done = CliRunner().invoke(app, ["serve", "--root-path", "/quiz"])
    assert done.exit_code == 2 and "--root-path" in done.stderr and "quiz serve user add NAME" in done.stderr
