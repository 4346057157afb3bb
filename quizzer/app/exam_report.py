"""The end-of-exam report and the exam history, read from what is stored: what each stored
answer counts as (cut off by the clock, or the answer to score) and why a graded one scored what
it did."""

from __future__ import annotations

from quizzer import kinds
from quizzer.app.collection import Collection
from quizzer.app.exam_views import Report, ReportRow
from quizzer.base.errors import DatabaseError
from quizzer.base.i18n import _
from quizzer.kinds.base import Asked
from quizzer.store import cards as card_store
from quizzer.store import exams as exam_store
from quizzer.store import records
from quizzer.store.records import ExamRecord, QuestionRecord


def cut_off(question: QuestionRecord) -> bool:
    """Whether the question holds the text being typed when time ran out."""
    return records.cut_off(question.status, question.answer_text)


def given(question: QuestionRecord) -> str | None:
    """The answer to score or mark: answered, or cut off by the clock; None for none."""
    if question.status == "answered" or cut_off(question):
        return question.answer_text or None
    return None


def report(collection: Collection, exam_id: int) -> Report:
    """Everything the end-of-exam report shows, from what is stored."""
    exam = exam_store.get(collection.store, exam_id)
    if exam is None:  # the session asks for its own exam: gone means the database was replaced under it
        raise DatabaseError(_("exam {id} is not in {where}").format(id=exam_id, where=collection.store.display_name),
                            _("`quiz exam --history` lists the exams there"))
    result = Report(exam)
    for question in exam_store.questions(collection.store, exam_id):
        card = collection.cards.get(question.card_id)
        if card is None:  # removed from the decks since: its answer and score stand, its texts are gone
            stored = card_store.card(collection.store, question.card_id)
            result.rows.append(ReportRow(
                question.position, question.card_id, stored.kind, stored.deck, "-", list(stored.tags), question.status,
                question.answer_text, cut_off(question), question.duration_ms, question.score or 0.0,
                _("(not in the decks)"), "-", None))
            continue
        kind = kinds.of(card)
        asked = kind.ask(card, question.seed)
        missed = [point for number, point in enumerate(kind.point_names(card), 1) if number not in question.covered] \
            if question.covered is not None else []
        result.rows.append(ReportRow(
            question.position, card.id, card.kind, collection.deck_of(card.id).id, card.source, list(card.tags),
            question.status,
            question.answer_text, cut_off(question), question.duration_ms, question.score or 0.0, kind.front(asked),
            None if kind.solution_states_answer else kind.back(asked), kind.solution(asked), missed,
            _verdict(question, asked)))
    return result


def _verdict(question: QuestionRecord, asked: Asked) -> str | None:
    """Why a graded answer scored what it did, as study says it (which blank was wrong, how far a
    number was off); None for a marked or missing answer, or a cut-off one that cannot be read."""
    kind = kinds.of(asked.card)
    text = given(question)
    if not kind.graded or text is None:
        return None
    if cut_off(question):
        text = kind.read(asked, text).answer
        if text is None:
            return None
    return kind.score(asked, text).message


def history(collection: Collection) -> list[tuple[ExamRecord, int, int]]:
    """Every exam, oldest first, with its question count and how many were answered."""
    return exam_store.history(collection.store)
