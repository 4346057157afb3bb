"""``numeric``: a calculation drawn afresh by a checker (``quiz checkers``) on every showing."""

from __future__ import annotations

import secrets
import threading
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Annotated, Any, Literal, Self

from quizzer.base.defaults import SEEDS
from quizzer.base.i18n import N_, _, join, translate_checker_message
from quizzer.kinds.base import Asked, Issue, Kind, Reading, Verdict
from quizzer.kinds.fields import CardBase, Number, OneOrMany, Shape, Text

if TYPE_CHECKING:  # the annotations are read with pydantic's meaning only to validate (kinds.pydantic_models)
    from pydantic import AfterValidator, Field

    from checkers.base import Draft, Question

SCORES = {"correct": 1.0, "imprecise": 0.5, "wrong": 0.0}  # imprecise: right only to fewer digits than asked
POINT_SEEDS = 100  # draws lint makes per numeric card to check that its params hold the generator to its point


@dataclass(frozen=True, kw_only=True)
class Example(Shape):
    """The course's worked example; ``quiz lint`` recomputes ``answer`` from ``inputs``."""

    inputs: dict[str, Any]
    answer: OneOrMany[Number]
    note: Text | None = None


def _known_checker(name: str) -> str:
    from checkers import registry

    if name not in registry.names():
        raise ValueError(_("unknown checker '{name}'; known: {known}").format(name=name, known=join(registry.names())))
    return name


@dataclass(frozen=True, kw_only=True)
class NumericCard(CardBase):
    """A calculation generated afresh by a checker (``quiz checkers``) on every review."""

    kind: Literal["numeric"]
    checker: Annotated[str, Field(description="a name from `quiz checkers`"), AfterValidator(_known_checker)]
    params: dict[str, Any] = field(default_factory=dict)
    prompt: Text | None = None
    example: Example | None = None

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Self:
        example = data.get("example")
        return cls(**{**data, "example": Example.from_json(example) if example is not None else None})


class Pending:
    """A drawn question whose prompt is ready at once and whose answer the torch reference solves
    on a background thread, started once the card is on screen (``Numeric.prepare``: importing
    torch on another thread while the card is drawn would still slow the drawing, since loading
    its libraries holds the GIL). ``answer_text``, ``solution`` and ``answer`` read like a
    Question's: they start the solve if nothing has and wait for it."""

    def __init__(self, draft: Draft) -> None:
        self.draft = draft
        self.future: Future[Question] = Future()
        self._started = False
        self._lock = threading.Lock()

    @property
    def prompt(self) -> str:
        return self.draft.prompt

    def start(self) -> None:
        with self._lock:
            if self._started:
                return
            self._started = True
        from checkers import registry

        def run() -> None:
            try:
                self.future.set_result(registry.get(self.draft.checker).finish(self.draft))
            except BaseException as err:  # handed to whoever waits: grading raises it where it is asked for
                self.future.set_exception(err)

        threading.Thread(target=run, name=f"solve-{self.draft.checker}", daemon=True).start()

    def question(self) -> Question:
        self.start()
        return self.future.result()

    @property
    def answer_text(self) -> str:
        return self.question().answer_text

    @property
    def solution(self) -> str:
        return self.question().solution

    @property
    def answer(self) -> Any:
        return self.question().answer


class Numeric(Kind[NumericCard]):
    name = "numeric"
    title = N_("numeric")
    model = NumericCard
    graded = True
    solution_title = N_("Worked solution")
    solution_states_answer = True  # every checker's explain ends with checkers.base.answer_line ("Answer: …")

    @property
    def generated(self) -> bool:
        return True

    def ask(self, card: NumericCard, seed: int | None = None) -> Asked:
        from checkers import registry

        seed = secrets.randbelow(SEEDS) if seed is None else seed
        return Asked(card, seed, Pending(registry.get(card.checker).draw(seed, card.params)))

    def prepare(self, asked: Asked) -> None:
        asked.drawn.start()

    def front(self, asked: Asked) -> str:
        intro = f"{asked.card.prompt}\n\n" if asked.card.prompt else ""
        return intro + (asked.drawn.prompt if asked.drawn else self.asks(asked.card))

    def asks(self, card: NumericCard) -> str:
        """What the card asks, no question drawn (a browser's row): its checker and parameters (two
        cards of one checker differ there), then the checker's description."""
        from checkers import registry

        given = ", ".join(f"{name}={value}" for name, value in card.params.items())
        return f"{card.checker}{f' ({given})' if given else ''}: {translate_checker_message(registry.get(card.checker).description)}"

    def back(self, asked: Asked) -> str:
        return str(asked.drawn.answer_text)

    def solution(self, asked: Asked) -> str:
        return str(asked.drawn.solution)

    def hint(self, asked: Asked) -> str:
        return _("number / vector")

    def read(self, asked: Asked, text: str) -> Reading:
        from checkers.grading import grade

        result = grade(text, asked.drawn.question())
        return Reading(None, result.message) if result.outcome == "format" else Reading(text.strip())

    def score(self, asked: Asked, answer: str) -> Verdict:
        from checkers.grading import grade

        result = grade(answer, asked.drawn.question())
        outcome = "wrong" if result.outcome == "format" else result.outcome
        return Verdict(SCORES[outcome], outcome, result.message)

    def texts(self, card: NumericCard) -> list[str]:
        return [t for t in (card.prompt, card.example.note if card.example else None) if t]

    def check(self, card: NumericCard, verify: bool, raw: dict[str, Any] | None = None) -> list[Issue]:
        """Checker parameters and the worked example, which only the checker can judge."""
        from pydantic import ValidationError

        from checkers import registry
        from quizzer.kinds.messages import issues_from

        checker = registry.get(card.checker)
        issues: list[Issue] = []
        try:
            params = checker.Params.model_validate(card.params)
        except ValidationError as err:
            issues += issues_from(err, card.params, ("params",))
        else:
            if verify:
                issues += self._point(card, params)
        if card.example is None:
            return issues
        try:
            checker.Inputs.model_validate(card.example.inputs)
        except ValidationError as err:
            return issues + issues_from(err, card.example.inputs, ("example", "inputs"))
        if verify:
            from checkers.verify import check_example

            example = (raw or {}).get("example")
            written = example.get("answer") if isinstance(example, dict) else None
            stated: str | list[str] = written if isinstance(written, (str, list)) else list(card.example.answer)
            message = check_example(card.checker, card.example.inputs, stated)
            if message:
                issues.append(Issue(("example", "answer"),
                                    _("example answer: {message}").format(message=translate_checker_message(message))))
        return issues


    @staticmethod
    def _point(card: NumericCard, params: Any) -> list[Issue]:
        """Draw POINT_SEEDS questions as study would (composing only, no torch) and report the
        first that leaves the point the card's params state."""
        from checkers import registry

        checker = registry.get(card.checker)
        for seed in range(POINT_SEEDS):
            why = checker.why_out_of_range(params, checker.inputs(seed, params))
            if why:
                return [Issue(("params",), _("params let the generator leave the card's point (seed {seed}): {why}").format(
                    seed=seed, why=translate_checker_message(why)))]
        return []


KIND = Numeric()
