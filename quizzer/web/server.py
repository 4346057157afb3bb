"""The web drill's application (``create_app``) and its routes: today, study, the exam, the
mistakes notebook, statistics, the plan, the card browser, and the login where one is needed.
Every route runs in the event loop's thread, one at a time: the collection is one learner's, and
its store is used from one thread."""

from __future__ import annotations

import secrets
from datetime import timedelta
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from quizzer.base import clock, i18n
from quizzer.app.collection import Collection
from quizzer.app.exam_views import LeftUnfinished
from quizzer.app.exam_views import Report as ExamReport
from quizzer.app.queue import NothingDue
from quizzer.app.study_views import CardView, Continue, Feedback, Notice, QueueEnd, Summary
from quizzer.app.today import learner_today
from quizzer.app.views import Retry
from quizzer.base.defaults import EXAM_COUNT, EXAM_MINUTES
from quizzer.base.errors import DatabaseBusy, QuizError, ServerUnavailable
from quizzer.settings import Settings
from quizzer.web import exam, forms, guard
from quizzer.web.drill import Drills, event_of
from quizzer.web.exam import Sittings
from quizzer.web.pages import draw, language

STATIC = Path(__file__).parent / "static"
CARDS_SHOWN = 100  # rows of the card browser; a search narrows them


@dataclass
class Desk:
    """One learner's: the collection, the study sessions and the exam sittings."""

    collection: Collection
    drills: Drills
    sittings: Sittings

    @classmethod
    def of(cls, collection: Collection, settings: Settings) -> Desk:
        return cls(collection, Drills(collection, settings), Sittings(collection, settings))


@dataclass
class Served:
    """What the routes share: the learners' desks, the settings, whether pages need a login."""

    desk: Desk  # the collection opened at start: every account's, unless each is a learner
    settings: Settings
    login: bool
    learners: Callable[[str], Collection] | None = None  # an account's own collection (a shared server)
    configured_language: str | None = None  # the config file's ``language``, if set
    link: guard.OneTimeLink | None = None  # ``--link``: signs one browser in as the learner who started the server
    desks: dict[str, Desk] = field(default_factory=dict)
    throttle: guard.LoginThrottle = field(default_factory=guard.LoginThrottle)

    def desk_of(self, request: Any) -> Desk:
        """The desk of the account signed in: its own learner's where each account is one, else the one
        (a browser signed in by the one-time link has no account: the one)."""
        account = request.session.get("account")
        if self.learners is None or not account:
            return self.desk
        if account not in self.desks:
            self.desks[account] = Desk.of(self.learners(account), self.settings)
        return self.desks[account]


def create_app(collection: Collection, settings: Settings, *, login: bool = False,
               learners: Callable[[str], Collection] | None = None, secret: str | None = None,
               configured_language: str | None = None, link: guard.OneTimeLink | None = None,
               https: bool = False) -> Any:
    """The ASGI application over ``collection``; ``login``: every page but the login page needs
    an account signed in (``quizzer.app.accounts``); ``learners``: each account studies the
    collection it gives for the account's name (a learner of a shared server), not ``collection``;
    ``configured_language``: the learner's ``language`` setting, which the pages speak over the
    browser's; ``link``: the one-time sign-in link (``/link/TOKEN``); ``https``: a reverse proxy
    with HTTPS is in front, so the session cookie is always Secure (else only on a request that
    came over HTTPS)."""
    from starlette.applications import Starlette
    from starlette.middleware import Middleware
    from starlette.middleware.sessions import SessionMiddleware
    from starlette.routing import Mount, Route
    from starlette.staticfiles import StaticFiles

    served = Served(Desk.of(collection, settings), settings, login, learners, configured_language=configured_language,
                    link=link)

    def route(path: str, handler: Any, methods: list[str]) -> Route:
        async def endpoint(request: Any) -> Any:
            return await _guarded(served, request, handler)
        return Route(path, endpoint, methods=methods)

    routes = [
        route("/", _today, ["GET"]),
        route("/study", _study, ["GET", "POST"]),
        route("/mistakes", _mistakes, ["GET", "POST"]),
        route("/exam", _exam, ["GET", "POST"]),
        route("/stats", _stats, ["GET"]),
        route("/plan", _plan, ["GET", "POST"]),
        route("/cards", _cards, ["GET"]),
        route("/cards/{card_id}", _card, ["GET"]),
        route("/login", _login, ["GET", "POST"]),
        route("/logout", _logout, ["POST"]),
        route("/link/{token}", _link, ["GET", "POST"]),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    middleware = [Middleware(guard.BodyLimit), Middleware(guard.SecureCookies, always=https),
                  Middleware(SessionMiddleware, secret_key=secret or secrets.token_urlsafe(32),
                             session_cookie="quiz_session", same_site="strict", max_age=14 * 86400)]
    return Starlette(routes=routes, middleware=middleware)


async def _guarded(served: Served, request: Any, handler: Any) -> Any:
    """``handler``'s response in the request's language (its own: another request served at the
    same time speaks its own), after the checks every page shares."""
    with i18n.speaking(language(request.headers.get("accept-language", ""), served.configured_language)):
        return await _checked(served, request, handler)


async def _checked(served: Served, request: Any, handler: Any) -> Any:
    """``handler``'s response, after the login (where one is needed) and, for a POST, its CSRF
    token."""
    from starlette.responses import PlainTextResponse

    form: Any = await request.form() if request.method == "POST" else {}
    if request.method == "POST" and not guard.csrf_valid(request.session, form.get("csrf")):
        return PlainTextResponse(i18n._("The form has expired: go back and reload the page."), status_code=403)
    if served.login and "account" in request.session and not _still_signed_in(served, request.session):
        request.session.clear()  # the account was removed (``quiz serve user remove``): signed out
    if served.login and "account" not in request.session and handler not in (_login, _link):
        if request.method == "POST":
            return PlainTextResponse(i18n._("Sign in first."), status_code=403)
        return _to(request, "/login")
    try:
        return await handler(served, request, form)
    except QuizError as err:
        if request.method != "POST" or not isinstance(err, (ServerUnavailable, DatabaseBusy)):
            return _page(request, "problem.html", status=400, message=err.message, hint=err.shown_hint)
        # the wait for the database ran out before a connection or the write lock was had: nothing
        # of this form was saved, and it is offered again as it was sent
        sent = [(name, value) for name, value in form.multi_items() if name != "csrf" and isinstance(value, str)]
        return _page(request, "not_saved.html", status=503, message=err.message, hint=err.shown_hint,
                     action=request.url.path, sent=sent)


def _still_signed_in(served: Served, session: dict[str, Any]) -> bool:
    """Whether the session's account is still there; the desk of one removed goes with it."""
    from quizzer.app import accounts

    account = str(session["account"])
    if accounts.signed_in(account):
        return True
    served.desks.pop(account, None)
    return False


def _to(request: Any, path: str) -> Any:
    """See ``path`` (after a POST, or to sign in), under the root path the server is mounted at."""
    from starlette.responses import RedirectResponse

    return RedirectResponse(request.scope.get("root_path", "") + path, status_code=303)


def _page(request: Any, template: str, status: int = 200, **context: Any) -> Any:
    from starlette.responses import HTMLResponse

    html = draw(template, csrf=guard.csrf_token(request.session), lang=i18n.current(), root=request.scope.get("root_path", ""),
                signed_in="account" in request.session, **context)
    return HTMLResponse(html, status_code=status, headers={"cache-control": "no-store"})


async def _today(served: Served, request: Any, form: Any) -> Any:
    now = clock.now()
    desk = served.desk_of(request)
    day = learner_today(desk.collection, served.settings, now)
    days_left = None
    if day.interview is not None:
        days_left = (day.interview.day - clock.study_day(now, served.settings.day_start_hour)).days
    drill = desk.drills.get(guard.session_id(request.session))
    unfinished = day.unfinished_exam
    return _page(request, "today.html", day=day, days_left=days_left, choices=forms.choices(desk.collection),
                 going=drill is not None and not isinstance(drill.shown, Summary),
                 exam=unfinished.id if unfinished is not None else None)


async def _study(served: Served, request: Any, form: Any) -> Any:
    """GET: the session's page (``?deck=ID&tag=T&kind=K`` starts one of the cards chosen, an empty
    ``?deck=`` one of every deck); POST: an event (``drill.event_of``), then back to GET, so a
    reload sends nothing again."""
    session, drills = guard.session_id(request.session), served.desk_of(request).drills
    drill = drills.get(session)
    if request.method == "POST":
        event = event_of(form)
        if drill is not None and event is not None:
            drills.handle(drill, event)
        return _to(request, "/study")
    if forms.chooses_cards(request.query_params) or drill is None:
        planned = drills.start(session, forms.Chosen.of(request.query_params), clock.now())
        if isinstance(planned, NothingDue):
            return _page(request, "nothing_due.html", why=planned,
                         when=clock.when(planned.next_due) if planned.next_due else None)
        return _to(request, "/study")
    drills.catch_up(drill)
    shown = drill.shown
    notices = [view for view in drill.views if isinstance(view, Notice)]
    retry = next((view.message for view in drill.views if isinstance(view, Retry)), None)
    if isinstance(shown, Summary):
        return _page(request, "summary.html", summary=shown, notices=notices)
    return _page(request, "study.html", card=drill.card, back=drill.back, notices=notices, retry=retry,
                 feedback=drill.feedback if isinstance(shown, (Continue, QueueEnd, Feedback)) else None,
                 pause=shown if isinstance(shown, Continue) else None, end=isinstance(shown, QueueEnd),
                 front=isinstance(shown, CardView))


async def _exam(served: Served, request: Any, form: Any) -> Any:
    """GET: the sitting's page, or the offer to start or resume one; POST: start, resume, or an
    event of the sitting (``exam.event_of``), then back to GET."""
    session, sittings = guard.session_id(request.session), served.desk_of(request).sittings
    sitting = sittings.get(session)
    if request.method == "POST":
        action = form.get("action")
        if action == "start":
            sittings.start(session, form)
        elif action == "resume":
            sittings.resume(session)
        elif sitting is not None and (event := exam.event_of(form)) is not None:
            sittings.handle(sitting, event)
        return _to(request, "/exam")
    if sitting is None or (isinstance(sitting.shown, (ExamReport, LeftUnfinished))
                           and request.query_params.get("new") is not None):
        return _page(request, "exam_start.html", unfinished=sittings.unfinished(), count=EXAM_COUNT,
                     minutes=EXAM_MINUTES, most=exam.MAX_COUNT)
    return _page(request, "exam.html", **exam.page_of(sitting))


async def _stats(served: Served, request: Any, form: Any) -> Any:
    """The figures of ``quiz stats``, with the forecast and the reviews per day drawn."""
    from quizzer.app.stats import of_collection
    from quizzer.web.charts import bars, calendar

    figures = of_collection(served.desk_of(request).collection, clock.now(), served.settings)
    return _page(request, "stats.html", stats=figures,
                 forecast=bars([(day.day, day.due) for day in figures.forecast]),
                 days=calendar({day.day: day.reviews for day in figures.reviews_per_day}, figures.today))


async def _plan(served: Served, request: Any, form: Any) -> Any:
    """GET: the interview plan, as ``quiz plan`` shows it, with the form that sets it; POST: set it
    (``quiz plan --date --retention --deck``) or, with ``action=clear``, clear it (``--clear``)."""
    from quizzer.app import plan as plans

    desk, now = served.desk_of(request), clock.now()
    today = clock.study_day(now, served.settings.day_start_hour)
    if request.method == "POST":
        if form.get("action") == "clear":
            plans.clear_interview(desk.collection)
        else:
            chosen = forms.interview_of(form, today)
            plans.set_interview(desk.collection, chosen.day, chosen.retention, chosen.decks)
        return _to(request, "/plan")
    shown = plans.status(desk.collection, served.settings, now)
    return _page(request, "plan.html", out_of_reach=shown and plans.out_of_reach(shown), plan=shown, decks=desk.collection.decks,
                 earliest=today + timedelta(days=1), default_retention=plans.DEFAULT_RETENTION)


async def _cards(served: Served, request: Any, form: Any) -> Any:
    """The card browser: the cards whose text has every word of ``?q=``, the first hundred."""
    from quizzer.app.browse import browse

    query = request.query_params.get("q", "")
    found = browse(served.desk_of(request).collection, clock.now(), search=query or None, limit=CARDS_SHOWN,
                   settings=served.settings)
    return _page(request, "cards.html", query=query, found=found)


async def _card(served: Served, request: Any, form: Any) -> Any:
    """One card as study asks it, with its schedule and its reviews."""
    from quizzer.app.browse import show

    shown = show(served.desk_of(request).collection, request.path_params["card_id"], clock.now(),
                 settings=served.settings)
    return _page(request, "card.html", shown=shown, due=clock.when(shown.info.memory.due) if shown.info.memory.due else None)


async def _mistakes(served: Served, request: Any, form: Any) -> Any:
    """GET: the mistakes notebook; POST: a drill of its cards, on the study page."""
    from quizzer.app.browse import mistakes, mistakes_drill

    desk, now = served.desk_of(request), clock.now()
    rows = mistakes(desk.collection, settings=served.settings)
    if request.method == "POST":
        queue = mistakes_drill(desk.collection, rows, now)
        if queue:
            desk.drills.start_notebook(guard.session_id(request.session), queue)
            return _to(request, "/study")
        return _page(request, "mistakes.html", rows=rows, all_aside=True)
    return _page(request, "mistakes.html", rows=rows, all_aside=False,
                 wrong_at=[clock.when(row.last_wrong_at) for row in rows])


async def _login(served: Served, request: Any, form: Any) -> Any:
    from quizzer.app import accounts

    if request.method == "GET":
        return _page(request, "login.html", failed=False)
    client = request.client.host if request.client else ""
    if not served.throttle.allowed(client):
        return _page(request, "login.html", status=429, failed=False, throttled=True)
    name, password = str(form.get("name", "")), str(form.get("password", ""))
    if not accounts.verified(name, password):
        served.throttle.failed(client)
        return _page(request, "login.html", status=401, failed=True)
    request.session.clear()  # a fresh session id and CSRF token for the account
    request.session["account"] = name
    return _to(request, "/")


async def _link(served: Served, request: Any, form: Any) -> Any:
    """The one-time sign-in link: GET asks to sign in (a link previewer spends nothing), POST signs
    this browser in and spends the link. A wrong token counts as a failed login."""
    token, client = request.path_params["token"], request.client.host if request.client else ""
    if not served.throttle.allowed(client):
        return _page(request, "login.html", status=429, failed=False, throttled=True)
    if served.link is None or not served.link.valid(token):
        served.throttle.failed(client)
        return _page(request, "link.html", status=403, spent=True)
    if request.method == "GET":
        return _page(request, "link.html", spent=False, token=token)
    served.link.used = True
    request.session.clear()  # a fresh session id and CSRF token, signed in
    request.session["account"] = ""  # no account: the learner who started the server
    return _to(request, "/")


async def _logout(served: Served, request: Any, form: Any) -> Any:
    request.session.clear()
    return _to(request, "/login" if served.login else "/")
