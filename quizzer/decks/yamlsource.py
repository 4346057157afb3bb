"""Read untrusted YAML into plain data, remembering where every value stood.

Decks arrive as pull requests, so the YAML is never *constructed*: we walk the parser's
event stream ourselves. Nothing can run (there is no constructor to call), every scalar
stays the exact text its author wrote (YAML 1.1 would turn ``no`` into False and ``1.10``
into 1.1; the deck model converts numbers where a field wants one), and anchors, aliases,
tags and repeated keys become problems with a line and column instead of surprises.

A hostile file must not crash, hang or exhaust memory either, so the builder never goes
deeper than :data:`MAX_DEPTH` collections (it skips the rest of a deeper subtree by counting
events, without recursing), stops reading after :data:`MAX_VALUES` values, and reports a
text longer than :data:`MAX_TEXT` characters. Control characters, which a learner's terminal
would obey, are refused: anywhere in the file as written (YAML itself forbids most of them,
even in comments), and in a text's value, where a double-quoted escape (``"\\e"``) could put
them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Iterator

import yaml

from quizzer.base.errors import MAX_PROBLEMS, UNLISTED
from quizzer.base.i18n import N_, _

try:  # the C parser is several times faster; the pure one behaves the same
    from yaml import CSafeLoader as _Loader
except ImportError:  # pragma: no cover - depends on how PyYAML was built
    from yaml import SafeLoader as _Loader

Path = tuple[str | int, ...]
NULLS = {"", "~", "null", "Null", "NULL"}

MAX_DEPTH = 20  # collections nested in one another; a deck needs 7 (deck, cards, card, example, inputs, matrix, row)
MAX_TEXT = 20_000  # characters in one text; the shipped decks' longest is under 400
MAX_VALUES = 250_000  # scalars and collections (keys included) in one file; a 100-card deck has ~2,500

# Refused anywhere in the file as written: C0 controls but tab and line breaks, DEL, C1 controls
# (U+0080-U+009F), the bidi embeddings, overrides and isolates that make text read differently
# from what it is ("Trojan Source") and the invisible bidi marks (LRM, RLM, ALM: a Chinese and
# English deck has no use for them), and lone surrogates (only a str built in Python has them).
_BIDI = "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"  # ALM, LRM, RLM; embeddings and overrides; isolates
FORBIDDEN_IN_FILE = re.compile(f"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f{_BIDI}\ud800-\udfff]")
# Refused in a text's value, where double-quoted escapes ("\e", "\x9b") can put them: the same, and CR.
FORBIDDEN_IN_TEXT = re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f{_BIDI}\ud800-\udfff]")
# A numeric character reference, which Markdown turns into its character when the text is shown
_ENTITY = re.compile(r"&#(?:[xX]([0-9a-fA-F]{1,8})|([0-9]{1,10}));")
# the C parser's messages for the usual slips, as catalogue ids (format strings, as every id is;
# any other message stays PyYAML's English), by the text PyYAML gives
YAML_PROBLEMS = {message.format(): message for message in (
    N_("mapping values are not allowed in this context"), N_("did not find expected ',' or ']'"),
    N_("did not find expected ',' or '}}'"), N_("found character that cannot start any token"),
    N_("did not find expected '-' indicator"), N_("found unexpected end of stream"), N_("did not find expected key"),
    N_("found unknown escape character"), N_("did not find expected <document start>"), N_("invalid YAML"),
    N_("found a tab character that violates indentation"), N_("could not find expected ':'"),
    N_("did not find expected alphabetic or numeric character"), N_("did not find expected node content"),
    N_("block sequence entries are not allowed in this context"), N_("exceeded maximum nesting depth"))}
_CONTROL_NAMES = {0x00: "NUL", 0x07: "BEL", 0x08: "BS", 0x0B: "VT", 0x0C: "FF", 0x0D: "CR", 0x1B: "ESC", 0x7F: "DEL", 0x85: "NEL", 0x9B: "CSI"}


def describe(char: str) -> str:
    """A refused character as a contributor can find it: ``control character U+001B (ESC)``."""
    code = ord(char)
    if re.fullmatch(f"[{_BIDI}]", char):
        return _("bidi control U+{code}").format(code=f"{code:04X}")
    if 0xD800 <= code <= 0xDFFF:
        return _("lone surrogate U+{code}").format(code=f"{code:04X}")
    if code < 0x20 or 0x7F <= code <= 0x9F:
        name = _CONTROL_NAMES.get(code)
        if name:
            return _("control character U+{code} ({name})").format(code=f"{code:04X}", name=name)
        return _("control character U+{code}").format(code=f"{code:04X}")
    return _("character U+{code}").format(code=f"{code:04X}")


def entity_refused(value: str) -> tuple[str, str] | None:
    """The first character reference (``&#x202e;``) to a character a text may not hold, and that
    character: Markdown would put it on the terminal as if it were written out."""
    for match in _ENTITY.finditer(value):
        code = int(match[1], 16) if match[1] else int(match[2])
        if code <= 0x10FFFF and FORBIDDEN_IN_TEXT.match(chr(code)):
            return match.group(), chr(code)
    return None


@dataclass(frozen=True, order=True)
class Position:
    """1-based line and column, as editors count them."""

    line: int
    column: int

    @classmethod
    def of(cls, mark: Any) -> "Position":
        return cls(mark.line + 1, mark.column + 1)


@dataclass(frozen=True)
class YamlProblem:
    position: Position
    message: str


@dataclass
class YamlDocument:
    """The data of one YAML file plus where each value and each mapping key starts."""

    data: Any
    values: dict[Path, Position] = field(default_factory=dict)
    keys: dict[Path, Position] = field(default_factory=dict)
    blocks: set[Path] = field(default_factory=set)  # texts written as '|' or '>' blocks
    problems: list[YamlProblem] = field(default_factory=list)
    unlisted: int = 0  # problems past MAX_PROBLEMS, not listed

    @property
    def full(self) -> bool:
        """Whether MAX_PROBLEMS are listed: further problems are only counted."""
        return len(self.problems) >= MAX_PROBLEMS

    def report(self, where: Position, message: str) -> None:
        if self.full:
            self.unlisted += 1
        else:
            self.problems.append(YamlProblem(where, message))

    def position(self, path: Path, *, prefer_key: bool = False) -> Position:
        """Where ``path`` is, or its nearest enclosing value that exists."""
        for end in range(len(path), -1, -1):
            sub = path[:end]
            if prefer_key and sub in self.keys:
                return self.keys[sub]
            if sub in self.values:
                return self.values[sub]
        return Position(1, 1)


_BREAK = re.compile("\r\n?|[\n\u2028\u2029]")  # what the parser counts as a new line


class _Lines:
    """Line and column of text offsets visited in order, found in one pass over the text."""

    def __init__(self, text: str) -> None:
        self.text, self.pos, self.line, self.start = text, 0, 1, 0

    def at(self, index: int) -> Position:
        for match in _BREAK.finditer(self.text, self.pos, index):
            self.line, self.start = self.line + 1, match.end()
        self.pos = max(self.pos, index)
        return Position(self.line, index - self.start + 1)


def parse(text: str) -> YamlDocument:
    """Parse ``text`` into a :class:`YamlDocument`; a file it cannot read has no data, only problems."""
    doc = YamlDocument(data=None)
    if not _refuse_characters(text, doc):
        try:
            events = yaml.parse(text, Loader=_Loader)
            _Builder(doc, events).document()
        except yaml.MarkedYAMLError as err:
            mark = err.problem_mark or err.context_mark
            where = Position.of(mark) if mark else Position(1, 1)
            what = err.problem or err.context or "invalid YAML"
            what = _(YAML_PROBLEMS[what]).format() if what in YAML_PROBLEMS else what
            doc.report(where, _("YAML syntax error: {problem}").format(problem=what))
            doc.data = None
        except yaml.reader.ReaderError as err:  # not a MarkedYAMLError: a character the reader refuses
            char = chr(err.character) if isinstance(err.character, int) else None
            index = text.find(char) if char else -1
            where = _Lines(text).at(index) if index >= 0 else Position(1, 1)
            what = describe(char) if char else _("a character")
            doc.report(where, _("YAML syntax error: {problem}").format(problem=f"{what}: {err.reason}"))
            doc.data = None
        except yaml.YAMLError as err:  # any other error of the parser: still a problem, never a traceback
            doc.report(Position(1, 1), _("YAML syntax error: {problem}").format(problem=err))
            doc.data = None
        except _TooMany:
            doc.data = None
    if doc.unlisted:
        last = doc.problems[-1].position
        doc.problems.append(YamlProblem(last, _(UNLISTED)))
    return doc


def _refuse_characters(text: str, doc: YamlDocument) -> bool:
    """Report every character the file may not hold (as written, comments included); any found?"""
    lines = _Lines(text)
    for match in FORBIDDEN_IN_FILE.finditer(text):
        if doc.full:  # count the rest without placing each one
            rest = text[match.start():]
            doc.unlisted += len(rest) - len(FORBIDDEN_IN_FILE.sub("", rest))
            break
        doc.report(lines.at(match.start()), _("{character} is not allowed in a deck file, not even in a comment; delete it").format(
            character=describe(match.group())))
    return bool(doc.problems)


def _short(text: str, limit: int = 60) -> str:
    """A name from the file, cut to fit in a message."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _field(path: Path) -> str:
    """The field a value belongs to, for messages: ``question``, ``points``, ``key``."""
    for part in reversed(path):
        if isinstance(part, str):
            return _short(part) if not part.startswith("<") else _("key") if part == "<key>" else _("value")
    return _("value")


class _TooMany(Exception):
    """Too many values, or too deep: the rest of the file is not read."""


_OPEN = (yaml.SequenceStartEvent, yaml.MappingStartEvent)
_CLOSE = (yaml.SequenceEndEvent, yaml.MappingEndEvent)


class _Builder:
    def __init__(self, doc: YamlDocument, events: Iterator[yaml.Event]) -> None:
        self.doc = doc
        self.events = events
        self.count = 0

    def problem(self, event: yaml.Event, message: str) -> None:
        self.doc.report(Position.of(event.start_mark), message)

    def counted(self, event: yaml.Event) -> None:
        self.count += 1
        if self.count > MAX_VALUES:
            self.too_many(event)

    def too_many(self, event: yaml.Event) -> None:
        self.problem(event, _("more than {count} values in one file; the rest is not read (split the deck)").format(
            count=f"{MAX_VALUES:,}"))
        raise _TooMany

    def document(self) -> None:
        documents = 0
        for event in self.events:
            if isinstance(event, yaml.DocumentStartEvent):
                documents += 1
                data = self.node(next(self.events), (), 1)
                if documents == 1:
                    self.doc.data = data
                else:
                    self.problem(event, _("a deck file holds one YAML document; remove the extra '---'"))

    def node(self, event: yaml.Event, path: Path, depth: int) -> Any:
        """The value that starts with ``event``, at ``depth`` (the top is 1)."""
        self.count += 1
        if self.count > MAX_VALUES:
            self.too_many(event)
        self.doc.values.setdefault(path, Position.of(event.start_mark))
        if isinstance(event, yaml.AliasEvent):
            self.problem(event, _("aliases (*{name}) are not allowed in decks; write the value out").format(name=_short(event.anchor)))
            return None
        if getattr(event, "anchor", None):
            self.problem(event, _("anchors (&{name}) are not allowed in decks; write the value out").format(name=_short(event.anchor)))
        tag = getattr(event, "tag", None)
        if tag is not None and tag != "!":
            short = tag.replace("tag:yaml.org,2002:", "!!")
            self.problem(event, _("tags ({tag}) are not allowed in decks; remove it (and quote the text if needed)").format(
                tag=_short(short)))
        if isinstance(event, yaml.ScalarEvent):
            if event.style in ("|", ">"):
                self.doc.blocks.add(path)
            if event.implicit[0] and event.value in NULLS:
                return None
            value: str = event.value
            if len(value) > MAX_TEXT or FORBIDDEN_IN_TEXT.search(value) or "&#" in value and entity_refused(value):
                value = self.refuse_text(event, path)
            return value
        if isinstance(event, _OPEN) and depth > MAX_DEPTH:
            self.problem(event, _("nested deeper than {depth} levels (a deck needs 7); this part is not read").format(depth=MAX_DEPTH))
            self.skip()
            return None
        if isinstance(event, yaml.SequenceStartEvent):
            items: list[Any] = []
            for item in self.events:
                if isinstance(item, yaml.SequenceEndEvent):
                    return items
                items.append(self.node(item, path + (len(items),), depth + 1))
        if isinstance(event, yaml.MappingStartEvent):
            return self.mapping(path, depth)
        raise AssertionError(f"unexpected YAML event {event!r}")  # pragma: no cover

    def refuse_text(self, event: yaml.ScalarEvent, path: Path) -> str:
        """Report a text too long or holding a control character; one too long is cut at the limit
        (checking the rest could take ages)."""
        value: str = event.value
        if len(value) > MAX_TEXT:
            self.problem(event, _("{field}: text is {length} characters long; the limit is {limit}").format(
                field=_field(path), length=f"{len(value):,}", limit=f"{MAX_TEXT:,}"))
            value = value[:MAX_TEXT]
        bad = FORBIDDEN_IN_TEXT.search(value)
        if bad:  # written as an escape ("\\e", "\\x9b"): the file itself holds none
            if self.doc.full:
                self.doc.unlisted += 1
            else:
                self.problem(event, _("{field}: {character} is not allowed in a text (a terminal would obey it); remove it").format(
                    field=_field(path), character=describe(bad.group())))
        entity = entity_refused(value)
        if entity is not None and not self.doc.full:
            self.problem(event, _("{field}: {character}, written as {entity}, is not allowed in a text (a terminal would "
                                  "obey it); remove it").format(field=_field(path), character=describe(entity[1]),
                                                                entity=entity[0]))
        return value

    def skip(self) -> None:
        """Read past the rest of the collection just opened without building it: no recursion, a count.

        Nesting twice as deep as allowed stops the reading: the parser slows down with every level.
        """
        open_collections = 1
        for event in self.events:
            if isinstance(event, _OPEN):
                self.counted(event)
                open_collections += 1
                if open_collections > MAX_DEPTH:
                    self.problem(event, _("nested deeper than {depth} levels; the rest of the file is not read").format(depth=2 * MAX_DEPTH))
                    raise _TooMany
            elif isinstance(event, _CLOSE):
                open_collections -= 1
                if open_collections == 0:
                    return
            elif isinstance(event, (yaml.ScalarEvent, yaml.AliasEvent)):
                self.counted(event)

    def mapping(self, path: Path, depth: int) -> dict[str, Any]:
        result: dict[str, Any] = {}
        for key_event in self.events:
            if isinstance(key_event, yaml.MappingEndEvent):
                return result
            key = self.node(key_event, path + ("<key>",), depth + 1)
            value_event = next(self.events)
            if not isinstance(key, str):
                self.problem(key_event, _("mapping keys must be plain words"))
                self.node(value_event, path + ("<key>",), depth + 1)
                continue
            here = path + (key,)
            if key in result:
                first = self.doc.keys[here]
                self.problem(key_event, _("duplicate key '{key}' (first at line {line}); YAML would keep only the last").format(
                    key=_short(key), line=first.line))
                self.node(value_event, path + ("<duplicate>",), depth + 1)
                continue
            self.doc.keys[here] = Position.of(key_event.start_mark)
            result[key] = self.node(value_event, here, depth + 1)
        raise AssertionError("unterminated mapping")  # pragma: no cover
