"""``quiz config``: the settings that stay (``config.toml``), shown, set and unset."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from quizzer.cli.base import app, group
from quizzer.cli.boundary import console, say
from quizzer.cli.context import DbOption, load, opened_store, settings, locations as where
from quizzer.cli.help_text import help_with
from quizzer.cli.options import JsonOption
from quizzer.base.errors import UnknownName, printable
from quizzer.base.i18n import N_, _
from quizzer.settings import KEYS

if TYPE_CHECKING:
    from quizzer.settings import Settings

config_app = group(N_("Settings that stay: show them (with where each comes from), set or unset one."),
                   invoke_without_command=True, no_args_is_help=False)
app.add_typer(config_app, name="config")

KeyArgument = Annotated[str, typer.Argument(
    metavar="KEY", show_default=False,
    help=help_with(N_("A setting: {keys}, deck.ID.new_per_day, deck.ID.reviews_per_day."), keys=KEYS))]
EXPLAINED_FROM = 110  # columns: below them, the table leaves out what each key does
# where a value comes from, shown translated; the learner's name, where no setting gives it: "url", "PGUSER" or "login"
SOURCES = (N_("default"), N_("file"), N_("environment"), N_("option"), N_("url"), N_("PGUSER"), N_("login"))


@config_app.callback(help=N_(
    "Every setting: its value, where it comes from (default, file, environment, option) and what it may be. The file "
    "is $QUIZ_CONFIG, else config.toml in the user config directory."))
def config(ctx: typer.Context, json: JsonOption = False) -> None:
    if ctx.invoked_subcommand is not None:
        return
    shown = settings()
    assert shown.path is not None  # loaded from a file (or where it would be)
    rows = [(key, value, source) if key.name != "user" or value else (key, *_default_learner(ctx))
            for key, value, source in shown.items()]
    raised = _new_per_day_in_force(ctx, shown)
    if json:
        from quizzer.cli.output import emit_json

        listed = {key.name: {"value": key.toml(value), "source": source, "allowed": key.allowed} for key, value, source in rows}
        if raised is not None:  # what study applies today instead, and why
            listed["new_per_day"].update(today=raised, why="interview plan")
        emit_json({"path": str(shown.path), "exists": shown.path.exists(), "settings": listed})
        return
    from rich.cells import cell_len
    from rich.text import Text

    from quizzer.terminal.tables import ident, listing, room_beside, text

    out = console()
    explained = out.width >= EXPLAINED_FROM  # what each key does, where it fits beside the rest
    table = listing(text(_("key")), text(_("value")), ident(_("source")), _("allowed"),
                    *([_("what it does")] if explained else []), title=_("Settings"))
    # the keys whole (a learner types one back to `config unset`) beside the source, a value and 10
    # columns of what is allowed; only a deck's key (deck.ID.reviews_per_day) longer than that folds
    sources = max(cell_len(_(source)) for _key, _value, source in rows)
    longest = max(len(key.name) for key, _value, _source in rows)
    table.columns[0].width = min(longest, max(max(map(len, KEYS)), room_beside(out.width, [6, sources, 10], 0)))
    for key, value, source in rows:
        table.add_row(Text(key.name), Text(key.show(value)), Text(_(source)), Text(_(key.allowed)),
                      *([Text(_(key.help))] if explained else []))
    out.print(table)
    if raised is not None:
        out.print(_("new_per_day today: {pace}, raised from {setting} by the interview plan so that every card is seen "
                    "early enough (`quiz plan`).").format(pace=f"{raised:,}", setting=f"{shown.new_per_day:,}"),
                  markup=False, highlight=False)
    state = "" if shown.path.exists() else _(" (not written yet)")
    out.print(_("file: {path}{state}; `quiz config set KEY VALUE` changes a value, `quiz config unset KEY` goes back "
                "to the default. QUIZ_<KEY> in the environment (QUIZ_NEW_PER_DAY=10) overrides the file.").format(
                  path=printable(shown.path), state=state), markup=False, highlight=False)


def _new_per_day_in_force(ctx: typer.Context, shown: Settings) -> int | None:
    """Today's new-card limit where the interview plan raises it (None: the setting holds, or the
    database cannot be read: the settings are shown all the same)."""
    from quizzer.base import clock
    from quizzer.app.config import new_per_day_in_force
    from quizzer.base.errors import QuizError

    try:
        return new_per_day_in_force(where(ctx, None, None).db, shown, clock.now())
    except QuizError:
        return None


def _default_learner(ctx: typer.Context) -> tuple[str, str]:
    """The learner when the ``user`` setting is empty, and where the name comes from (the user name
    in the server's URL, PGUSER, or the login name): said as it is, not as "(your login name)"."""
    from quizzer.app.config import default_learner

    return default_learner(where(ctx, None, None).db)


@config_app.command("set", context_settings={"ignore_unknown_options": True},  # -1 is a value to refuse, not an option
                    help=N_("Set KEY to VALUE in the config file (checked first: a bad value changes nothing)."))
def config_set(
    ctx: typer.Context,
    key: KeyArgument,
    value: Annotated[str, typer.Argument(metavar="VALUE", show_default=False,
                                         help=N_('The value, e.g. 0.85, 10, "1m 10m", on, zh.'))],
    db: DbOption = None,
) -> None:
    from quizzer import settings as config_file

    config_file.parse(key, value)  # a bad value is refused before anything is read or written
    deck = config_file.DECK_KEY.match(key)
    if deck:  # a mistyped deck id would be a limit nothing ever reads
        known = [loaded.id for loaded in load(ctx, None)]
        if deck.group(1) not in known:
            raise UnknownName("deck", deck.group(1), known)
    before = _state(key)
    path = config_file.config_path()
    config_file.set_value(path, key, value)
    _speak_as_set(key)
    _report(ctx, key, before, _("saved in {path}").format(path=printable(path)), db)


@config_app.command("unset", help=N_("Remove KEY from the config file: its default applies again."))
def config_unset(ctx: typer.Context, key: KeyArgument, db: DbOption = None) -> None:
    from quizzer import settings as config_file

    before = _state(key)
    path = config_file.config_path()
    if not config_file.unset_value(path, key):
        say(_("{key} is not set in {path}; nothing changed").format(key=key, path=printable(path)))
        return
    if not config_file.is_setting(key):
        say(_("{key}: removed from {path} (it is not a setting)").format(key=key, path=printable(path)))
        return
    _speak_as_set(key)
    _report(ctx, key, before, _("the default; removed from {path}").format(path=printable(path)), db)


def _speak_as_set(key: str) -> None:
    """After the language changed, say so in the language now in use (`set language en` is
    confirmed in English)."""
    from quizzer.base import i18n

    if key == "language":
        i18n.use()


def _state(key: str) -> tuple[Settings | None, str]:
    """The settings as ``_file_and_defaults`` gives them, and ``key``'s value shown: as they have
    it, else (another key of the file is bad) as the file holds it, a bad value as written."""
    from quizzer import settings as config_file
    from quizzer.base.errors import QuizError

    chosen = _file_and_defaults(key)
    if chosen is not None:
        return chosen, _shown(chosen, key)
    try:
        raw = config_file.read_raw(config_file.config_path())
    except QuizError:  # not TOML at all
        return None, "?"
    if key not in raw:
        return None, _shown(config_file.Settings(), key)
    return None, str(raw[key]).lower() if isinstance(raw[key], bool) else str(raw[key])  # as TOML writes it


def _file_and_defaults(key: str) -> Settings | None:
    """The settings as the file and the defaults give them (``key``'s environment variable
    aside: the report is about the file). None when the file holds a bad value (setting or
    unsetting a key may be what fixes it)."""
    from quizzer import settings as config_file
    from quizzer.base.errors import UsageError

    try:
        return config_file.load({k: v for k, v in os.environ.items() if k not in _variables(key)})
    except UsageError:
        return None


def _variables(key: str) -> tuple[str, ...]:
    """The environment variables that win over ``key`` in the file (the language has two)."""
    from quizzer import settings as config_file

    if key not in config_file.KEYS:
        return ()
    return ("QUIZ_LANG", config_file.KEYS[key].env) if key == "language" else (config_file.KEYS[key].env,)


def _report(ctx: typer.Context, key: str, before_state: tuple[Settings | None, str], what: str,
            db: Path | None) -> None:
    """What changed, whether the environment hides it, and for desired_retention what it does
    to the reviews due."""
    (before, old), (after, new) = before_state, _state(key)
    say(f"{key}: {old} → {new}" + _(" ({hint})").format(hint=what))  # （…） in Chinese
    for variable in _variables(key):
        if os.environ.get(variable):
            say(_("{variable}={value} is set in the environment: it wins over the file while set.").format(
                variable=variable, value=os.environ[variable]))
            break
    if key == "desired_retention" and before is not None and after is not None \
            and before.desired_retention != after.desired_retention:
        change = _due_change(ctx, after, db)
        if change:
            say(change)


def _shown(chosen: Settings, key: str) -> str:
    from quizzer import settings as config_file

    if key not in config_file.KEYS and key not in chosen.deck_limits:
        return _("(not set)")
    return config_file.key_of(key).show(chosen.value(key))


def _due_change(ctx: typer.Context, after: Settings, db: Path | None) -> str | None:
    """``due today: 12 → 19; next 7 days: 80 → 95``: the learner's reviews due as they are, and as
    the new retention would schedule them; None when there is no database yet."""
    from quizzer.app.config import due_change
    from quizzer.app.database import file_of
    from quizzer.base.errors import QuizError

    target = where(ctx, None, db).db
    path = file_of(target)
    if path is not None and not path.exists():
        return None
    try:
        store = opened_store(target, after.learner)
    except QuizError as err:
        return _("(the due counts cannot be shown: {reason})").format(reason=err.message)
    try:
        old, new = due_change(store, after)
    finally:
        store.close()
    return _("due today: {old_today} → {new_today}; next 7 days: {old_week} → {new_week} (cards in review: due now → due "
             "were each rescheduled at {new} from its last review; the dates themselves change card by card, at each "
             "one's next review)").format(
        old_today=old.today, new_today=new.today, old_week=old.week, new_week=new.week,
        new=f"{after.desired_retention:g}")
