"""Read untrusted YAML into plain data, remembering where every value stood.

Decks arrive as pull requests, so the YAML is never *constructed*: we walk the parser's
event stream ourselves. Nothing can run (there is no constructor to call), every scalar
stays the exact text its author wrote (YAML 1.1 would turn ``no`` into False and ``1.10``
into 1.1; the deck model converts numbers where a field wants one), and anchors, aliases,
tags and repeated keys become problems with a line and column instead of surprises.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterator

import yaml

try:  # the C parser is several times faster; the pure one behaves the same
    from yaml import CSafeLoader as _Loader
except ImportError:  # pragma: no cover - depends on how PyYAML was built
    from yaml import SafeLoader as _Loader

Path = tuple[str | int, ...]
NULLS = {"", "~", "null", "Null", "NULL"}


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

    def position(self, path: Path, *, prefer_key: bool = False) -> Position:
        """Where ``path`` is, or its nearest enclosing value that exists."""
        for end in range(len(path), -1, -1):
            sub = path[:end]
            if prefer_key and sub in self.keys:
                return self.keys[sub]
            if sub in self.values:
                return self.values[sub]
        return Position(1, 1)


def parse(text: str) -> YamlDocument:
    """Parse ``text`` into a :class:`YamlDocument`; syntax errors become its one problem."""
    doc = YamlDocument(data=None)
    try:
        events = yaml.parse(text, Loader=_Loader)
        _Builder(doc, events).document()
    except yaml.MarkedYAMLError as err:
        mark = err.problem_mark or err.context_mark
        where = Position.of(mark) if mark else Position(1, 1)
        what = err.problem or err.context or "invalid YAML"
        doc.problems.append(YamlProblem(where, f"YAML syntax error: {what}"))
        doc.data = None
    return doc


class _Builder:
    def __init__(self, doc: YamlDocument, events: Iterator[yaml.Event]) -> None:
        self.doc = doc
        self.events = events

    def problem(self, event: yaml.Event, message: str) -> None:
        self.doc.problems.append(YamlProblem(Position.of(event.start_mark), message))

    def document(self) -> None:
        documents = 0
        for event in self.events:
            if isinstance(event, yaml.DocumentStartEvent):
                documents += 1
                data = self.node(next(self.events), ())
                if documents == 1:
                    self.doc.data = data
                else:
                    self.problem(event, "a deck file holds one YAML document; remove the extra '---'")

    def node(self, event: yaml.Event, path: Path) -> Any:
        self.doc.values.setdefault(path, Position.of(event.start_mark))
        if isinstance(event, yaml.AliasEvent):
            self.problem(event, f"aliases (*{event.anchor}) are not allowed in decks; write the value out")
            return None
        if getattr(event, "anchor", None):
            self.problem(event, f"anchors (&{event.anchor}) are not allowed in decks; write the value out")
        tag = getattr(event, "tag", None)
        if tag is not None and tag != "!":
            short = tag.replace("tag:yaml.org,2002:", "!!")
            self.problem(event, f"tags ({short}) are not allowed in decks; remove it (and quote the text if needed)")
        if isinstance(event, yaml.ScalarEvent):
            if event.style in ("|", ">"):
                self.doc.blocks.add(path)
            plain = event.implicit[0]
            return None if plain and event.value in NULLS else event.value
        if isinstance(event, yaml.SequenceStartEvent):
            items: list[Any] = []
            for event in self.events:
                if isinstance(event, yaml.SequenceEndEvent):
                    return items
                items.append(self.node(event, path + (len(items),)))
        if isinstance(event, yaml.MappingStartEvent):
            return self.mapping(path)
        raise AssertionError(f"unexpected YAML event {event!r}")  # pragma: no cover

    def mapping(self, path: Path) -> dict[str, Any]:
        result: dict[str, Any] = {}
        for key_event in self.events:
            if isinstance(key_event, yaml.MappingEndEvent):
                return result
            key = self.node(key_event, path + ("<key>",))
            value_event = next(self.events)
            if not isinstance(key, str):
                self.problem(key_event, "mapping keys must be plain words")
                self.node(value_event, path + ("<key>",))
                continue
            here = path + (key,)
            if key in result:
                first = self.doc.keys[here]
                self.problem(key_event, f"duplicate key '{key}' (first at line {first.line}); YAML would keep only the last")
                self.node(value_event, path + ("<duplicate>",))
                continue
            self.doc.keys[here] = Position.of(key_event.start_mark)
            result[key] = self.node(value_event, here)
        raise AssertionError("unterminated mapping")  # pragma: no cover
