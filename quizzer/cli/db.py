"""``quiz db copy``: the whole collection into another store (a file or a PostgreSQL server)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from quizzer.cli.base import app, group
from quizzer.cli.boundary import say
from quizzer.cli.context import DbOption, opened_store, settings, locations as where
from quizzer.cli.files import output_file
from quizzer.cli.options import JsonOption
from quizzer.errors import QuizError, UsageError, printable
from quizzer.i18n import _

db_app = group(_("The database as a whole."))
app.add_typer(db_app, name="db")


@db_app.command("copy", help=_(
    "Copy the whole collection (cards' memory, reviews, exams, notebook, fitted parameters) into an empty database: "
    "a file or a PostgreSQL server. All or nothing; checked row by row before it is kept."))
def db_copy(
    ctx: typer.Context,
    to: Annotated[str, typer.Option("--to", metavar="FILE|URL", show_default=False, help=_(
        "The database to copy into: a file path or postgresql://user@host:port/db."))],
    as_json: JsonOption = False,
    db: DbOption = None,
) -> None:
    from quizzer.scheduling.learner import schedule_of
    from quizzer.scheduling.answer import replaying
    from quizzer.backup import remove_database
    from quizzer.store import open_store
    from quizzer.store.copy import copy_collection
    from quizzer.store.engine import resolve

    if not to.strip():  # an empty --to would name the default database, as no --db does
        raise UsageError(_("--to is empty"), _("name a file or a postgresql:// URL"))
    chosen = settings()
    path = resolve(to)[1]
    if path is not None:  # a file: as every command that writes one, never the learner's own (nor a folder)
        output_file(ctx, path if "://" in to else Path(to), db)
    # a new file is written under another name and renamed once the copy is checked: a copy killed
    # half-way leaves no half-made database under the name asked for
    partial = path.with_name(path.name + ".partial") if path is not None and not path.exists() else None
    if partial is not None:
        remove_database(partial)  # a copy killed before
    source = opened_store(where(ctx, None, db).db, chosen.learner)  # a mistyped name would copy a new, empty one
    try:
        try:
            target = open_store(str(partial) if partial is not None else to, chosen.learner)
        except QuizError as err:  # the store's words name the source's option, and the file it opened
            if err.hint:
                err.hint = err.shown_hint.replace("--db / QUIZ_DB", "--to")
            if partial is not None:
                err.args = (err.message.replace(str(partial), str(path)),)
            raise
        try:
            schedule = schedule_of(source, chosen)
            decide = replaying(source, schedule.scheduler, chosen.day_start_hour, schedule.interview)
            result = copy_collection(source, target, decide)
            destination = str(path) if partial is not None else target.where
        finally:
            target.close()
        if partial is not None and path is not None:
            partial.replace(path)
    except BaseException:
        if partial is not None:
            remove_database(partial)
        raise
    finally:
        source.close()
    if as_json:
        from quizzer.cli.output import emit_json

        emit_json({"to": destination, "rows": result.rows, "replayed_cards": result.replayed})
        return
    say(_("copied {cards} cards and {reviews} reviews ({rows} rows in all) to {where}; the memory of {replayed} "
          "reviewed cards replays the same from the copy as from the source").format(
        cards=f"{result.rows.get('cards', 0):,}", reviews=f"{result.rows.get('review_log', 0):,}",
        rows=f"{sum(result.rows.values()):,}", where=printable(destination), replayed=f"{result.replayed:,}"))
