"""The web drill's accounts (``quiz serve user add NAME``): a name and an argon2 hash of its
password, kept in ``web-accounts.json`` beside the config file (readable by its owner only).
Served on the loopback address, the drill needs none; on any other, at least one. A name is a
learner name (``quizzer.base.learners``): on a shared server each account studies its own collection."""

from __future__ import annotations

import json
import os
from pathlib import Path

from quizzer.base.errors import UsageError
from quizzer.base.i18n import _
from quizzer.base.learners import BadName, check
from quizzer.settings import config_path

MIN_PASSWORD = 8


def accounts_path() -> Path:
    return config_path().with_name("web-accounts.json")


def names() -> list[str]:
    return sorted(_hashes())


def add(name: str, password: str) -> None:
    """Set ``name``'s password (a new account, or a new password for one)."""
    from argon2 import PasswordHasher

    try:
        name = check(name)
    except BadName as problem:
        raise UsageError(str(problem)) from None
    if len(password) < MIN_PASSWORD:
        raise UsageError(_("The password is too short: at least {count} characters").format(count=MIN_PASSWORD))
    _write({**_hashes(), name: PasswordHasher().hash(password)})


def remove(name: str) -> None:
    """Remove ``name``'s account: a server running signs its browsers out at their next page
    (``signed_in``). UsageError naming the accounts there are when it has none."""
    hashes = _hashes()
    if name not in hashes:
        raise UsageError(_("No account is named {name}").format(name=name),
                         _("the accounts: {names}").format(names=", ".join(sorted(hashes)) or "-"))
    del hashes[name]
    _write(hashes)


def signed_in(account: str) -> bool:
    """Whether a browser signed in as ``account`` still is: the account is there (read afresh,
    so that one removed while the server runs signs out); "" (the one-time link's) always is."""
    return account == "" or account in _hashes()


def _write(hashes: dict[str, str]) -> None:
    """The accounts file, whole, readable by its owner only (written aside, then put in place)."""
    path = accounts_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    descriptor = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as out:
        json.dump(hashes, out, indent=1)
        out.flush()
        os.fsync(out.fileno())
    os.replace(partial, path)


def verified(name: str, password: str) -> bool:
    """Whether ``password`` is ``name``'s (False for a name with no account)."""
    from argon2 import PasswordHasher
    from argon2.exceptions import Argon2Error

    try:
        stored = _hashes().get(check(name))
    except BadName:
        return False
    try:
        return stored is not None and PasswordHasher().verify(stored, password)
    except Argon2Error:
        return False


def _hashes() -> dict[str, str]:
    try:
        read = json.loads(accounts_path().read_text("utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as err:
        raise UsageError(_("{file}: not readable as the web accounts ({reason})").format(
            file=accounts_path(), reason=err), _("remove it and add the accounts again")) from err
    return {str(k): str(v) for k, v in read.items()} if isinstance(read, dict) else {}
