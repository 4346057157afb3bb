"""``quiz check`` beyond the database's own checks: the collection's invariants, in portable SQL.

SQLite's ``integrity_check`` and ``foreign_key_check`` (quizzer.store.backup) look at the file; a
server keeps its pages and keys itself. What neither knows is what the rows mean: a card in
the Review state has a memory (stability, difficulty, due, last review), a new card has none,
a learning card is on a step, a review lasted no negative time, a finished exam has a score. On a
server, every review, tag, exam question and notebook entry belongs to a card (and a question to
an exam): on a file, foreign_key_check names those rows. SQLite also keeps any value in any
column, so there a number must be a number and a time a time. A row that breaks one comes
from a hand edit, a foreign tool or a bug, and would make study or the statistics wrong; each is
reported with the table and the row's key.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import ColumnElement, Connection, Table, and_, func, or_, select

from quizzer.base.clock import FIRST_YEAR, LAST_YEAR
from quizzer.base.defaults import EXAM_MAX_MINUTES, EXAM_MIN_MINUTES
from quizzer.base.i18n import N_, _, join_some
from quizzer.store.engine import Store
from quizzer.store.models import card_tags, cards, exam_questions, exams, mistakes, review_log
from quizzer.store.records import LEARNING, NEW, RELEARNING
from quizzer.store.revisions import SCHEMA_HEAD, alembic_config, foreign_code, schema_version

FINITE = 1e300  # above any stability FSRS gives: infinity (1e309 in SQLite, 'Infinity' on a server) is past it


@dataclass(frozen=True)
class Rule:
    """Rows of ``table`` matching ``broken`` break the rule ``what`` says; ``key`` names them."""

    what: str  # English, through the catalogue when shown
    table: Table
    key: tuple[str, ...]
    broken: ColumnElement[bool]


def _memory_missing() -> ColumnElement[bool]:
    return or_(cards.c.stability.is_(None), cards.c.difficulty.is_(None), cards.c.due.is_(None),
               cards.c.last_review.is_(None))


def _numeric(column: ColumnElement[float]) -> ColumnElement[bool]:
    """A number, on either backend: SQLite's text in a REAL column is not (it is the next rule's)."""
    return column + 0 == column


def _orphan(table: Table, column: str, parent: Table) -> ColumnElement[bool]:
    return ~table.c[column].in_(select(parent.c.id))


RULES = (
    Rule(N_("a reviewed card without its memory (stability, difficulty, due, last review)"), cards, ("id",),
         and_(cards.c.state != NEW, _memory_missing())),
    Rule(N_("a new card with a memory"), cards, ("id",),
         and_(cards.c.state == NEW, or_(cards.c.stability.is_not(None), cards.c.due.is_not(None),
                                        cards.c.last_review.is_not(None)))),
    Rule(N_("a learning card without its learning step"), cards, ("id",),
         and_(cards.c.state.in_((LEARNING, RELEARNING)), cards.c.step.is_(None))),
    Rule(N_("a card with negative lapses"), cards, ("id",), cards.c.lapses < 0),
    Rule(N_("a card whose stability is not a finite number above 0, or difficulty not from 1 to 10"), cards, ("id",),
         or_(and_(_numeric(cards.c.stability), or_(cards.c.stability <= 0, cards.c.stability > FINITE)),
             and_(_numeric(cards.c.difficulty), or_(cards.c.difficulty < 1, cards.c.difficulty > 10)))),
    Rule(N_("a review with a negative duration"), review_log, ("id",), review_log.c.duration_ms < 0),
    Rule(N_("a finished exam without a score"), exams, ("id",),
         and_(exams.c.finished_at.is_not(None), exams.c.score.is_(None))),
    Rule(N_("an exam whose time allowed is not from 0.01 to 1440 minutes"), exams, ("id",),
         or_(exams.c.minutes < EXAM_MIN_MINUTES, exams.c.minutes > EXAM_MAX_MINUTES, exams.c.minutes != exams.c.minutes)),
)

SERVER_RULES = (  # a row of what is not there: on a file, SQLite's foreign_key_check names these rows
    Rule(N_("a review of a card the database does not have"), review_log, ("id",),
         _orphan(review_log, "card_id", cards)),
    Rule(N_("a tag of a card the database does not have"), card_tags, ("card_id", "tag"),
         _orphan(card_tags, "card_id", cards)),
    Rule(N_("a notebook entry of a card the database does not have"), mistakes, ("card_id",),
         _orphan(mistakes, "card_id", cards)),
    Rule(N_("an exam question of a card the database does not have"), exam_questions, ("exam_id", "position"),
         _orphan(exam_questions, "card_id", cards)),
    Rule(N_("an exam question of an exam the database does not have"), exam_questions, ("exam_id", "position"),
         _orphan(exam_questions, "exam_id", exams)),
)


def _not_number(column: ColumnElement[float]) -> ColumnElement[bool]:
    return func.typeof(column).not_in(("real", "integer", "null"))


def _not_time(column: ColumnElement[object]) -> ColumnElement[bool]:
    """Not a time SQLite can read, or outside the years quizzer works in (QUIZ_NOW's 1970-9000)."""
    year = func.substr(column, 1, 4)
    return and_(column.is_not(None), or_(func.julianday(column).is_(None), year < str(FIRST_YEAR), year > str(LAST_YEAR)))


SQLITE_RULES = (  # a server's typed columns refuse these values
    Rule(N_("a card whose stability or difficulty is not a number"), cards, ("id",),
         or_(_not_number(cards.c.stability), _not_number(cards.c.difficulty))),
    Rule(N_("a card whose due or last review is not a time from 1970 to 9000"), cards, ("id",),
         or_(_not_time(cards.c.due), _not_time(cards.c.last_review))),
    Rule(N_("a review whose time is not a time from 1970 to 9000"), review_log, ("id",),
         _not_time(review_log.c.reviewed_at)),
)


def problems(store: Store) -> list[str]:
    """One line per broken rule (see ``broken_rules``), then one per trigger or view, which
    quizzer never creates. On SQLite the rows of a missing card or exam are foreign_key_check's
    to name (``quizzer.store.backup.examine``)."""
    with store.read() as conn:
        return broken_rules(conn) + foreign_code(conn)


def broken_rules(conn: Connection) -> list[str]:
    """One line per broken rule: the rule, the table, the first rows' keys and how many."""
    found: list[str] = []
    rules = RULES + (SQLITE_RULES if conn.dialect.name == "sqlite" else SERVER_RULES)
    for rule in rules:
        rows = conn.execute(select(*(rule.table.c[k] for k in rule.key)).where(rule.broken)
                            .order_by(*(rule.table.c[k] for k in rule.key))).all()
        if not rows:
            continue
        found.append(_("{table}: {rule}: {keys}").format(
            table=rule.table.name, rule=_(rule.what), keys=join_some(["/".join(str(v) for v in row) for row in rows])))
    return found


def file_problems(db_path: Path) -> list[str]:
    """``broken_rules`` of the SQLite file ``db_path`` (at any schema revision this quizzer
    knows), which is only read: a copy in memory is brought to the current schema and checked."""
    import sqlite3
    from contextlib import closing

    from alembic import command
    from sqlalchemy import create_engine

    with closing(sqlite3.connect(db_path)) as source:
        memory = sqlite3.connect(":memory:")
        source.backup(memory)
    engine = create_engine("sqlite://", creator=lambda: memory)
    try:
        with engine.begin() as conn:
            if schema_version(conn) != SCHEMA_HEAD:
                command.upgrade(alembic_config(conn), SCHEMA_HEAD)
            return broken_rules(conn)
    finally:
        engine.dispose()
