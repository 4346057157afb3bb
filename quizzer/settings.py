"""The learner's settings: defaults, then the config file, then the environment, then options.

The file is TOML, ``platformdirs.user_config_dir("quizzer")/config.toml`` unless ``QUIZ_CONFIG``
names another; ``quiz config set KEY VALUE`` / ``unset KEY`` write it (flat ``key = value`` lines,
rewritten whole: comments in a hand-edited file are not kept). Each key has an environment
variable, ``QUIZ_`` and the key in capitals (``QUIZ_DESIRED_RETENTION=0.85``), and a command's
options (``quiz study --new-per-day 5``) win over everything for one run.

Every value is checked where it is read: a bad one is a UsageError naming the key and what it
may be (``config.toml: desired_retention: must be a number from 0.70 to 0.99, not 1.5``).

Kept light (stdlib only at import): the CLI imports this at start-up. No layer below the CLI
reads the file on its own: the CLI (or the terminal front end) loads the settings and hands
them down.
"""

from __future__ import annotations

import json
import math
import os
import re
import stat
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, fields, replace
from datetime import timedelta
from pathlib import Path
from typing import Any

from quizzer.clock import ROLLOVER_HOUR
from quizzer.defaults import NEW_PER_DAY, REVIEWS_PER_DAY
from quizzer.errors import QuizError, UsageError, os_reason, printable
from quizzer.files import replacing
from quizzer.i18n import N_, _, join, language_code, requested, unasked

CONFIG_ENV = "QUIZ_CONFIG"
DECK_ID = r"[a-z0-9]+(?:-[a-z0-9]+)*"  # quizzer.kinds.fields.ID_PATTERN (not imported: that pulls pydantic)
DECK_KEY = re.compile(rf"^deck\.({DECK_ID})\.(new_per_day|reviews_per_day)\Z")  # \Z: no newline after
SOURCES = ("default", "file", "environment", "option")  # what Settings.source() says, lowest first


# -- values ------------------------------------------------------------------


class BadValue(ValueError):
    """What a value may be, said to the learner (the caller adds the key)."""


def _shown(raw: Any) -> str:
    if type(raw) is int and raw.bit_length() > 64:  # too long to print whole (Python refuses past 4,300 digits)
        return f"{'-' if raw < 0 else ''}1e{round(raw.bit_length() * math.log10(2))}"
    return repr(raw) if isinstance(raw, str) else json.dumps(raw, ensure_ascii=False, default=str)


def _number(raw: Any, what: str) -> float:
    if isinstance(raw, bool):
        raise BadValue(_("must be {what}, not {value}").format(what=what, value=_shown(raw)))
    if isinstance(raw, int) and raw.bit_length() > 64:  # past any range here; float() would overflow
        raise BadValue(_("must be {what}, not {value}").format(what=what, value=_shown(raw)))
    if isinstance(raw, (int, float)):
        return float(raw)
    if isinstance(raw, str):
        try:
            return float(raw.strip())
        except ValueError:
            pass
    raise BadValue(_("must be {what}, not {value}").format(what=what, value=_shown(raw)))


def retention(raw: Any) -> float:
    what = _("a number from 0.70 to 0.99")
    value = _number(raw, what)
    if not 0.70 <= round(value, 6) <= 0.99:
        raise BadValue(_("must be {what}, not {value}").format(what=what, value=_shown(raw)))
    return value


def whole(low: int, high: int) -> Callable[[Any], int]:
    def parse(raw: Any) -> int:
        what = _("a whole number from {low} to {high}").format(low=low, high=high)
        value = _number(raw, what)
        if not value.is_integer() or not low <= value <= high:
            raise BadValue(_("must be {what}, not {value}").format(what=what, value=_shown(raw)))
        return int(value)

    return parse


STEP = re.compile(r"^(\d{1,9}(?:\.\d{1,9})?)([smhd]?)$")  # digits enough for 30 days in seconds, no more
UNIT_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "": 60}  # a bare number is minutes, as in Anki
MAX_STEPS = 10
MAX_STEP = timedelta(days=30)


def steps(raw: Any) -> tuple[timedelta, ...]:
    """Learning steps: "1m 10m" (or a TOML list of such strings); "" for none."""
    what = _('durations like "1m 10m" (units s, m, h, d; each from 1s to 30d; at most {count}; "" for none)').format(
        count=MAX_STEPS)
    if isinstance(raw, list) and all(isinstance(item, str) for item in raw):
        raw = " ".join(raw)
    if not isinstance(raw, str):
        raise BadValue(_("must be {what}, not {value}").format(what=what, value=_shown(raw)))
    words = raw.replace(",", " ").split()
    parsed = []
    for word in words:
        match = STEP.match(word.lower())
        seconds = round(float(match.group(1)) * UNIT_SECONDS[match.group(2)]) if match else 0
        if not match or not 1 <= seconds <= MAX_STEP.total_seconds():
            raise BadValue(_("must be {what}; {word} is not").format(what=what, word=repr(word if len(word) <= 30 else word[:29] + "…")))
        parsed.append(timedelta(seconds=seconds))
    if len(parsed) > MAX_STEPS:
        raise BadValue(_("must be {what}, not {count} steps").format(what=what, count=len(parsed)))
    return tuple(parsed)


def switch(raw: Any) -> bool:
    if isinstance(raw, bool):
        return raw
    if isinstance(raw, str) and raw.strip().lower() in ("on", "true", "yes", "1"):
        return True
    if isinstance(raw, str) and raw.strip().lower() in ("off", "false", "no", "0"):
        return False
    raise BadValue(_("must be {what}, not {value}").format(what=_("on or off"), value=_shown(raw)))


LANGUAGES = ("zh", "en")


def language(raw: Any) -> str:
    if isinstance(raw, str) and raw.strip().lower() in LANGUAGES:
        return raw.strip().lower()
    raise BadValue(_("must be {what}, not {value}").format(what=" / ".join(LANGUAGES), value=_shown(raw)))


def learner_name(raw: Any) -> str:
    from quizzer.learners import BadName, check

    try:
        return check(raw if isinstance(raw, str) else _shown(raw))
    except BadName as problem:
        raise BadValue(str(problem)) from None


def format_duration(span: timedelta) -> str:
    """A step as typed: the largest unit that divides it (90s → "90s", 600s → "10m")."""
    seconds = round(span.total_seconds())
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds % size == 0:
            return f"{seconds // size}{unit}"
    return f"{seconds}s"


def format_steps(value: tuple[timedelta, ...]) -> str:
    return " ".join(format_duration(step) for step in value)


# -- keys --------------------------------------------------------------------


@dataclass(frozen=True)
class Key:
    name: str
    parse: Callable[[Any], Any]
    allowed: str  # for `quiz config` and the README
    help: str  # what it does, for `quiz config` on a wide terminal (translated there)
    toml: Callable[[Any], Any] = lambda value: value  # the typed value as the file (and --json) hold it
    show: Callable[[Any], str] = str  # the typed value as `quiz config` shows it

    @property
    def env(self) -> str:
        return "QUIZ_" + self.name.upper()


COUNT = whole(0, 9999)
KEYS: dict[str, Key] = {key.name: key for key in (
    Key("desired_retention", retention, "0.70-0.99", N_("the chance of recall FSRS schedules reviews for")),
    Key("new_per_day", COUNT, "0-9999", N_("new cards per study day (all decks together)")),
    Key("reviews_per_day", COUNT, "0-9999", N_("reviews per study day (all decks together)")),
    Key("learning_steps", steps, N_('durations, e.g. "1m 10m"'), N_("steps of a new card before it is in review"),
        format_steps, lambda value: format_steps(value) or _("(none)")),
    Key("relearning_steps", steps, N_('durations, e.g. "10m"'), N_("steps of a card after Again in review"),
        format_steps, lambda value: format_steps(value) or _("(none)")),
    Key("maximum_interval", whole(1, 36500), N_("1-36500 (days)"), N_("the longest interval, in days")),
    Key("day_start_hour", whole(0, 23), "0-23", N_("the local hour a study day starts")),
    Key("fuzz", switch, "on/off", N_("spread review intervals a little, as Anki does"),
        show=lambda value: "on" if value else "off"),
    Key("load_balance", switch, "on/off", N_("prefer the day with fewer cards due among those fuzz allows (needs fuzz)"),
        show=lambda value: "on" if value else "off"),
    Key("language", language, "zh/en", N_("the interface language (QUIZ_LANG wins; unset: the locale's, else the decks')")),
    Key("clear_screen", switch, "on/off", N_("clear the terminal between cards (study, drill, exam)"),
        show=lambda value: "on" if value else "off"),
    Key("user", learner_name, "a-z 0-9 _ . - (1-40)",
        N_("the learner whose collection a shared database server opens (empty: the user name in the server's URL, "
           "else PGUSER, else the login name)"),
        show=lambda value: value or _("(the URL's user name, else PGUSER, else your login name)")),
)}
DECK_KEYS = {suffix: Key(f"deck.ID.{suffix}", COUNT, "0-9999", what) for suffix, what in (
    ("new_per_day", N_("new cards per study day in this deck (within the total)")), ("reviews_per_day", N_("reviews per study day in this deck (within the total)")))}


def key_of(name: str) -> Key:
    """The key ``name`` is (a global key or ``deck.ID.new_per_day``); UsageError if none."""
    if name in KEYS:
        return KEYS[name]
    match = DECK_KEY.match(name)
    if match:
        return replace(DECK_KEYS[match.group(2)], name=name)
    known = join([*KEYS, *(key.name for key in DECK_KEYS.values())])
    if re.match(rf"^deck\.{DECK_ID}\.", name):  # the id is one: what follows it is not a deck's setting
        hint = _("a deck's settings are {names}").format(names=join(DECK_KEYS))
    elif name.startswith("deck."):
        hint = _("deck ids are lowercase a-z, 0-9 and '-'")
    else:
        hint = _("known: {names}").format(names=known)
    raise UsageError(_("{key}: not a setting").format(key=name), hint)


def parse(name: str, raw: Any, where: str = "", hint: str | None = None) -> Any:
    """``raw`` (a string typed, or a TOML value) as ``name``'s value; UsageError naming the key,
    prefixed by ``where`` (``config.toml: ``) when it comes from somewhere else than the command line."""
    try:
        key = key_of(name)
    except UsageError as err:
        raise UsageError(f"{where}{err.message}", _("{first}; {second}").format(first=hint, second=err.hint) if hint else err.hint) from None
    try:
        return key.parse(raw)
    except BadValue as problem:
        raise UsageError(where + _("{key}: {problem}").format(key=name, problem=problem), hint) from None


# -- the settings ------------------------------------------------------------


@dataclass(frozen=True)
class Settings:
    """Every setting, typed; ``sources`` says where each came from (default, file,
    environment, option); ``deck_limits`` holds the ``deck.ID.*`` keys that are set."""

    desired_retention: float = 0.9
    new_per_day: int = NEW_PER_DAY
    reviews_per_day: int = REVIEWS_PER_DAY
    learning_steps: tuple[timedelta, ...] = (timedelta(minutes=1), timedelta(minutes=10))
    relearning_steps: tuple[timedelta, ...] = (timedelta(minutes=10),)
    maximum_interval: int = 36500
    day_start_hour: int = ROLLOVER_HOUR
    fuzz: bool = True
    load_balance: bool = True
    clear_screen: bool = True
    language: str = "zh"
    user: str = ""  # the learner on a shared server; empty: the database's default (``learner``)
    deck_limits: Mapping[str, int] = field(default_factory=dict)
    sources: Mapping[str, str] = field(default_factory=dict, compare=False)
    path: Path | None = field(default=None, compare=False)

    @property
    def learner(self) -> str | None:
        """Whose collection a shared database server opens: ``user``; None leaves it to the database
        (``quizzer.store.default_learner``: on a server whom it logs in as, else the login name)."""
        return self.user or None

    def value(self, name: str) -> Any:
        return getattr(self, name) if name in KEYS else self.deck_limits[name]

    def source(self, name: str) -> str:
        return self.sources.get(name, SOURCES[0])

    def items(self) -> Iterator[tuple[Key, Any, str]]:
        """(key, value, source) of every global key, then of every deck key that is set."""
        for name in [*KEYS, *sorted(self.deck_limits)]:
            yield key_of(name), self.value(name), self.source(name)

    def per_deck(self, suffix: str) -> dict[str, int]:
        """``{deck id: limit}`` of the ``deck.ID.<suffix>`` keys (new_per_day, reviews_per_day)."""
        found = (DECK_KEY.match(name) for name in self.deck_limits)
        return {m.group(1): self.deck_limits[m.group(0)] for m in found if m and m.group(2) == suffix}

    @property
    def deck_new_per_day(self) -> dict[str, int]:
        return self.per_deck("new_per_day")

    @property
    def deck_reviews_per_day(self) -> dict[str, int]:
        return self.per_deck("reviews_per_day")

    def with_options(self, **options: Any) -> Settings:
        """These settings with the options given on the command line (None: not given)."""
        given = {name: parse(name, value) for name, value in options.items() if value is not None}
        return replace(self, **given, sources={**self.sources, **dict.fromkeys(given, "option")})


DEFAULTS = Settings()


def build(values: Mapping[str, Any], sources: Mapping[str, str], path: Path | None = None) -> Settings:
    """Settings from typed ``values`` by name (global keys and ``deck.ID.*`` keys)."""
    known = {f.name for f in fields(Settings)} & set(KEYS)
    return Settings(**{k: v for k, v in values.items() if k in known},
                    deck_limits={k: v for k, v in values.items() if k not in known},
                    sources=dict(sources), path=path)


# -- the file ----------------------------------------------------------------


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


def load(environ: Mapping[str, str] | None = None) -> Settings:
    """Defaults, then the config file, then the environment (``QUIZ_<KEY>``)."""
    environ = os.environ if environ is None else environ
    path = config_path(environ)
    from_file = check(read_raw(path), path)
    from_env = from_environment(environ)
    if requested(environ):  # QUIZ_LANG too, which wins as the interface chooses its language
        from_env["language"] = requested(environ)
    sources = {**dict.fromkeys(from_file, "file"), **dict.fromkeys(from_env, "environment")}
    values = {**from_file, **from_env}
    values.setdefault("language", unasked(environ))  # unset: the locale's, else the decks'
    return build(values, sources, path)


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
