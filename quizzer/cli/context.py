"""One command run's context, built once by the root command from what click parsed: the
settings (the config file read once, then the environment and the options), the interface
language chosen from them, and where the decks and the database are; the collection opened on
first use. It is ``ctx.obj`` of the root; commands reach it through ``current``."""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Optional

import typer

from quizzer.base import clock, i18n
from quizzer.cli.boundary import error_line, wrapped
from quizzer.cli.typer_compat import current_context
from quizzer.base.errors import UsageError, printable
from quizzer.base.i18n import N_, _

if TYPE_CHECKING:
    from quizzer.app.collection import Collection, LoadedDeck, Problem, Store
    from quizzer.settings import ConfigFile, Settings

DecksOption = Annotated[
    Optional[Path],
    typer.Option("--decks", metavar="DIR", show_default=False,
                 help=N_("Deck folder to use instead of the bundled decks (or set QUIZ_DECKS).")),
]
DbOption = Annotated[
    Optional[Path],
    typer.Option("--db", metavar="FILE|URL", show_default=False,
                 help=N_("Database file or postgresql:// URL (or set QUIZ_DB; default: a file in the user data "
                         "directory); on a server, QUIZ_USER picks the learner.")),
]
# help ids, translated as the help is drawn: the root's options are defined before the language is chosen


@dataclass(frozen=True)
class Locations:
    """Where a command's decks and database are: ``--decks`` / ``--db`` (None: ``QUIZ_DECKS`` /
    ``QUIZ_DB``, else the defaults)."""

    decks: Path | None = None
    db: Path | None = None


@dataclass
class RunContext:
    """The context of one ``quiz`` run (see the module docstring)."""

    environ: Mapping[str, str]
    root: Locations
    config: ConfigFile
    language: str
    _settings: Settings | None = field(default=None, repr=False)
    opened_collections: dict[Locations, Collection] = field(default_factory=dict, repr=False)

    @classmethod
    def build(cls, root: Locations, environ: Mapping[str, str] | None = None) -> RunContext:
        """The context of a run given ``root``'s options; switches the process to its language."""
        from quizzer.base.locations import deck_dirs
        from quizzer.settings import read_config

        environ = os.environ if environ is None else environ
        config = read_config(environ)
        language = i18n.follow(i18n.choose(environ, config.language, deck_dirs(root.decks, environ)))
        return cls(environ, root, config, language)

    def close(self) -> None:
        """Close the collections the run opened: their files are settled (SQLite folds its
        write-ahead log in) when the command ends, not whenever their objects are collected."""
        for opened in self.opened_collections.values():
            opened.store.close()
        self.opened_collections.clear()

    def settings(self) -> Settings:
        """The learner's settings (defaults, the config file, the environment), checked on first
        use: a bad value is a UsageError naming its key, for the commands that read them."""
        if self._settings is None:
            from quizzer.base.locations import deck_dirs
            from quizzer.settings import load

            self._settings = load(self.environ, self.config, deck_dirs(self.root.decks, self.environ))
        return self._settings

    def locations(self, decks: Path | None = None, db: Path | None = None) -> Locations:
        """A command's own --decks / --db, else the ones given before the command. A command's own
        --decks chooses the language as the root's does (where neither the environment, the
        setting nor the locale chose it)."""
        if decks is not None and decks != self.root.decks:
            from quizzer.base.locations import deck_dirs

            self.language = i18n.follow(i18n.choose(self.environ, self.config.language, deck_dirs(decks, self.environ)))
        return Locations(decks if decks is not None else self.root.decks, db if db is not None else self.root.db)


def interface_language() -> str:
    """The language to draw in before a run's context exists (``quiz --help``, answered as it is
    parsed): ``QUIZ_LANG``, the config file's ``language``, the locale, the decks of ``QUIZ_DECKS``."""
    from quizzer.settings import read_config

    return i18n.choose(os.environ, read_config(os.environ).language)


i18n.chosen_by(interface_language)


def current(ctx: typer.Context | None = None) -> RunContext:
    """The running command's context (``ctx``'s, else click's current one); outside a command
    (a test calling a helper), one built from the environment."""
    found = ctx or current_context()
    obj = found.find_root().obj if found is not None else None
    if isinstance(obj, RunContext):
        return obj
    built = RunContext.build(Locations(), os.environ)
    if found is not None:
        found.find_root().obj = built
    return built


def locations(ctx: typer.Context, decks: Path | None = None, db: Path | None = None) -> Locations:
    """A command's own --decks / --db, else the ones given before the command."""
    return current(ctx).locations(decks, db)


def settings(**options: Any) -> Settings:
    """The learner's settings with the options given for this run (None: not given); a bad value
    anywhere is a UsageError naming its key."""
    return current().settings().with_options(**options)


def learner() -> str | None:
    """Whose collection to open on a shared server: ``QUIZ_USER`` / the ``user`` setting; None
    leaves it to the database (``quizzer.store.default_learner``)."""
    return settings().learner


NO_DECKS = N_("No decks: the deck folders hold no deck files (*.yaml, *.yml).")  # a listing's or a session's word


def load(ctx: typer.Context, decks: Path | None) -> list[LoadedDeck]:
    """The decks to use (no database needed), those with problems left out with a warning, as
    ``collection`` leaves them out; DeckProblems if none can be used."""
    from quizzer.app.collection import load_decks

    usable, left_out = load_decks(locations(ctx, decks).decks)
    _warn_left_out(left_out)
    return usable


def collection(ctx: typer.Context, decks: Path | None, db: Path | None) -> Collection:
    """The decks joined to the database."""
    from quizzer.app.collection import open_collection, unknown_deck_limits

    run = current(ctx)
    chosen, mine = run.locations(decks, db), run.settings()
    if chosen in run.opened_collections:
        return run.opened_collections[chosen]
    opened = open_collection(chosen.decks, chosen.db, mine.learner, mine.day_start_hour)
    _say_if_new(opened.store)
    _warn_left_out(opened.left_out)
    for key in unknown_deck_limits(opened, mine.deck_limits):  # `config set` refuses them; a hand edit did nothing
        error_line(_("Warning: {file}: {key} names no deck in use, so it changes nothing").format(
            file=printable(run.config.path), key=key), _("`quiz decks` lists the deck ids"))
    if opened.backup_failed is not None:  # said at every command until a backup is taken again
        error_line(_("Warning: {problem}; the work goes on without it").format(problem=opened.backup_failed.message),
                    opened.backup_failed.shown_hint)
    run.opened_collections[chosen] = opened
    return opened


def opened_store(db: str | Path | None, learner: str | None) -> Store:
    """The database without the decks, for a command that needs no deck; a collection it starts
    is said as ``collection`` says it."""
    from quizzer.app.collection import open_database

    opened = open_database(db, learner)
    _say_if_new(opened)
    return opened


def _say_if_new(store: Store) -> None:
    """A collection this opening started on a server, said on stderr: a mistyped name starts one,
    and is seen."""
    if store.created:
        error_line(_("New collection for learner {learner} on {where}").format(learner=store.learner, where=store.display_name),
                    _("another name: QUIZ_USER=NAME, or `quiz config set user NAME`"))


def _warn_left_out(problems: list[Problem]) -> None:
    """Per deck file left out, on stderr: its first problem, then what that means. Every command
    says it, so the file is fixed; `quiz lint` lists the rest."""
    from quizzer.base.errors import problems_counted

    for file in dict.fromkeys(problem.file for problem in problems):
        own = [problem for problem in problems if problem.file == file]
        typer.echo(wrapped(printable(str(own[0])), sys.stderr), err=True)  # a terminal's own wrap left a "）" alone
        error_line(_("Warning: {file} has {problems} and is left out until it is fixed; its cards keep "
                      "their history").format(file=file, problems=problems_counted(own)),
                    _("`quiz lint` lists its problems"))


def check_clock() -> None:
    """The local zone must be one Python can use (TZ='XXX+99:99' is 99 hours off UTC; study days
    are local), and QUIZ_NOW, if set, a date-time from 1970 to 8900 in UTC (a review is stored in
    UTC, and a card may fall due a century on, within what `quiz check` takes for a time): every
    command reads the clock."""
    try:
        clock.wall().astimezone()
    except (OverflowError, ValueError):
        raise UsageError(_("TZ={value} is not a time zone quizzer can use").format(value=repr(os.environ.get("TZ", ""))),
                         _("name a zone, e.g. TZ=Asia/Shanghai, or unset TZ")) from None
    pinned = os.environ.get("QUIZ_NOW")
    if not pinned:
        return
    value, example = repr(pinned), _("e.g. QUIZ_NOW=2026-01-05T10:00")
    try:
        parsed = clock.parse_pinned(pinned)
    except ValueError:
        raise UsageError(_("QUIZ_NOW={value} is not an ISO date-time").format(value=value), example) from None
    try:
        year = clock.to_utc(parsed).year
    except (OverflowError, ValueError):  # year 1: out of range once moved to UTC
        year = clock.FIRST_YEAR - 1
    if not clock.FIRST_YEAR <= year <= clock.LAST_PINNED_YEAR:
        raise UsageError(_("QUIZ_NOW={value} is not between {first} and {last} in UTC").format(
            value=value, first=clock.FIRST_YEAR, last=clock.LAST_PINNED_YEAR), example)
