"""The settings' keys (what each one holds, may be and does) and the typed ``Settings``."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, fields, replace
from datetime import timedelta
from pathlib import Path
from typing import Any

from quizzer.base.clock import ROLLOVER_HOUR
from quizzer.base.defaults import NEW_PER_DAY, REVIEWS_PER_DAY, SERVER_RETRY_SECONDS
from quizzer.base.errors import UsageError
from quizzer.base.i18n import N_, _, join
from quizzer.kinds.fields import ID_PATTERN
from quizzer.settings.values import (
    BadValue,
    format_speed,
    format_steps,
    language,
    learner_name,
    retention,
    speed,
    steps,
    switch,
    whole,
)

DECK_ID = ID_PATTERN.removeprefix("^").removesuffix("$").replace("(", "(?:")  # a deck's id, as a deck file's own
DECK_KEY = re.compile(rf"^deck\.({DECK_ID})\.(new_per_day|reviews_per_day)\Z")  # \Z: no newline after
SOURCES = ("default", "file", "environment", "option")  # what Settings.source() says, lowest first


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
GRADED_KINDS = ("choice", "cloze", "numeric")  # the kinds whose right answers are rated by their speed
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
    *(Key(f"{kind}_speed", speed, N_('seconds, e.g. "8 45"'),
          N_("a right typed answer within the first is Easy (Good at a card's first sight), after the second Hard"),
          format_speed, lambda value: _("Easy ≤ {fast} s, Hard > {slow} s").format(fast=f"{value[0]:g}", slow=f"{value[1]:g}"))
      for kind in GRADED_KINDS),
    Key("language", language, "zh/en", N_("the interface language (QUIZ_LANG wins; unset: the locale's, else the decks')")),
    Key("clear_screen", switch, "on/off", N_("clear the terminal between cards (study, drill, exam)"),
        show=lambda value: "on" if value else "off"),
    Key("server_retry_seconds", whole(0, 3600), N_("0-3600 (seconds)"),
        N_("how long an answer tries again to reach a database server that cannot be reached (0: not at all)")),
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
    server_retry_seconds: int = SERVER_RETRY_SECONDS
    choice_speed: tuple[float, float] = (8.0, 45.0)  # a letter or two to type
    cloze_speed: tuple[float, float] = (15.0, 90.0)  # a line of blanks
    numeric_speed: tuple[float, float] = (30.0, 180.0)  # a calculation
    user: str = ""  # the learner on a shared server; empty: the database's default (``learner``)
    deck_limits: Mapping[str, int] = field(default_factory=dict)
    sources: Mapping[str, str] = field(default_factory=dict, compare=False)
    path: Path | None = field(default=None, compare=False)

    @property
    def learner(self) -> str | None:
        """Whose collection a shared database server opens: ``user``; None leaves it to the database
        (``quizzer.store.default_learner``: on a server whom it logs in as, else the login name)."""
        return self.user or None

    def speed(self, kind: str) -> tuple[float, float]:
        """A graded kind's answer times in seconds: a right answer within the first is Easy, after
        the second Hard (``{kind}_speed``)."""
        value: tuple[float, float] = getattr(self, f"{kind}_speed")
        return value

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

