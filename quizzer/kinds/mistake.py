"""``mistake``: a common wrong claim; the learner says what is wrong with it and why."""

from __future__ import annotations

from typing import Literal

from quizzer.kinds.base import Asked, Kind
from quizzer.kinds.fields import CardBase, Text


class MistakeCard(CardBase):
    """A common wrong claim: the learner says what is wrong with it."""

    kind: Literal["mistake"]
    claim: Text
    correction: Text
    why: Text


class Mistake(Kind[MistakeCard]):
    name = "mistake"
    model = MistakeCard
    graded = False

    def front(self, asked: Asked) -> str:
        return f"**常见说法**：{asked.card.claim}\n\n这句话错在哪里？为什么？"

    def back(self, asked: Asked) -> str:
        return f"**实际上**：{asked.card.correction}\n\n**为什么**：{asked.card.why}"

    def key_points(self, card: MistakeCard) -> list[str]:
        return [f"指出并纠正：{card.correction}", f"说明原因：{card.why}"]

    def texts(self, card: MistakeCard) -> list[str]:
        return [card.claim, card.correction, card.why]


KIND = Mistake()
