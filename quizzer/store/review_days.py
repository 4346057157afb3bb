"""Reviews per study day for ``quiz stats``: from a table derived from the review log
(``models.review_days``: a row per study day and deck), so figures over the whole history read a
few thousand rows instead of every review. This module keeps the table current with the log;
``review_tally`` counts reviews into its rows.

A day's row holds its reviews, their ratings and time spent, and true retention's reviews as Anki
counts them: a card's first review of the study day, if the card was in the Review state before
it; mature when the card's previous review was ``MATURE_DAYS`` or more earlier; passed unless
rated Again. Days are study days (``clock.study_day``) under the day start and time zone in use:
their start times are part of the watermark, so another day start or time zone rebuilds the table.

The answer path never touches the table. Each read compares it with the log (the watermark in
``meta``: the last review aggregated, the days' start times, the decks' sync fingerprint) and
* adds the reviews logged since, when each comes after every review its card already had (a study
  answer, an imported later history);
* rebuilds it from the whole log when anything else changed: a card moved to another deck
  (checked when the decks changed), an import that put reviews before a card's last one or
  replayed a card's states (the per-card checksums of ``review_days_cards``), or an aggregated
  review deleted. Undo, the one way quizzer deletes a review, drops the watermark (``undone``), as
  counting the log to notice a deletion would cost more than every other figure; ``quiz check``
  finds a log changed by another tool (``agrees``).
It computes inside one read snapshot and stores afterwards in a short write transaction, only if
no other process stored meanwhile; a database that cannot be written still gets its figures.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from sqlalchemy import (
    Connection,
    Select,
    bindparam,
    delete,
    func,
    insert,
    select,
    update,
)
from sqlalchemy.exc import DBAPIError

from quizzer.base.errors import DatabaseError
from quizzer.store.engine import Store
from quizzer.store.filter import CardFilter
from quizzer.store.models import (
    cards,
    epoch,
    in_chunks,
    meta,
    review_days,
    review_days_cards,
    review_log,
)
from quizzer.store.review_tally import (
    COUNTS,
    AnyDeck,
    CardTally,
    Review,
    StudyDays,
    Tally,
    classify,
    per_day,
)
from quizzer.store.sync import FINGERPRINT_KEY

WATERMARK_KEY = "review_days"

_ROW = (review_log.c.id, review_log.c.card_id, epoch(review_log.c.reviewed_at), review_log.c.rating,
        review_log.c.duration_ms, review_log.c.state_before)
_ORDER = (review_log.c.reviewed_at, review_log.c.id)  # the time index's order: no sort


def _in_order(rows: Sequence[Review]) -> list[Review]:
    """A few rows of ``_ROW`` in ``_ORDER``, sorted here: asked of the database, the order makes
    it walk the whole time index rather than find the rows by id or card."""
    return sorted(rows, key=lambda row: (row[2], row[0]))


def _stored(conn: Connection) -> str | None:
    """The watermark as stored (None: no table built)."""
    return conn.scalar(select(meta.c.value).where(meta.c.key == WATERMARK_KEY))


def _logged(up_to_id: int) -> Select[Any]:
    """Each card's reviews in the log up to ``up_to_id``: how many, and their checksum (as
    ``CardTally.checksum`` sums them), to compare with ``review_days_cards``."""
    return (select(review_log.c.card_id, func.count(), func.sum(review_log.c.id * (review_log.c.state_before + 1)))
            .where(review_log.c.id <= up_to_id).group_by(review_log.c.card_id))


def review_days_of(store: Store, chosen: CardFilter, rollover_hour: int, keep: bool = True) -> dict[date, list[int]]:
    """Counts (``COUNTS`` order) per study day of the reviews of the cards ``chosen`` names, active
    or not: from the table when the filter is by deck or none, else from those cards' reviews.
    What the table lacked is stored, unless ``keep`` is off (another's collection, read under the
    reader's day rule: stored, it would cost its owner a rebuild)."""
    if chosen.tags is not None or chosen.kinds is not None:
        with store.read() as conn:
            rows = _in_order(conn.execute(select(*_ROW).where(review_log.c.card_id.in_(
                select(cards.c.id).where(*chosen.clauses(only_active=False))))).all())
        tally: Tally = {}
        if rows:
            classify(rows, AnyDeck(), {}, StudyDays.around(rows[0][2], rows[-1][2], rollover_hour), tally, {})
        return per_day({}, tally, None)
    with store.read() as conn:
        stored = _stored(conn)
        change = _refresh(conn, _Watermark.parse(stored), rollover_hour)
        summed: dict[date, list[int]] = {}
        if change is None or not change.rebuild:
            sums = select(review_days.c.day, *(func.sum(review_days.c[name]) for name in COUNTS))
            if chosen.decks is not None:
                sums = sums.where(review_days.c.deck.in_(chosen.decks))
            summed = {row[0]: [int(n) for n in row[1:]] for row in conn.execute(sums.group_by(review_days.c.day))}
    if change is None:
        return summed
    if keep:
        _store(store, stored, change)
    return per_day(summed, change.tally, chosen.decks)


@dataclass(frozen=True)
class _Watermark:
    last_id: int  # the last review aggregated (0: none)
    last_card: str
    last_at: float
    first: str | None  # the days aggregated, ISO dates (None: no reviews)
    last: str | None
    rule: str  # StudyDays.rule of first..last ("" without days)
    sync: str | None  # the decks' sync fingerprint when no card had moved deck

    def text(self) -> str:
        return json.dumps(self.__dict__, sort_keys=True)

    @classmethod
    def parse(cls, text: str | None) -> _Watermark | None:
        try:
            return cls(**json.loads(text)) if text else None
        except (TypeError, ValueError):
            return None  # unreadable: rebuilt

    def days(self, rollover_hour: int) -> StudyDays | None:
        if self.first is None or self.last is None:
            return None
        return StudyDays(date.fromisoformat(self.first), date.fromisoformat(self.last), rollover_hour)

    def rule_holds(self, rollover_hour: int) -> bool:
        days = self.days(rollover_hour)
        return (days.rule() if days else "") == self.rule


@dataclass
class _Change:
    """What to store: the whole table (``rebuild``: ``tally`` is every count), or what to add to it
    (``tally`` has the new reviews' counts, ``cards`` the new state of the cards they are of)."""

    mark: _Watermark
    rebuild: bool
    tally: Tally = field(default_factory=dict)
    cards: dict[str, CardTally] = field(default_factory=dict)


def _refresh(conn: Connection, mark: _Watermark | None, rollover_hour: int) -> _Change | None:
    """What the stored table lacks, None when it is current."""
    if mark is None or not mark.rule_holds(rollover_hour):
        return _rebuild(conn, rollover_hour)
    if mark.last_id:
        last = conn.execute(select(review_log.c.card_id, epoch(review_log.c.reviewed_at))
                            .where(review_log.c.id == mark.last_id)).first()
        if last is None or tuple(last) != (mark.last_card, mark.last_at):
            return _rebuild(conn, rollover_hour)  # deleted (undo), or its id used again
    fresh = _in_order(conn.execute(select(*_ROW).where(review_log.c.id > mark.last_id)).all())
    sync = conn.scalar(select(meta.c.value).where(meta.c.key == FINGERPRINT_KEY))
    if sync != mark.sync and conn.execute(
            select(review_days_cards.c.card_id).join(cards, cards.c.id == review_days_cards.c.card_id)
            .where(cards.c.deck != review_days_cards.c.deck).limit(1)).first() is not None:
        return _rebuild(conn, rollover_hour)  # a card moved to another deck
    if not fresh:
        return None if sync == mark.sync else _Change(_replace(mark, sync=sync), False)
    added = _extend(conn, mark, fresh, rollover_hour)
    if added is None:
        return _rebuild(conn, rollover_hour)
    added.mark = _replace(added.mark, sync=sync)
    return added


def _replace(mark: _Watermark, **changes: Any) -> _Watermark:
    return _Watermark(**{**mark.__dict__, **changes})


def _extend(conn: Connection, mark: _Watermark, fresh: list[Review], rollover_hour: int) -> _Change | None:
    """The counts of the reviews logged after the watermark, or None when they cannot simply be
    added: a card's stored history changed, or a new review comes before its card's last one."""
    ids = sorted({row[1] for row in fresh})
    known: dict[str, CardTally] = {}
    deck_of: dict[str, str] = {}
    for part in in_chunks(ids):
        known.update((r.card_id, CardTally(r.deck, r.reviews, r.checksum, r.last_at)) for r in conn.execute(
            select(review_days_cards).where(review_days_cards.c.card_id.in_(part))))
        logged = {r[0]: (r[1], r[2]) for r in conn.execute(_logged(mark.last_id).where(review_log.c.card_id.in_(part)))}
        deck_of.update((card_id, deck) for card_id, deck in
                       conn.execute(select(cards.c.id, cards.c.deck).where(cards.c.id.in_(part))))
        for card_id in part:
            held = known.get(card_id, CardTally(deck_of[card_id]))
            if (held.reviews, held.checksum) != tuple(logged.get(card_id, (0, 0))) or held.deck != deck_of[card_id]:
                return None  # its stored history changed (an import replayed it), or it moved deck
    if any(row[2] < known[row[1]].last_at for row in fresh if row[1] in known):
        return None
    old = mark.days(rollover_hour)
    days = StudyDays.around(min(fresh[0][2], old.starts[0]) if old else fresh[0][2],
                        max(fresh[-1][2], old.starts[-2]) if old else fresh[-1][2], rollover_hour)
    change = _Change(mark, False)
    classify(fresh, deck_of, known, days, change.tally, change.cards)
    last = _last_row(fresh)
    change.mark = _Watermark(last[0], last[1], last[2], days.dates[0].isoformat(),
                             days.dates[-1].isoformat(), days.rule(), mark.sync)
    return change


def _last_row(rows: Sequence[Review]) -> Review:
    """The row with the highest id."""
    return max(rows, key=lambda row: row[0])


def _rebuild(conn: Connection, rollover_hour: int) -> _Change:
    """The tally of the whole log, from scratch."""
    rows = _driver_rows(conn, select(*_ROW).order_by(*_ORDER))
    tally: Tally = {}
    seen: dict[str, CardTally] = {}
    sync = conn.scalar(select(meta.c.value).where(meta.c.key == FINGERPRINT_KEY))
    if not rows:
        return _Change(_Watermark(0, "", 0.0, None, None, "", sync), True, tally)
    deck_of: dict[str, str] = {card_id: deck for card_id, deck in conn.execute(select(cards.c.id, cards.c.deck))}
    days = StudyDays.around(rows[0][2], rows[-1][2], rollover_hour)  # in time order
    classify(rows, deck_of, {}, days, tally, seen)
    last = _last_row(rows)
    return _Change(_Watermark(last[0], last[1], last[2], days.dates[0].isoformat(),
                              days.dates[-1].isoformat(), days.rule(), sync), True, tally, seen)


def _driver_rows(conn: Connection, statement: Select[Any]) -> list[Review]:
    """The rows of ``statement`` (without bound parameters) from the driver's own cursor: the
    whole log's million rows at a fraction of SQLAlchemy's cost per row."""
    cursor = conn.connection.dbapi_connection.cursor()  # type: ignore[union-attr]
    try:
        cursor.execute(str(statement.compile(dialect=conn.dialect)))
        return list(cursor.fetchall())
    finally:
        cursor.close()


def undone(conn: Connection, review_id: int) -> None:
    """In the transaction that deletes review ``review_id``: when the table holds it, drop the
    watermark, so the next read rebuilds the table from the log."""
    mark = _Watermark.parse(_stored(conn))
    if mark is not None and review_id <= mark.last_id:
        conn.execute(delete(meta).where(meta.c.key == WATERMARK_KEY))


def agrees(store: Store) -> bool:
    """For ``quiz check``: whether the table still holds the log up to its watermark, card by card
    (how many reviews, their checksum). A review deleted or rewritten outside quizzer breaks that
    (undo drops the watermark itself); the watermark is then dropped, so the next read rebuilds."""
    with store.read() as conn:
        stored = _stored(conn)
        mark = _Watermark.parse(stored)
        if mark is None:
            return True  # nothing held: the next read builds it
        held = {card_id: (reviews, checksum) for card_id, reviews, checksum in conn.execute(
            select(review_days_cards.c.card_id, review_days_cards.c.reviews, review_days_cards.c.checksum))}
        logged = {card_id: (reviews, checksum) for card_id, reviews, checksum in conn.execute(_logged(mark.last_id))}
    if held == logged:
        return True
    with store.write() as conn:
        conn.execute(delete(meta).where(meta.c.key == WATERMARK_KEY, meta.c.value == stored))
    return False


def _store(store: Store, based_on: str | None, change: _Change) -> None:
    """Write ``change`` unless another process stored since ``based_on`` was read; a database
    that cannot be written (read-only, busy past the timeout) keeps its table as it was."""
    try:
        with store.write() as conn:
            if _stored(conn) != based_on:
                return
            _write(conn, based_on is None, change)
    except (DatabaseError, DBAPIError):
        return


def _write(conn: Connection, first: bool, change: _Change) -> None:
    tally = change.tally
    if change.rebuild:
        conn.execute(delete(review_days))
        conn.execute(delete(review_days_cards))
    elif tally:
        days = sorted({day for day, _ in tally})
        key = (review_days.c.day, review_days.c.deck)
        tally = {k: list(counts) for k, counts in tally.items()}
        for row in conn.execute(select(*key, *(review_days.c[name] for name in COUNTS))
                                .where(review_days.c.day.between(days[0], days[-1]))):
            if (row[0], row[1]) in tally:
                tally[row[0], row[1]] = [a + b for a, b in zip(tally[row[0], row[1]], row[2:])]
        conn.execute(delete(review_days).where(review_days.c.day == bindparam("d"), review_days.c.deck == bindparam("k")),
                     [{"d": day, "k": deck} for day, deck in tally])
        ids = sorted(change.cards)
        for part in in_chunks(ids):
            conn.execute(delete(review_days_cards).where(review_days_cards.c.card_id.in_(part)))
    if tally:
        conn.execute(insert(review_days), [{"day": day, "deck": deck, **dict(zip(COUNTS, counts))}
                                           for (day, deck), counts in sorted(tally.items())])
    if change.cards:
        conn.execute(insert(review_days_cards), [
            {"card_id": card_id, "deck": c.deck, "reviews": c.reviews, "checksum": c.checksum, "last_at": c.last_at}
            for card_id, c in sorted(change.cards.items())])
    if first:
        conn.execute(insert(meta).values(key=WATERMARK_KEY, value=change.mark.text()))
    else:
        conn.execute(update(meta).where(meta.c.key == WATERMARK_KEY).values(value=change.mark.text()))


__all__ = ["agrees", "review_days_of", "undone"]
