"""``quiz db copy``: the whole collection into another store (a file or a PostgreSQL server)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from quizzer.cli.base import DbOption, JsonOption, app, group, opened_store, output_file, say, settings, where
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
    from quizzer.store import Store, open_store
    from quizzer.store.copy import copy_collection, copy_to_file
    from quizzer.store.engine import resolve

    if not to.strip():  # an empty --to would name the default database, as no --db does
        raise UsageError(_("--to is empty"), _("name a file or a postgresql:// URL"))
    chosen = settings()
    path = resolve(to)[1]
    if path is not None:  # a file: as every command that writes one, never the learner's own (nor a folder)
        output_file(ctx, path if "://" in to else Path(to), db)

    def opened(target: str) -> Store:
        try:
            return open_store(target, chosen.learner)
        except QuizError as err:  # the store's words name the source's option
            if err.hint:
                err.hint = err.shown_hint.replace("--db / QUIZ_DB", "--to")
            raise

    source = opened_store(where(ctx, None, db).db, chosen.learner)  # a mistyped name would copy a new, empty one
    try:
        schedule = schedule_of(source, chosen)
        decide = replaying(source, schedule.scheduler, chosen.day_start_hour, schedule.interview)
        if path is not None:  # written whole under a temporary name, checked, then renamed
            result = copy_to_file(source, path, opened, decide)
            destination = str(path)
        else:
            target = opened(to)
            try:
                result = copy_collection(source, target, decide)
                destination = target.where
            finally:
                target.close()
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
