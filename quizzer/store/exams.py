"""Exams and the mistakes notebook in the store: papers, answers saved as given, scores."""

from __future__ import annotations

import json
from datetime import datetime

from sqlalchemy import select

from quizzer.store.engine import Store
from quizzer.store.models import Exam, ExamQuestion, Mistake, Review
from quizzer.store.records import (
    ExamRecord,
    MistakeRecord,
    PaperSpec,
    QuestionRecord,
    ReviewSince,
)


def _exam(row: Exam) -> ExamRecord:
    return ExamRecord(row.id, row.seed, row.started_at, row.minutes, row.filters, row.finished_at, row.score)


def _question(row: ExamQuestion) -> QuestionRecord:
    covered = json.loads(row.covered) if row.covered is not None else None
    return QuestionRecord(row.exam_id, row.position, row.card_id, row.kind, row.seed, row.status, row.answer_text,
                          row.duration_ms, covered, row.score, row.review_id)


def start(store: Store, spec: PaperSpec, seed: int, minutes: float,
          paper: list[tuple[str, str, int | None]], now: datetime) -> ExamRecord:
    """A new exam with its questions ((card id, kind, seed) each), all unanswered."""
    with store.write() as session:
        exam = Exam(seed=seed, started_at=now, minutes=minutes, filters=spec.to_json())
        session.add(exam)
        session.flush()
        session.add_all(
            ExamQuestion(exam_id=exam.id, position=i, card_id=card_id, kind=kind, seed=question_seed,
                         status="unanswered", duration_ms=0)
            for i, (card_id, kind, question_seed) in enumerate(paper)
        )
        return _exam(exam)


def get(store: Store, exam_id: int) -> ExamRecord | None:
    with store.read() as session:
        row = session.get(Exam, exam_id)
        return _exam(row) if row is not None else None


def first_of_seed(store: Store, seed: int, spec: PaperSpec) -> ExamRecord | None:
    """The first exam drawn with this seed and these filters (its paper is that seed's paper)."""
    with store.read() as session:
        row = session.scalars(
            select(Exam).where(Exam.seed == seed, Exam.filters == spec.to_json()).order_by(Exam.id)).first()
        return _exam(row) if row is not None else None


def latest_unfinished(store: Store) -> ExamRecord | None:
    with store.read() as session:
        row = session.scalars(select(Exam).where(Exam.finished_at.is_(None)).order_by(Exam.id.desc())).first()
        return _exam(row) if row is not None else None


def questions(store: Store, exam_id: int) -> list[QuestionRecord]:
    with store.read() as session:
        return [_question(q) for q in session.scalars(
            select(ExamQuestion).where(ExamQuestion.exam_id == exam_id).order_by(ExamQuestion.position))]


def save_answer(store: Store, exam_id: int, position: int, *, spent_ms: int,
                status: str | None = None, answer_text: str | None = None) -> None:
    """One answer or skip (``status``), or only time spent on it, committed at once: a killed
    exam keeps it."""
    with store.write() as session:
        question = session.get(ExamQuestion, (exam_id, position))
        if question is None:
            raise ValueError(f"exam {exam_id} has no question {position}")
        if status is not None:
            question.status = status
            question.answer_text = answer_text
        question.duration_ms += spent_ms


def close(store: Store, exam_id: int, now: datetime) -> ExamRecord:
    """Finish the exam: its score is the mean of its questions' scores, in percent."""
    with store.write() as session:
        rows = list(session.scalars(select(ExamQuestion).where(ExamQuestion.exam_id == exam_id)))
        exam = session.get(Exam, exam_id)
        if exam is None:
            raise ValueError(f"no exam {exam_id}")
        exam.score = 100.0 * sum(q.score or 0.0 for q in rows) / max(1, len(rows))
        exam.finished_at = now
        return _exam(exam)


def history(store: Store) -> list[tuple[ExamRecord, int, int]]:
    """Every exam, oldest first, with its question count and how many were answered."""
    with store.read() as session:
        exams = list(session.scalars(select(Exam).order_by(Exam.id)))
        counts: dict[int, tuple[int, int]] = {}
        for exam_id, status in session.execute(select(ExamQuestion.exam_id, ExamQuestion.status)):
            total, answered = counts.get(exam_id, (0, 0))
            counts[exam_id] = (total + 1, answered + (status == "answered"))
        return [(_exam(exam), *counts.get(exam.id, (0, 0))) for exam in exams]


def mistakes(store: Store) -> tuple[list[MistakeRecord], list[ReviewSince]]:
    """The notebook's rows, and every review given after each card's last mistake."""
    with store.read() as session:
        rows = [MistakeRecord(m.card_id, m.times_wrong, m.last_wrong_at, m.last_wrong_answer)
                for m in session.scalars(select(Mistake))]
        later = [ReviewSince(*row) for row in session.execute(
            select(Review.card_id, Review.reviewed_at, Review.rating, Review.correct)
            .join(Mistake, Mistake.card_id == Review.card_id)
            .where(Review.reviewed_at > Mistake.last_wrong_at))]
    return rows, later


def times_wrong(store: Store) -> dict[str, int]:
    with store.read() as session:
        return {card_id: n for card_id, n in session.execute(select(Mistake.card_id, Mistake.times_wrong))}
