"""The reads ``quiz stats`` needs, returning frozen dataclasses.

Reviews are counted for every card the filter names, active or not (history imported for
cards no deck has any more still happened); card counts cover active cards only. Figures over
every card (recall, tags) are aggregated in SQL, with times as seconds since the epoch computed
by the database (``models.epoch``), so 50,000 cards never cross into Python row by row. Reviews
per study day and true retention come from the log's aggregate (``quizzer.store.review_days``).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import (
    ColumnElement,
    Float,
    String,
    case,
    func,
    literal,
    select,
    union_all,
)
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.functions import FunctionElement

from quizzer.base.clock import DAY_SECONDS
from quizzer.store.engine import Store
from quizzer.store.filter import CardFilter
from quizzer.store.models import (
    card_tags,
    cards,
    epoch,
    exam_questions,
    exams,
    mistakes,
)
from quizzer.store.records import LEECH_TAG, NEW


class greatest(FunctionElement[float]):
    """The larger of two numbers (SQLite's two-argument ``max``, PostgreSQL's ``GREATEST``): the
    curve's time since the last review, never negative, computes that time once per card."""

    type = Float()
    inherit_cache = True


@compiles(greatest, "sqlite")
def _greatest_sqlite(element: greatest, compiler: Any, **kw: Any) -> str:
    return f"max({compiler.process(element.clauses, **kw)})"


@compiles(greatest)
def _greatest(element: greatest, compiler: Any, **kw: Any) -> str:
    return f"GREATEST({compiler.process(element.clauses, **kw)})"


@dataclass(frozen=True)
class Curve:
    """The forgetting curve the figures use (``scheduling.curve.forgetting_curve``'s
    parameters), at ``now`` in seconds since the epoch."""

    now: float
    decay: float  # FSRS's parameter 20 (positive)

    def recall(self) -> ColumnElement[float]:
        """Each card's retrievability now, in SQL: the same formula as
        ``scheduling.curve.forgetting_curve``, on fractional days elapsed, never negative (as
        ``scheduling.memory.recall_of_review``). Only meaningful for a card with a stability and a
        last review: the callers guard it with that condition (folding the guard in here would make
        SQLite evaluate the power twice where a query both counts and averages it)."""
        factor = 0.9 ** (-1 / self.decay) - 1
        elapsed = (literal(self.now, Float()) - epoch(cards.c.last_review)) / float(DAY_SECONDS)
        days = greatest(elapsed, literal(0.0, Float()))
        return func.pow(1 + factor * days / cards.c.stability, -self.decay)


@dataclass(frozen=True)
class StateCount:
    """How many active cards of a deck share a state and flags."""

    deck: str
    state: int
    suspended: bool
    buried: bool
    cards: int


@dataclass(frozen=True)
class Recall:
    """The mean retrievability now of the active reviewed cards with a memory state."""

    cards: int
    mean: float | None


@dataclass(frozen=True)
class CardWeakness:
    """An active reviewed card's lapses and recall now (None without a memory state)."""

    id: str
    deck: str
    lapses: int
    recall: float | None


@dataclass(frozen=True)
class TagWeakness:
    """A tag's active reviewed cards: how many, their lapses, and the recall of those with a
    memory state (how many, summed)."""

    tag: str
    cards: int
    lapses: int
    recalled: int
    recall_sum: float


@dataclass(frozen=True)
class ExamScore:
    id: int
    finished_at: datetime
    score: float  # percent


def state_counts(store: Store, chosen: CardFilter, now: datetime) -> tuple[list[StateCount], dict[str, int]]:
    """Active cards by deck, state, suspended and buried (at ``now``); and by deck, how many have
    the leech tag (from the few leech rows of the tag index: a lookup per card costs more than
    the rest of the count)."""
    buried = case((cards.c.buried_until > now, True), else_=False)
    with store.read() as conn:
        rows = conn.execute(
            select(cards.c.deck, cards.c.state, cards.c.suspended, buried, func.count())
            .where(*chosen.clauses()).group_by(cards.c.deck, cards.c.state, cards.c.suspended, buried))
        counts = [StateCount(deck, state, bool(suspended), bool(is_buried), count)
                  for deck, state, suspended, is_buried, count in rows]
        leeches = conn.execute(select(cards.c.deck, func.count()).select_from(card_tags)
                               .join(cards, cards.c.id == card_tags.c.card_id)
                               .where(card_tags.c.tag == LEECH_TAG, *chosen.clauses()).group_by(cards.c.deck))
        return counts, {deck: count for deck, count in leeches}


def _seen(chosen: CardFilter) -> list[ColumnElement[bool]]:
    return [*chosen.clauses(), cards.c.state != NEW]


def weakest_cards(store: Store, chosen: CardFilter, curve: Curve, limit: int) -> list[CardWeakness]:
    """The candidates for the weakest ``limit`` cards by lapses (most first), then recall
    (lowest first, none last), then id: every card in the mistakes table (the caller ranks
    those by the notebook) and the first ``limit`` of the others."""
    known = cards.c.stability.is_not(None) & cards.c.last_review.is_not(None)
    shown = case((known, curve.recall()), else_=None)
    columns = (cards.c.id, cards.c.deck, cards.c.lapses, shown)
    noted = cards.c.id.in_(select(mistakes.c.card_id))
    # the limit-th most lapses first, so the recall is computed for the few cards with as many
    threshold = (select(cards.c.lapses).where(*_seen(chosen), ~noted).order_by(cards.c.lapses.desc())
                 .limit(1).offset(limit - 1).scalar_subquery())
    with store.read() as conn:
        rows = [*conn.execute(
            select(*columns).where(*_seen(chosen), ~noted, cards.c.lapses >= func.coalesce(threshold, 0))
            .order_by(cards.c.lapses.desc(), case((known, 0), else_=1), shown, cards.c.id).limit(limit)),
                *conn.execute(select(*columns).where(*_seen(chosen), noted))]
    return [CardWeakness(card_id, deck, lapses, None if value is None else float(value))
            for card_id, deck, lapses, value in rows]


def seen_cards(store: Store, chosen: CardFilter, curve: Curve,
               exclude: tuple[str, ...] = (LEECH_TAG,)) -> tuple[Recall, list[TagWeakness]]:
    """The active reviewed cards the filter matches: the mean recall now of those with a memory
    state, and per tag (system tags left out) how many, their lapses and their recall.

    One statement: the cards are materialized first, so each card's recall is computed once, not
    once for each of its tags and once more for the mean. Their tags are found through the tag
    table's ``(card_id, tag)`` key. Two ``|| ''`` keep SQLite on that plan: on the card id, so it
    does not look a card up for each tag row, and on the grouped tag, so the tag index's order
    does not tempt it to scan the tags first (either is several times slower). System tags are
    dropped after grouping, for the same reason."""
    known = cards.c.stability.is_not(None) & cards.c.last_review.is_not(None)
    seen = (select(cards.c.id, cards.c.lapses, case((known, curve.recall()), else_=None).label("recall"))
            .where(*_seen(chosen)).cte("seen").prefix_with("MATERIALIZED"))
    tag = card_tags.c.tag.concat("")
    figures = (func.count(), func.sum(seen.c.lapses), func.count(seen.c.recall), func.sum(seen.c.recall))
    every = select(literal(None, String()).label("tag"), *figures).select_from(seen)
    per_tag = (select(tag.label("tag"), *figures).select_from(seen)
               .join(card_tags, card_tags.c.card_id == seen.c.id.concat("")).group_by(tag))
    with store.read() as conn:
        (_, _, _, recalled, total), *rows = conn.execute(union_all(every, per_tag)).all()
    mean = Recall(recalled, None if not recalled else float(total) / recalled)
    return mean, [TagWeakness(name, count, int(lapses or 0), known_recall, float(summed or 0.0))
                  for name, count, lapses, known_recall, summed in rows if name not in exclude]


def tags_of(store: Store, card_ids: list[str], exclude: tuple[str, ...] = (LEECH_TAG,)) -> list[tuple[str, str]]:
    """(card id, tag) pairs of a few cards, system tags left out."""
    if not card_ids:
        return []
    with store.read() as conn:
        return [(card_id, tag) for card_id, tag in conn.execute(
            select(card_tags.c.card_id, card_tags.c.tag)
            .where(card_tags.c.card_id.in_(card_ids), card_tags.c.tag.not_in(exclude))).all()]


def exam_scores(store: Store, chosen: CardFilter) -> list[ExamScore]:
    """Finished exams, oldest first, with their score in percent. With a filter, an exam's
    score is that of its questions on matching cards (exams with none are left out)."""
    conditions = chosen.clauses(only_active=False)
    with store.read() as conn:
        if not conditions:
            rows = conn.execute(select(exams.c.id, exams.c.finished_at, exams.c.score)
                                .where(exams.c.finished_at.is_not(None), exams.c.score.is_not(None))
                                .order_by(exams.c.finished_at, exams.c.id)).all()
        else:
            rows = conn.execute(
                select(exams.c.id, exams.c.finished_at, 100.0 * func.avg(func.coalesce(exam_questions.c.score, 0.0)))
                .join(exam_questions, exam_questions.c.exam_id == exams.c.id)
                .where(exams.c.finished_at.is_not(None),
                       exam_questions.c.card_id.in_(select(cards.c.id).where(*conditions)))
                .group_by(exams.c.id, exams.c.finished_at).order_by(exams.c.finished_at, exams.c.id)).all()
        return [ExamScore(exam_id, finished, float(score)) for exam_id, finished, score in rows
                if finished is not None and score is not None]


__all__ = [
    "CardWeakness", "Curve", "ExamScore", "Recall", "StateCount", "TagWeakness",
    "epoch", "exam_scores",
    "seen_cards", "state_counts", "tags_of", "weakest_cards",
]
