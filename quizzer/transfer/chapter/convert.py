"""A chapter's block tree converted into cards: interview questions become ``qa`` cards, quizzes
``choice`` cards, common-mistake items ``mistake`` cards, the rows of a ``:::key`` table short
``qa`` cards, the rows of the other tables ``cloze`` or ``qa`` cards (``tables``), and the worked
examples ``numeric`` cards whose stated numbers a checker recomputes (``worked``). Ids: ``ids``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from quizzer import decks
from quizzer.decks import yamlsource
from quizzer.decks.files import read_file
from quizzer.base.errors import QuizError
from quizzer.base.i18n import _, join
from quizzer.kinds.fields import LETTERS
from quizzer.transfer.chapter import claims, known
from quizzer.transfer.chapter.ids import Item, kind_of, with_ids
from quizzer.transfer.chapter.markup import Block, ChapterError, Line, parse_blocks
from quizzer.transfer.chapter.negation import claim_of
from quizzer.transfer.chapter.tables import read_table, row_cards
from quizzer.transfer.chapter.worked import FLAG, from_prose, from_table, table_model

BLOCK_TEXT = 60  # longer texts are written as '|' blocks, as the shipped decks do

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
    comments: dict[str, str] = field(default_factory=dict)  # card id -> what the course gets wrong (a YAML comment)
    credited: dict[str, list[str]] = field(default_factory=dict)  # section -> its claims of what a paper found, to check




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
        self.prose: dict[str, list[tuple[int, str]]] = {}  # section -> its text outside the card blocks
        self.models: dict[str, str] = {}  # section -> the model its parameter table counts
        self.caption = ""  # the bold line just above a table: its topic
        self.headings: dict[str, str] = {}  # section -> the heading it starts with
        self.starts: list[tuple[int, str]] = []  # (line, section) where each section starts

    def walk(self, root: Block) -> None:
        handlers: dict[str, Callable[[Block], None]] = {
            "interview": self.interview, "quiz": self.quiz, "warning": self.warning, "key": self.key}
        table: list[Line] = []
        for item in [*root.body, Line(0, "")]:
            if isinstance(item, Line) and item.text.lstrip().startswith("|") and not item.code:
                table.append(item)
                continue
            if table:
                self.table(table)
                table = []
            if isinstance(item, Line):
                self.maybe_heading(item)
                self.remember(item)
            elif item.name in handlers:
                handlers[item.name](item)
            else:
                self.explanation(item)
        for section, lines in self.prose.items():
            heading = self.headings.get(section, section)
            for worked in from_prose(lines, self.models.get(section)):
                self.items.append(Item("worked", section, heading, worked.stable, worked.fields, "numeric", worked.wrong))
        self.items = known.flag_cards(self.items) + known.prose_cards(self.prose, self.headings)
        order = {section: index for index, section in enumerate(dict.fromkeys(self.sections))}
        self.items.sort(key=lambda item: order.get(item.section, -1))

    def remember(self, line: Line) -> None:
        """A line of the section's text: read for worked examples, and the caption of a table after it."""
        if line.number:
            self.prose.setdefault(self.section, []).append((line.number, line.text))
        bold = _BOLD_LEAD.match(line.text.strip())
        if line.text.strip() and not line.code:  # a caption is a bold line just above its table
            self.caption = bold.group(1).rstrip("：:") if bold and not bold.group(2) else ""

    def explanation(self, block: Block) -> None:
        """An explanation, formula, demo or code block: its tables become cards, its text is read for worked examples."""
        lines = [item for item in block.body if isinstance(item, Line)]
        rows = [line for line in lines if line.text.lstrip().startswith("|") and not line.code]
        for line in lines:
            if line.number:
                self.prose.setdefault(self.section, []).append((line.number, line.text))
        if rows:
            self.table(rows)

    def table(self, lines: list[Line]) -> None:
        """A table outside the card blocks: a worked example's numeric cards, else one card per row."""
        table = read_table(lines)
        if table is None:
            return
        model = table_model(table)
        if model:
            self.models[self.section] = model
        worked = from_table(table)
        if worked is not None:
            for card in worked:
                self.add("worked", card.line, card.stable, card.fields, "numeric", card.wrong)
            return
        words = self.heading.replace("★", "").split()
        title = " ".join(words[1:] if words and _NUMBER.match(words[0]) else words)
        for row in row_cards(table, f"{title} · {self.caption}" if self.caption else title):
            fields = {name: _block_text(value) if isinstance(value, str) else value for name, value in row.fields.items()}
            self.add("table", row.line, row.stable, fields, row.kind)

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
            self.headings.setdefault(section, text)
            self.starts.append((line.number, section))
            self.sections.append(section)

    def add(self, origin: str, line: int, stable: str, fields: dict[str, Any], kind: str = "",
            comment: str | None = None) -> None:
        for name, value in fields.items():
            for text in value if isinstance(value, list) else [value]:
                if isinstance(text, str):
                    self.check_text(line, name, text)
        self.items.append(Item(origin, self.section, self.heading, " ".join(stable.split()), fields, kind, comment))

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
                self.add("warning", start, text, _mistake(text, self.section, self.heading))

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


def _mistake(text: str, section: str, heading: str) -> dict[str, Any]:
    """A warning item: its bold lead is what is right, the rest why; the claim is the lead's
    opposite (``negation.claim_of``), which never repeats the correction."""
    lead = _BOLD_LEAD.match(text)
    right, why = (lead.group(1).strip(), lead.group(2).strip()) if lead else (text, "")
    claim = claim_of(right, heading)
    aside = _ASIDE.match(why)
    if aside:  # "**lead**（an aside），why": the aside belongs to the lead
        right, why = right + aside.group(1), aside.group(2).strip()
    if not why:
        why = f"见课程 {section} 节。"
    return {"claim": _block_text(claim), "correction": _block_text(right), "why": _block_text(why)}


_STDIN_NAME = "stdin"


def shown_name(path: Path, stream: BinaryIO | None) -> str:
    """The chapter as messages name it."""
    return f"<{_STDIN_NAME}>" if stream is not None else decks.display(path)


def read_chapter(path: Path, stream: BinaryIO | None = None) -> Chapter:
    """Parse and convert one chapter file (or ``stream``, which ``path`` names); ChapterError
    (FILE:LINE) for anything malformed."""
    shown = shown_name(path, stream)
    if stream is not None:
        text, _raw, problems = decks.read_stream(stream, Path(shown))
    else:
        # the decks' reader (regular files only, its size limit, UTF-8), on the file a link names: a
        # chapter is named by the learner, not found in a folder a pull request can fill
        real = Path(os.path.realpath(path))
        text, _raw, problems = read_file(real if real.is_file() else path)
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
    comments: dict[str, str] = {}
    for card_id, item in with_ids(converter.items):
        cards.append({"id": card_id, "kind": kind_of(item), "source": item.section, **item.fields})
        headings[card_id] = item.heading or item.section
        if item.comment:
            comments[card_id] = item.comment
    numbered = [s for s in converter.sections if _NUMBER.match(s)]
    language = "zh" if _CJK.search(text) else "en"
    chapters = {s.split(".")[0] for s in numbered}
    number = chapters.pop() if len(chapters) == 1 else None
    name = _STDIN_NAME if stream is not None else path.name
    title = converter.title or (f"第 {number} 章" if number and language == "zh"
                                else f"Chapter {number}" if number else Path(name).stem)
    wrong = known.met_in(list(enumerate(text.removeprefix("\ufeff").splitlines(), 1)))
    warnings += [_("{file}:{line}: the course says «{phrase}», which {source} contradicts; the draft flags it {tag}, "
                   "with the correction").format(file=shown, line=met.line, phrase=met.phrase, source=met.claim.source,
                                                 tag=FLAG) for met in wrong]
    credited: dict[str, list[str]] = {}
    for claim in claims.credited(root):
        if any(met.line == claim.line for met in wrong):
            continue  # known and corrected
        credited.setdefault(claims.section_of(claim.line, converter.starts), []).append(f"第 {claim.line} 行：{claim.sentence}")
        warnings.append(_("{file}:{line}: «{sentence}» credits a paper or later work with a finding; check it against the "
                          "source").format(file=shown, line=claim.line, sentence=claim.sentence))
    return Chapter(name, title, language, converter.sections, cards, headings, warnings, number, comments, credited)
