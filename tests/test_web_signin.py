"""``quiz serve --link``: a one-time sign-in link signs in the first browser that uses it, once and
in time; and behind a reverse proxy with HTTPS the session cookie is Secure."""

from __future__ import annotations

import re
import subprocess
import sys
import time
from http.cookiejar import CookieJar
from urllib.parse import urlencode
from urllib.request import HTTPCookieProcessor, build_opener

import pytest
from pg import free_port
import test_web
from test_web import DECK, TestClient, csrf

from quizzer.app.collection import open_collection
from quizzer.settings import DEFAULTS
from quizzer.web.guard import OneTimeLink
from quizzer.web.server import create_app

make_client = test_web.make_client  # the fixture: a client of the web drill over a fresh collection


@pytest.fixture
def linked(deck_folder, tmp_path, monkeypatch):
    """A server that needs a login, with a one-time link of ``minutes`` and no account at all."""
    monkeypatch.setenv("QUIZ_NOW", test_web.T0.isoformat())

    def make(minutes: float = 15):
        once = OneTimeLink.new(minutes)
        app = create_app(open_collection(deck_folder(DECK), tmp_path / "web.db"), DEFAULTS, login=True, link=once)
        return app, once

    return make


def sign_in(client: TestClient, token: str):
    page = client.get(f"/link/{token}")
    if page.status_code != 200:
        return page
    return client.post(f"/link/{token}", data={"csrf": csrf(page.text)})


def test_the_link_signs_in_the_first_browser_and_no_other(linked):
    app, once = linked()
    first, second = TestClient(app, follow_redirects=True), TestClient(app, follow_redirects=True)
    assert first.get("/").url.path == "/login"  # not signed in before
    assert first.get(f"/link/{once.token}").status_code == 200  # opening it (a link preview) spends nothing
    signed = sign_in(first, once.token)
    assert signed.url.path == "/" and "Mini" in signed.text and "Sign out" in signed.text
    assert first.get("/study?deck=mini").url.path == "/study"  # and it studies
    refused = sign_in(second, once.token)
    assert refused.status_code == 403 and "has been used or has expired" in refused.text
    assert second.get("/").url.path == "/login"


def test_the_link_expires_unused(linked):
    app, once = linked(minutes=1)
    once.deadline = time.monotonic() - 1  # a minute later
    refused = sign_in(TestClient(app, follow_redirects=True), once.token)
    assert refused.status_code == 403 and "has been used or has expired" in refused.text


def test_a_wrong_token_signs_nothing_in_and_counts_as_a_failed_login(linked):
    app, once = linked()
    client = TestClient(app, follow_redirects=True)
    for _ in range(5):
        assert client.get("/link/" + "x" * len(once.token)).status_code == 403
    assert client.get(f"/link/{once.token}").status_code == 429  # the guesses used the client's tries up
    assert not once.used and client.get("/").url.path == "/login"


def test_signing_out_ends_the_links_session(linked):
    app, once = linked()
    client = TestClient(app, follow_redirects=True)
    page = sign_in(client, once.token).text
    assert client.post("/logout", data={"csrf": csrf(page)}).url.path == "/login"
    assert client.get("/").url.path == "/login"


def secure(response) -> bool:
    cookie = response.headers["set-cookie"].lower()
    assert cookie.startswith("quiz_session=")
    return "; secure" in cookie


def test_behind_a_proxy_speaking_https_the_session_cookie_is_secure(make_client):
    from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

    proxied = TestClient(ProxyHeadersMiddleware(make_client().app, trusted_hosts="*"))  # as uvicorn runs it
    assert secure(proxied.get("/", headers={"x-forwarded-proto": "https"}))
    assert not secure(proxied.get("/"))  # plain HTTP: a Secure cookie would never come back


def test_with_a_root_path_the_session_cookie_is_always_secure(make_client):
    app = create_app(make_client().opened, DEFAULTS, https=True)
    assert secure(TestClient(app, root_path="/quiz").get("/quiz/"))


@pytest.mark.slow
def test_quiz_serve_link_prints_a_link_that_signs_in_once(isolated, deck_folder):
    unused_port = free_port()
    decks = deck_folder(DECK)
    server = subprocess.Popen([sys.executable, "-m", "quizzer", "--decks", str(decks), "serve", "--host", "0.0.0.0",
                               "--port", str(unused_port), "--link", "--link-minutes", "5"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        lines = [server.stdout.readline() for _ in range(2)]  # type: ignore[union-attr]
        found = re.search(r"Sign in once, within 5 minutes: http://\S+:(\d+)/link/(\S+)", lines[1])
        assert found and found[1] == str(unused_port), lines
        url = f"http://127.0.0.1:{unused_port}/link/{found[2]}"
        browser = build_opener(HTTPCookieProcessor(CookieJar()))
        token = csrf(browser.open(url, timeout=30).read().decode())
        signed = browser.open(url, data=urlencode({"csrf": token}).encode(), timeout=30)
        assert signed.url.endswith(":%d/" % unused_port) and "Mini" in signed.read().decode()
        other = build_opener(HTTPCookieProcessor(CookieJar()))
        assert other.open(f"http://127.0.0.1:{unused_port}/", timeout=30).url.endswith("/login")
    finally:
        server.terminate()
        server.wait(timeout=30)


@pytest.mark.slow
def test_on_a_shared_server_the_link_signs_in_as_the_learner_who_started_it(pg_server, deck_folder, monkeypatch):
    """Not as an account: Ann's answers stay Ann's, the link's browser studies the server's learner."""
    from functools import partial

    from quizzer.app import accounts

    monkeypatch.setenv("QUIZ_NOW", test_web.T0.isoformat())
    db, decks = pg_server.create("weblink"), deck_folder(DECK)
    accounts.add("ann", "correct horse")
    learners = partial(open_collection, decks, db)
    once = OneTimeLink.new(15)
    app = create_app(learners("teacher"), DEFAULTS, login=True, learners=learners, link=once)
    ann, linked_browser = TestClient(app, follow_redirects=True), TestClient(app, follow_redirects=True)
    page = ann.get("/login").text
    ann.post("/login", data={"csrf": csrf(page), "name": "ann", "password": "correct horse"})
    page = ann.get("/study?deck=mini").text
    page = test_web.post(ann, page, action="reveal").text
    test_web.post(ann, page, action="rate", rating="3")
    today = sign_in(linked_browser, once.token).text
    assert re.search(r'<td class="n new">6</td><td class="n learning">0</td>', today)  # none of Ann's answers
    assert re.search(r"<th>reviews</th><td>0</td>", linked_browser.get("/cards/q-one").text)
    assert re.search(r"<th>reviews</th><td>1</td>", ann.get("/cards/q-one").text)
