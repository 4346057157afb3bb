"""Review history in bulk: many past reviews imported in one transaction, and the log read
back out for export.

An import replays each affected card's whole history (what the store has plus what arrives)
from scratch in time order through ``decide``, in Python, then writes the outcome with a
handful of bulk statements: new cards, new log rows, the recomputed log rows and card states.
A review is identified by (card id, time, rating), so importing the same history twice adds
nothing.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from itertools import groupby
from typing import Any

from sqlalchemy import Connection, insert, select

from quizzer.store.cards import memory_columns
from quizzer.store.engine import Store
from quizzer.store.models import card_tags, cards, in_chunks, update_by_id
from quizzer.store.models import review_log as log  # the name ``review_log`` is this module's function
from quizzer.store.records import LEECH_TAG, NEW, PRACTICE, Decision, MemoryState, NewReview


@dataclass(frozen=True)
class LoggedReview:
    """One review as a history file holds it."""

    card_id: str
    rating: int
    reviewed_at: datetime  # aware UTC
    duration_ms: int | None  # None: unknown
    mode: str = "study"  # study or exam as logged; practice: an ahead review that left the schedule alone
    state_before: int | None = None  # NEW, LEARNING, REVIEW or RELEARNING; None when a file does not say


@dataclass(frozen=True)
class HistoryImport:
    """What an import did."""

    imported: int  # reviews added
    cards: int  # cards those reviews belong to
    new_cards: int  # of them, cards created for ids the store did not know
    already_there: int  # reviews skipped: the store has one with the same card, time and rating for each


_BLANK = MemoryState(NEW, None, None, None, None, None, 0, False)


@dataclass
class _Entry:
    """One review of a card's merged history, in replay order."""

    review: NewReview
    review_id: int | None = None  # the log row it already is, None for an imported one
    logged: tuple[int, bool] | None = None  # that row's (state_before, scheduled)
    state_before: int = NEW  # as the replay finds them
    scheduled: bool = True


ReplayDecide = Callable[[MemoryState, NewReview, str, int], Decision]
"""The memory after one review of a card (its id) that had this many reviews before it."""


def import_reviews(store: Store, reviews: Sequence[LoggedReview], decide: ReplayDecide, *, deck: str, kind: str,
                   first_seen: datetime | None = None, replayed: Callable[[int], None] | None = None) -> HistoryImport:
    """Add ``reviews`` in one write transaction; nothing is written if anything fails.
    ``replayed`` is told, card by card, how many of the file's reviews are done (the replay
    takes most of the time: a minute or two for a million reviews).

    Ids the store does not know become cards of ``deck`` / ``kind`` that are not active (so
    no session shows them and deck sync leaves them, and their history, alone), first seen at
    ``first_seen`` or else at their first review. Every card that gains a review has its whole
    history replayed from a new card through ``decide``; the state before each review and
    whether it moved the schedule are rewritten to match.
    """
    with store.write() as conn:
        ids = list(dict.fromkeys(r.card_id for r in reviews))
        known = set(_in_chunks(conn, select(cards.c.id), cards.c.id, ids))
        history: dict[str, list[_Entry]] = defaultdict(list)
        there: Counter[tuple[str, datetime, int]] = Counter()  # a count: with the clock pinned, one card's
        for rid, cid, at, rating, duration, mode, before, scheduled in _in_chunks(
                conn, select(log.c.id, log.c.card_id, log.c.reviewed_at, log.c.rating, log.c.duration_ms,
                                log.c.mode, log.c.state_before, log.c.scheduled).order_by(log.c.id),
                log.c.card_id, sorted(known)):
            history[cid].append(_Entry(NewReview(rating, at, duration, _replayed_mode(mode, scheduled)), rid,
                                       (before, scheduled)))
            there[(cid, at, rating)] += 1  # learning steps share one time and rating

        fresh: dict[str, list[LoggedReview]] = defaultdict(list)
        skipped = 0
        for r in reviews:
            key = (r.card_id, r.reviewed_at, r.rating)
            if there[key]:  # each of the file's reviews matches at most one already there
                there[key] -= 1
                skipped += 1
                continue
            fresh[r.card_id].append(r)
        if not fresh:
            return HistoryImport(0, 0, 0, skipped)

        leeches = set(_in_chunks(conn, select(card_tags.c.card_id).where(card_tags.c.tag == LEECH_TAG),
                                 card_tags.c.card_id, [cid for cid in fresh if cid in known]))
        new_cards: list[dict[str, Any]] = []
        card_updates: list[dict[str, Any]] = []
        log_rows: list[dict[str, Any]] = []
        log_updates: list[dict[str, Any]] = []
        new_leeches: list[dict[str, Any]] = []
        # positions follow first review, after every card the store has
        order = sorted(fresh, key=lambda cid: min(r.reviewed_at for r in fresh[cid]))
        done = skipped
        for card_id in order:
            entries = history[card_id] + [_Entry(NewReview(r.rating, r.reviewed_at, r.duration_ms, r.mode))
                                          for r in fresh[card_id]]
            # time order; at the same instant a logged review before an imported one (stable sort)
            entries.sort(key=lambda e: e.review.reviewed_at)
            had_leech = card_id in leeches
            memory = _replay(entries, decide, replace(_BLANK, leech=had_leech), card_id)
            done += len(fresh[card_id])
            if replayed is not None:
                replayed(done)
            columns = dict(id=card_id, **memory_columns(memory))
            if card_id in known:
                card_updates.append(columns)
            else:
                new_cards.append(dict(columns, deck=deck, kind=kind, position=0, content_hash="", active=False,
                                      first_seen=first_seen or entries[0].review.reviewed_at))
            if memory.leech and not had_leech:
                new_leeches.append(dict(card_id=card_id, tag=LEECH_TAG))
            for e in entries:
                if e.review_id is None:
                    log_rows.append(dict(card_id=card_id, reviewed_at=e.review.reviewed_at, rating=e.review.rating,
                                         duration_ms=e.review.duration_ms, mode=_logged_mode(e.review.mode),
                                         state_before=e.state_before,
                                         scheduled=e.scheduled))
                elif (e.state_before, e.scheduled) != e.logged:
                    log_updates.append(dict(id=e.review_id, state_before=e.state_before, scheduled=e.scheduled))

        if new_cards:
            top = conn.scalar(select(cards.c.position).order_by(cards.c.position.desc()).limit(1))
            for offset, row in enumerate(new_cards, start=(top or 0) + 1):
                row["position"] = offset
            conn.execute(insert(cards), new_cards)
        update_by_id(conn, cards, card_updates)
        if log_rows:  # in time order, so a fresh history's log ids follow the clock
            log_rows.sort(key=lambda row: row["reviewed_at"])
            conn.execute(insert(log), log_rows)
        update_by_id(conn, log, log_updates)
        if new_leeches:
            conn.execute(insert(card_tags), new_leeches)
        return HistoryImport(len(log_rows), len(fresh), len(new_cards), skipped)


def _logged_mode(mode: str) -> str:
    """The log's mode of an imported review: whether it moved the schedule is the log's
    ``scheduled``, so a practice review is logged as the study review it was."""
    return "exam" if mode == "exam" else "study"


def _replayed_mode(mode: str, scheduled: bool) -> str:
    """The mode a logged review is replayed with: a review that left the schedule alone was
    practice (the practice rule keeps it so), else the mode logged."""
    return mode if scheduled else PRACTICE


def _replay(entries: list[_Entry], decide: ReplayDecide, memory: MemoryState, card_id: str) -> MemoryState:
    """Run ``entries`` through ``decide`` from ``memory``; notes each one's state before and
    whether it moved the schedule. Returns the memory after the last."""
    for reps, entry in enumerate(entries):
        decision = decide(memory, entry.review, card_id, reps)
        entry.state_before, entry.scheduled = memory.state, decision.scheduled
        if decision.scheduled:
            memory = decision.after
    return memory


def replayed_memories(conn: Connection, decide: ReplayDecide) -> Iterator[tuple[str, MemoryState]]:
    """Each reviewed card's memory as its logged reviews give it, replayed from a new card in
    time order through ``decide`` (those that left the schedule alone as practice): what ``quiz db
    copy`` compares between source and copy, and what ``quiz optimize`` recomputes memory from.
    Streams the log in card order."""
    rows = conn.execution_options(yield_per=5_000).execute(
        select(log.c.card_id, log.c.reviewed_at, log.c.rating, log.c.duration_ms, log.c.mode, log.c.scheduled)
        .order_by(log.c.card_id, log.c.reviewed_at, log.c.id))
    for card_id, reviews in groupby(rows, key=lambda row: row.card_id):
        entries = [_Entry(NewReview(row.rating, row.reviewed_at, row.duration_ms,
                                    _replayed_mode(row.mode, row.scheduled))) for row in reviews]
        yield card_id, _replay(entries, decide, _BLANK, card_id)


def recompute_memories(store: Store, decide: ReplayDecide) -> int:
    """Set each reviewed card's stability and difficulty to what its logged reviews give through
    ``decide`` (``replayed_memories``), in one write transaction, as Anki recomputes memory when
    the parameters change; its due stays. How many cards."""
    with store.write() as conn:
        memories = [dict(id=card_id, stability=memory.stability, difficulty=memory.difficulty)
                    for card_id, memory in replayed_memories(conn, decide)]
        update_by_id(conn, cards, memories)
    return len(memories)


def _in_chunks(conn: Connection, query: Any, column: Any, values: Sequence[str]) -> Iterable[Any]:
    """The rows of ``query`` where ``column`` is one of ``values``, asked a statement's worth of
    values at a time (``models.in_chunks``; scalars for a one-column query)."""
    single = len(query.selected_columns) == 1
    for chunk in in_chunks(values):
        statement = query.where(column.in_(chunk))
        yield from (conn.scalars(statement) if single else conn.execute(statement))


def decks(store: Store) -> list[str]:
    """Every deck the store's cards name, active or not (``archived`` among them after an import)."""
    with store.read() as conn:
        return sorted(conn.scalars(select(cards.c.deck).distinct()))


def review_log(store: Store, decks: Sequence[str] | None = None, since: datetime | None = None,
               newest: int | None = None) -> list[LoggedReview]:
    """Every logged review (of active and inactive cards alike), oldest first; only those of
    cards in ``decks``, at or after ``since``, and of the cards of the ``newest`` reviews (their
    whole histories) when given."""
    query = (select(log.c.card_id, log.c.rating, log.c.reviewed_at, log.c.duration_ms, log.c.mode, log.c.scheduled,
                    log.c.state_before).order_by(log.c.reviewed_at, log.c.id))
    in_decks = log.c.card_id.in_(select(cards.c.id).where(cards.c.deck.in_(decks))) if decks is not None else None
    if in_decks is not None:
        query = query.where(in_decks)
    if since is not None:
        query = query.where(log.c.reviewed_at >= since)
    if newest is not None:
        latest = select(log.c.card_id).order_by(log.c.reviewed_at.desc(), log.c.id.desc()).limit(newest)
        latest = latest.where(in_decks) if in_decks is not None else latest
        query = query.where(log.c.card_id.in_(latest.scalar_subquery()))
    # a negative duration (a hand edit, which `quiz check` names) goes out as unknown: an import refuses it
    with store.read() as conn:
        return [LoggedReview(card_id, rating, at, None if duration is not None and duration < 0 else duration,
                             mode if scheduled else "practice", state_before)
                for card_id, rating, at, duration, mode, scheduled, state_before in conn.execute(query)]
