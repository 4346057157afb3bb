"""Writing the config file: ``quiz config set`` / ``unset`` change one key and keep the rest."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from quizzer.base.errors import QuizError, UsageError, os_reason, printable
from quizzer.base.files import replacing
from quizzer.base.i18n import _
from quizzer.settings.keys import key_of, parse
from quizzer.settings.loading import CONFIG_ENV, _elsewhere, _fix_hint, _is_devnull, _text, _values

HEADER = "quizzer settings: `quiz config` shows them all, `quiz config set KEY VALUE` writes them."


def _edit(path: Path, text: str | None, name: str, value: Any | None) -> None:
    """Set ``name`` (a dotted name, as ``read_raw`` gives it) to ``value``, or remove it (None),
    in the file's ``text`` (None: no file yet), touching nothing else: tomlkit keeps the learner's
    comments, tables and layout (the file was rewritten as flat lines, and its comments were
    lost). A new file starts with HEADER."""
    import tomlkit  # only when a setting is written

    if _is_devnull(path):  # it said "saved in /dev/null"
        raise UsageError(_("{path} keeps nothing: the setting would be lost").format(path=printable(path)), _elsewhere())
    document = tomlkit.parse(text) if text is not None else tomlkit.document()
    if text is None:
        document.add(tomlkit.comment(HEADER))
    container: Any = document
    parts = name.split(".")
    while len(parts) > 1 and parts[0] in container and isinstance(container[parts[0]], Mapping):
        container, parts = container[parts[0]], parts[1:]  # into [deck.ID] or deck.ID.key
    try:
        if value is None:
            del container[parts[0] if len(parts) == 1 else name]  # a quoted "a.b" key is one part
        elif len(parts) == 1:
            container[parts[0]] = value
        else:
            container.add(tomlkit.key(parts), value)  # deck.ID.key, beside the other keys, before any table
    except (tomlkit.exceptions.TOMLKitError, KeyError):  # `deck = 5` where deck.ID.key would go
        raise UsageError(_("{file}: {key} cannot be written beside what the file holds at {part}").format(
            file=path.name, key=name, part=parts[0]), _fix_hint(path, parts[0])) from None
    folder = path.parent
    try:
        if not folder.exists() and not os.environ.get(CONFIG_ENV):
            folder.mkdir(parents=True, exist_ok=True)  # only the default folder is created, as for the database
        with replacing(path, "w", encoding="utf-8") as handle:
            handle.write(tomlkit.dumps(document))
    except OSError as err:
        raise QuizError(_("{path} cannot be written: {reason}").format(path=path, reason=os_reason(err)),
                        _("check that its folder exists and is writable, or point {variable} elsewhere").format(
                            variable=CONFIG_ENV)) from None


def set_value(path: Path, name: str, raw: str) -> Any:
    """Check ``raw`` for ``name`` and write it to the file; the value written. The file's other
    keys stay as they are, good or bad: with two bad keys, checking the others kept each from
    being fixed by setting or unsetting it."""
    value = parse(name, raw)
    text = _text(path)
    _values(path, text)  # TOML, or the error naming where it is not (tomlkit reads what tomllib does)
    _edit(path, text, name, key_of(name).toml(value))
    return value


def unset_value(path: Path, name: str) -> bool:
    """Remove ``name`` from the file, a setting or not (the error a misspelt key gives says to
    unset it); False when it was not there. A name neither in the file nor a setting is an error."""
    text = _text(path)
    if name not in _values(path, text):
        key_of(name)
        return False
    _edit(path, text, name, None)
    return True


def is_setting(name: str) -> bool:
    try:
        key_of(name)
    except UsageError:
        return False
    return True
