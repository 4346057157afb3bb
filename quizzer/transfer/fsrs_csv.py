"""Review history in the common FSRS CSV form: ``card_id, review_rating, review_time,
review_duration`` (the form of py-fsrs's test data and of Anki's FSRS exports), and ``review_mode``
when there (study, exam or practice).

Reading checks every row and names the first bad one as ``FILE:LINE: message``; importing
is one transaction (``quizzer.store.history``): ids that match a card attach to it, unknown
ids become archived cards, a review already there is skipped, and every card that gains a
review is replayed from scratch through FSRS, the reviews a file or the log names as practice
under the practice rule (``quizzer.scheduling.memory``), the others as the reviews they were. Writing gives a table of ``quizzer.transfer.review_forms``: by default the same
form (times in UTC ISO 8601, durations in ms, 0 unknown) with the state and mode added.
"""

from __future__ import annotations

import csv
import errno
import io
import os
import stat
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import IO, BinaryIO, TextIO

import fsrs

from quizzer.base.clock import ROLLOVER_HOUR
from quizzer.base.defaults import ARCHIVE_DECK
from quizzer.base.errors import HistoryFileError, os_reason
from quizzer.base.files import special_kind, write_whole
from quizzer.base.i18n import _, join
from quizzer.scheduling.answer import replaying
from quizzer.scheduling.memory import DEFAULT_SCHEDULER
from quizzer.scheduling.plan import Interview
from quizzer.store import history
from quizzer.store.engine import Store
from quizzer.store.history import HistoryImport, LoggedReview
from quizzer.transfer.review_forms import FORMS, MODES, REQUIRED, Table

COLUMNS = REQUIRED
IMPORTED_KIND = "imported"
MAX_ID_LENGTH = 200  # the cards table's id column
MAX_DURATION_MS = 2**31 - 1
MAX_LOG_BYTES = 1024 * 2**20  # a million reviews take about 60 MB
EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
RATINGS = {"1": 1, "2": 2, "3": 3, "4": 4}
CLOCK_SKEW = timedelta(minutes=5)  # a review this far past now is a device's fast clock, not a future review

__all__ = ["ARCHIVE_DECK", "COLUMNS", "IMPORTED_KIND", "HistoryExport", "HistoryImport", "LoggedReview",
           "export_history", "format_review_log", "import_history", "read_review_log",
           "write_review_log"]


@dataclass(frozen=True)
class HistoryExport:
    exported: int  # reviews written
    cards: int  # cards they belong to


class _BadRow(ValueError):
    pass


class _Lines:
    """The text's lines as the csv reader takes them, those of the row being read kept: a row that
    ends short is explained by how its last line ends (a lone carriage return)."""

    def __init__(self, text: str) -> None:
        self._lines = io.StringIO(text, newline="")  # split at \n, \r\n and a lone \r, as the csv module asks
        self.row: list[str] = []

    def __iter__(self) -> _Lines:
        return self

    def __next__(self) -> str:
        line = next(self._lines)
        self.row.append(line)
        return line


def _csv_reason(err: csv.Error) -> str:
    """What the csv module found, in the interface language (its messages are English)."""
    text = str(err)
    if text.startswith("field larger than field limit"):
        return _("a value is longer than {limit} characters").format(limit=f"{csv.field_size_limit():,}")
    if text == "unexpected end of data":
        return _("a quoted value is never closed: its opening \" has no closing \"")
    if text.endswith("expected after '\"'"):
        return _("a closing \" is followed by more text: a \" inside a quoted value is written \"\"")
    return _("not valid CSV: {reason}").format(reason=text)


def _quoted(text: str) -> str:
    """A value as an error quotes it: in quotes, cut to 40 characters."""
    return repr(text if len(text) <= 40 else text[:39] + "…")


def _time(text: str) -> datetime:
    """ISO 8601 (an offset or ``Z``; without one, UTC), or milliseconds since the epoch."""
    if text.isascii() and text.isdigit():
        try:
            if len(text) > 18:  # past year 9999 whatever the digits, and int() refuses 4,300 of them
                raise OverflowError
            return EPOCH + timedelta(milliseconds=int(text))
        except OverflowError:
            raise _BadRow(_("review_time {value} is out of range (milliseconds since 1970)").format(value=_quoted(text))) from None
    try:
        parsed = datetime.fromisoformat(text[:-1] + "+00:00" if text.endswith(("Z", "z")) else text)
    except ValueError:
        raise _BadRow(_("review_time {value} is not an ISO 8601 date-time (e.g. 2024-03-29T20:32:32+00:00)").format(
            value=_quoted(text))) from None
    try:
        utc = parsed.replace(tzinfo=timezone.utc) if parsed.tzinfo is None else parsed.astimezone(timezone.utc)
    except OverflowError:  # 0001-01-01T00:00+01:00 is in year 0, 9999-12-31T23:00-14:00 in year 10000
        utc = None
    if utc is None and parsed.year > 1970:
        raise _BadRow(_("review_time {value} is past the year 9999").format(value=_quoted(text)))
    if utc is None or utc < EPOCH:  # no review log starts before 1970, and study days of year 1 overflow
        raise _BadRow(_("review_time {value} is before 1970").format(value=_quoted(text)))
    return utc


def _review(row: dict[str | None, str | list[str] | None], width: int, now: datetime | None) -> LoggedReview:
    if row.get(None):
        extra = row[None]
        raise _BadRow(_("{values} values, but the header names {columns} columns").format(
            values=width + len(extra or []), columns=width))
    values: dict[str, str] = {}
    for column in COLUMNS:
        value = row.get(column)
        if value is None:
            raise _BadRow(_("missing {column} (the row has fewer values than the header)").format(column=column))
        values[column] = str(value).strip()
    card_id = values["card_id"]
    if not card_id:
        raise _BadRow(_("empty card_id"))
    if len(card_id) > MAX_ID_LENGTH:
        raise _BadRow(_("card_id is longer than {limit} characters").format(limit=MAX_ID_LENGTH))
    if not card_id.isprintable():  # an id is shown and typed back: no escapes, line breaks or bidi overrides
        raise _BadRow(_("card_id {value} has control characters").format(value=ascii(card_id)))
    rating = RATINGS.get(values["review_rating"])
    if rating is None:
        raise _BadRow(_("review_rating must be 1 (Again), 2 (Hard), 3 (Good) or 4 (Easy), got {value}").format(
            value=_quoted(values["review_rating"])))
    if not values["review_time"]:
        raise _BadRow(_("empty review_time"))
    reviewed_at = _time(values["review_time"])
    if now is not None and reviewed_at > now + CLOCK_SKEW:
        raise _BadRow(_("review_time {value} is in the future").format(value=values["review_time"]))
    text = values["review_duration"]
    duration: int | None = None
    if text:
        if not (text.isascii() and text.isdigit()) or len(text) > 10 or int(text) > MAX_DURATION_MS:
            raise _BadRow(_("review_duration must be a whole number of milliseconds, 0 or more, got {value}").format(
                value=_quoted(text)))
        duration = int(text)
    mode = str(row.get("review_mode") or "").strip() or "study"
    if mode not in MODES:
        raise _BadRow(_("review_mode must be study, exam or practice, got {value}").format(value=_quoted(mode)))
    return LoggedReview(card_id, rating, reviewed_at, duration, mode)


def read_review_log(csv_path: Path, now: datetime | None = None, stream: BinaryIO | None = None) -> list[LoggedReview]:
    """The rows of a review log CSV (``stream``, standard input, when given: ``csv_path`` names
    it), in file order; HistoryFileError naming the file and line of the first bad row. Extra
    columns are ignored; an empty review_duration is unknown. With ``now``, a review later than
    it is an error too."""
    shown = "<stdin>" if stream is not None else str(csv_path)
    data = log_bytes(csv_path, stream, shown)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        line = data[:err.start].count(b"\n") + 1
        raise HistoryFileError(f"{shown}:{line}: " + _("not UTF-8 text")) from None
    lines = _Lines(text)
    reader = csv.reader(lines, strict=True)  # strict: an unclosed quote is an error, not the rest of the file
    read = 0  # the lines read: a row that cannot be read starts after them
    try:
        named = next(reader, None)
        if not named:
            raise _BadRow(_("no header line (expected {columns})").format(columns=", ".join(COLUMNS)))
        header = [name.strip().lower() for name in named]  # Card_ID, Review_Rating: the form is written in any case
        missing = [column for column in COLUMNS if column not in header]
        if missing:
            raise _BadRow(_("the header lacks {missing} (expected {columns})").format(
                missing=join(missing), columns=", ".join(COLUMNS)))  # the header as a CSV line
        reviews, read = [], reader.line_num
        lines.row.clear()
        for fields in reader:  # the rows under the header, blank lines too: each row's first line is known
            if fields:
                if len(fields) < len(header) and lines.row[-1].endswith("\r"):
                    raise _BadRow(_("a line break (a lone carriage return) ends the row after {values} of {columns} "
                                    "values: a value with a line break in it must be quoted").format(
                        values=len(fields), columns=len(header)))
                row: dict[str | None, str | list[str] | None] = dict(zip(header, fields))
                if len(fields) > len(header):
                    row[None] = fields[len(header):]  # as csv.DictReader keeps them
                reviews.append(_review(row, len(header), now))
            read = reader.line_num
            lines.row.clear()
        return reviews
    except _BadRow as bad:  # the header's own is line 1; a row's, its first line (a quoted field spans lines)
        raise HistoryFileError(f"{shown}:{read + 1 if read else 1}: {bad}") from None
    except csv.Error as exc:
        raise HistoryFileError(f"{shown}:{read + 1}: {_csv_reason(exc)}") from None


def log_bytes(csv_path: Path, stream: BinaryIO | None, shown: str) -> bytes:
    """The log's bytes, at most MAX_LOG_BYTES; a folder, a named pipe (which may never have a
    writer) or a device (``/dev/zero`` never ends) is refused unopened: a pipe goes to standard input."""
    try:
        if stream is not None:
            data = stream.read(MAX_LOG_BYTES + 1)
        else:
            mode = os.stat(csv_path).st_mode
            if stat.S_ISDIR(mode):
                raise HistoryFileError(_("{file}: a folder, not a CSV file").format(file=shown), _("name the CSV file in it"))
            if not stat.S_ISREG(mode):
                raise HistoryFileError(_("{path}: not a regular file ({what})").format(path=shown, what=special_kind(mode)),
                                       _("a log from a pipe is read from standard input: ... | quiz history import -"))
            # not blocking: a file swapped for a pipe since reads as empty, never waits for a writer
            with open(os.open(csv_path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)), "rb") as handle:
                data = handle.read(MAX_LOG_BYTES + 1)
    except OSError as exc:
        raise HistoryFileError(_("{file}: cannot be read: {reason}").format(file=shown, reason=os_reason(exc)),
                               _("check the file name")) from None
    if len(data) > MAX_LOG_BYTES:
        raise HistoryFileError(_("{file}: larger than {limit} MB, more than any review log needs").format(
            file=shown, limit=MAX_LOG_BYTES // 2**20), _("split it, and import the parts one by one"))
    return data


def import_history(store: Store, reviews: Sequence[LoggedReview], *, scheduler: fsrs.Scheduler = DEFAULT_SCHEDULER,
                   deck: str = ARCHIVE_DECK, first_seen: datetime | None = None,
                   rollover_hour: int = ROLLOVER_HOUR, interview: Interview | None = None,
                   replayed: Callable[[int], None] | None = None) -> HistoryImport:
    """Add past reviews in one transaction (see ``quizzer.store.history.import_reviews``):
    unknown ids become inactive cards of ``deck``, kind "imported"; reviews already there are
    skipped; each card that gains one is replayed from scratch, practice reviews (by their
    mode) under the practice rule, its days placed as live answers place them (study days from
    ``rollover_hour``, fuzz seeded by the card and its review count), and short of the
    ``interview``'s day while it was ahead (the cards of its decks). ``replayed``: told how many reviews are done, as the import goes."""
    return history.import_reviews(store, reviews, replaying(store, scheduler, rollover_hour, interview), deck=deck,
                                  kind=IMPORTED_KIND, first_seen=first_seen, replayed=replayed)


def format_review_log(handle: IO[str], table: Table) -> None:
    """The header and one row per review."""
    writer = csv.writer(handle, lineterminator="\n")
    writer.writerow(table.header)
    writer.writerows(table.rows)


def write_review_log(csv_path: Path, table: Table) -> None:
    """Write ``table`` to ``csv_path``; the file replaces it only once it is on the disk and
    reads back as the header and one row per review."""
    text = io.StringIO(newline="")
    format_review_log(text, table)
    expected = len(table.rows) + 1

    def one_row_each(written: Path) -> None:
        rows = sum(1 for _row in csv.reader(io.StringIO(written.read_text("utf-8"), newline="")))
        if rows != expected:
            raise OSError(errno.EIO, _("the file read back has {rows} rows, not {expected}").format(
                rows=rows, expected=expected))

    write_whole(csv_path, text.getvalue().encode("utf-8"), one_row_each)


def export_history(store: Store, target: Path | TextIO, decks: Sequence[str] | None = None,
                   since: datetime | None = None, form: str = "quizzer",
                   rollover_hour: int = ROLLOVER_HOUR) -> HistoryExport:
    """Write the store's reviews (of every card, or of ``decks``; from ``since`` on) to a file,
    or to an open text stream, in ``form`` (a key of ``review_forms.FORMS``; study days, where
    the form counts them, start at ``rollover_hour``)."""
    reviews = history.review_log(store, decks, since)
    table = FORMS[form](reviews, rollover_hour)
    if isinstance(target, Path):
        write_review_log(target, table)
    else:
        format_review_log(target, table)
    return HistoryExport(len(reviews), len({r.card_id for r in reviews}))
