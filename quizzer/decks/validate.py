"""Validating a deck's text: every problem it can find, as ``path:line:column: message``.

Validation keeps going after a problem, because a contributor fixing a pull request wants the
whole list at once. pydantic and the YAML parser load only when a deck is validated.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Iterator, cast

from quizzer import kinds
from quizzer.decks.files import display
from quizzer.decks.problems import Problem
from quizzer.base.defaults import ARCHIVE_DECK, ARCHIVE_TAKEN
from quizzer.base.errors import MAX_PROBLEMS, UNLISTED
from quizzer.base.i18n import _

if TYPE_CHECKING:
    from pydantic import ValidationError

    from quizzer.decks import model
    from quizzer.decks.yamlsource import Path as DataPath
    from quizzer.decks.yamlsource import YamlDocument
    from quizzer.kinds.base import Issue


def _problems(issues: Iterable[Issue], doc: YamlDocument, base: DataPath, shown: str) -> list[Problem]:
    """Issues found inside the value at ``base`` as positioned problems (no repeats)."""
    found: dict[Problem, None] = {}  # ordered, and no quadratic search for repeats
    for issue in issues:
        path = base + issue.path
        at = doc.position(path, prefer_key=issue.prefer_key)
        line = at.line + issue.line_offset + (1 if path in doc.blocks else 0)  # a block's text starts below its '|'
        found[Problem(shown, line, at.column if line == at.line else 1, issue.message)] = None
    return list(found)


def _get(data: Any, path: DataPath) -> Any:
    for part in path:
        data = data[part]
    return data


def _check_cards(cards: Iterable[tuple[int, Any]], doc: YamlDocument, shown: str, verify: bool) -> list[Problem]:
    """What only each card's kind can judge (checker parameters, worked examples, cloze syntax)."""
    problems: list[Problem] = []
    for index, card in cards:
        if len(problems) > MAX_PROBLEMS:
            break  # a hostile deck: the first problems are listed, checking on would only take long
        base = ("cards", index)
        issues = kinds.of(card).check(card, verify, _get(doc.data, base))
        problems += _problems(issues, doc, base, shown)
    return problems


@dataclass
class Checked:
    """The outcome of validating one file: the deck if usable, its card lines, its problems."""

    path: Path
    deck: model.Deck | None
    lines: list[tuple[str, int]]
    problems: list[Problem]
    deck_id: tuple[str, int] | None = None  # the deck's id and its line, if the id is text


def card_lines(doc: YamlDocument) -> list[tuple[str, int]]:
    """(id, line) of every card that has a textual id, duplicates included."""
    cards = doc.data.get("cards") if isinstance(doc.data, dict) else None
    if not isinstance(cards, list):
        return []
    return [
        (card["id"], doc.position(("cards", i)).line)
        for i, card in enumerate(cards)
        if isinstance(card, dict) and isinstance(card.get("id"), str)
    ]


def deck_id(doc: YamlDocument) -> tuple[str, int] | None:
    """The deck's id and the line it is on, if it is text."""
    found = doc.data.get("id") if isinstance(doc.data, dict) else None
    return (found, doc.position(("id",)).line) if isinstance(found, str) else None


class _FirstErrors:
    """The first errors of a ValidationError: a hostile deck can hold hundreds of thousands, and
    ``issues_from`` compares each with those before it."""

    def __init__(self, error: ValidationError, limit: int) -> None:
        self._errors = error.errors(include_url=False)[:limit]

    def errors(self) -> list[Any]:
        return self._errors


def validate_text(text: str, path: Path, *, verify_examples: bool = True) -> Checked:
    """Validate one deck's text, collecting every problem rather than stopping at the first."""
    checked = _validate(text, path, verify_examples)
    if len(checked.problems) > MAX_PROBLEMS:  # a hostile deck can have one per value: list the first
        listed = [p for p in sorted(checked.problems) if p.message != _(UNLISTED)][:MAX_PROBLEMS]
        checked.problems = listed + [Problem(listed[-1].file, listed[-1].line, listed[-1].column, _(UNLISTED))]
    return checked


def _validate(text: str, path: Path, verify_examples: bool) -> Checked:
    from quizzer.decks.yamlsource import parse

    shown = display(path)
    doc = parse(text)
    problems = [Problem(shown, p.position.line, p.position.column, p.message) for p in doc.problems]
    checked = Checked(path, None, card_lines(doc), problems, deck_id(doc))
    checked.problems += duplicate_ids([(path, checked.lines)])
    if checked.deck_id is not None and checked.deck_id[0] == ARCHIVE_DECK:  # its cards would mix with those
        at = doc.position(("id",))
        checked.problems.append(Problem(shown, at.line, at.column, _(ARCHIVE_TAKEN).format(id=ARCHIVE_DECK)))
    if doc.data is None:
        if not checked.problems:
            checked.problems.append(Problem(shown, 1, 1, _("the deck file is empty")))
        return checked
    if not isinstance(doc.data, dict):
        checked.problems.append(Problem(shown, 1, 1, _("a deck is a mapping with id, title, language, source, cards")))
        return checked
    from pydantic import ValidationError

    from quizzer.decks import model
    from quizzer.kinds.messages import issues_from

    try:
        checked.deck = model.validate(doc.data)
        valid = list(enumerate(checked.deck.cards))
    except ValidationError as err:
        first = cast(ValidationError, _FirstErrors(err, MAX_PROBLEMS + 1))  # one more: UNLISTED says so
        checked.problems += _problems(issues_from(first, doc.data), doc, (), shown)
        valid = list(_valid_cards(doc.data))  # still check these: report every problem at once
    checked.problems += _check_cards(valid, doc, shown, verify_examples)
    return checked


def _valid_cards(data: Any) -> Iterator[tuple[int, Any]]:
    """(index, card) of the cards that are valid on their own in a deck that is not."""
    from pydantic import ValidationError

    from quizzer.kinds.pydantic_models import validate

    cards = data.get("cards") if isinstance(data, dict) else None
    for index, raw in enumerate(cards if isinstance(cards, list) else []):
        if isinstance(raw, dict) and raw.get("kind") in kinds.KINDS:
            try:
                yield index, validate(kinds.get(raw["kind"]).model, raw)
            except ValidationError:
                pass  # its problems are reported with the deck's


def duplicate_ids(decks: Iterable[tuple[Path, Iterable[tuple[str, int]]]], what: str = "card",
                  report: set[Path] | None = None) -> list[Problem]:
    """An id used twice: card ids must be unique across all decks (review history hangs on
    them), deck ids too (``--deck`` names one). Each repeat is reported naming the first place.

    With ``report``, only problems in those files are wanted; a clash between one of them and
    another file is then reported in the one reported, naming the other.
    """
    places: dict[str, list[tuple[Path, int]]] = {}
    for path, lines in decks:
        for name, line in lines:
            places.setdefault(name, []).append((path, line))
    problems: list[Problem] = []
    for name, found in places.items():
        if len(found) < 2:
            continue
        reported = [i for i, (path, _line) in enumerate(found) if report is None or path in report]
        for i in reported:
            if i == 0 and len(found) > 1 and len(reported) == 1:
                other = found[1]  # the first place, clashing with files not reported on
            elif i > 0:
                other = found[0]
            else:
                continue
            path, line = found[i]
            message = _("duplicate deck id '{id}' (also at {place})") if what == "deck" else _("duplicate card id '{id}' (also at {place})")
            problems.append(Problem(display(path), line, 1, message.format(id=name, place=f"{display(other[0])}:{other[1]}")))
    return problems
