"""Mock interviews: drawing the paper, saving each answer as it is given, scoring.

The paper mixes every card kind the decks allow, leans toward the learner's weak spots
(low recall, lapses, past exam mistakes) and keeps a share of never-seen cards, because an
interviewer asks what you do not know yet too. Scores per question, from 0 to 1:

- choice: 1 when exactly the right letters are picked, else 0;
- numeric: 1 correct, 0.5 right only to fewer digits than asked, else 0;
- qa / mistake: the share of key points the learner marks as covered after the exam
  (a mistake card's points are its correction and its reason);
- skipped or unanswered: 0.

Scoring writes one exam-mode review per question: 1 → Good, from 0.5 → Hard, below 0.5 →
Again, and a question below 0.5 goes into the mistakes notebook. A wrong answer always moves
the schedule (the card comes back soon in `quiz study`); a right answer to a card not yet
due is logged as practice and leaves its schedule alone, as in `--ahead`.
"""

from __future__ import annotations

import json
import random
import secrets
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session

from quizzer import KINDS, render, scheduler
from quizzer.model import ChoiceCard, MistakeCard, NumericCard, QaCard
from quizzer.store import NEW, Card, CardTag, Exam, ExamQuestion, Mistake, Store

DEFAULT_COUNT = 15
DEFAULT_MINUTES = 30.0
NEVER_SEEN_SHARE = 0.2
WRONG_BELOW = 0.5


@dataclass(frozen=True)
class PaperSpec:
    """What a paper is drawn from; stored with the exam so `--seed` can give it again."""

    count: int = DEFAULT_COUNT
    decks: list[str] | None = None
    tags: list[str] | None = None
    kinds: list[str] | None = None

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)


@dataclass(frozen=True)
class Item:
    card_id: str
    kind: str
    seed: int | None  # numeric cards: the generated question


@dataclass
class Scored:
    score: float
    covered: list[int] | None = None  # qa / mistake: the key points marked as covered


# ------------------------------------------------------------------ the paper


def key_points(card) -> list[str]:
    """What a free-text answer is marked against."""
    if isinstance(card, QaCard):
        return card.points
    if isinstance(card, MistakeCard):
        return [f"指出并纠正：{card.correction}", f"说明原因：{card.why}"]
    return []


def _weakness(card: Card, times_wrong: int, now: datetime) -> float:
    """Higher for what the learner is likely to get wrong: low recall, lapses, exam mistakes."""
    recall = scheduler.retrievability(card, now)
    return 1.0 + 4.0 * (1.0 - recall) + min(card.lapses, 5) + 2.0 * min(times_wrong, 3)


def _sample(rng: random.Random, weighted: list[tuple[str, float]], k: int) -> list[str]:
    """k ids without replacement, each drawn with probability proportional to its weight."""
    keyed = sorted(((rng.random() ** (1.0 / w), cid) for cid, w in weighted), reverse=True)
    return [cid for _, cid in keyed[:k]]


def draw_paper(store: Store, cards: dict, spec: PaperSpec, seed: int, now: datetime) -> list[Item]:
    """The questions of a new exam. The same seed, filters and history give the same paper."""
    previous = _paper_of_seed(store, seed, spec)
    if previous is not None:
        return [item for item in previous if item.card_id in cards]  # minus cards removed since
    rng = random.Random(seed)
    with store.read() as session:
        query = select(Card).where(Card.active.is_(True), Card.suspended.is_(False)).order_by(Card.id)
        if spec.decks:
            query = query.where(Card.deck.in_(spec.decks))
        if spec.kinds:
            query = query.where(Card.kind.in_(spec.kinds))
        if spec.tags:
            query = query.where(Card.id.in_(select(CardTag.card_id).where(CardTag.tag.in_(spec.tags))))
        pool = [c for c in session.scalars(query) if c.id in cards]
        wrong = dict(session.execute(select(Mistake.card_id, Mistake.times_wrong)).all())
    weight = {c.id: 1.0 if c.state == NEW else _weakness(c, wrong.get(c.id, 0), now) for c in pool}
    kind_of = {c.id: c.kind for c in pool}
    count = min(spec.count, len(pool))
    # one question of every kind the pool has, then the weak spots and a share of never-seen cards
    kinds = [kind for kind in KINDS if kind in kind_of.values()]
    rng.shuffle(kinds)  # a paper shorter than the number of kinds leaves out a different one
    chosen = [_sample(rng, [(cid, weight[cid]) for cid in kind_of if kind_of[cid] == kind], 1)[0]
              for kind in kinds[:count]]
    rest = [c for c in pool if c.id not in chosen]
    unseen = [c.id for c in rest if c.state == NEW]
    seen = [(c.id, weight[c.id]) for c in rest if c.state != NEW]
    left = count - len(chosen)
    n_unseen = min(len(unseen), left, max(round(count * NEVER_SEEN_SHARE), left - len(seen)))
    chosen += _sample(rng, [(cid, 1.0) for cid in unseen], n_unseen)
    chosen += _sample(rng, seen, left - n_unseen)
    rng.shuffle(chosen)
    return [Item(cid, kind_of[cid], rng.randrange(2**31) if kind_of[cid] == "numeric" else None) for cid in chosen]


def _paper_of_seed(store: Store, seed: int, spec: PaperSpec) -> list[Item] | None:
    with store.read() as session:
        exam = session.scalars(
            select(Exam).where(Exam.seed == seed, Exam.filters == spec.to_json()).order_by(Exam.id)
        ).first()
        if exam is None:
            return None
        rows = session.scalars(select(ExamQuestion).where(ExamQuestion.exam_id == exam.id).order_by(ExamQuestion.position))
        return [Item(q.card_id, q.kind, q.seed) for q in rows]


def new_seed() -> int:
    return secrets.randbelow(2**31)


# ------------------------------------------------------------------ saving as it happens


def start(store: Store, spec: PaperSpec, seed: int, minutes: float, items: list[Item], now: datetime) -> int:
    with store.write() as session:
        exam = Exam(seed=seed, started_at=now, minutes=minutes, filters=spec.to_json())
        session.add(exam)
        session.flush()
        session.add_all(
            ExamQuestion(exam_id=exam.id, position=i, card_id=item.card_id, kind=item.kind, seed=item.seed,
                         status="unanswered", duration_ms=0)
            for i, item in enumerate(items)
        )
        return exam.id


def latest_unfinished(store: Store) -> Exam | None:
    with store.read() as session:
        return session.scalars(select(Exam).where(Exam.finished_at.is_(None)).order_by(Exam.id.desc())).first()


def deadline(exam: Exam) -> datetime:
    return exam.started_at + timedelta(minutes=exam.minutes)


def questions(store: Store, exam_id: int) -> list[ExamQuestion]:
    with store.read() as session:
        return list(session.scalars(
            select(ExamQuestion).where(ExamQuestion.exam_id == exam_id).order_by(ExamQuestion.position)))


def save_answer(store: Store, exam_id: int, position: int, *, spent_ms: int,
                status: str | None = None, answer_text: str | None = None) -> None:
    """One answer or skip (``status``), or only time spent on it, committed at once: a killed
    exam keeps it."""
    with store.write() as session:
        question = session.get(ExamQuestion, (exam_id, position))
        if status is not None:
            question.status = status
            question.answer_text = answer_text
        question.duration_ms += spent_ms


# ------------------------------------------------------------------ scoring


def generated(card: NumericCard, seed: int):
    """The numeric question this exam asked (same checker, card parameters and seed)."""
    from checkers import registry

    checker = registry.get(card.checker)
    return checker.generate(seed, checker.Params.model_validate(card.params))


def auto_score(card, question: ExamQuestion) -> float | None:
    """The score of a choice or numeric answer; None where the learner marks key points."""
    if question.status != "answered" or not question.answer_text:
        return 0.0
    if isinstance(card, ChoiceCard):
        return 1.0 if card.pick(question.answer_text) == sorted(card.answer) else 0.0
    if isinstance(card, NumericCard):
        from checkers.grading import grade

        outcome = grade(question.answer_text, generated(card, question.seed)).outcome
        return {"correct": 1.0, "imprecise": 0.5}.get(outcome, 0.0)
    return None


def rating_for(score: float) -> int:
    return 3 if score >= 1.0 else 2 if score >= WRONG_BELOW else 1


def finish(store: Store, exam_id: int, scored: dict[int, Scored], now: datetime) -> float:
    """Record every question's score as an exam review (and a mistake where wrong); returns percent.

    Each question is one transaction, and questions already recorded are skipped, so an
    interrupted scoring can simply run again.
    """
    for question in questions(store, exam_id):
        if question.review_id is not None:
            continue
        result = scored[question.position]
        wrong = result.score < WRONG_BELOW

        def record(session: Session, answered, position=question.position, result=result, wrong=wrong) -> None:
            row = session.get(ExamQuestion, (exam_id, position))
            row.score = result.score
            row.covered = json.dumps(result.covered) if result.covered is not None else None
            row.review_id = answered.review_id
            if wrong:
                mistake = session.get(Mistake, row.card_id) or Mistake(card_id=row.card_id, times_wrong=0)
                mistake.times_wrong += 1
                mistake.last_wrong_at = now
                mistake.last_wrong_answer = row.answer_text
                session.add(mistake)

        scheduler.answer(
            store, question.card_id, rating_for(result.score), now=now, duration_ms=question.duration_ms,
            mode="exam", answer_text=question.answer_text, correct=not wrong, seed=question.seed,
            ahead_rule=not wrong, also=record,
        )
    with store.write() as session:
        rows = list(session.scalars(select(ExamQuestion).where(ExamQuestion.exam_id == exam_id)))
        exam = session.get(Exam, exam_id)
        exam.score = 100.0 * sum(q.score or 0.0 for q in rows) / max(1, len(rows))
        exam.finished_at = now
        return exam.score


def history(store: Store) -> list[tuple[Exam, int, int]]:
    """Every exam, oldest first, with its question count and how many were answered."""
    with store.read() as session:
        exams = list(session.scalars(select(Exam).order_by(Exam.id)))
        counts = {}
        for exam_id, status in session.execute(select(ExamQuestion.exam_id, ExamQuestion.status)):
            total, answered = counts.get(exam_id, (0, 0))
            counts[exam_id] = (total + 1, answered + (status == "answered"))
        return [(exam, *counts.get(exam.id, (0, 0))) for exam in exams]


@dataclass
class ReportRow:
    position: int
    card: object
    question: ExamQuestion
    score: float
    text: str  # the question as it was asked
    right_answer: str
    solution: str | None = None


@dataclass
class Report:
    exam: Exam
    rows: list[ReportRow] = field(default_factory=list)

    def by(self, key) -> list[tuple[str, float, int]]:
        """(group, mean score in percent, questions) grouped by ``key(row)`` (a str or list)."""
        groups: dict[str, list[float]] = {}
        for row in self.rows:
            keys = key(row)
            for k in [keys] if isinstance(keys, str) else keys:
                groups.setdefault(k, []).append(row.score)
        return [(k, 100.0 * sum(v) / len(v), len(v)) for k, v in sorted(groups.items())]


def report(store: Store, exam_id: int, cards: dict) -> Report:
    """Everything the end-of-exam report shows, from what is stored."""
    with store.read() as session:
        exam = session.get(Exam, exam_id)
    result = Report(exam)
    for question in questions(store, exam_id):
        card = cards.get(question.card_id)
        if card is None:  # removed from the decks since: the score stands, the text is gone
            continue
        solution, asked = None, None
        if isinstance(card, ChoiceCard):
            right = "".join(card.answer)
            solution = card.explanation
        elif isinstance(card, NumericCard):
            asked = generated(card, question.seed)
            right, solution = asked.answer_text, asked.solution
        elif isinstance(card, QaCard):
            right = card.answer
        else:
            right = f"{card.correction}\n\n{card.why}"
        text = render.question_text(card, asked)
        result.rows.append(ReportRow(question.position, card, question, question.score or 0.0, text, right, solution))
    return result
