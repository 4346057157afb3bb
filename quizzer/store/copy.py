"""Copying a whole collection from one store into another (``quiz db copy``): a SQLite file to
a server, a server to a file, or file to file.

Every row of every table keeps its values and its id, so reviews, exams and the notebook still
point at the same things. The copy is one write transaction on the target, checked before it
commits (each table's rows read back from the target, in id order, must equal the source's):
interrupted or failing the check, it leaves the target as it was. The source is read in one
snapshot, so a study session running meanwhile cannot tear it. Only an empty target is filled:
merging two histories is not a copy. A collection that holds nothing of its learner's (no review,
exam, notebook entry, fitted parameters or interview, no card studied, suspended or buried: only
what opening it synced from the decks) counts as empty, and is replaced: on a server, any command
the learner ran there first made one.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from itertools import zip_longest
from pathlib import Path

from sqlalchemy import Connection, Table, delete, func, insert, select

from quizzer.base.errors import DatabaseError, QuizError, UsageError
from quizzer.base.i18n import _, join
from quizzer.store.engine import Store
from quizzer.store.postgres import continue_ids, learner_schema
from quizzer.store.history import ReplayDecide, replayed_memories
from quizzer.store.models import card_tags, cards, meta, metadata
from quizzer.store.records import NEW, MemoryState

BATCH = 5_000  # rows per insert (and per fetch while streaming the source)


@dataclass(frozen=True)
class CopyResult:
    """Rows copied, by table (in the order they were copied: parents first), and the cards whose
    memory was replayed from their history on both sides and found the same."""

    rows: dict[str, int]
    replayed: int


def _tables() -> list[Table]:
    return list(metadata.sorted_tables)  # parents before the rows that refer to them


def copy_collection(source: Store, target: Store, decide: ReplayDecide) -> CopyResult:
    """Copy every row of ``source`` into the empty ``target`` (both at the current schema).
    Before it commits, every table is compared row by row, and each card's memory is replayed
    through ``decide`` from the copied history and from the source's: the two must agree."""
    if source.display_name == target.display_name:
        raise UsageError(_("{where} cannot be copied into itself").format(where=source.display_name),
                         _("name another file or server with --to"))
    tables = _tables()
    with source.read() as src, target.write() as dst:
        learners = _learners_own(dst)
        if learners and target.path is not None:
            raise UsageError(_("{where} is not empty (it has rows in {tables}): a copy only goes into an empty "
                               "database").format(where=target.display_name, tables=join(learners)),
                             _("name a new file with --to"))
        if learners:  # on a server only this learner's schema counts: the others' are theirs
            raise UsageError(_("{where}: learner {learner}'s collection there is not empty (it has rows in {tables}): "
                               "a copy only goes into an empty one").format(
                where=target.display_name, learner=target.learner, tables=join(learners)),
                _("its schema must go first: pg_dump --schema='\"{schema}\"' keeps it, then DROP SCHEMA \"{schema}\" "
                  "CASCADE").format(schema=learner_schema(target.learner)))
        for table in reversed(tables):  # what opening it synced from the decks: the source's replaces it
            dst.execute(delete(table))
        rows = {table.name: _copy_table(src, dst, table) for table in tables}
        continue_ids(dst, tables)
        for table in tables:
            _check_table(src, dst, table, target.display_name)
        replayed = _check_replay(src, dst, decide, target.display_name)
    return CopyResult(rows, replayed)


def copy_to_file(source: Store, path: Path, open_target: Callable[[str], Store], decide: ReplayDecide) -> CopyResult:
    """``copy_collection`` into the SQLite file ``path``, opened by ``open_target``: a new file is
    made under a temporary name and takes ``path`` only once checked; an empty one is filled in
    place. Either way the file is then closed, its write-ahead log folded in, and read back
    (``quizzer.store.backup.settle``): the current schema, each table's rows as many as the source's.
    A failure names its cause (the disk is full, ...) and leaves no file at a new ``path``."""
    from quizzer.store.backup import Snapshot, settle
    from quizzer.base.files import not_written, replaced
    from quizzer.store.revisions import SCHEMA_HEAD, layout_at

    def copied(file: Path) -> CopyResult:
        try:
            target = open_target(str(file))
            try:
                result = copy_collection(source, target, decide)
            finally:
                target.close()
        except QuizError as err:  # the store's words name the file it wrote: the one asked for is meant
            err.args = (err.message.replace(str(file), str(path)),)
            raise
        schema = layout_at(SCHEMA_HEAD)
        settle(file, Snapshot(frozenset({("table", name) for name in schema.columns} | schema.objects), result.rows))
        return result

    try:
        if path.exists():
            return copied(path)
        with replaced(path) as partial:
            return copied(partial)
    except (OSError, sqlite3.Error) as exc:
        raise not_written(path, exc) from None


def _learners_own(conn: Connection) -> list[str]:
    """The tables that hold something of the learner's, by name: any row but the decks' cards, their
    tags and the sync's facts (``meta``), which opening a collection writes; cards once studied,
    suspended or buried."""
    synced = (cards, card_tags, meta)
    found = [table.name for table in _tables()
             if table not in synced and conn.execute(select(func.count()).select_from(table)).scalar()]
    touched = conn.execute(select(func.count()).select_from(cards).where(
        (cards.c.state != NEW) | cards.c.suspended | cards.c.buried_until.is_not(None) | (cards.c.lapses > 0))).scalar()
    return ([cards.name] if touched else []) + found


def _in_order(conn: Connection, table: Table):
    return conn.execution_options(yield_per=BATCH).execute(select(table).order_by(*table.primary_key.columns))


def _copy_table(src: Connection, dst: Connection, table: Table) -> int:
    copied = 0
    for part in _in_order(src, table).partitions():
        dst.execute(insert(table), [row._asdict() for row in part])
        copied += len(part)
    return copied


def _check_table(src: Connection, dst: Connection, table: Table, where: str) -> None:
    """The target's rows, read back, equal the source's (values and order); else nothing is kept."""
    for line, (given, stored) in enumerate(zip_longest(_in_order(src, table), _in_order(dst, table)), start=1):
        if tuple(given or ()) != tuple(stored or ()):
            raise DatabaseError(_("{where}: the copy of table {table} differs from the source at row {row}, so "
                                  "nothing was copied").format(where=where, table=table.name, row=line))


def _check_replay(src: Connection, dst: Connection, decide: ReplayDecide, where: str) -> int:
    """The memory each card's copied history replays to equals what the source's replays to
    (stability, difficulty, state and lapses); the number of cards replayed."""
    def essentials(memory: MemoryState) -> tuple[object, ...]:
        return memory.state, memory.stability, memory.difficulty, memory.lapses

    replayed = 0
    for given, copied in zip_longest(replayed_memories(src, decide), replayed_memories(dst, decide)):
        if given is None or copied is None or given[0] != copied[0] or essentials(given[1]) != essentials(copied[1]):
            card = (given or copied)[0]
            raise DatabaseError(_("{where}: card {card}'s history in the copy replays to another memory than in the "
                                  "source, so nothing was copied").format(where=where, card=card))
        replayed += 1
    return replayed
