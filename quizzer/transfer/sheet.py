"""A printable review sheet in Markdown: every question first, then every answer, numbered
alike, so the answers can be folded away on paper before an interview.

What each card shows comes from its kind (front, back, solution); a generated card (numeric)
is drawn from one fixed seed, written beside it, so ``quiz show ID --seed N`` asks the same.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from quizzer import kinds
from quizzer.base.i18n import _

SEED = 1  # the question a generated card shows on the sheet


def _heading(number: int, card: Any, seed: int | None) -> str:
    where = f"{number}. [{card.source}] `{card.id}`"
    return f"### {where}" + (" " + _("(seed {seed})").format(seed=seed) if seed is not None else "")


def review_sheet(title: str, cards: Sequence[Any]) -> str:
    """The sheet of ``cards`` (deck models, in the order given) as Markdown."""
    questions = [f"# {title}", "", "## " + _("Questions"), ""]  # outside the f-string: the catalogue finds them
    answers = ["## " + _("Answers"), ""]
    for number, card in enumerate(cards, 1):
        kind = kinds.of(card)
        asked = kind.ask(card, SEED)
        questions += [_heading(number, card, asked.seed), "", kind.front(asked).strip(), ""]
        answers += [_heading(number, card, asked.seed), "", kind.back(asked).strip(), ""]
        solution = kind.solution(asked)
        if solution:
            answers += [solution.strip(), ""]
    return "\n".join(questions + answers).rstrip("\n") + "\n"
