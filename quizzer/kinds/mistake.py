"""``mistake``: a common wrong claim; the learner says what is wrong with it and why."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from quizzer.base.i18n import N_, _
from quizzer.kinds.base import Asked, Kind
from quizzer.kinds.fields import CardBase, Text


@dataclass(frozen=True, kw_only=True)
class MistakeCard(CardBase):
    """A common wrong claim: the learner says what is wrong with it."""

    kind: Literal["mistake"]
    claim: Text
    correction: Text
    why: Text


class Mistake(Kind[MistakeCard]):
    name = "mistake"
    title = N_("common mistake")
    model = MistakeCard
    graded = False

    def front(self, asked: Asked) -> str:
        return _("**A common claim**: {claim}\n\nWhat is wrong with it, and why?").format(claim=asked.card.claim)

    def back(self, asked: Asked) -> str:
        return _("**In fact**: {correction}\n\n**Why**: {why}").format(correction=asked.card.correction, why=asked.card.why)

    def key_points(self, card: MistakeCard) -> list[str]:
        return [_("Names and corrects it: {correction}").format(correction=card.correction),
                _("Says why: {why}").format(why=card.why)]

    def point_names(self, card: MistakeCard) -> list[str]:  # the right answer above is the correction and the why
        return [_("Names and corrects it"), _("Says why")]

    def texts(self, card: MistakeCard) -> list[str]:
        return [card.claim, card.correction, card.why]


KIND = Mistake()
