"""``quiz history import`` / ``quiz history export``: review history in and out, in the
common FSRS CSV form (``card_id, review_rating, review_time, review_duration``)."""

from __future__ import annotations

import enum
import sys
from collections.abc import Callable
from contextlib import nullcontext
from datetime import date
from pathlib import Path
from typing import Annotated, ContextManager, Optional

import typer

from quizzer.cli.base import app, group
from quizzer.cli.boundary import counted_cards, counted_reviews, say
from quizzer.cli.context import DbOption, DecksOption, collection, settings
from quizzer.cli.files import output_file
from quizzer.cli.options import DeckFilter, JsonOption, STANDARD, calendar_day, path_or_standard, standard_input
from quizzer.base.errors import UsageError, printable
from quizzer.base.i18n import N_, _, ngettext

history_app = group(N_("Review history in and out (the FSRS CSV form: card_id, review_rating, "
                      "review_time, review_duration)."))
app.add_typer(history_app, name="history")

class HistoryForm(str, enum.Enum):  # quizzer.transfer.review_forms.FORMS (kept here so `quiz --help` imports nothing heavy)
    quizzer = "quizzer"
    fsrs_rs = "fsrs-rs"
    srs_benchmark = "srs-benchmark"


PROGRESS_FROM = 50_000  # reviews: about five seconds to import here

CsvFile = Annotated[Path, typer.Argument(metavar="FILE.csv", show_default=False, parser=path_or_standard,
                                         help=N_("The CSV file."))]
LogFile = Annotated[Path, typer.Argument(metavar="FILE", show_default=False, parser=path_or_standard,
                                         help=N_("The CSV file, or an Anki package or collection (.apkg, .colpkg, "
                                                ".anki2)."))]


@history_app.command("import", help=N_(
    "Add the reviews of a CSV file: ids of deck cards attach to them, other ids become archived cards; reviews "
    "already there are skipped. All or nothing: a bad row names its line. From an Anki file, the reviews of "
    "the notes quizzer's export wrote."))
def history_import(
    ctx: typer.Context,
    file: LogFile,
    as_json: JsonOption = False,
    decks_dir: DecksOption = None,
    db: DbOption = None,
) -> None:
    from quizzer.base import clock
    from quizzer.app.exchange import read_review_log
    from quizzer.app.review_history import import_reviews

    learner = settings()
    from quizzer.app.review_history import is_anki_file

    if file is not STANDARD and is_anki_file(file):
        anki_import(ctx, file, as_json, decks_dir, db)
        return
    stream = standard_input(file, _("review log"), "cat log.csv | quiz history import -")
    reviews = read_review_log(file, now=clock.now(), stream=stream)  # every row checked before the database is opened
    opened = collection(ctx, decks_dir, db)
    with progress_of(len(reviews)) as replayed:
        imported = import_reviews(opened, reviews, learner, replayed)
    result, saved = imported.result, imported.saved
    if as_json:
        from quizzer.cli.output import emit_json

        emit_json(dict(file=str(file), imported=result.imported, cards=result.cards,
                       new_archived_cards=result.new_cards, already_there=result.already_there,
                       backup=str(saved) if saved else None))
        return
    say(_("imported {reviews} of {cards} ({archived}); {skipped} already there").format(
        reviews=counted_reviews(result.imported), cards=counted_cards(result.cards),
        archived=ngettext("{count} new archived card", "{count} new archived cards", result.new_cards).format(
            count=f"{result.new_cards:,}"),
        skipped=f"{result.already_there:,}"))
    if result.new_cards:
        say(_("Archived cards have ids no deck has: statistics and `quiz optimize` use their reviews, and study "
              "never shows them."))
    if saved:
        say(_("The database before the import is saved as {file} (`quiz backup restore` brings it back).")
            .format(file=printable(saved)))


def anki_import(ctx: typer.Context, file: Path, as_json: bool, decks_dir: Path | None, db: Path | None) -> None:
    """``quiz history import`` of an Anki package or collection."""
    from quizzer.app.review_history import import_anki_reviews

    opened = collection(ctx, decks_dir, db)
    done = import_anki_reviews(opened, file, settings())
    result, saved, found = done.imported.result, done.imported.saved, done.found
    if as_json:
        from quizzer.cli.output import emit_json

        emit_json(dict(file=str(file), imported=result.imported, cards=result.cards, already_there=result.already_there,
                       not_from_quizzer=found.not_from_quizzer, not_in_decks=found.not_in_decks,
                       not_reviews=found.not_reviews, edited=found.edited, backup=str(saved) if saved else None))
        return
    say(_("imported {reviews} of {cards} from Anki; {skipped} already there").format(
        reviews=counted_reviews(result.imported), cards=counted_cards(result.cards), skipped=f"{result.already_there:,}"))
    if found.not_from_quizzer or found.not_in_decks or found.not_reviews:
        say(_("skipped: {foreign} of notes not from quizzer, {gone} of cards no deck has now, {manual} "
              "reschedules (no answer)").format(foreign=counted_reviews(found.not_from_quizzer),
                                                gone=counted_reviews(found.not_in_decks), manual=f"{found.not_reviews:,}"))
    if found.edited:
        typer.echo(_("Warning: the text of these cards' notes differs from the decks (edited in Anki?); the deck "
                     "files are the cards' source, so move an edit into them: {cards}").format(
            cards=", ".join(printable(card_id) for card_id in found.edited)), err=True)
    if saved:
        say(_("The database before the import is saved as {file} (`quiz backup restore` brings it back).")
            .format(file=printable(saved)))


def progress_of(reviews: int) -> ContextManager[Callable[[int], None] | None]:
    """A progress bar on a terminal for an import long enough to be taken for a hang (a
    million reviews take a minute or two); nothing for a short one."""
    if reviews < PROGRESS_FROM:
        return nullcontext()
    from quizzer.terminal.render import progress

    return progress(_("importing reviews"), reviews)


@history_app.command("export", help=N_(
    "Write the reviews (all, or those of --deck, from --since on) to a CSV file (- for standard output): times in UTC "
    "ISO 8601, durations in ms (0 when unknown)."))
def history_export(
    ctx: typer.Context,
    file: CsvFile,
    deck: DeckFilter = None,
    since: Annotated[Optional[str], typer.Option(
        "--since", metavar="YYYY-MM-DD", show_default=False,
        help=N_("Only reviews from this study day on (it starts at `quiz config`'s day_start_hour, 04:00 local time)."))] = None,
    form: Annotated[HistoryForm, typer.Option(
        "--format", help=N_("quizzer: the form `quiz history import` reads, with each review's state and mode; fsrs-rs: "
                           "what fsrs-rs-python's CSV reader takes (times in ms); srs-benchmark: the FSRS benchmark's "
                           "revlog columns."))] = HistoryForm.quizzer,
    as_json: JsonOption = False,
    decks_dir: DecksOption = None,
    db: DbOption = None,
) -> None:
    from quizzer.base import clock
    from quizzer.app.review_history import export_reviews

    to_stdout = file is STANDARD
    if to_stdout and as_json:
        raise UsageError(_("--json needs a file to write: with - the CSV itself goes to standard output"))
    start = None
    if since is not None:
        try:
            day = calendar_day(since)
        except ValueError:
            raise UsageError(_("--since {value} is not a date").format(value=repr(since)), _("e.g. --since 2025-01-31")) from None
        # no review is older than quizzer's first year, nor newer than its last: a day outside them
        # is no bound (0001-01-01's start in UTC would be in year 0)
        if day > date(clock.FIRST_YEAR, 1, 2):
            start = clock.day_start(min(day, date(clock.LAST_YEAR, 1, 1)), settings().day_start_hour)
    target = sys.stdout if to_stdout else output_file(ctx, file, db, decks_dir)
    opened = collection(ctx, decks_dir, db)
    result = export_reviews(opened, target, deck, start, form.value, settings().day_start_hour)
    if as_json:
        from quizzer.cli.output import emit_json

        emit_json(dict(file=str(file), exported=result.exported, cards=result.cards))
        return
    # two messages, not "standard output" put in for {file}: Chinese spaces a path, not a word
    done = (_("exported {reviews} of {cards} to standard output") if to_stdout
            else _("exported {reviews} of {cards} to {file}"))
    typer.echo(done.format(reviews=counted_reviews(result.exported), cards=counted_cards(result.cards), file=printable(file)),
               err=to_stdout)
