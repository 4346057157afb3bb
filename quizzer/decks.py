"""Finding, validating and loading deck files.

Validation reports every problem it can find as ``path:line:column: message`` and keeps
going, because a contributor fixing a pull request wants the whole list at once. Loading
for study caches validated decks by file content, so starting ``quiz`` does not re-parse
YAML that has not changed.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Iterator

from pydantic import ValidationError

from quizzer import kinds, model
from quizzer.errors import DeckProblems
from quizzer.kinds.base import Issue
from quizzer.kinds.validation import issues_from
from quizzer.yamlsource import Path as DataPath
from quizzer.yamlsource import YamlDocument, parse

DECK_SUFFIXES = (".yaml", ".yml")


@dataclass(frozen=True, order=True)
class Problem:
    file: str
    line: int
    column: int
    message: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}: {self.message}"

    def github(self) -> str:
        message = self.message.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
        return f"::error file={self.file},line={self.line},col={self.column}::{message}"


@dataclass
class LoadedDeck:
    """A valid deck, the file it came from, and the line each card starts on."""

    path: Path
    deck: model.Deck
    lines: dict[str, int] = field(default_factory=dict)


def bundled_decks() -> Path:
    """The decks shipped with quizzer: the checkout's ``decks/``, else the wheel's copy."""
    package = Path(__file__).resolve().parent
    checkout = package.parent / "decks"
    return checkout if checkout.is_dir() else package / "bundled_decks"


def deck_dirs(option: Path | None = None) -> list[Path]:
    """``--decks`` wins, then ``QUIZ_DECKS`` (os.pathsep-separated), then the bundled decks."""
    if option is not None:
        return [option]
    env = os.environ.get("QUIZ_DECKS")
    if env:
        return [Path(p) for p in env.split(os.pathsep) if p]
    return [bundled_decks()]


def deck_files(paths: Iterable[Path]) -> list[Path]:
    files: list[Path] = []
    for path in paths:
        if path.is_dir():
            files.extend(sorted(p for p in path.iterdir() if p.suffix in DECK_SUFFIXES))
        else:
            files.append(path)
    return files


def display(path: Path) -> str:
    """A path as a contributor would type it: relative to the working directory if inside."""
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)


# ---------------------------------------------------------------- validation


def _problems(issues: Iterable[Issue], doc: YamlDocument, base: DataPath, shown: str) -> list[Problem]:
    """Issues found inside the value at ``base`` as positioned problems (no repeats)."""
    found: list[Problem] = []
    for issue in issues:
        path = base + issue.path
        at = doc.position(path, prefer_key=issue.prefer_key)
        line = at.line + issue.line_offset + (1 if path in doc.blocks else 0)  # a block's text starts below its '|'
        problem = Problem(shown, line, at.column if line == at.line else 1, issue.message)
        if problem not in found:
            found.append(problem)
    return found


def _get(data: Any, path: DataPath) -> Any:
    for part in path:
        data = data[part]
    return data


def _check_cards(cards: Iterable[tuple[int, Any]], doc: YamlDocument, shown: str, verify: bool) -> list[Problem]:
    """What only each card's kind can judge (checker parameters, worked examples, cloze syntax)."""
    problems: list[Problem] = []
    for index, card in cards:
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

    def loaded(self) -> LoadedDeck | None:
        return LoadedDeck(self.path, self.deck, dict(self.lines)) if self.deck and not self.problems else None


def _card_lines(doc: YamlDocument) -> list[tuple[str, int]]:
    """(id, line) of every card that has a textual id, duplicates included."""
    cards = doc.data.get("cards") if isinstance(doc.data, dict) else None
    if not isinstance(cards, list):
        return []
    return [
        (card["id"], doc.position(("cards", i)).line)
        for i, card in enumerate(cards)
        if isinstance(card, dict) and isinstance(card.get("id"), str)
    ]


def validate_text(text: str, path: Path, *, verify_examples: bool = True) -> Checked:
    """Validate one deck's text, collecting every problem rather than stopping at the first."""
    shown = display(path)
    doc = parse(text)
    checked = Checked(path, None, _card_lines(doc), [Problem(shown, p.position.line, p.position.column, p.message) for p in doc.problems])
    checked.problems += duplicate_ids([(path, checked.lines)])
    if doc.data is None:
        if not checked.problems:
            checked.problems.append(Problem(shown, 1, 1, "the deck file is empty"))
        return checked
    if not isinstance(doc.data, dict):
        checked.problems.append(Problem(shown, 1, 1, "a deck is a mapping with id, title, language, source, cards"))
        return checked
    try:
        checked.deck = model.Deck.model_validate(doc.data)
        valid = list(enumerate(checked.deck.cards))
    except ValidationError as err:
        checked.problems += _problems(issues_from(err, doc.data), doc, (), shown)
        valid = list(_valid_cards(doc.data))  # still check these: report every problem at once
    checked.problems += _check_cards(valid, doc, shown, verify_examples)
    return checked


def _valid_cards(data: Any) -> Iterator[tuple[int, Any]]:
    """(index, card) of the cards that are valid on their own in a deck that is not."""
    cards = data.get("cards") if isinstance(data, dict) else None
    for index, raw in enumerate(cards if isinstance(cards, list) else []):
        if isinstance(raw, dict) and raw.get("kind") in kinds.KINDS:
            try:
                yield index, kinds.get(raw["kind"]).model.model_validate(raw)
            except ValidationError:
                pass  # its problems are reported with the deck's


def _read(path: Path) -> tuple[str | None, bytes | None, list[Problem]]:
    """The file's text (and bytes, the cache key), or the problem that stops reading it."""
    try:
        raw = path.read_bytes()
    except OSError as err:
        return None, None, [Problem(display(path), 1, 1, f"cannot read: {err.strerror}")]
    try:
        return raw.decode("utf-8"), raw, []
    except UnicodeDecodeError as err:
        line = raw[: err.start].count(b"\n") + 1
        return None, raw, [Problem(display(path), line, 1, "the file is not UTF-8")]


def duplicate_ids(decks: Iterable[tuple[Path, Iterable[tuple[str, int]]]]) -> list[Problem]:
    """A card id must be unique across all decks: review history hangs on it."""
    seen: dict[str, tuple[Path, int]] = {}
    problems: list[Problem] = []
    for path, lines in decks:
        for card_id, line in lines:
            if card_id in seen:
                first, first_line = seen[card_id]
                problems.append(Problem(display(path), line, 1, f"duplicate card id '{card_id}' (also at {display(first)}:{first_line})"))
            else:
                seen[card_id] = (path, line)
    return problems


def lint(paths: Iterable[Path]) -> list[Problem]:
    """Every problem in the given deck files and folders, duplicate ids across files included."""
    problems: list[Problem] = []
    lines: list[tuple[Path, list[tuple[str, int]]]] = []
    paths = list(paths)
    files = deck_files(paths)
    if not files:
        shown = ", ".join(display(p) for p in paths) or "."
        return [Problem(shown, 1, 1, f"no deck files ({', '.join('*' + s for s in DECK_SUFFIXES)}) found")]
    for path in files:
        text, _, found = _read(path)
        problems += found
        if text is not None:
            checked = validate_text(text, path)
            problems += checked.problems
            first_lines = {card_id: line for card_id, line in reversed(checked.lines)}
            lines.append((path, list(first_lines.items())))  # repeats inside a file are reported already
    return sorted(problems + duplicate_ids(lines))


# ---------------------------------------------------------------- loading with a cache


def cache_dir() -> Path:
    env = os.environ.get("QUIZ_CACHE_DIR")
    if env:
        return Path(env)
    import platformdirs

    return Path(platformdirs.user_cache_dir("quizzer")) / "decks"


_MODEL_FINGERPRINT = hashlib.sha256(Path(model.__file__).read_bytes()).hexdigest()[:16]


def _cache_path(raw: bytes) -> Path:
    key = hashlib.sha256(_MODEL_FINGERPRINT.encode() + b"\0" + raw).hexdigest()
    return cache_dir() / f"{key}.json"


def _load_one(path: Path) -> LoadedDeck:
    text, raw, problems = _read(path)
    if text is None or raw is None:
        raise DeckProblems(problems)
    cached = _cache_path(raw)
    try:
        stored = json.loads(cached.read_text("utf-8"))
        return LoadedDeck(path, model.Deck.model_validate(stored["deck"]), stored["lines"])
    except (OSError, ValueError, KeyError):
        pass  # not cached yet, or cached by another format version: parse again
    checked = validate_text(text, path, verify_examples=False)
    loaded = checked.loaded()
    if loaded is None:
        raise DeckProblems(checked.problems)
    try:
        cached.parent.mkdir(parents=True, exist_ok=True)
        tmp = cached.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps({"deck": loaded.deck.model_dump(mode="json"), "lines": loaded.lines}, ensure_ascii=False), "utf-8")
        tmp.replace(cached)
    except OSError:
        pass  # an unwritable cache only costs speed
    return loaded


def load_decks(dirs: Iterable[Path]) -> list[LoadedDeck]:
    """All decks in ``dirs``; raises :class:`DeckProblems` listing the problems of unusable ones."""
    decks: list[LoadedDeck] = []
    problems: list[Problem] = []
    for path in deck_files(dirs):
        try:
            decks.append(_load_one(path))
        except DeckProblems as err:
            problems += err.problems
    problems += duplicate_ids((d.path, d.lines.items()) for d in decks)
    if problems:
        raise DeckProblems(sorted(problems))
    return decks
