"""Loading the settings: the config file (read once, checked), then the environment."""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from quizzer.base.errors import QuizError, UsageError, os_reason, printable
from quizzer.base.i18n import N_, _, language_code, requested, unasked
from quizzer.settings.keys import KEYS, Settings, build, parse
from quizzer.settings.values import BadValue, language

CONFIG_ENV = "QUIZ_CONFIG"


def config_path(environ: Mapping[str, str] | None = None) -> Path:
    """``$QUIZ_CONFIG``, else ``config.toml`` in the user config directory."""
    environ = os.environ if environ is None else environ
    named = environ.get(CONFIG_ENV)
    if named:
        return Path(named).expanduser()
    from platformdirs import user_config_dir

    return Path(user_config_dir("quizzer", appauthor=False)) / "config.toml"


def _flatten(table: Mapping[str, Any], prefix: str = "") -> Iterator[tuple[str, Any]]:
    for name, value in table.items():
        if isinstance(value, dict):
            yield from _flatten(value, f"{prefix}{name}.")
        else:
            yield f"{prefix}{name}", value


def _at(place: str) -> str:
    """``config.toml: `` (in Chinese ``config.toml：``): where a bad value is, before what is wrong with it."""
    return _("{key}: {problem}").format(key=place, problem="")


def _fix_hint(path: Path, name: str | None = None) -> str:
    return _("correct it in {path}").format(path=path) + (_(", or `quiz config unset {key}`").format(key=name) if name else "")


MAX_CONFIG_BYTES = 1_000_000  # a config of every key for a thousand decks is 100 kB


def _elsewhere() -> str:
    return _("point {variable} at a file; one that does not exist yet is created").format(variable=CONFIG_ENV)


def _is_devnull(path: Path) -> bool:
    try:
        return os.path.samefile(path, os.devnull)
    except OSError:
        return False


def _text(path: Path) -> str | None:
    """The file's text; None when there is none. Only a regular file of at most MAX_CONFIG_BYTES is
    read: a FIFO would hang every command, /dev/zero fill the memory. /dev/null reads as no
    settings, and takes none (``_edit``)."""
    try:
        if _is_devnull(path):  # no settings: the defaults (QUIZ_CONFIG=/dev/null in a script)
            return None
        if not stat.S_ISREG(os.stat(path).st_mode):
            raise UsageError(_("{path} is not a regular file").format(path=printable(path)), _elsewhere())
        with open(path, "rb") as handle:
            data = handle.read(MAX_CONFIG_BYTES + 1)
        if len(data) > MAX_CONFIG_BYTES:
            raise UsageError(_("{path} is larger than {limit} MB, more than any settings need").format(
                path=printable(path), limit=MAX_CONFIG_BYTES // 1_000_000), _fix_hint(path))
        return data.decode("utf-8-sig")  # a BOM, as Notepad writes it, is no TOML error
    except FileNotFoundError:
        return None
    except UnicodeDecodeError:  # its content is wrong, as with bad TOML: a usage error (exit 2)
        raise UsageError(_("{file}: not valid TOML: {reason}").format(file=path.name, reason=_("not UTF-8 text")),
                         _fix_hint(path)) from None
    except OSError as err:
        raise QuizError(_("{path} cannot be read: {reason}").format(path=path, reason=os_reason(err)),
                        _("check the file, or point {variable} at another").format(variable=CONFIG_ENV)) from None


def read_raw(path: Path) -> dict[str, Any]:
    """The file's values by dotted name, not yet checked ({} when there is no file)."""
    return _values(path, _text(path))


def _values(path: Path, text: str | None) -> dict[str, Any]:
    """``read_raw`` of the file's text, read already (``set_value`` edits the same text)."""
    if text is None:
        return {}
    import tomllib  # stdlib; imported here like the file itself, only when there is one

    try:
        return dict(_flatten(tomllib.loads(text)))
    except tomllib.TOMLDecodeError as err:
        raise _not_toml(path, str(err)) from None
    except ValueError:  # a whole number past 4,300 digits, which Python refuses to read
        raise UsageError(_("{file}: not valid TOML: {reason}").format(file=path.name, reason=_("a number too long to read")),
                         _fix_hint(path)) from None
    except RecursionError:  # thousands of nested [ or {: no setting is nested deeper than deck.ID.key
        raise UsageError(_("{file}: not valid TOML: {reason}").format(file=path.name, reason=_("nested too deeply")),
                         _fix_hint(path)) from None


# tomllib's reasons, in its words, translated; its position is read off the end of its message
TOML_PROBLEMS = {message: message for message in (
    N_("Invalid value"), N_("Invalid statement"), N_("Expected '=' after a key in a key/value pair"),
    N_("Unclosed array"), N_("Unclosed inline table"), N_("Unterminated string"), N_("Cannot overwrite a value"),
    N_("Invalid initial character for a key part"), N_("Expected ']' at the end of a table declaration"),
    N_("Invalid date or datetime"))}
_TOML_AT = re.compile(r"(.*) \(at (?:line (\d+), column (\d+)|end of document)\)", re.S)


def _not_toml(path: Path, message: str) -> UsageError:
    """``config.toml:1:15: not valid TOML: Invalid value`` as lint names a place, translated."""
    match = _TOML_AT.fullmatch(message)
    reason, place = (match.group(1), f"{path.name}:{match.group(2)}:{match.group(3)}" if match.group(2) else path.name) \
        if match else (message, path.name)
    illegal = re.fullmatch(r"Illegal character (.+)", reason, re.S)
    if illegal:
        reason = _("Illegal character {char}").format(char=illegal.group(1))
    reason = _(TOML_PROBLEMS[reason]) if reason in TOML_PROBLEMS else reason
    if match and not match.group(2):
        reason = _("{problem} at the end of the file").format(problem=reason)
    return UsageError(_("{file}: not valid TOML: {reason}").format(file=place, reason=reason), _fix_hint(path))


def check(raw: Mapping[str, Any], path: Path) -> dict[str, Any]:
    """Typed values of a file's raw ones; UsageError ``config.toml: key: ...`` for a bad one, and
    for several one listing each (they were found one fix at a time)."""
    typed: dict[str, Any] = {}
    bad: list[UsageError] = []
    for name, value in raw.items():
        try:
            typed[name] = parse(name, value, _at(path.name), _fix_hint(path, name))
        except UsageError as err:
            bad.append(err)
    if len(bad) == 1:
        raise bad[0]
    if bad:
        error = UsageError(_("{file} has {count} bad settings, listed above").format(file=path.name, count=len(bad)),
                           _("correct them in {path}, or `quiz config unset KEY`").format(path=path))
        error.details = tuple(err.message for err in bad)
        raise error
    return typed


def from_environment(environ: Mapping[str, str]) -> dict[str, Any]:
    found = {}
    lang = environ.get("QUIZ_LANG", "")
    if lang.strip() and language_code(lang) is None:  # zh_CN.UTF-8 reads as zh; fr was passed over
        try:
            language(lang)  # refuses it, in the words a bad language setting gets
        except BadValue as problem:
            raise UsageError(_at("QUIZ_LANG") + str(problem), _("correct or unset {variable}").format(variable="QUIZ_LANG")) from None
    for key in KEYS.values():
        raw = environ.get(key.env)
        if raw is not None and raw != "":
            found[key.name] = parse(key.name, raw, _at(key.env), _("correct or unset {variable}").format(variable=key.env))
    return found


@dataclass(frozen=True)
class ConfigFile:
    """The config file as read once: its path, and its values by dotted name not yet checked, or
    the error reading it gave (raised by ``load``, so a command that needs no settings, such as
    ``quiz config unset``, still runs)."""

    path: Path
    raw: Mapping[str, Any]
    problem: QuizError | None = None

    @property
    def language(self) -> str | None:
        """The ``language`` key if it names one of ours, unchecked (a bad one is ``load``'s to say)."""
        return language_code(str(self.raw.get("language", "")))


def read_config(environ: Mapping[str, str] | None = None) -> ConfigFile:
    """The config file ``environ`` names (``QUIZ_CONFIG``, else the default), read once."""
    path = config_path(environ)
    try:
        return ConfigFile(path, read_raw(path))
    except QuizError as err:
        return ConfigFile(path, {}, err)


def load(environ: Mapping[str, str] | None = None, file: ConfigFile | None = None,
         deck_folders: Sequence[Path] | None = None) -> Settings:
    """Defaults, then the config file (``file`` when read already), then the environment
    (``QUIZ_<KEY>``). The language unset anywhere is the locale's, else that of the decks in
    ``deck_folders`` (None: those of ``QUIZ_DECKS`` or the bundled ones)."""
    environ = os.environ if environ is None else environ
    file = read_config(environ) if file is None else file
    if file.problem is not None:  # read again, to word it in the language chosen since (it was read before)
        read_raw(file.path)
        raise file.problem
    from_file = check(file.raw, file.path)
    from_env = from_environment(environ)
    if requested(environ):  # QUIZ_LANG too, which wins as the interface chooses its language
        from_env["language"] = requested(environ)
    sources = {**dict.fromkeys(from_file, "file"), **dict.fromkeys(from_env, "environment")}
    values = {**from_file, **from_env}
    values.setdefault("language", unasked(environ, deck_folders))
    return build(values, sources, file.path)
