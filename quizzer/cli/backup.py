"""``quiz backup`` and ``quiz check``: the automatic backups, and checking the database."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from quizzer.cli.base import app, group
from quizzer.cli.boundary import counted_reviews, say
from quizzer.cli.context import DbOption, learner, opened_store, locations as where
from quizzer.cli.options import JsonOption
from quizzer.errors import BackupError, SchemaMismatch, UsageError, printable
from quizzer.i18n import _, ngettext

backup_app = group(_("Back up the database now, and list and restore the backups."))
app.add_typer(backup_app, name="backup")


def _db_path(ctx: typer.Context, db: Path | None) -> Path:
    from quizzer.store import learner_name
    from quizzer.store.engine import learner_schema, resolve, shown_url

    url, path = resolve(where(ctx, None, db).db)
    if path is None:
        schema = learner_schema(learner_name(learner(), url))
        raise UsageError(_("{where} is a database server: its own backups apply (pg_dump); "
                           "`quiz backup` is for SQLite database files").format(where=shown_url(url)),
                         _("one learner's collection is the schema {schema}: `pg_dump --schema='\"{schema}\"'` saves it and "
                           "pg_restore brings it back; `quiz db copy --to FILE` keeps it in a file").format(schema=schema))
    return path


@backup_app.command("create", help=_("Back up the database now (the automatic backups come at most every 30 "
                                     "minutes of use)."))
def backup_create(ctx: typer.Context, db: DbOption = None) -> None:
    from quizzer import backup, clock

    say(_("backed up to {file}").format(file=printable(backup.backup_now(_db_path(ctx, db), clock.wall()))))


@backup_app.command("list", help=_("The backups, newest first."))
def backup_list(ctx: typer.Context, as_json: JsonOption = False, db: DbOption = None) -> None:
    from quizzer import backup
    from quizzer.clock import when

    items = backup.list_backups(_db_path(ctx, db))
    if as_json:
        from quizzer.cli.output import emit_json

        emit_json([{"path": str(item.path), "taken_at": item.taken_at, "before_restore": item.before_restore}
                   for item in items])
        return
    if not items:
        say(_("No backups yet (one is taken at most every 30 minutes of use)."))
        return
    # the folder once, then each file by name (what `quiz backup restore NAME` takes): a full path
    # per line wrapped at 60-80 columns
    say(_("{count} in {folder}, newest first:").format(
        count=ngettext("{count} backup", "{count} backups", len(items)).format(count=len(items)),
        folder=items[0].path.parent))
    for item in items:
        try:
            size = f"{item.path.stat().st_size / 1e6:5.1f} MB"  # MB as deck sizes are given (10^6 bytes)
        except OSError:  # removed since it was listed
            continue
        note = _("  (undoes a restore)") if item.before_restore else ""
        typer.echo(f"{when(item.taken_at)}  {size}  {item.path.name}{note}")


@backup_app.command("restore", help=_("Replace the database by a backup (the current one is backed up first)."))
def backup_restore(
    ctx: typer.Context,
    which: Annotated[str, typer.Argument(metavar="NAME|FILE|latest", help=_(
        "A backup: its name as `quiz backup list` shows it, a file, or 'latest' (the newest one but the "
        "copies restores took of the database they replaced)."))] = "latest",
    yes: Annotated[bool, typer.Option("--yes", "-y", help=_(
        "Restore without asking first (needed where standard input is not a terminal)."))] = False,
    db: DbOption = None,
) -> None:
    from quizzer import backup, clock

    # a restore replaces the reviews made since the backup: asked on a terminal, and a script says --yes
    if not yes and (sys.stdin is None or not sys.stdin.isatty()):
        raise UsageError(_("a restore replaces the database, and there is no terminal to ask on"),
                         _("add --yes to restore without asking"))
    path = _db_path(ctx, db)
    backups = backup.list_backups(path)
    listed = {item.path.name: item.path for item in backups}
    newest = backup.latest(backups)
    chosen = newest.path if which == "latest" and newest else listed.get(which, Path(which))
    try:
        found = chosen.is_file()
    except OSError:  # a name too long for a file name, a folder it cannot enter: no such backup either
        found = False
    if not found:
        raise BackupError(_("no backup '{name}'").format(name=which if len(which) <= 80 else which[:79] + "…"),
                          _("`quiz backup list` shows them"))
    before = backup.reviews_in(path)
    taken = next((item.taken_at for item in backups if item.path == chosen), None)

    def ask() -> None:
        from quizzer.clock import when

        held = backup.reviews_in(chosen)
        about = " · ".join([*([_("taken {when}").format(when=when(taken))] if taken else []),  # not a list: "、"
                            *([counted_reviews(held)] if held is not None else [])])
        typer.echo(_("Restore {backup} ({about}) over the database {path} ({before})? It is backed up first. "
                     "[y/N] ").format(backup=printable(chosen.name if taken else chosen), about=about, path=printable(path),
                                      before=counted_reviews(before) if before is not None else _("reviews unknown")),
                   nl=False)
        try:  # Ctrl-C is an interruption as anywhere (typer.confirm made it "Aborted!", exit 1)
            answer = input()
        except EOFError:  # Ctrl-D: no
            typer.echo()
            answer = ""
        if answer.strip().lower() not in ("y", "yes", _("y"), _("yes")):
            say(_("Not restored: the database is unchanged."))
            raise typer.Exit(0)

    saved = backup.restore(chosen, path, clock.wall(), None if yes else ask)
    said = _("restored {file}").format(file=printable(chosen))
    after = backup.reviews_in(path)  # an empty collection put in place of a year's reviews is said, not silent
    if after is not None:
        said += (_(": it holds {reviews}, where the database held {before}").format(
            reviews=counted_reviews(after), before=counted_reviews(before)) if before is not None
            else _(": it holds {reviews}").format(reviews=counted_reviews(after)))
    if saved:
        said += _("; the database before it is saved as {file}").format(file=printable(saved))
        said += _(" (`quiz backup restore {name}` undoes this)").format(name=printable(saved.name))
    say(said)


@app.command(help=_("Check the database: SQLite's integrity and foreign keys, and on any database the "
                    "collection's rules (memory states, rows of missing cards or exams)."))
def check(ctx: typer.Context, db: DbOption = None) -> None:
    from quizzer.store import review_days
    from quizzer.store.check import problems as broken_rules
    from quizzer.store.engine import resolve

    location = where(ctx, None, db).db
    path = resolve(location)[1]
    problems: list[str] = []
    keys: list[str] = []  # rows of a missing card: reported with the rules, which they do not stop
    if path is not None:
        from quizzer import backup

        problems, keys = backup.examine(path)
    if not problems:  # a damaged file is not opened (nor a missing one created)
        try:
            store = opened_store(location, learner())
        except SchemaMismatch as err:  # a table gone: the problem to report, where any other command stops
            problems = keys + err.problems
        else:
            try:
                problems = keys + broken_rules(store)
                if not review_days.agrees(store):  # derived data: put right, not a problem to fix
                    say(_("the statistics' summary of the review log no longer matched it (changed outside "
                          "quizzer): the next `quiz stats` rebuilds it"))
            finally:
                store.close()
    for problem in problems:
        typer.echo(problem)
    if problems:
        raise typer.Exit(1)
    typer.echo(_("ok"))
