"""Learner names: who is studying, when several learners share one database server.

A name is what ``QUIZ_USER`` or the ``user`` setting says, else the login name. On a server
it names the learner's collection (a PostgreSQL schema of its own, ``learner_<name>``), so it
is kept to characters every identifier and every shell takes as they are. A SQLite file is one
learner's collection: there the name is only what the class report calls its learner.
Kept light (stdlib only): the settings read it at start-up.
"""

from __future__ import annotations

import getpass
import re

from quizzer.base.i18n import N_, _

NAME = re.compile(r"[a-z0-9_][a-z0-9_.-]{0,39}")
RULE = N_("a-z, 0-9, _ . - (1-40 characters)")  # said in errors
ANYONE = "learner"  # when the system cannot say who is logged in


class BadName(ValueError):
    """Not a learner name; the message says what a name may be."""


def check(raw: str) -> str:
    """``raw`` as a learner name (trimmed, lowercase), or BadName."""
    name = raw.strip().lower()
    if not NAME.fullmatch(name):
        raise BadName(_("a learner name is {rule}, not {value}").format(rule=_(RULE), value=repr(raw)))
    return name


def login_name() -> str:
    """The login name, lowercase ("learner" when there is none, e.g. in a container without one)."""
    try:
        return getpass.getuser().strip().lower() or ANYONE
    except (OSError, KeyError):  # no LOGNAME/USER and no passwd entry for the uid
        return ANYONE
