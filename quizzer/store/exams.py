"""Exams and the mistakes notebook in the store: papers, answers saved as given, scores."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import ColumnElement, Row, and_, insert, or_, select, true, update

from quizzer.store.engine import Store
from quizzer.store.models import exam_questions, exams, in_chunks, insert_id, review_log
from quizzer.store.models import mistakes as notebook  # the name ``mistakes`` is this module's function
from quizzer.store.records import (
    ExamRecord,
    MistakeRecord,
    PaperSpec,
    QuestionRecord,
    ReviewSince,
    cut_off,
)


def _exam(row: Row[Any]) -> ExamRecord:
    return ExamRecord(row.id, row.seed, row.started_at, row.minutes, row.filters, row.finished_at, row.score,
                      row.handed_in_at)


def _question(row: Row[Any]) -> QuestionRecord:
    covered = json.loads(row.covered) if row.covered is not None else None
    return QuestionRecord(row.exam_id, row.position, row.card_id, row.kind, row.seed, row.status, row.answer_text,
                          row.duration_ms, covered, row.score, row.review_id)


def start(store: Store, spec: PaperSpec, seed: int, minutes: float,
          paper: list[tuple[str, str, int | None]], now: datetime) -> ExamRecord:
    """A new exam with its questions ((card id, kind, seed) each), all unanswered."""
    filters = spec.to_json()
    with store.write() as conn:
        exam_id = insert_id(conn, insert(exams).values(seed=seed, started_at=now, minutes=minutes, filters=filters))
        if paper:
            conn.execute(insert(exam_questions), [
                dict(exam_id=exam_id, position=i, card_id=card_id, kind=kind, seed=question_seed,
                     status="unanswered", duration_ms=0)
                for i, (card_id, kind, question_seed) in enumerate(paper)])
    return ExamRecord(exam_id, seed, now, minutes, filters, None, None)


def get(store: Store, exam_id: int) -> ExamRecord | None:
    with store.read() as conn:
        row = conn.execute(select(exams).where(exams.c.id == exam_id)).first()
        return _exam(row) if row is not None else None


def first_of_seed(store: Store, seed: int, spec: PaperSpec) -> ExamRecord | None:
    """The first exam drawn with this seed and these filters (its paper is that seed's paper)."""
    with store.read() as conn:
        row = conn.execute(select(exams).where(exams.c.seed == seed, exams.c.filters == spec.to_json())
                           .order_by(exams.c.id)).first()
        return _exam(row) if row is not None else None


def latest_unfinished(store: Store) -> ExamRecord | None:
    with store.read() as conn:
        row = conn.execute(select(exams).where(exams.c.finished_at.is_(None)).order_by(exams.c.id.desc())).first()
        return _exam(row) if row is not None else None


def questions(store: Store, exam_id: int) -> list[QuestionRecord]:
    with store.read() as conn:
        return [_question(q) for q in conn.execute(
            select(exam_questions).where(exam_questions.c.exam_id == exam_id).order_by(exam_questions.c.position))]


def save_answer(store: Store, exam_id: int, position: int, *, spent_ms: int,
                status: str | None = None, answer_text: str | None = None) -> None:
    """One answer or skip (``status``), or only time spent on it, committed at once: a killed
    exam keeps it."""
    values: dict[str, Any] = {"duration_ms": exam_questions.c.duration_ms + spent_ms}
    if status is not None:
        values.update(status=status, answer_text=answer_text)
    with store.write() as conn:
        saved = conn.execute(update(exam_questions).where(exam_questions.c.exam_id == exam_id,
                                                          exam_questions.c.position == position)
                             .values(**values)).rowcount
        if not saved:
            raise ValueError(f"exam {exam_id} has no question {position}")


def hand_in(store: Store, exam_id: int, now: datetime) -> ExamRecord:
    """End the answering (the first hand-in's time stands): from now on the paper is only marked."""
    with store.write() as conn:
        conn.execute(update(exams).where(exams.c.id == exam_id, exams.c.handed_in_at.is_(None)).values(handed_in_at=now))
        exam = conn.execute(select(exams).where(exams.c.id == exam_id)).first()
        if exam is None:
            raise ValueError(f"no exam {exam_id}")
        return _exam(exam)


def close(store: Store, exam_id: int, now: datetime) -> ExamRecord:
    """Finish the exam: its score is the mean of its questions' scores, in percent."""
    with store.write() as conn:
        scores = list(conn.scalars(select(exam_questions.c.score).where(exam_questions.c.exam_id == exam_id)))
        exam = conn.execute(select(exams).where(exams.c.id == exam_id)).first()
        if exam is None:
            raise ValueError(f"no exam {exam_id}")
        if exam.finished_at is not None:  # handed in on another device first: its score stands
            return _exam(exam)
        score = 100.0 * sum(s or 0.0 for s in scores) / max(1, len(scores))
        conn.execute(update(exams).where(exams.c.id == exam_id).values(score=score, finished_at=now))
        return replace(_exam(exam), finished_at=now, score=score)


def history(store: Store) -> list[tuple[ExamRecord, int, int]]:
    """Every exam, oldest first, with its question count and how many were answered (an answer
    the clock cut off included, as the exam's report counts it)."""
    with store.read() as conn:
        rows = list(conn.execute(select(exams).order_by(exams.c.id)))
        counts: dict[int, tuple[int, int]] = {}
        for exam_id, status, text in conn.execute(
                select(exam_questions.c.exam_id, exam_questions.c.status, exam_questions.c.answer_text)):
            total, answered = counts.get(exam_id, (0, 0))
            counts[exam_id] = (total + 1, answered + (status == "answered" or cut_off(status, text)))
        return [(_exam(row), *counts.get(row.id, (0, 0))) for row in rows]


def mistakes(store: Store, card_ids: Sequence[str] | None = None) -> tuple[list[MistakeRecord], list[ReviewSince]]:
    """The notebook's rows (with the seed of the question got wrong: the review the mistake was
    noted with has it), and every review given after each card's last mistake: each noted card's
    reviews through the ``(card_id, id)`` index (``|| ''`` keeps SQLite from scanning the whole
    log and looking each review up in the notebook instead). ``card_ids``: of those cards only."""
    wrong_seed = (select(review_log.c.seed)
                  .where(review_log.c.card_id == notebook.c.card_id, review_log.c.reviewed_at == notebook.c.last_wrong_at)
                  .order_by(review_log.c.id.desc()).limit(1).scalar_subquery())
    rows, later = [], []
    with store.read() as conn:
        for chunk in _in_chunks(card_ids):
            rows += [MistakeRecord(*row) for row in conn.execute(
                select(notebook.c.card_id, notebook.c.times_wrong, notebook.c.last_wrong_at, notebook.c.last_wrong_answer,
                       wrong_seed).where(_among(notebook.c.card_id, chunk)))]
            later += [ReviewSince(*row) for row in conn.execute(
                select(review_log.c.card_id, review_log.c.reviewed_at, review_log.c.rating, review_log.c.correct,
                       review_log.c.answer_text, review_log.c.seed)
                .join(notebook, review_log.c.card_id == notebook.c.card_id.concat(""))
                .where(review_log.c.reviewed_at > notebook.c.last_wrong_at, _among(notebook.c.card_id, chunk)))]
    return rows, later


def reviews_of_study_lapsers(store: Store, window: timedelta,
                             card_ids: Sequence[str] | None = None) -> list[ReviewSince]:
    """The reviews, oldest first, where the notebook finds study's own repeated lapses: of the
    cards failed at least twice in study (Again, or a typed answer graded wrong), those from the
    first failure (of any mode) that another follows within ``window`` on; before it no two
    failures are that close, so none noted the card. ``card_ids``: of those cards only (a million
    reviews hold tens of thousands of cards failed twice, a few thousand of them that close)."""
    failed = or_(review_log.c.correct.is_(False), and_(review_log.c.correct.is_(None), review_log.c.rating == 1))
    starts: dict[str, datetime] = {}
    with store.read() as conn:
        for chunk in _in_chunks(card_ids):
            starts |= _close_failures(conn.execute(
                select(review_log.c.card_id, review_log.c.reviewed_at, review_log.c.mode)
                .where(failed, _among(review_log.c.card_id, chunk))
                .order_by(review_log.c.card_id, review_log.c.reviewed_at, review_log.c.id)), window)
        found = []
        for chunk in _in_chunks(sorted(starts)):
            assert chunk is not None, "a list of card ids comes in chunks"
            found += [ReviewSince(*row) for row in conn.execute(
                select(review_log.c.card_id, review_log.c.reviewed_at, review_log.c.rating, review_log.c.correct,
                       review_log.c.answer_text, review_log.c.seed)
                .where(review_log.c.card_id.in_(chunk), review_log.c.reviewed_at >= min(starts[c] for c in chunk))
                .order_by(review_log.c.reviewed_at, review_log.c.id))
                      if row.reviewed_at >= starts[row.card_id]]
    return sorted(found, key=lambda review: review.reviewed_at)  # stable: a card's ties stay in log order


def _close_failures(failures: Any, window: timedelta) -> dict[str, datetime]:
    """Of ``failures`` (card id, time, mode; by card, oldest first), the time of each card's first
    failure that another follows within ``window``, for the cards with two in study."""
    starts: dict[str, datetime] = {}
    study: dict[str, int] = {}
    last: dict[str, datetime] = {}
    for card_id, at, mode in failures:
        study[card_id] = study.get(card_id, 0) + (mode == "study")
        before = last.get(card_id)
        if before is not None and at - before <= window and card_id not in starts:
            starts[card_id] = before
        last[card_id] = at
    return {card_id: at for card_id, at in starts.items() if study[card_id] >= 2}


def _in_chunks(card_ids: Sequence[str] | None) -> list[Sequence[str] | None]:
    """None (every card) alone, else ``card_ids`` a statement's worth at a time (``models.in_chunks``)."""
    return [None] if card_ids is None else list(in_chunks(card_ids))


def _among(column: ColumnElement[str], card_ids: Sequence[str] | None) -> ColumnElement[bool]:
    return true() if card_ids is None else column.in_(card_ids)


def times_wrong(store: Store) -> dict[str, int]:
    with store.read() as conn:
        return {card_id: n for card_id, n in conn.execute(select(notebook.c.card_id, notebook.c.times_wrong))}
