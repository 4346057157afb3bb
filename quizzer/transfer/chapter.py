"""A course chapter in the platform's markup, turned into a deck draft (``quiz import chapter``).

The markup is line based: ``:::name title`` opens a block, a line ``:::`` closes the innermost
one, blocks nest (``:::interview`` holds ``:::answer`` blocks), code fences hide everything
inside them, and ``#`` headings give the course sections. So the parser reads line by line with
a stack of open blocks, and the converter walks the tree: interview questions become ``qa``
cards, quizzes ``choice`` cards, common-mistake items ``mistake`` cards, and the rows of a
``:::key`` table short ``qa`` cards. Blocks it does not know are left out with a warning naming
their line; malformed markup stops the import with ``FILE:LINE: message`` and nothing written.

Card ids come from the section and a short hash of the question (``8-1-qa-3fa2c1``), so
importing the chapter again finds the same cards: a card edited by hand keeps its id and its
review history, and re-importing into an existing deck only appends the cards the deck lacks.
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from quizzer import decks, yamlsource
from quizzer.defaults import ARCHIVE_DECK, ARCHIVE_TAKEN
from quizzer.errors import DeckProblems, QuizError, UsageError
from quizzer.files import write_whole
from quizzer.i18n import _, join
from quizzer.kinds.fields import ID_MAX, ID_PATTERN, LETTERS

# Blocks of the course markup (../shared/seeds/README.md): those turned into cards, and those
# that hold only explanation, formulas, demos or code (left out without a word).
CONVERTED = ("interview", "answer", "quiz", "warning", "key")
EXPLANATORY = ("unfold", "math", "shapeflow", "demo", "fold", "related")
CARD_BLOCKS = ("interview", "quiz", "warning", "key")  # open at the top of the chapter, never inside another
BLOCK_TEXT = 60  # longer texts are written as '|' blocks, as the shipped decks do

_OPEN = re.compile(r"^:::([A-Za-z][\w-]*)(?:[ \t]+(.*))?$")
_CLOSE = re.compile(r"^:::[ \t]*$")
_FENCE = re.compile(r"^[ \t]*(```|~~~)")
_HEADING = re.compile(r"^(#{1,6})[ \t]+(\S.*)$")
_NUMBER = re.compile(r"^\d+(\.\d+)*$")
_OPTION = re.compile(r"^([A-Z])[.．、)）][ \t]*(.+)$")
_ANSWER = re.compile(r"^答案[ \t]*[:：][ \t]*(.*)$")
_EXPLANATION = re.compile(r"^解析[ \t]*[:：][ \t]*(.*)$")
_QUESTION_MARK = re.compile(r"^(?:Q\d*|问题?\d*)[ \t]*[:：][ \t]*")
_BOLD_LEAD = re.compile(r"^\*\*(.+?)\*\*[ \t]*[:：，,]?[ \t]*(.*)$", re.DOTALL)
_ASIDE = re.compile(r"^([（(][^）)]*[）)])[ \t]*[:：，,。]?[ \t]*(.*)$", re.DOTALL)
_BULLET = re.compile(r"^[-*+][ \t]+(.*)$")
_SENTENCE_END = re.compile(r"(?<=[。；;！？!?])|[①②③④⑤⑥⑦⑧⑨⑩]")
_CJK = re.compile(r"[\u4e00-\u9fff]")


class ChapterError(QuizError):
    """Markup that cannot be turned into cards (exit 1); the message is ``FILE:LINE: what``."""

    def __init__(self, file: str, line: int, message: str) -> None:
        super().__init__(f"{file}:{line}: {message}", _("fix the chapter and run the import again; nothing was written"))


# ---------------------------------------------------------------- the block tree


@dataclass(frozen=True)
class Line:
    number: int
    text: str
    code: bool = False  # inside a code fence (or the fence itself): never a heading


@dataclass
class Block:
    """One ``:::name title`` block: its lines and the blocks nested in it, in file order."""

    name: str
    title: str
    line: int
    body: list[Line | Block] = field(default_factory=list)

    def lines(self) -> list[Line]:
        """The block's own lines (not those of nested blocks)."""
        return [item for item in self.body if isinstance(item, Line)]


def parse_blocks(text: str, file: str) -> tuple[Block, list[str]]:
    """The chapter as a tree under a root block, and the warnings (unknown directives) met on the way."""
    root = Block("", "", 0)
    stack = [root]
    warnings: list[str] = []
    fence: Line | None = None
    for number, raw in enumerate(re.split("\r\n?|\n", text), 1):
        line = Line(number, raw.rstrip())
        if fence is not None or _FENCE.match(raw):
            if _FENCE.match(raw):
                fence = None if fence is not None else line
            stack[-1].body.append(Line(number, line.text, code=True))
            continue
        if _CLOSE.match(raw):
            if len(stack) == 1:
                raise ChapterError(file, number, _("':::' closes no open block"))
            stack.pop()
            continue
        opened = _OPEN.match(raw)
        if not opened:
            stack[-1].body.append(line)
            continue
        block = Block(opened.group(1), (opened.group(2) or "").strip(), number)
        _check_nesting(block, stack[-1], file)
        if block.name not in CONVERTED + EXPLANATORY:
            warnings.append(_("{file}:{line}: unknown block ':::{name}', left out").format(file=file, line=number, name=block.name))
        stack[-1].body.append(block)
        stack.append(block)
    if fence is not None:
        raise ChapterError(file, fence.number, _("code fence is never closed"))
    if len(stack) > 1:
        raise ChapterError(file, stack[-1].line, _("':::{name}' block is never closed (a line ':::' ends it)").format(name=stack[-1].name))
    return root, warnings


def _check_nesting(block: Block, parent: Block, file: str) -> None:
    """An answer belongs in an interview and a card block at the top: anything else is most
    likely a block above that was never closed, so say which."""
    if block.name == "answer" and parent.name != "interview":
        raise ChapterError(file, block.line, _("':::answer' outside an ':::interview' block"))
    if block.name in CARD_BLOCKS and parent.name:
        raise ChapterError(file, block.line, _("':::{name}' inside ':::{parent}' (line {line}); is that block closed?").format(
            name=block.name, parent=parent.name, line=parent.line))


# ---------------------------------------------------------------- from blocks to cards


@dataclass(frozen=True)
class Item:
    """One card drawn from the chapter, before it has an id."""

    origin: str  # interview, quiz, warning or key: the block it came from (and its id's middle part)
    section: str
    heading: str
    stable: str  # the text its id's hash is taken from
    fields: dict[str, Any]


@dataclass(frozen=True)
class Chapter:
    """What a chapter holds, ready to be written as a deck."""

    file: str  # its file name, as the deck's source names it
    title: str
    language: str
    sections: list[str]
    cards: list[dict[str, Any]]
    headings: dict[str, str]  # card id -> the heading its section starts with (a comment in the YAML)
    warnings: list[str]
    number: str | None = None  # the chapter's number, when all its numbered sections share one


ID_PART = {"interview": "qa", "quiz": "quiz", "warning": "mistake", "key": "key"}


def _clean(lines: list[Line]) -> str:
    """Lines as one text: blank lines at either end dropped, inner ones kept."""
    return "\n".join(line.text for line in lines).strip()


def _block_text(text: str) -> str:
    """A long or multi-line text ends with a line break, so it is written as a '|' block."""
    text = "\n".join(part.rstrip() for part in text.strip().split("\n"))
    return text + "\n" if "\n" in text or len(text) > BLOCK_TEXT else text


class _Converter:
    def __init__(self, file: str) -> None:
        self.file = file
        self.items: list[Item] = []
        self.section = "0"
        self.heading = ""
        self.title = ""
        self.sections: list[str] = []
        self.outline: list[tuple[int, str]] = []  # (level, section) of the headings above

    def walk(self, root: Block) -> None:
        handlers: dict[str, Callable[[Block], None]] = {
            "interview": self.interview, "quiz": self.quiz, "warning": self.warning, "key": self.key}
        for item in root.body:
            if isinstance(item, Line):
                self.maybe_heading(item)
            elif item.name in handlers:
                handlers[item.name](item)

    def maybe_heading(self, line: Line) -> None:
        """A heading starts a section: its number (``## 8.1 ...`` is ``8.1``), else the numbered
        heading above it, else its own words."""
        found = None if line.code else _HEADING.match(line.text)
        if not found:
            return
        level, text = len(found.group(1)), found.group(2).strip()
        if level == 1 and not self.title:
            self.check_text(line.number, "title", text)
            self.title = text
            return
        first = text.split()[0]
        self.outline = [(lvl, sec) for lvl, sec in self.outline if lvl < level]
        if _NUMBER.match(first):
            section = first
        elif self.outline:
            section = self.outline[-1][1]
        else:
            section = "-".join(text.split())
        self.outline.append((level, section))
        if section != self.section:
            self.section, self.heading = section, text
            self.sections.append(section)

    def add(self, origin: str, line: int, stable: str, fields: dict[str, Any]) -> None:
        for name, value in fields.items():
            for text in value if isinstance(value, list) else [value]:
                if isinstance(text, str):
                    self.check_text(line, name, text)
        self.items.append(Item(origin, self.section, self.heading, " ".join(stable.split()), fields))

    def check_text(self, line: int, name: str, text: str) -> None:
        """A ChapterError at ``line`` for a text no deck may hold (the deck reader's rules: the
        draft must pass lint, and its problems would name lines of a file not yet written)."""
        if len(text) > yamlsource.MAX_TEXT:
            raise ChapterError(self.file, line, _("{field} is {count:,} characters long; a deck text may have {limit:,}").format(
                field=name, count=len(text), limit=yamlsource.MAX_TEXT))
        bad = yamlsource.FORBIDDEN_IN_TEXT.search(text)
        written = None if bad or "&#" not in text else yamlsource.entity_refused(text)  # "&#27;" writes ESC
        character = bad.group() if bad else written[1] if written else None
        if character is not None:
            raise ChapterError(self.file, line, _("{field}: {character} is not allowed in a text (a terminal would obey it); "
                                                  "remove it").format(field=name, character=yamlsource.describe(character)))

    def interview(self, block: Block) -> None:
        """Each question is the text before an ``:::answer`` block."""
        question: list[Line] = []
        for item in block.body:
            if isinstance(item, Line):
                question.append(item)
                continue
            asked = _clean(question)
            if not asked:
                raise ChapterError(self.file, item.line, _("':::answer' without a question before it"))
            answer = _clean(item.lines())
            if not answer:
                raise ChapterError(self.file, item.line, _("':::answer' is empty"))
            start = next(line.number for line in question if line.text.strip())
            text = _QUESTION_MARK.sub("", asked.strip("*").strip())
            self.add("interview", start, text, {
                "tags": ["interview"], "question": _block_text(text), "answer": _block_text(answer),
                "points": _points(answer)})
            question = []
        left = [line for line in question if line.text.strip()]
        if left:
            raise ChapterError(self.file, left[0].number, _("interview question without an ':::answer' block"))

    def quiz(self, block: Block) -> None:
        """Question lines, then ``A. ...`` options, then ``答案: B`` and ``解析: ...``."""
        question: list[Line] = []
        options: list[tuple[str, list[str], int]] = []  # letter, text lines, line number
        answer: Line | None = None
        explanation: list[str] | None = None
        for line in block.lines():
            option, given, reason = _OPTION.match(line.text), _ANSWER.match(line.text), _EXPLANATION.match(line.text)
            if explanation is not None and not given:
                explanation.append(line.text)
            elif given:
                answer = line
            elif reason:
                explanation = [reason.group(1)]
            elif option and answer is None:
                options.append((option.group(1), [option.group(2)], line.number))
            elif options and answer is None:
                options[-1][1].append(line.text)
            elif answer is None:
                question.append(line)
        asked = _clean(question)
        if not asked:
            raise ChapterError(self.file, block.line, _("quiz without a question"))
        if len(options) < 2:
            raise ChapterError(self.file, block.line, _("quiz with fewer than two options (A. ..., B. ...)"))
        for index, (letter, _text, number) in enumerate(options):
            if index >= len(LETTERS):
                raise ChapterError(self.file, number, _("option {letter}: a quiz has at most {count} options (A to {last})")
                                   .format(letter=letter, count=len(LETTERS), last=LETTERS[-1]))
            if letter != LETTERS[index]:
                raise ChapterError(self.file, number, _("option {letter} where {expected} was expected: options are A, B, C, ... in order, at most {count}").format(
                    letter=letter, expected=LETTERS[index], count=len(LETTERS)))
        if answer is None:
            raise ChapterError(self.file, block.line, _("quiz without an answer (a line '答案: B')"))
        letters = _letters(answer, LETTERS[: len(options)], self.file)
        why = "\n".join(explanation or []).strip() or "答案：" + "".join(letters)
        self.add("quiz", block.line, asked, {
            "tags": ["quiz"], "question": _block_text(asked),
            "options": [_block_text("\n".join(text).strip()) for _letter, text, _number in options],
            "answer": letters[0] if len(letters) == 1 else letters, "explanation": _block_text(why)})

    def warning(self, block: Block) -> None:
        """Each bullet is one mistake; a warning without bullets is one mistake as a whole."""
        bullets: list[list[Line]] = []
        for line in block.lines():
            if _BULLET.match(line.text):
                bullets.append([Line(line.number, _BULLET.match(line.text).group(1))])  # type: ignore[union-attr]
            elif bullets and line.text.startswith((" ", "\t")):
                bullets[-1].append(Line(line.number, line.text.strip()))
        for lines in bullets or [block.lines()]:
            text = _clean(lines)
            if re.search(r"\w", text.replace("*", "").replace("_", "")):  # not an empty `- **`: nothing to ask
                start = next(line.number for line in lines if line.text.strip())
                self.add("warning", start, text, _mistake(text, self.section))

    def key(self, block: Block) -> None:
        """Every row of the summary table: its first cell asked, the others the answer."""
        rows = [_cells(line.text) for line in block.lines() if line.text.lstrip().startswith("|")]
        numbers = [line.number for line in block.lines() if line.text.lstrip().startswith("|")]
        if len(rows) < 3:
            return  # no table with a body: nothing to ask
        header = rows[0]
        for cells, number in zip(rows[2:], numbers[2:]):
            if len(cells) < 2 or not cells[0]:
                continue
            answers = [(name, cell) for name, cell in zip(header[1:], cells[1:]) if cell]
            if not answers:
                continue
            answer = answers[0][1] if len(answers) == 1 else "\n".join(f"{name}：{cell}" for name, cell in answers)
            self.add("key", number, cells[0], {
                "tags": ["summary"], "question": _block_text(f"用一句话说明：{cells[0]}"),
                "answer": _block_text(answer), "points": [cell for _name, cell in answers]})


def _letters(line: Line, allowed: str, file: str) -> list[str]:
    given = _ANSWER.match(line.text).group(1)  # type: ignore[union-attr]  # the caller matched it
    letters = [c for c in given.upper() if c not in " ,，、;；"]
    if not letters:
        raise ChapterError(file, line.number, _("answer is empty (a line '答案: B')"))
    for letter in letters:
        if letter not in allowed:
            raise ChapterError(file, line.number, _("answer {letter} is not one of the options {options}").format(
                letter=letter, options=join(allowed)))
    if len(set(letters)) != len(letters):
        raise ChapterError(file, line.number, _("answer repeats a letter"))
    return sorted(letters)


def _cells(row: str) -> list[str]:
    return [cell.strip() for cell in row.strip().strip("|").split("|")]


def _points(answer: str) -> list[str]:
    """The points of a model answer: its sentences and numbered parts (a lead-in ending in '：' is not one)."""
    parts = [" ".join(part.split()) for part in _SENTENCE_END.split(answer)]
    points = [part.rstrip("。；;") for part in parts if part and not part.endswith(("：", ":"))]
    return [point for point in points if point] or [" ".join(answer.split())]


def _mistake(text: str, section: str) -> dict[str, Any]:
    """A warning item: its bold lead is what is right, the rest why; the claim is the lead's
    opposite, written out where the lead is a plain negation (``A 不是 B``, ``A ≠ B``)."""
    lead = _BOLD_LEAD.match(text)
    right, why = (lead.group(1).strip(), lead.group(2).strip()) if lead else (text, "")
    aside = _ASIDE.match(why)
    if aside:  # "**lead**（an aside），why": the aside belongs to the lead
        right, why = right + aside.group(1), aside.group(2).strip()
    if not why:
        why = f"见课程 {section} 节。"
    return {"claim": _block_text(_opposite(right)), "correction": _block_text(right), "why": _block_text(why)}


_IS_NOT = re.compile(r"^(.*?)是(.+?)([，,、]?)\s*不是(.+)$")  # "X 是 A 不是 B", "是相加不是拼接"


def _opposite(right: str) -> str:
    if right.startswith("不是") and "不是" not in right[2:]:
        return right[2:]
    swapped = _IS_NOT.match(right)
    if swapped and "不是" not in swapped.group(1) + swapped.group(2):  # the two sides swapped
        subject, first, comma, second = swapped.groups()
        return f"{subject}是{second}{comma}不是{first}"
    if right.count("≠") == 1:
        return right.replace("≠", "=")
    if right.count("不是") == 1 and right.count("是") == 1:
        return right.replace("不是", "是")
    if right.count("是") == 1 and "不是" not in right and "（" not in right.split("是")[0]:  # "X 是可学习的"
        return right.replace("是", "不是")
    if right.count("没有") == 1:  # "推理时没有 [MASK]"
        return right.replace("没有", "有")
    return f"与「{right}」相反的说法"


SLUG_MAX = 40  # characters of a section in a card id (an id may have 200; a heading of words can be longer)


def _slug(text: str) -> str:
    """A section as id text: ``8.1`` is ``8-1``; a section without ASCII words is a short hash.
    A long one is cut after a word, its hash added, so two long headings still differ."""
    slug = "-".join(re.findall(r"[a-z0-9]+", text.lower()))
    if len(slug) > SLUG_MAX:
        slug = slug[:SLUG_MAX].rsplit("-", 1)[0] + "-" + hashlib.sha256(text.encode()).hexdigest()[:4]
    return slug or "h" + hashlib.sha256(text.encode()).hexdigest()[:4]


def _with_ids(items: list[Item]) -> list[tuple[str, Item]]:
    """Ids from the section and the hash of the stable text; a repeat gets -2, -3, ... in file order."""
    seen: dict[str, int] = {}
    named: list[tuple[str, Item]] = []
    for item in items:
        digest = hashlib.sha256(item.stable.encode()).hexdigest()[:6]
        card_id = f"{_slug(item.section)}-{ID_PART[item.origin]}-{digest}"
        seen[card_id] = seen.get(card_id, 0) + 1
        named.append((card_id if seen[card_id] == 1 else f"{card_id}-{seen[card_id]}", item))
    return named


def _kind(item: Item) -> str:
    return {"interview": "qa", "key": "qa", "quiz": "choice", "warning": "mistake"}[item.origin]


_STDIN_NAME = "stdin"


def _shown(path: Path, stream: BinaryIO | None) -> str:
    """The chapter as messages name it."""
    return f"<{_STDIN_NAME}>" if stream is not None else decks.display(path)


def read_chapter(path: Path, stream: BinaryIO | None = None) -> Chapter:
    """Parse and convert one chapter file (or ``stream``, which ``path`` names); ChapterError
    (FILE:LINE) for anything malformed."""
    shown = _shown(path, stream)
    if stream is not None:
        text, _raw, problems = decks.read_stream(stream, Path(shown))
    else:
        # the decks' reader (regular files only, its size limit, UTF-8), on the file a link names: a
        # chapter is named by the learner, not found in a folder a pull request can fill
        real = Path(os.path.realpath(path))
        text, _raw, problems = decks._read(real if real.is_file() else path)
    if text is None:
        raise QuizError(str(problems[0]), None if stream is not None else _("check the file name"))
    bad = yamlsource.FORBIDDEN_IN_FILE.search(text)
    if bad:
        line = text.count("\n", 0, bad.start()) + 1
        raise ChapterError(shown, line, _("{character} is not allowed; delete it").format(character=yamlsource.describe(bad.group())))
    root, warnings = parse_blocks(text.removeprefix("\ufeff"), shown)  # a BOM would hide the first heading
    converter = _Converter(shown)
    converter.walk(root)
    cards: list[dict[str, Any]] = []
    headings: dict[str, str] = {}
    for card_id, item in _with_ids(converter.items):
        cards.append({"id": card_id, "kind": _kind(item), "source": item.section, **item.fields})
        headings[card_id] = item.heading or item.section
    numbered = [s for s in converter.sections if _NUMBER.match(s)]
    language = "zh" if _CJK.search(text) else "en"
    chapters = {s.split(".")[0] for s in numbered}
    number = chapters.pop() if len(chapters) == 1 else None
    name = _STDIN_NAME if stream is not None else path.name
    title = converter.title or (f"第 {number} 章" if number and language == "zh"
                                else f"Chapter {number}" if number else Path(name).stem)
    return Chapter(name, title, language, converter.sections, cards, headings, warnings, number)


# ---------------------------------------------------------------- writing YAML


class _Flow(list[str]):
    """A short list written on one line (``tags: [interview]``, ``answer: [A, C]``)."""


@functools.cache
def _dumper() -> Any:
    """A YAML dumper writing as the shipped decks are written: '|' blocks for long texts, nested lists indented."""
    import yaml

    class Dumper(yaml.SafeDumper):
        def increase_indent(self, flow: bool = False, indentless: bool = False) -> None:
            return super().increase_indent(flow, False)

    def text(dumper: yaml.SafeDumper, value: str) -> yaml.Node:
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style="|" if "\n" in value else None)

    def flow(dumper: yaml.SafeDumper, value: _Flow) -> yaml.Node:
        return dumper.represent_sequence("tag:yaml.org,2002:seq", value, flow_style=True)

    Dumper.add_representer(str, text)
    Dumper.add_representer(_Flow, flow)
    return Dumper


def _dump(data: Any) -> str:
    import yaml

    return yaml.dump(data, Dumper=_dumper(), allow_unicode=True, sort_keys=False, width=1_000_000, default_flow_style=False)


def cards_yaml(chapter: Chapter, cards: list[dict[str, Any]], indent: int) -> str:
    """The cards as items of the deck's ``cards`` list, each section opened by a comment."""
    out: list[str] = []
    section = None
    pad = " " * indent
    for card in cards:
        if card["source"] != section:
            section = card["source"]
            out.append(f"{pad}# {'-' * 16} {chapter.headings[card['id']]}\n")
        shaped = {k: _Flow(v) if k == "tags" or (k == "answer" and isinstance(v, list)) else v for k, v in card.items()}
        out.append("".join(pad + line if line.strip() else line for line in _dump([shaped]).splitlines(True)) + "\n")
    return "".join(out)


def deck_yaml(chapter: Chapter, deck_id: str) -> str:
    """The whole deck file for a chapter."""
    sections = [s for s in chapter.sections if any(card["source"] == s for card in chapter.cards)]
    span = sections[0] if len(sections) == 1 else f"{sections[0]}-{sections[-1]}" if sections else "-"
    head = _dump({"id": deck_id, "title": chapter.title, "language": chapter.language,
                  "source": {"file": chapter.file, "sections": span}})
    return "# yaml-language-server: $schema=./schema.json\n" + head + "cards:\n" + cards_yaml(chapter, chapter.cards, 2).rstrip("\n") + "\n"


# ---------------------------------------------------------------- importing into a deck file


@dataclass(frozen=True)
class Changed:
    card_id: str
    fields: list[str]  # the fields where the deck differs from the chapter


@dataclass(frozen=True)
class ImportReport:
    """What an import did: the deck text (what is or would be in the file) and how its cards compare."""

    text: str
    deck_id: str
    added: list[str]
    changed: list[Changed]
    unchanged: list[str]
    deck_only: list[str]  # cards the deck has and the chapter does not: kept
    warnings: list[str]
    duplicates: list[tuple[str, str]]  # (chapter card, the deck's card with the same question): not added
    written: bool  # the file was written (a re-import that adds nothing leaves it alone)
    created: bool  # the file did not exist before


_SAYS_NOTHING = re.compile(r"\d+|[0-9a-f]{8,}")  # a file name's numbers and hashes


def default_deck_id(path: Path | None, chapter: Chapter) -> str:
    """From the file name (``attention.md``: ``attention``); one of numbers and hashes only
    (``000_54c1e0fa0697e990.txt``), or none (standard input), says nothing, so then from the
    chapter's number (``ch08``)."""
    words = re.findall(r"[a-z0-9]+", path.stem.lower()) if path is not None else []
    if chapter.number and all(_SAYS_NOTHING.fullmatch(word) for word in words):
        return f"ch{chapter.number:0>2}"
    return "-".join(words) or "chapter"


def _validated(text: str, target: Path) -> decks.Checked:
    checked = decks.validate_text(text, target, verify_examples=False)
    if checked.problems:
        raise DeckProblems(checked.problems)
    return checked


def _drafted(text: str, target: Path, chapter: str) -> None:
    """``text``, the deck the import would write, passes lint; else an error naming the chapter:
    the problems' lines are of a text not written (what the markup checks missed, as a count of
    values no deck may pass)."""
    try:
        _validated(text, target)
    except DeckProblems as failed:
        raise QuizError(_("{file}: the deck made from it would not pass lint: {problem}").format(
            file=chapter, problem=failed.problems[0].message), _("fix the chapter and run the import again; nothing was written")) from None


def _plain(value: Any) -> Any:
    """A card's data compared as its author sees it: texts without the line break a '|' block ends with."""
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def import_chapter(path: Path, deck_id: str | None = None, out: Path | None = None,
                   stream: BinaryIO | None = None) -> ImportReport:
    """Turn ``path`` (or ``stream``, as ``read_chapter``) into a deck; with ``out``, write it there
    or add the chapter's new cards to the deck already there (its cards, edited or not, stay as
    they are)."""
    if deck_id is not None and (not re.fullmatch(ID_PATTERN, deck_id) or len(deck_id) > ID_MAX):
        raise UsageError(_("--deck '{name}' is not a deck id").format(name=deck_id), _("lowercase a-z, 0-9 and '-', e.g. ch09-gpt"))
    if deck_id == ARCHIVE_DECK:
        raise UsageError(_(ARCHIVE_TAKEN).format(id=ARCHIVE_DECK), _("e.g. --deck ch09-gpt"))
    if out is not None and out.suffix not in decks.DECK_SUFFIXES:
        raise UsageError(_("--out {path} is not a .yaml file").format(path=out), _("deck files end in .yaml"))
    if out is not None and not out.parent.is_dir():
        raise UsageError(_("--out {path}: the folder does not exist").format(path=out), _("create it first"))
    chapter = read_chapter(path, stream)
    if not chapter.cards:
        raise QuizError(_("{file}: no interview, quiz, warning or key blocks to make cards from").format(
            file=_shown(path, stream)))
    _within_a_deck(chapter, _shown(path, stream))
    existing = _existing(out) if out is not None and os.path.lexists(out) else None
    if existing is not None:
        if deck_id is not None and deck_id != existing.deck_id:
            raise UsageError(_("--deck {name} but {path} holds deck {other}").format(name=deck_id, path=out, other=existing.deck_id),
                             _("leave out --deck to add to that deck"))
        deck_id = existing.deck_id
    deck_id = deck_id or default_deck_id(None if stream is not None else path, chapter)
    target = out or Path(f"{deck_id}.yaml")
    fresh_text = deck_yaml(chapter, deck_id)
    _drafted(fresh_text, target, _shown(path, stream))
    if existing is None:
        if out is not None:
            _write(out, fresh_text)
        return ImportReport(fresh_text, deck_id, [c["id"] for c in chapter.cards], [], [], [], chapter.warnings, [],
                            out is not None, out is not None)
    assert out is not None
    return _merge(chapter, existing, out, _shown(path, stream))


def _within_a_deck(chapter: Chapter, shown: str) -> None:
    """Refuse a chapter whose cards alone hold more values than one deck file may, before its
    YAML is written: writing 20,000 cards took 11 s only for lint to refuse the deck."""
    values = sum(_values(card) for card in chapter.cards)
    if values > yamlsource.MAX_VALUES:
        raise QuizError(_("{file}: its {cards} cards would make a deck of more than {count} values, more than one deck "
                          "file may hold").format(file=shown, cards=f"{len(chapter.cards):,}", count=f"{yamlsource.MAX_VALUES:,}"),
                        _("split the chapter and import the parts one by one; nothing was written"))


def _values(data: Any) -> int:
    """Values as a deck file's reader counts them: every scalar and collection, keys included."""
    if isinstance(data, dict):
        return 1 + sum(1 + _values(value) for value in data.values())
    if isinstance(data, list):
        return 1 + sum(_values(item) for item in data)
    return 1


@dataclass(frozen=True)
class _Existing:
    text: str
    deck_id: str
    cards: dict[str, Any]  # id -> the card's data as written
    indent: int  # the column of the cards list's '-'


def _existing(out: Path) -> _Existing:
    text, _raw, problems = decks._read(out)
    if text is None:
        raise DeckProblems(problems)
    checked = _validated(text, out)
    assert checked.deck is not None
    doc = yamlsource.parse(text)
    top = {path[0]: position for path, position in doc.keys.items() if len(path) == 1}
    start = doc.values.get(("cards",))
    if max(top.values()) != top["cards"] or start is None or text.splitlines()[start.line - 1][start.column - 1] != "-":
        raise QuizError(_("{path}: new cards can only be added to a deck whose 'cards' list comes last, one '- ' item per card").format(
            path=decks.display(out)), _("move 'cards:' to the end of the file, or import into a new file"))
    return _Existing(text, checked.deck.id, {card["id"]: card for card in doc.data["cards"]}, start.column - 1)


_FIRST_FIELDS = ("question", "claim", "text")  # a card's question, whatever its kind: what Anki's duplicate check reads
_NOT_WORDS = re.compile(r"[\W_]+")


def _question(card: dict[str, Any]) -> str | None:
    """The card's question as a duplicate check compares it: width, case, spaces and punctuation
    set aside (``BERT 和 GPT 的核心区别？`` is ``bert和gpt的核心区别``)."""
    text = next((card[name] for name in _FIRST_FIELDS if isinstance(card.get(name), str)), None)
    return _NOT_WORDS.sub("", unicodedata.normalize("NFKC", text).casefold()) if text else None


def _merge(chapter: Chapter, existing: _Existing, out: Path, shown: str) -> ImportReport:
    """Add the cards the deck lacks at its end; report the rest, the deck's version kept. A card
    whose question the deck already asks under another id is not added (Anki's duplicate check):
    a deck written by hand has its own ids."""
    fresh = {card["id"]: card for card in yamlsource.parse(_dump(chapter.cards)).data}  # as the file would hold them
    asked = {key: card_id for card_id, card in existing.cards.items() if (key := _question(card))}
    duplicates = [(c["id"], asked[key]) for c in chapter.cards
                  if c["id"] not in existing.cards and (key := _question(c)) in asked]
    twins = {card_id for card_id, _twin in duplicates}
    added = [c for c in chapter.cards if c["id"] not in existing.cards and c["id"] not in twins]
    changed: list[Changed] = []
    unchanged: list[str] = []
    for card_id, card in fresh.items():
        if card_id in existing.cards:
            mine = existing.cards[card_id]
            differ = sorted(k for k in card.keys() | mine.keys() if _plain(card.get(k)) != _plain(mine.get(k)))
            if differ:
                changed.append(Changed(card_id, differ))
            else:
                unchanged.append(card_id)
    matched = {twin for _card, twin in duplicates}
    deck_only = [card_id for card_id in existing.cards if card_id not in fresh and card_id not in matched]
    text = existing.text
    if added:
        text = text + ("" if text.endswith("\n") else "\n") + "\n" + cards_yaml(chapter, added, existing.indent).rstrip("\n") + "\n"
        _drafted(text, out, shown)
        _write(out, text)
    return ImportReport(text, existing.deck_id, [c["id"] for c in added], changed, unchanged, deck_only,
                        chapter.warnings, duplicates, bool(added), False)


def _write(out: Path, text: str) -> None:
    """Replace ``out`` only once the new text is complete on disk, and only if no other deck of its
    folder has its deck id or one of its card ids: written, every command on that folder failed."""
    shared = decks.shared_id(text, out)
    if shared is not None:
        what, shared_id, other = shared
        if what == "deck":
            message = _("--out {path}: {other} already holds deck {id}")
            hint = _("--out {other} adds the chapter's new cards to that deck, or --deck names another id; nothing was written")
        else:
            message = _("--out {path}: card {id} is already in {other}, a deck beside it")
            hint = _("the chapter is in that deck already: --out {other} adds its new cards there; nothing was written")
        raise UsageError(message.format(path=out, other=decks.display(other), id=shared_id),
                         hint.format(other=decks.display(other)))
    write_whole(out, text.encode("utf-8"))
