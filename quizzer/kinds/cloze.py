"""``cloze``: Anki's cloze deletion. ``{{c1::15%}}`` or ``{{c2::80%::比例}}`` (with a hint) hide
a part of the text; the learner types every blank.

Blanks with the same number are one blank (hidden together, typed once). A blank whose answer
is a number is graded through the numeric cards' answer grammar, so ``15%`` and ``0.15`` both
count; any other blank is compared as text after normalising width, case and spaces, against
its answer and the card's ``accept:`` alternatives. Several blanks are typed on one line,
separated by ``;`` (or ``；``).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Annotated, Any, Literal

from quizzer.base.i18n import N_, _, join
from quizzer.kinds.base import Asked, Issue, Kind, Reading, Verdict
from quizzer.kinds.fields import CardBase, Text

if TYPE_CHECKING:  # the annotations are read with pydantic's meaning only to validate (kinds.pydantic_models)
    from pydantic import Field

CLOZE = re.compile(r"\{\{c(\d{1,4})::(.*?)(?:::(.*?))?\}\}", re.DOTALL)  # c1 to c9999: no number int() refuses
SEPARATOR = re.compile(r"[;；]")
MAX_BLANKS = 10


@dataclass(frozen=True, kw_only=True)
class ClozeCard(CardBase):
    """A text with blanks in Anki's cloze syntax; ``accept`` lists other right answers per blank."""

    kind: Literal["cloze"]
    text: Annotated[Text, Field(description="{{c1::answer}} or {{c1::answer::hint}} marks a blank")]
    accept: dict[Annotated[str, Field(pattern=r"^c\d{1,4}$")], list[Text]] = field(default_factory=dict)
    note: Text | None = None


@dataclass(frozen=True)
class Blank:
    number: int
    answer: str
    hint: str | None


def blanks(text: str) -> list[Blank]:
    """The blanks of a cloze text, one per number, in order of first appearance."""
    found: dict[int, Blank] = {}
    for match in CLOZE.finditer(text):
        number = int(match[1])
        found.setdefault(number, Blank(number, match[2].strip(), (match[3] or "").strip() or None))
    return list(found.values())


def _fold(text: str) -> str:
    """Width, case and spaces do not matter: '［ＭＡＳＫ］', '[mask]' and '[ MASK ]' are one answer."""
    return "".join(unicodedata.normalize("NFKC", text).casefold().split())


def _number(text: str) -> Any:
    """The text as a number of the answer grammar (checkers.grading), None if it is not one."""
    from checkers.grading import AnswerFormatError, read_number

    try:
        return read_number(text)
    except AnswerFormatError:
        return None


def matches(typed: str, right: str) -> bool:
    """Whether a typed blank is ``right``: the same number to the right answer's precision, or the same text."""
    truth = _number(right)
    if truth is not None:
        given = _number(typed)
        if given is not None:
            return abs(given.value - truth.value) <= truth.resolution + 1e-12 * max(1.0, abs(truth.value))
    return _fold(typed) == _fold(right)


class Cloze(Kind[ClozeCard]):
    name = "cloze"
    title = N_("cloze")
    model = ClozeCard
    graded = True

    def front(self, asked: Asked) -> str:
        order = {b.number: i for i, b in enumerate(blanks(asked.card.text), 1)}

        def hide(match: re.Match[str]) -> str:
            hint = (match[3] or "").strip()
            return f"`［{order[int(match[1])]}{'：' + hint if hint else ''}］`"  # a code span: bold fails beside CJK

        return CLOZE.sub(hide, asked.card.text)

    def back(self, asked: Asked) -> str:
        return CLOZE.sub(lambda m: f"`{m[2].strip()}`", asked.card.text)

    def solution(self, asked: Asked) -> str | None:
        return asked.card.note

    def hint(self, asked: Asked) -> str:
        count = len(blanks(asked.card.text))
        return _("the blank") if count == 1 else _("{count} blanks, separated by ;").format(count=count)

    def read(self, asked: Asked, text: str) -> Reading:
        count = len(blanks(asked.card.text))
        parts = [p.strip() for p in SEPARATOR.split(text)] if count > 1 else [text.strip()]
        if len(parts) != count or not all(parts):
            return Reading(None, _("Type {count} answers, one per blank, separated by ; (e.g. 15%; 80%).").format(count=count))
        return Reading("; ".join(parts))  # as typed: the shown answer (an older quizzer kept " ; ", read the same)

    def score(self, asked: Asked, answer: str) -> Verdict:
        card: ClozeCard = asked.card
        found = blanks(card.text)
        typed = [p.strip() for p in SEPARATOR.split(answer)] if len(found) > 1 else [answer.strip()]
        right = [
            any(matches(given, option) for option in [blank.answer, *card.accept.get(f"c{blank.number}", [])])
            for blank, given in zip(found, typed)
        ]
        key = " · ".join(f"［{i}］{b.answer}" for i, b in enumerate(found, 1))
        if all(right) and len(typed) == len(found):
            return Verdict(1.0, "correct", _("✓ right: {answer}").format(answer=key))
        wrong = join(str(i) for i, ok in enumerate(right, 1) if not ok)
        return Verdict(sum(right) / len(found), "wrong",
                       _("✗ blank {blanks} wrong; the answer is {answer}").format(blanks=wrong, answer=key))

    def texts(self, card: ClozeCard) -> list[str]:
        return [card.text, *(a for options in card.accept.values() for a in options), *([card.note] if card.note else [])]

    def check(self, card: ClozeCard, verify: bool, raw: dict[str, Any] | None = None) -> list[Issue]:
        """The cloze syntax, with the line of the broken blank inside the text."""
        text = card.text
        issues: list[Issue] = []

        def at(offset: int, message: str) -> None:
            issues.append(Issue(("text",), message, line_offset=text.count("\n", 0, offset)))

        spans = [(m.start(), m.end()) for m in CLOZE.finditer(text)]
        for opening in re.finditer(r"\{\{", text):
            if not any(start == opening.start() for start, _ in spans):
                at(opening.start(), _("cloze: '{{' does not start a blank like {{c1::answer}} or {{c1::answer::hint}}"))
        for closing in re.finditer(r"\}\}", text):
            if not any(end == closing.end() for _, end in spans):
                at(closing.start(), _("cloze: '}}' closes no blank"))
        first: dict[int, str] = {}
        for match in CLOZE.finditer(text):
            number, answer = int(match[1]), match[2].strip()
            if not answer:
                at(match.start(), _("cloze: blank c{number} has no answer").format(number=number))
            elif "{{" in answer or "::" in answer:
                at(match.start(), _("cloze: blank c{number} holds '{{{{' or '::'; blanks cannot nest").format(number=number))
            if number < 1:
                at(match.start(), _("cloze: blanks are numbered from c1"))
            if number in first and first[number] != answer:
                at(match.start(), _("cloze: c{number} is used twice with different answers ('{first}', '{second}')").format(
                    number=number, first=first[number], second=answer))
            first.setdefault(number, answer)
        if not spans and not issues:
            issues.append(Issue(("text",), _("cloze: no blank; mark one as {{c1::answer}}")))
        if len(first) > MAX_BLANKS:
            issues.append(Issue(("text",), _("cloze: {count} blanks; at most {limit} per card").format(
                count=len(first), limit=MAX_BLANKS)))
        for key in card.accept:
            if int(key[1:]) not in first:
                issues.append(Issue(("accept", key), _("accept: the text has no blank {key}").format(key=key), prefer_key=True))
        if len(first) > 1:  # the learner types the answers separated by ; so no answer can hold one
            for number, answer in first.items():
                if SEPARATOR.search(answer):
                    issues.append(Issue(("text",), _("cloze: blank c{number}'s answer '{answer}' holds ';', which "
                                                      "separates the answers of several blanks").format(
                        number=number, answer=answer)))
            for key, answers in card.accept.items():
                for answer in answers:
                    if SEPARATOR.search(answer):
                        issues.append(Issue(("accept", key), _("accept: '{answer}' holds ';', which separates the "
                                                               "answers of several blanks").format(answer=answer)))
        return issues


KIND = Cloze()
