"""Finding, validating and loading deck files.

Validation reports every problem it can find as ``path:line:column: message`` and keeps
going, because a contributor fixing a pull request wants the whole list at once. Loading
for study caches validated decks by file content, so starting ``quiz`` does not re-parse
YAML that has not changed.

Deck files come from pull requests, so reading them assumes nothing: only regular files are
opened (a symlink is followed, but a FIFO or a device never opened), a file larger than
:data:`MAX_DECK_BYTES` is refused from its size before it is read, and the read itself stops
there. The YAML limits (depth, values, text length, control characters) are in ``yamlsource``.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import stat
import time
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, Iterable, Iterator, cast

from quizzer import deck_cache, kinds
from quizzer.defaults import ARCHIVE_DECK, ARCHIVE_TAKEN
from quizzer.errors import MAX_PROBLEMS, UNLISTED, DeckProblems, os_reason, printable
from quizzer.files import special_kind
from quizzer.i18n import _, join
from quizzer.locations import bundled_decks, deck_dirs  # noqa: F401  # where commands and tests find them

if TYPE_CHECKING:  # pydantic and the YAML parser load only when a deck is validated
    from pydantic import ValidationError

    from quizzer import model
    from quizzer.kinds.base import Issue
    from quizzer.yamlsource import Path as DataPath
    from quizzer.yamlsource import YamlDocument

DECK_SUFFIXES = (".yaml", ".yml")
MAX_DECK_BYTES = 8_000_000  # the shipped decks are 60, 74 and 9 kB; bench/bench_decks.py's 10,000 cards are 5.5 MB


@dataclass(frozen=True, order=True)
class Problem:
    file: str
    line: int
    column: int
    message: str

    def __str__(self) -> str:  # file names and messages can quote a hostile deck: one line, no control characters
        return f"{printable(self.file)}:{self.line}:{self.column}: {printable(self.message)}"

    def github(self) -> str:
        message = self.message.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
        file = self.file.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A").replace(":", "%3A").replace(",", "%2C")
        return f"::error file={printable(file)},line={self.line},col={self.column}::{printable(message)}"


def _digest(entries: list[CardEntry]) -> str:
    digest = hashlib.sha256()
    for entry in entries:
        digest.update(repr((entry.id, entry.kind, entry.content_hash, sorted(set(entry.tags)))).encode())
    return digest.hexdigest()


def content_hash(card_json: dict[str, Any]) -> str:
    """A card's content as the store tells an edited card (its JSON, keys sorted)."""
    return hashlib.sha256(json.dumps(card_json, ensure_ascii=False, sort_keys=True).encode()).hexdigest()[:16]


@dataclass(frozen=True)
class CardEntry:
    """What every command needs of a card without validating it again."""

    id: str
    kind: str
    tags: tuple[str, ...]
    content_hash: str


_COLUMNS = ("ids", "kinds", "tags", "hashes", "lines")


@dataclass
class LoadedDeck:
    """A valid deck, the file it came from, the line each card starts on and the line of its id.

    A deck read from the cache is an index until a command needs more: ``ids``, ``tags`` and
    ``digest`` cost one small JSON read, ``entries`` and ``lines`` are built from the index on
    first use, ``card(id)`` builds one card from the cached JSON, and ``deck`` the whole deck,
    so listing, syncing and drawing the first card never validate 50,000 cards or build an
    object for each. The index keeps each per-card column as one string, a line per card in
    deck order (``columns``: ids, kinds, space-separated tags, content hashes, lines), which
    JSON reads at the speed of one string. The cached deck is JSON Lines (the deck without its
    cards, then a card per line in deck order), so a card is decoded alone: the browser's due
    cards of twelve large decks decode those cards, not every card of every deck."""

    path: Path
    id: str
    title: str
    language: str
    columns: dict[str, str] = field(repr=False)
    id_line: int = 1
    digest: str = ""  # of the entries in order: the store's sync compares it, not 50,000 cards
    data_file: Path | None = field(default=None, repr=False)  # the cached deck (JSON Lines), not read yet
    validated: model.Deck | None = field(default=None, repr=False)
    _cards: dict[str, Any] = field(default_factory=dict, repr=False)
    _raw: list[str] | None = field(default=None, repr=False)  # the cached deck's lines

    @classmethod
    def from_model(cls, path: Path, deck: model.Deck, lines: dict[str, int], id_line: int) -> LoadedDeck:
        entries = [CardEntry(c.id, c.kind, tuple(c.tags), content_hash(c.to_json())) for c in deck.cards]
        columns = {"ids": [e.id for e in entries], "kinds": [e.kind for e in entries],
                   "tags": [" ".join(e.tags) for e in entries], "hashes": [e.content_hash for e in entries],
                   "lines": [str(lines.get(e.id, 1)) for e in entries]}
        return cls(path, deck.id, deck.title, deck.language, {name: "\n".join(column) for name, column in columns.items()},
                   id_line, _digest(entries), validated=deck)

    @classmethod
    def from_index(cls, path: Path, index: dict[str, Any], data_file: Path) -> LoadedDeck:
        columns = {name: index[name] for name in _COLUMNS}
        if not all(isinstance(column, str) for column in columns.values()):
            raise TypeError("not an index of this version")
        return cls(path, index["id"], index["title"], index["language"], columns, index["id_line"], index["digest"],
                   data_file)

    def index(self) -> dict[str, Any]:
        return {"id": self.id, "title": self.title, "language": self.language, "id_line": self.id_line,
                "digest": self.digest, **self.columns}

    @cached_property
    def ids(self) -> list[str]:
        """The card ids in deck order (ids are single words: one line each)."""
        return self.columns["ids"].split("\n")

    @cached_property
    def tags(self) -> set[str]:
        """Every tag a card of this deck has."""
        return set(self.columns["tags"].split())

    @cached_property
    def entries(self) -> list[CardEntry]:
        columns = [self.columns[name].split("\n") for name in ("kinds", "tags", "hashes")]
        return [CardEntry(card_id, kind, tuple(tags.split()), hash_) for card_id, kind, tags, hash_ in zip(self.ids, *columns)]

    @cached_property
    def lines(self) -> dict[str, int]:
        """The line each card starts on."""
        return dict(zip(self.ids, map(int, self.columns["lines"].split("\n"))))

    @cached_property
    def _positions(self) -> dict[str, int]:
        return {card_id: i for i, card_id in enumerate(self.ids)}

    @property
    def deck(self) -> model.Deck:
        if self.validated is None:
            from quizzer import model

            try:
                self.validated = model.Deck.from_json(self._data())
            except ValueError:  # a damaged cache line (pydantic's errors are ValueErrors too)
                self.validated = _load_one(self.path, use_cache=False).deck
        return self.validated

    def _lines(self) -> list[str]:
        """The cached deck's lines; if the cache lost them since, or has not a line per card of
        the index, the deck's own file is read again."""
        if self._raw is None:
            try:
                assert self.data_file is not None
                lines = self.data_file.read_text("utf-8").split("\n")
                if len(lines) != len(self.ids) + 1:
                    raise ValueError("not this index's cards")
            except (OSError, ValueError):
                lines = deck_cache.data_lines(_load_one(self.path, use_cache=False).deck.to_json())
            self._raw = lines
        return self._raw

    def _data(self) -> dict[str, Any]:
        """The whole deck's JSON, from the cached lines."""
        lines = self._lines()
        data: dict[str, Any] = json.loads(lines[0])
        data["cards"] = [json.loads(line) for line in lines[1:]]
        return data

    def card(self, card_id: str) -> Any:
        """The card of ``card_id`` (a card of this deck), built from its cached line on first use;
        a line that is not that card (a damaged cache) gives way to the deck file."""
        if card_id not in self._cards:
            if self.validated is None:
                try:
                    raw = json.loads(self._lines()[self._positions[card_id] + 1])
                    if raw["id"] != card_id:
                        raise ValueError("another card's line")
                    self._cards[card_id] = kinds.get(raw["kind"]).model.from_json(raw)
                    return self._cards[card_id]
                except (ValueError, KeyError, TypeError):
                    self.validated = _load_one(self.path, use_cache=False).deck
            self._cards = {c.id: c for c in self.validated.cards}
        return self._cards[card_id]


def deck_files(paths: Iterable[Path]) -> list[Path]:
    files: list[Path] = []
    for path in paths:
        if path.is_dir():
            files.extend(sorted(p for p in path.iterdir() if p.suffix in DECK_SUFFIXES))
        else:
            files.append(path)
    return files


def display(path: Path) -> str:
    """A path as a contributor would type it: relative to the working directory if inside.

    The file keeps its own name even when it is a symlink (and a symlink loop is no error here).
    """
    try:
        return str((Path(os.path.realpath(path.parent)) / path.name).relative_to(Path.cwd()))
    except (ValueError, OSError):
        return str(path)


# ---------------------------------------------------------------- validation


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

    def loaded(self) -> LoadedDeck | None:
        if not self.deck or self.problems:
            return None
        return LoadedDeck.from_model(self.path, self.deck, dict(self.lines), self.deck_id[1] if self.deck_id else 1)


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


def _deck_id(doc: YamlDocument) -> tuple[str, int] | None:
    """The deck's id and the line it is on, if it is text."""
    deck_id = doc.data.get("id") if isinstance(doc.data, dict) else None
    return (deck_id, doc.position(("id",)).line) if isinstance(deck_id, str) else None


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
    from quizzer.yamlsource import parse

    shown = display(path)
    doc = parse(text)
    problems = [Problem(shown, p.position.line, p.position.column, p.message) for p in doc.problems]
    checked = Checked(path, None, _card_lines(doc), problems, _deck_id(doc))
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

    from quizzer import model
    from quizzer.kinds.validation import issues_from

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

    from quizzer.kinds.validating import validate

    cards = data.get("cards") if isinstance(data, dict) else None
    for index, raw in enumerate(cards if isinstance(cards, list) else []):
        if isinstance(raw, dict) and raw.get("kind") in kinds.KINDS:
            try:
                yield index, validate(kinds.get(raw["kind"]).model, raw)
            except ValidationError:
                pass  # its problems are reported with the deck's


_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)


def _inside(target: str, folder: str) -> bool:
    """Whether ``target`` is in ``folder`` or below it: a deck from a pull request must not
    link to a file elsewhere on the machine that checks it (lint would quote it)."""
    try:
        return os.path.commonpath([target, folder]) == folder
    except ValueError:  # different drives
        return False


def _is_symlink(path: Path) -> bool:
    try:
        return stat.S_ISLNK(os.lstat(path).st_mode)
    except OSError:
        return False


def _not_regular(path: Path, mode: int) -> str:
    what = special_kind(mode)
    if _is_symlink(path):
        return _("not a regular file (a symlink to {what}); a deck is a plain file").format(what=what)
    return _("not a regular file ({what}); a deck is a plain file").format(what=what)


def _read_bytes(path: Path) -> bytes | str:
    """The bytes of a regular file of at most MAX_DECK_BYTES, or why it is not read.

    A FIFO or a device is never opened (the type is checked before), the open does not block
    (O_NONBLOCK, in case the file was swapped since), the read stops past the limit, and a
    symlink is followed only within its folder.
    """
    try:
        info = os.stat(path)  # follows symlinks; a loop is ELOOP
        if not stat.S_ISREG(info.st_mode):
            return _not_regular(path, info.st_mode)
        if _is_symlink(path) and not _inside(os.path.realpath(path), os.path.realpath(path.parent)):
            return _("a symlink to a file outside its folder; a deck file stays in the deck folder (copy it in)")
        if info.st_size > MAX_DECK_BYTES:
            return _too_large(info.st_size)
        fd = os.open(path, _OPEN_FLAGS)
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                return _not_regular(path, info.st_mode)
            chunks: list[bytes] = []
            size = 0
            while size <= MAX_DECK_BYTES:
                chunk = os.read(fd, min(1 << 20, MAX_DECK_BYTES + 1 - size))
                if not chunk:
                    break
                chunks.append(chunk)
                size += len(chunk)
        finally:
            os.close(fd)
    except OSError as err:
        if err.errno == errno.ELOOP:
            return _("symlink loop")
        if err.errno == errno.ENOENT and _is_symlink(path):
            return _("symlink to a file that does not exist")
        return _("cannot read: {reason}").format(reason=os_reason(err))
    if size > MAX_DECK_BYTES:  # it grew since, or its size said 0 (/proc)
        return _too_large(None)
    return b"".join(chunks)


def _too_large(size: int | None) -> str:
    limit = MAX_DECK_BYTES // 1_000_000
    if size is None:
        return _("the file is larger than the {limit} MB a deck may be; split it").format(limit=limit)
    return _("the file is {size} MB, larger than the {limit} MB a deck may be; split it").format(size=f"{size / 1e6:.1f}", limit=limit)


def read_stream(stream: BinaryIO, path: Path) -> tuple[str | None, bytes | None, list[Problem]]:
    """As ``_read``, from a stream already open (standard input) that ``path`` names in messages."""
    raw = stream.read(MAX_DECK_BYTES + 1)
    if len(raw) > MAX_DECK_BYTES:
        return None, None, [Problem(str(path), 1, 1, _too_large(None))]
    text, problems = _decode(path, raw)
    return text, raw, problems


def _read(path: Path) -> tuple[str | None, bytes | None, list[Problem]]:
    """The file's text (and bytes, the cache key), or the problem that stops reading it."""
    raw = _read_bytes(path)
    if isinstance(raw, str):
        return None, None, [Problem(display(path), 1, 1, raw)]
    text, problems = _decode(path, raw)
    return text, raw, problems


def _decode(path: Path, raw: bytes) -> tuple[str | None, list[Problem]]:
    try:
        return raw.decode("utf-8"), []
    except UnicodeDecodeError as err:
        line = raw[: err.start].count(b"\n") + 1
        return None, [Problem(display(path), line, 1, _("the file is not UTF-8"))]


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


def _identity(path: Path) -> str:
    """One name for a path however it is written (``decks/../decks/a.yaml`` is ``decks/a.yaml``).

    Not its inode: a symlink next to its target is a second deck file, loaded twice.
    """
    return os.path.normcase(os.path.abspath(path))


def _siblings(files: list[Path]) -> list[Path]:
    """The other deck files in the folders of ``files``: the decks they will be loaded with."""
    known = {_identity(f) for f in files}
    found: list[Path] = []
    for folder in dict.fromkeys(f.parent for f in files):
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
    from quizzer.yamlsource import parse

    doc = parse(text)
    others = [(other, parse(other_text)) for other in _siblings([path]) if (other_text := _read(other)[0]) is not None]
    mine = _deck_id(doc)
    for other, theirs in others:
        if mine is not None and (found := _deck_id(theirs)) is not None and found[0] == mine[0]:
            return "deck", mine[0], other
    cards = {card_id for card_id, _line in _card_lines(doc)}
    for other, theirs in others:
        for card_id, _line in _card_lines(theirs):
            if card_id in cards:
                return "card", card_id, other
    return None


def lint(paths: Iterable[Path]) -> list[Problem]:
    """Every problem in the given deck files and folders, duplicate ids across files included.

    The ids are also checked against the other deck files in the same folders (the decks a
    given file will be loaded with), though only the given files' problems are reported.
    """
    from quizzer.yamlsource import parse

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
        text, _raw, found = _read(path)
        problems += found
        if text is not None:
            checked = validate_text(text, path)
            problems += checked.problems
            first_lines = {card_id: line for card_id, line in reversed(checked.lines)}
            card_ids.append((path, list(first_lines.items())))  # repeats inside a file are reported already
            deck_ids.append((path, [checked.deck_id] if checked.deck_id else []))
    for path in _siblings(files):  # read for their ids only; their own problems are not asked for
        text = _read(path)[0]
        if text is not None:
            doc = parse(text)
            card_ids.append((path, list({card_id: line for card_id, line in reversed(_card_lines(doc))}.items())))
            deck_ids.append((path, [deck_id] if (deck_id := _deck_id(doc)) else []))
    given = set(files)
    problems += duplicate_ids(card_ids, "card", given) + duplicate_ids(deck_ids, "deck", given)
    return in_order(problems)


# ---------------------------------------------------------------- loading with a cache


def _load_one(path: Path, use_cache: bool = True) -> LoadedDeck:
    raw = _read_bytes(path)
    if isinstance(raw, str):
        raise DeckProblems([Problem(display(path), 1, 1, raw)])
    index_file, data_file = deck_cache.paths(raw)
    if use_cache:
        try:
            cached = LoadedDeck.from_index(path, json.loads(index_file.read_text("utf-8")), data_file)
        except (OSError, ValueError, KeyError, TypeError):
            pass  # not cached yet, or cached by another format version: parse again
        else:
            deck_cache.mark_used(index_file, data_file)
            return cached
    text, problems = _decode(path, raw)  # only now: a cache hit needs the bytes, not the text
    if text is None:
        raise DeckProblems(problems)
    checked = validate_text(text, path, verify_examples=False)
    loaded = checked.loaded()
    if loaded is None:
        raise DeckProblems(checked.problems)
    try:
        index_file.parent.mkdir(parents=True, exist_ok=True)
        deck_cache.write_atomically(data_file, "\n".join(deck_cache.data_lines(loaded.deck.to_json())))  # the data first:
        deck_cache.write_atomically(index_file, json.dumps(loaded.index(), ensure_ascii=False))  # an index is trusted
        deck_cache.prune(index_file.parent, time.time())  # on a miss only: a cache hit stays one read
    except OSError:
        pass  # an unwritable cache only costs speed
    return loaded


def in_order(problems: list[Problem]) -> list[Problem]:
    """By file, line and column; a file's "not listed" line last, whatever the language sorts
    its message before."""
    return sorted(problems, key=lambda p: (p.file, p.message == _(UNLISTED), p.line, p.column, p.message))


def load_decks(dirs: Iterable[Path]) -> list[LoadedDeck]:
    """All decks in ``dirs``; raises :class:`DeckProblems` listing the problems of unusable ones."""
    decks, problems = load_usable(dirs)
    if problems:
        raise DeckProblems(problems)
    return decks


def load_usable(dirs: Iterable[Path]) -> tuple[list[LoadedDeck], list[Problem]]:
    """The decks in ``dirs`` that can be used, and the problems of the files that cannot. An id
    two usable decks share is no one file's fault, and with no usable deck nothing can be done:
    both raise :class:`DeckProblems`."""
    decks: list[LoadedDeck] = []
    problems: list[Problem] = []
    for path in deck_files(dirs):
        try:
            decks.append(_load_one(path))
        except DeckProblems as err:
            problems += err.problems
    ids = [card_id for d in decks for card_id in d.ids]
    shared = duplicate_ids((d.path, d.lines.items()) for d in decks) if len(set(ids)) < len(ids) else []
    shared += duplicate_ids(((d.path, [(d.id, d.id_line)]) for d in decks), "deck")
    if shared or (problems and not decks):
        raise DeckProblems(in_order(problems + shared))
    return decks, in_order(problems)
