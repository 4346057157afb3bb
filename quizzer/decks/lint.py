"""Linting deck files: every problem in the given files and folders, duplicate ids across
files included, and the ids a deck about to be written would share with its folder; besides the
problems, warnings that fail nothing: a question another deck already asks or nearly asks, and a card flagged
``course-error`` (a number or a claim the course gets wrong, drafted by ``quiz import chapter``) until it is
reviewed."""

from __future__ import annotations

import os
import re
import unicodedata
from pathlib import Path
from typing import Any, Iterable

from quizzer.decks.files import DECK_SUFFIXES, deck_files, display, read_file
from quizzer.decks.problems import Problem, in_order
from quizzer.decks.validate import card_lines, deck_id, duplicate_ids, validate_text
from quizzer.base.i18n import _, join


def _identity(path: Path) -> str:
    """One name for a path however it is written (``decks/../decks/a.yaml`` is ``decks/a.yaml``).

    Not its inode: a symlink next to its target is a second deck file, loaded twice.
    """
    return os.path.normcase(os.path.abspath(path))


def _siblings(files: list[Path]) -> list[Path]:
    """The other deck files in the folders of ``files``: the decks they will be loaded with. A
    folder among ``files`` (one refused as it leads out of the repository) has no siblings."""
    known = {_identity(f) for f in files}
    found: list[Path] = []
    for folder in dict.fromkeys(f.parent for f in files if not f.is_dir()):
        if folder.is_dir():
            for path in deck_files([folder]):
                if _identity(path) not in known:
                    known.add(_identity(path))
                    found.append(path)
    return found


def shared_id(text: str, path: Path) -> tuple[str, str, Path] | None:
    """The first id the deck ``text``, to be written at ``path``, would share with another deck
    file in its folder: ("deck", its id, that file), else ("card", ...). Written, it would stop
    every command on that folder ("duplicate deck id"), as ``load_usable`` refuses it."""
    from quizzer.decks.yamlsource import parse

    doc = parse(text)
    others = [(other, parse(other_text)) for other in _siblings([path]) if (other_text := read_file(other)[0]) is not None]
    mine = deck_id(doc)
    for other, theirs in others:
        if mine is not None and (found := deck_id(theirs)) is not None and found[0] == mine[0]:
            return "deck", mine[0], other
    cards = {card_id for card_id, _line in card_lines(doc)}
    for other, theirs in others:
        for card_id, _line in card_lines(theirs):
            if card_id in cards:
                return "card", card_id, other
    return None


def lint(paths: Iterable[Path]) -> list[Problem]:
    """Every problem in the given deck files and folders, duplicate ids across files included.

    The ids are also checked against the other deck files in the same folders (the decks a
    given file will be loaded with), though only the given files' problems are reported.
    """
    from quizzer.decks.yamlsource import parse

    problems: list[Problem] = []
    card_ids: list[tuple[Path, list[tuple[str, int]]]] = []
    deck_ids: list[tuple[Path, list[tuple[str, int]]]] = []
    paths = list(paths)
    unique: dict[str, Path] = {}
    for path in deck_files(paths):
        unique.setdefault(_identity(path), path)  # each file once, however often it is named
    files = list(unique.values())
    if not files:
        shown = ", ".join(display(p) for p in paths) or "."  # the file field of FILE:LINE:COL: a list of paths, not prose
        return [Problem(shown, 1, 1, _("no deck files ({patterns}) found").format(patterns=join("*" + s for s in DECK_SUFFIXES)))]
    for path in files:
        text, _raw, found = read_file(path)
        problems += found
        if text is not None:
            checked = validate_text(text, path)
            problems += checked.problems
            first_lines = {card_id: line for card_id, line in reversed(checked.lines)}
            card_ids.append((path, list(first_lines.items())))  # repeats inside a file are reported already
            deck_ids.append((path, [checked.deck_id] if checked.deck_id else []))
    for path in _siblings(files):  # read for their ids only; their own problems are not asked for
        text = read_file(path)[0]
        if text is not None:
            doc = parse(text)
            card_ids.append((path, list({card_id: line for card_id, line in reversed(card_lines(doc))}.items())))
            deck_ids.append((path, [their_id] if (their_id := deck_id(doc)) else []))
    named = set(files)
    problems += duplicate_ids(card_ids, "card", named) + duplicate_ids(deck_ids, "deck", named)
    return in_order(problems)


COURSE_ERROR = "course-error"  # the tag of a drafted card where the course states a wrong number or a known wrong claim
_FIRST_FIELDS = ("question", "claim", "text")  # a card's question, whatever its kind: what Anki's duplicate check reads
_NOT_WORDS = re.compile(r"[\W_]+")


def question_key(card: Any) -> str | None:
    """The card's question as a duplicate check compares it: width, case, spaces and punctuation
    set aside (``BERT 和 GPT 的核心区别？`` is ``bert和gpt的核心区别``)."""
    if not isinstance(card, dict):
        return None
    text = next((card[name] for name in _FIRST_FIELDS if isinstance(card.get(name), str)), None)
    return _NOT_WORDS.sub("", unicodedata.normalize("NFKC", text).casefold()) or None if text else None


def _cards(path: Path) -> list[tuple[dict[str, Any], int]]:
    """The cards of a deck file with their lines; none for a file that cannot be read."""
    from quizzer.decks.yamlsource import parse

    text = read_file(path)[0]
    if text is None:
        return []
    doc = parse(text)
    cards = doc.data.get("cards") if isinstance(doc.data, dict) else None
    return [(card, doc.position(("cards", i)).line) for i, card in enumerate(cards if isinstance(cards, list) else [])
            if isinstance(card, dict) and isinstance(card.get("id"), str)]


NEAR = 0.9  # questions this alike (difflib's ratio of their keys) count as the same question


def _asked(key: str, asked: dict[str, tuple[str, Path]]) -> tuple[str, Path] | None:
    """The card of ``asked`` whose question is ``key``'s, or one at least NEAR alike (``是如何组合的``
    and ``是怎样组合的``)."""
    if key in asked:
        return asked[key]
    from difflib import SequenceMatcher

    matcher = SequenceMatcher(None, b=key, autojunk=False)  # b is the side difflib prepares once
    for other, found in asked.items():
        matcher.set_seq1(other)
        if matcher.real_quick_ratio() >= NEAR and matcher.quick_ratio() >= NEAR and matcher.ratio() >= NEAR:
            return found
    return None


def _twins(cards: list[dict[str, Any]], others: list[tuple[Path, list[dict[str, Any]]]]) -> dict[str, tuple[str, Path]]:
    """card id -> (the other deck's card asking its question or one near it, that deck's file)."""
    asked: dict[str, tuple[str, Path]] = {}
    for other, theirs in others:
        for card in theirs:
            if (key := question_key(card)) is not None:
                asked.setdefault(key, (card["id"], other))
    return {card["id"]: found for card in cards if (key := question_key(card)) is not None and (found := _asked(key, asked))}


def asked_elsewhere(cards: list[dict[str, Any]], target: Path) -> list[tuple[str, str, Path]]:
    """(card id, the other deck's card, its file) for each of ``cards``, to be written at
    ``target``, whose question a deck file of its folder asks (spaces, width, case and punctuation
    aside) or nearly asks (``NEAR``)."""
    others = [(other, [card for card, _line in _cards(other)]) for other in _siblings([target])]
    return [(card_id, twin, other) for card_id, (twin, other) in _twins(cards, others).items()]


def warnings(paths: Iterable[Path]) -> list[Problem]:
    """What ``quiz lint`` says without failing: a card whose question a card of another deck file
    asks (across the given files and their folders), and a card still tagged ``course-error``."""
    files = list({_identity(path): path for path in deck_files(list(paths))}.values())
    read = [(path, _cards(path)) for path in files + _siblings(files)]
    found: list[Problem] = []
    for path, mine in read[: len(files)]:
        others = [(other, [card for card, _line in theirs]) for other, theirs in read if other is not path]
        twins = _twins([card for card, _line in mine], others)
        for card, line in mine:
            if card["id"] in twins:
                twin, other = twins[card["id"]]
                found.append(Problem(display(path), line, 1, _("warning: card {id} asks the same question as card {twin} in {other}").format(
                    id=card["id"], twin=twin, other=display(other))))
            if COURSE_ERROR in (card.get("tags") or []):
                found.append(Problem(display(path), line, 1, _(
                    "warning: card {id} is tagged {tag}: the course states a number the checker computes otherwise or "
                    "a claim its sources contradict; check the card's correction and remove the tag").format(id=card["id"], tag=COURSE_ERROR)))
    return in_order(found)
