"""``quiz serve``: the drill in a browser (``quizzer.web``), and ``quiz serve user add|list|remove``,
the accounts it needs on any address but the loopback one."""

from __future__ import annotations

import sys
from functools import partial
from typing import TYPE_CHECKING, Annotated

import typer

from quizzer.cli.base import app, group
from quizzer.cli.boundary import say
from quizzer.cli.context import DbOption, DecksOption, collection, current, locations, settings
from quizzer.base.errors import QuizError, UsageError, os_reason
from quizzer.base.i18n import N_, _

if TYPE_CHECKING:
    import socket

LINK_MINUTES = 15  # the sign-in link's life, unless --link-minutes
LINK_MOST_MINUTES = 24 * 60

serve_app = group(N_("The drill in a browser: today's decks and study, over the same collection."),
                  invoke_without_command=True, no_args_is_help=False)
user_app = group(N_("The accounts `quiz serve` asks for on an address other than the loopback one."))
serve_app.add_typer(user_app, name="user")
app.add_typer(serve_app, name="serve")


def loopback(host: str) -> bool:
    """Whether ``host`` is reachable from this machine only."""
    import ipaddress

    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


@serve_app.callback(help=N_("Serve the drill at http://HOST:PORT/ (on the loopback address, no login; on any other, "
                           "`quiz serve user add NAME` first, or --link)."))
def serve(
    ctx: typer.Context,
    host: Annotated[str, typer.Option("--host", metavar="HOST", help=N_("The address to listen on."))] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", min=1, max=65535, metavar="PORT", help=N_("The port."))] = 8000,
    root_path: Annotated[str, typer.Option("--root-path", metavar="PATH", help=N_(
        "The path a reverse proxy serves the drill under (e.g. /quiz), where not at the root."))] = "",
    link: Annotated[bool, typer.Option("--link", help=N_(
        "Print a one-time sign-in link: it signs in the first browser that opens it, no account needed."))] = False,
    link_minutes: Annotated[int, typer.Option("--link-minutes", min=1, max=LINK_MOST_MINUTES, metavar="M", help=N_(
        "The sign-in link expires after M minutes, if not used before."))] = LINK_MINUTES,
    decks_dir: DecksOption = None,
    db: DbOption = None,
) -> None:
    if ctx.invoked_subcommand is not None:
        return
    from quizzer.app import accounts

    login = not loopback(host) or bool(root_path)  # behind a proxy, whoever reaches the proxy reaches the drill
    if login and not link and not accounts.names():
        problem = (_("--root-path: a proxy serves the drill to other machines, and no account is set") if root_path
                   else _("--host {host} is reachable from other machines, and no account is set").format(host=host))
        raise UsageError(problem, _("`quiz serve user add NAME` sets one, or --link prints a one-time sign-in link; "
                                    "without --host, only this machine can reach the drill"))
    import uvicorn

    from quizzer.web.guard import OneTimeLink
    from quizzer.web.server import create_app

    chosen, opened = settings(), collection(ctx, decks_dir, db)
    learners = None
    if login and opened.store.path is None:  # a shared server: each account is a learner of its own
        from quizzer.app.collection import open_collection

        place = locations(ctx, decks_dir, db)
        learners = partial(open_collection, place.decks, place.db, day_start_hour=chosen.day_start_hour)
    once = OneTimeLink.new(link_minutes) if link else None
    served = create_app(opened, chosen, login=login, learners=learners, link=once, https=bool(root_path),
                        configured_language=current(ctx).config.language)
    listening = _listening(host, port)
    shown = f"[{host}]" if ":" in host else host
    root = root_path.rstrip("/")
    say(_("quizzer is served at http://{host}:{port}{root}/ (Ctrl-C stops it)").format(host=shown, port=port, root=root))
    if once is not None:
        reached = _reachable(host)
        say(_("Sign in once, within {minutes} minutes: {url}").format(minutes=link_minutes, url=(
            f"http://{'[' + reached + ']' if ':' in reached else reached}:{port}{root}/link/{once.token}")))
    server = uvicorn.Server(uvicorn.Config(served, log_level="warning", server_header=False,
                                           root_path=root_path.rstrip("/"), proxy_headers=True))
    server.run(sockets=[listening])


def _reachable(host: str) -> str:
    """The address another machine opens for ``host``: for "any address" (0.0.0.0, ::) the one this
    machine's default route goes out of (no packet is sent), else ``host``."""
    import ipaddress
    import socket

    try:
        if not ipaddress.ip_address(host.strip("[]")).is_unspecified:
            return host.strip("[]")
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect(("192.0.2.1", 9))  # a documentation address: routing only, nothing sent
            return str(probe.getsockname()[0])
    except (ValueError, OSError):
        return host.strip("[]")


def _listening(host: str, port: int) -> socket.socket:
    """A socket bound to ``host``:``port``, or an error saying why it cannot be (a port in use)."""
    import socket

    try:
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        listening = socket.socket(family, socket.SOCK_STREAM)
        listening.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listening.bind((host.strip("[]"), port))
    except OSError as err:
        raise QuizError(_("cannot listen on {host} port {port}: {reason}").format(host=host, port=port,
                                                                                 reason=os_reason(err)),
                        _("another --port, or stop what uses it")) from err
    listening.listen(128)
    return listening


@user_app.command("add", help=N_("Add an account, or set its password anew (asked twice, not echoed)."))
def user_add(name: Annotated[str, typer.Argument(metavar="NAME", help=N_("The account's name."))]) -> None:
    from getpass import getpass

    from quizzer.app import accounts

    if sys.stdin.isatty():
        password = getpass(_("Password: "))
        if getpass(_("Again: ")) != password:
            raise UsageError(_("The two passwords differ"), _("run it again"))
    else:
        password = sys.stdin.readline().rstrip("\n")
    accounts.add(name, password)
    say(_("Account {name} is set ({file}).").format(name=name, file=accounts.accounts_path()))


@user_app.command("list", help=N_("The accounts, one name a line."))
def user_list() -> None:
    from quizzer.app import accounts

    for name in accounts.names():
        say(name)


@user_app.command("remove", help=N_("Remove an account: its browsers are signed out at their next page."))
def user_remove(name: Annotated[str, typer.Argument(metavar="NAME", help=N_("The account's name."))]) -> None:
    from quizzer.app import accounts

    accounts.remove(name)
    say(_("Account {name} is removed ({file}).").format(name=name, file=accounts.accounts_path()))
