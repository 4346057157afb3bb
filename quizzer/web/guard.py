"""The server's defences: a size limit on request bodies, a CSRF token on every POST, login
attempts counted per client, and headers that keep the pages from loading anything from
another host or being framed.

Sessions are Starlette's: a signed cookie (HttpOnly, SameSite=Strict) holding the session's
id, its CSRF token and, where a login is needed, the account signed in. The signing key is
drawn afresh when the server starts, so a restart signs everyone out."""

from __future__ import annotations

import hmac
import secrets
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any

MAX_BODY = 64 * 1024  # bytes: an answer, a password; nothing the drill takes is larger
LOGIN_TRIES = 5  # failed logins a client may make ...
LOGIN_WINDOW = 300.0  # ... within this many seconds
HEADERS = [
    (b"content-security-policy", b"default-src 'self'; img-src 'self' data:; form-action 'self'; "
                                 b"frame-ancestors 'none'; base-uri 'none'"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
]


class BodyLimit:
    """ASGI middleware: a request whose body is larger than ``limit`` gets 413, whether it says so
    in Content-Length or sends more than it said; every response gets the ``HEADERS``."""

    def __init__(self, app: Any, limit: int = MAX_BODY) -> None:
        self.app, self.limit = app, limit

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope["headers"]).get(b"content-length", b"0")
        if not declared.isdigit() or int(declared) > self.limit:
            await _too_large(send)
            return
        seen = 0

        async def limited() -> Any:
            nonlocal seen
            message = await receive()
            seen += len(message.get("body", b""))
            if seen > self.limit:
                raise TooLarge
            return message

        async def with_headers(message: Any) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), *HEADERS]}
            await send(message)

        try:
            await self.app(scope, limited, with_headers)
        except TooLarge:
            await _too_large(send)


class TooLarge(Exception):
    pass


async def _too_large(send: Any) -> None:
    await send({"type": "http.response.start", "status": 413, "headers": [(b"content-type", b"text/plain"), *HEADERS]})
    await send({"type": "http.response.body", "body": b"413 request body too large"})


def session_id(session: dict[str, Any]) -> str:
    """The browser session's id (made on its first page), which keys its study session."""
    if "id" not in session:
        session["id"] = secrets.token_urlsafe(16)
    return str(session["id"])


def csrf_token(session: dict[str, Any]) -> str:
    if "csrf" not in session:
        session["csrf"] = secrets.token_urlsafe(32)
    return str(session["csrf"])


def csrf_valid(session: dict[str, Any], sent: object) -> bool:
    return isinstance(sent, str) and "csrf" in session and hmac.compare_digest(sent, str(session["csrf"]))


@dataclass
class LoginThrottle:
    """The failed logins of each client within the last ``LOGIN_WINDOW`` seconds."""

    failures: dict[str, deque[float]] = field(default_factory=dict)

    def allowed(self, client: str, now: float | None = None) -> bool:
        recent = self._recent(client, time.monotonic() if now is None else now)
        return len(recent) < LOGIN_TRIES

    def failed(self, client: str, now: float | None = None) -> None:
        self._recent(client, time.monotonic() if now is None else now).append(
            time.monotonic() if now is None else now)

    def _recent(self, client: str, now: float) -> deque[float]:
        recent = self.failures.setdefault(client, deque())
        while recent and recent[0] < now - LOGIN_WINDOW:
            recent.popleft()
        return recent


@dataclass
class OneTimeLink:
    """A sign-in link's secret (``quiz serve --link``): it signs in the first browser that uses it
    before ``deadline`` (``time.monotonic``), and no other."""

    token: str
    deadline: float
    used: bool = False

    @classmethod
    def new(cls, minutes: float) -> OneTimeLink:
        return cls(secrets.token_urlsafe(32), time.monotonic() + 60 * minutes)

    def valid(self, sent: str, now: float | None = None) -> bool:
        """Whether ``sent`` is the token, unused and in time (no use spent)."""
        in_time = (time.monotonic() if now is None else now) < self.deadline
        return not self.used and in_time and hmac.compare_digest(sent.encode(), self.token.encode())


class SecureCookies:
    """ASGI middleware: the cookies a response sets are ``Secure`` when the request came over HTTPS
    (``scope["scheme"]``, which uvicorn takes from a trusted proxy's ``X-Forwarded-Proto``), or
    always (``always``: a reverse proxy with HTTPS is in front, ``--root-path``)."""

    def __init__(self, app: Any, always: bool = False) -> None:
        self.app, self.always = app, always

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or not (self.always or scope.get("scheme") == "https"):
            await self.app(scope, receive, send)
            return

        async def secured(message: Any) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [
                    (name, value + b"; secure" if name.lower() == b"set-cookie" and b"secure" not in value.lower()
                     else value) for name, value in message.get("headers", [])]}
            await send(message)

        await self.app(scope, receive, secured)
