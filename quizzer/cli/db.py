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
from quizzer.base.errors import UsageError, printable
from quizzer.base.i18n import N_, _

db_app = group(N_("The database as a whole."))
app.add_typer(db_app, name="db")


@db_app.command("copy", help=N_(
    "Copy the whole collection (cards' memory, reviews, exams, notebook, fitted parameters) into an empty database: "
    "a file or a PostgreSQL server. All or nothing; checked row by row before it is kept."))
def db_copy(
    ctx: typer.Context,
    to: Annotated[str, typer.Option("--to", metavar="FILE|URL", show_default=False, help=N_(
        "The database to copy into: a file path or postgresql://user@host:port/db."))],
    as_json: JsonOption = False,
    db: DbOption = None,
) -> None:
    from quizzer.app import database

    if not to.strip():  # an empty --to would name the default database, as no --db does
        raise UsageError(_("--to is empty"), _("name a file or a postgresql:// URL"))
    chosen = settings()
    path = database.file_of(to)
    if path is not None:  # a file: as every command that writes one, never the learner's own (nor a folder)
        output_file(ctx, path if "://" in to else Path(to), db)
    source = opened_store(where(ctx, None, db).db, chosen.learner)  # a mistyped name would copy a new, empty one
    try:
        result = database.copy_into(source, to, chosen)
    finally:
        source.close()
    if as_json:
        from quizzer.cli.output import emit_json

        emit_json({"to": result.destination, "rows": result.rows, "replayed_cards": result.replayed})
        return
    say(_("copied {cards} cards and {reviews} reviews ({rows} rows in all) to {where}; the memory of {replayed} "
          "reviewed cards replays the same from the copy as from the source").format(
        cards=f"{result.rows.get('cards', 0):,}", reviews=f"{result.rows.get('review_log', 0):,}",
        rows=f"{sum(result.rows.values()):,}", where=printable(result.destination), replayed=f"{result.replayed:,}"))
