"""``choice``: multiple choice, options lettered A, B, ... by position; one or several right."""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Literal

from quizzer.base.i18n import N_, _, join
from quizzer.kinds.base import Asked, Kind, Reading, Verdict
from quizzer.kinds.fields import LETTERS, CardBase, Letter, OneOrMany, Text

if TYPE_CHECKING:  # the annotations are read with pydantic's meaning only to validate (kinds.pydantic_models)
    from pydantic import AfterValidator, Field, ValidationInfo

SEPARATORS = " ,，、"


def _answer_is_an_option(answer: list[str], info: ValidationInfo) -> list[str]:
    options = info.data.get("options")
    if options is None:
        return answer
    allowed = LETTERS[: len(options)]
    for letter in answer:
        if letter not in allowed:
            raise ValueError(_("answer {letter} is not one of the options {options}").format(
                letter=letter, options=join(allowed)))
    if len(set(answer)) != len(answer):
        raise ValueError(_("answer repeats a letter"))
    return answer


@dataclass(frozen=True, kw_only=True)
class ChoiceCard(CardBase):
    """Multiple choice; options are lettered A, B, ... by position."""

    kind: Literal["choice"]
    question: Text
    options: Annotated[list[Text], Field(min_length=2, max_length=len(LETTERS))]
    answer: Annotated[OneOrMany[Letter], AfterValidator(_answer_is_an_option)]
    explanation: Text

    @property
    def letters(self) -> str:
        return LETTERS[: len(self.options)]

    @property
    def several(self) -> bool:
        return len(self.answer) > 1


class Choice(Kind[ChoiceCard]):
    name = "choice"
    title = N_("choice")
    model = ChoiceCard
    graded = True

    def front(self, asked: Asked) -> str:
        card: ChoiceCard = asked.card
        options = "\n".join(f"- **{letter}.** {text}" for letter, text in zip(card.letters, card.options))
        several = " " + _("(several answers)") if card.several and "多选" not in card.question else ""
        return f"{card.question}{several}\n\n{options}"

    def back(self, asked: Asked) -> str:
        return "".join(asked.card.answer)

    def solution(self, asked: Asked) -> str:
        return str(asked.card.explanation)

    def hint(self, asked: Asked) -> str:
        return _("letters, e.g. AC") if asked.card.several else _("a letter")

    def picks(self, asked: Asked) -> tuple[tuple[str, ...], bool]:
        return tuple(asked.card.letters), asked.card.several

    def read(self, asked: Asked, text: str) -> Reading:
        """The letters picked ("c, a" -> "AC", full-width "Ｂ" -> "B"); a letter that is not an
        option, or several on a one-answer card, is asked again with the reason."""
        card: ChoiceCard = asked.card
        options = join(card.letters)
        picked = [c for c in unicodedata.normalize("NFKC", text).upper() if c not in SEPARATORS]
        strangers = "".join(dict.fromkeys(c for c in picked if c not in card.letters))
        if card.several:
            how = _("Type one or more of {options}.").format(options=options)
        else:
            how = _("Type one of {options}.").format(options=options)
        if strangers:
            return Reading(None, _("{problem} {remedy}").format(
                problem=_("Not an option here: {letters}.").format(letters=join(strangers)), remedy=how))
        letters = sorted(set(picked))
        if not letters:
            return Reading(None, how)
        if len(letters) > 1 and not card.several:
            return Reading(None, _("{problem} {remedy}").format(
                problem=_("Only one answer is right here, not {count}.").format(count=len(letters)), remedy=how))
        return Reading("".join(letters))

    def score(self, asked: Asked, answer: str) -> Verdict:
        right = "".join(asked.card.answer)
        if sorted(answer) == sorted(right):
            return Verdict(1.0, "correct", _("✓ right"))
        return Verdict(0.0, "wrong", _("✗ wrong; the answer is {answer}").format(answer=right))

    def texts(self, card: ChoiceCard) -> list[str]:
        return [card.question, *card.options, card.explanation]


KIND = Choice()
