"""The decks as files, without the database: checking them (``quiz lint``), the format they are
checked against (``quiz schema``), what each holds (``quiz decks``) and a numeric card's question
(``quiz generate --card``); a card edited in the learner's editor (``quiz edit``)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from collections.abc import Callable
from typing import TYPE_CHECKING

from quizzer.decks import LoadedDeck, Problem
from quizzer.base.errors import DeckProblems, NoDecks, UnknownName, UsageError, problems_counted
from quizzer.base.i18n import _
from quizzer.kinds import KINDS

if TYPE_CHECKING:
    from checkers.base import Question

    from quizzer.app.collection import Collection

__all__ = ["Checked", "DeckKinds", "LoadedDeck", "Problem", "card_question", "chosen_decks", "json_schema", "kinds_held",
           "lint", "edit_card", "EditRefused"]


@dataclass(frozen=True)
class Checked:
    """What ``lint`` looked at and found: the problems, the deck files (each once) and, when they
    are clean, the cards they hold (None: a file changed while being checked)."""

    problems: list[Problem]
    files: int
    cards: int | None
    warnings: list[Problem] = field(default_factory=list)  # what fails nothing: questions other decks ask, numbers flagged course-error


def lint(paths: list[Path]) -> Checked:
    """Every problem in the deck files and folders ``paths``; clean, the files and cards checked
    (the decks are loaded, so the next command finds them cached)."""
    from quizzer import decks

    problems = decks.lint(paths)
    if problems:
        return Checked(problems, 0, None)
    files = list({Path(os.path.realpath(path)): path for path in decks.deck_files(paths)}.values())
    try:
        cards: int | None = sum(len(loaded.entries) for loaded in decks.load_decks(files))
    except DeckProblems:  # changed while being checked: the files only
        cards = None
    return Checked([], len(files), cards, decks.warnings(paths))


def json_schema() -> str:
    """The JSON Schema of the deck format (decks/schema.json is this text)."""
    from quizzer.decks.model import json_schema as schema

    return schema()


@dataclass(frozen=True)
class DeckKinds:
    """A deck and how many cards of each kind (all of ``KINDS``, in their order) it holds."""

    deck: str
    title: str
    path: Path
    kinds: dict[str, int]
    total: int


def kinds_held(decks: list[LoadedDeck]) -> list[DeckKinds]:
    return [DeckKinds(loaded.id, loaded.title, loaded.path,
                      {kind: sum(entry.kind == kind for entry in loaded.entries) for kind in KINDS}, len(loaded.entries))
            for loaded in decks]


def card_question(decks: list[LoadedDeck], card_id: str, seed: int) -> Question:
    """The question study draws for the numeric card ``card_id`` (or its short id) from ``seed`` (its kind's ask,
    with the card's params); CardNotFound, or a UsageError for a card of another kind."""
    from quizzer import kinds
    from quizzer.app.short_ids import resolve

    card_id = resolve(card_id, [e.id for d in decks for e in d.entries])  # a short id too; CardNotFound
    owner = next(d for d in decks if any(e.id == card_id for e in d.entries))
    card = owner.card(card_id)
    if not kinds.of(card).generated:
        raise UsageError(_("card '{card}' is not a generated (numeric) card").format(card=card_id),
                         _("`quiz show {card}` shows it").format(card=card_id))
    question: Question = kinds.of(card).ask(card, seed).drawn.question()
    return question


def chosen_decks(decks: list[LoadedDeck], names: list[str] | None) -> list[LoadedDeck]:
    """The decks ``names`` names (all, without names); an unknown name is an error listing the
    known ones, and no decks at all is NoDecks, as in an exam: nothing is made of no cards."""
    if not decks:
        raise NoDecks()
    known = [loaded.deck.id for loaded in decks]
    for name in names or []:
        if name not in known:
            raise UnknownName("deck", name, known)
    return [loaded for loaded in decks if not names or loaded.deck.id in names]


class EditRefused(DeckProblems):
    """An edit that left its deck file with problems (listed above the error line): the file is put
    back as it was (exit 1)."""

    def __init__(self, problems: list[Problem], path: Path, card_id: str) -> None:
        super().__init__(problems)
        self.args = (_("the edit left {file} with {problems}: the file is put back as it was").format(
            file=path, problems=problems_counted(problems)) if problems else
            _("the edit took {file} away: it is put back as it was").format(file=path),)
        self.hint = _("`quiz edit {card}` opens it again").format(card=card_id)


def edit_card(collection: Collection, card_id: str, editor: Callable[[Path, int], None]) -> bool:
    """Open the deck file of ``card_id`` (or its short id, or the start of its id) in ``editor`` at
    the card's line, then check the file as ``quiz lint`` does and load the decks again (as study's
    ``e`` does). A file left with problems, or taken away, is put back as it was, byte for byte, and
    EditRefused lists the problems. Whether the file changed."""
    from quizzer.app.short_ids import resolve
    from quizzer.base.files import write_whole

    card_id = resolve(card_id, collection.cards)
    path, line = collection.location(card_id)
    before = path.read_bytes()
    editor(path, line)
    after = path.read_bytes() if path.is_file() else None
    if after == before:
        return False
    try:
        problems = lint([path]).problems if after is not None else []
        if problems or after is None:
            raise EditRefused(problems, path, card_id)
        collection.reload()  # ids another deck has too, and the store's cards as edited
    except DeckProblems as err:
        write_whole(path, before)
        if isinstance(err, EditRefused):
            raise
        raise EditRefused(err.problems, path, card_id) from None
    return True
