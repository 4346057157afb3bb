"""``qa``: an interview question with a model answer and the points a good answer covers."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Literal

from quizzer.base.i18n import N_, _
from quizzer.kinds.base import Asked, Kind
from quizzer.kinds.fields import CardBase, Text

if TYPE_CHECKING:  # the annotations are read with pydantic's meaning only to validate (kinds.pydantic_models)
    from pydantic import Field


@dataclass(frozen=True, kw_only=True)
class QaCard(CardBase):
    """An interview question with a model answer and the points a good answer covers."""

    kind: Literal["qa"]
    question: Text
    answer: Text
    points: Annotated[list[Text], Field(min_length=1)]


class Qa(Kind[QaCard]):
    name = "qa"
    title = N_("Q&A")
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
