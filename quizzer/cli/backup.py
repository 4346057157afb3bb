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
from quizzer.base.errors import UsageError, printable
from quizzer.base.i18n import N_, _, ngettext

backup_app = group(N_("Back up the database now, and list and restore the backups."))
app.add_typer(backup_app, name="backup")


def _db_path(ctx: typer.Context, db: Path | None) -> Path:
    from quizzer.app.database import database_file

    return database_file(where(ctx, None, db).db, learner())


@backup_app.command("create", help=N_("Back up the database now (the automatic backups come at most every 30 "
                                     "minutes of use)."))
def backup_create(ctx: typer.Context, db: DbOption = None) -> None:
    from quizzer.app.database import take_backup

    say(_("backed up to {file}").format(file=printable(take_backup(_db_path(ctx, db)))))


@backup_app.command("list", help=N_("The backups, newest first."))
def backup_list(ctx: typer.Context, as_json: JsonOption = False, db: DbOption = None) -> None:
    from quizzer.app.database import list_backups
    from quizzer.base.clock import when

    items = list_backups(_db_path(ctx, db))
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


@backup_app.command("restore", help=N_("Replace the database by a backup (the current one is backed up first)."))
def backup_restore(
    ctx: typer.Context,
    which: Annotated[str, typer.Argument(metavar="NAME|FILE|latest", help=N_(
        "A backup: its name as `quiz backup list` shows it, a file, or 'latest' (the newest one but the "
        "copies restores took of the database they replaced)."))] = "latest",
    yes: Annotated[bool, typer.Option("--yes", "-y", help=N_(
        "Restore without asking first (needed where standard input is not a terminal)."))] = False,
    db: DbOption = None,
) -> None:
    from quizzer.app import database

    # a restore replaces the reviews made since the backup: asked on a terminal, and a script says --yes
    if not yes and (sys.stdin is None or not sys.stdin.isatty()):
        raise UsageError(_("a restore replaces the database, and there is no terminal to ask on"),
                         _("add --yes to restore without asking"))
    path = _db_path(ctx, db)
    found = database.find_backup(path, which)
    chosen, taken = found.path, found.taken_at
    before = database.reviews_in(path)

    def ask() -> None:
        from quizzer.base.clock import when

        held = database.reviews_in(chosen)
        about = " · ".join([*([_("taken {when}").format(when=when(taken))] if taken else []),  # not a list: "、"
                            *([counted_reviews(held)] if held is not None else [])])
        from quizzer.cli.process import echo_typing

        echo_typing()  # before the question: what was typed before it is dropped, the answer typed after it is seen
        typer.echo(_("Restore {backup} ({about}) over the database {path} ({before})? It is backed up first. "
                     "[y/N] ").format(backup=printable(chosen.name if taken else chosen), about=about, path=printable(path),
                                      before=counted_reviews(before) if before is not None else _("reviews unknown")),
                   nl=False)
        try:  # Ctrl-C is an interruption as anywhere else
            answer = input()
        except EOFError:  # Ctrl-D: no
            typer.echo()
            answer = ""
        if answer.strip().lower() not in ("y", "yes", _("y"), _("yes")):
            say(_("Not restored: the database is unchanged."))
            raise typer.Exit(0)

    restored = database.restore(found, path, None if yes else ask)
    said = _("restored {file}").format(file=printable(chosen))
    after = restored.reviews  # what the restored database holds is said, an empty one too
    if after is not None:
        said += (_(": it holds {reviews}, where the database held {before}").format(
            reviews=counted_reviews(after), before=counted_reviews(before)) if before is not None
            else _(": it holds {reviews}").format(reviews=counted_reviews(after)))
    if restored.saved:
        said += _("; the database before it is saved as {file}").format(file=printable(restored.saved))
        said += _(" (`quiz backup restore {name}` undoes this)").format(name=printable(restored.saved.name))
    say(said)


@app.command(help=N_("Check the database: SQLite's integrity and foreign keys, and on any database the "
                    "collection's rules (memory states, rows of missing cards or exams)."))
def check(ctx: typer.Context, db: DbOption = None) -> None:
    from quizzer.app.database import check as checked

    found = checked(where(ctx, None, db).db, learner(), opened_store)
    if found.summary_rebuilt:
        say(_("the statistics' summary of the review log no longer matched it (changed outside "
              "quizzer): the next `quiz stats` rebuilds it"))
    for problem in found.problems:
        typer.echo(problem)
    if found.problems:
        raise typer.Exit(1)
    typer.echo(_("ok"))
