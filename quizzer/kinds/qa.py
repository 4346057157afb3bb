"""``qa``: an interview question with a model answer and the points a good answer covers."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from quizzer.i18n import _
from quizzer.kinds.base import Asked, Kind
from quizzer.kinds.fields import CardBase, Text


class QaCard(CardBase):
    """An interview question with a model answer and the points a good answer covers."""

    kind: Literal["qa"]
    question: Text
    answer: Text
    points: Annotated[list[Text], Field(min_length=1)]


class Qa(Kind[QaCard]):
    name = "qa"
    model = QaCard
    graded = False

    def front(self, asked: Asked) -> str:
        return str(asked.card.question)

    def back(self, asked: Asked) -> str:
        card: QaCard = asked.card
        return card.answer + "\n\n**" + _("Key points") + "**\n\n" + "\n".join(f"- {p}" for p in card.points)

    def model_answer(self, card: QaCard) -> str:
        return card.answer

    def key_points(self, card: QaCard) -> list[str]:
        return list(card.points)

    def texts(self, card: QaCard) -> list[str]:
        return [card.question, card.answer, *card.points]


KIND = Qa()
