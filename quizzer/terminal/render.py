"""Turning deck text (Markdown with $LaTeX$) into something a terminal shows well."""

from __future__ import annotations

import functools
import re
import string
import unicodedata
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
from rich.markup import escape
from rich.segment import Segment
from rich.text import Text

from quizzer.base.errors import DatabaseBusy, DatabaseError
from quizzer.base.i18n import _
from quizzer.terminal.linebreak import install as install_line_breaking
from quizzer.terminal.mathtext import math_to_unicode
from quizzer.base.widetext import join_wide_lines

if TYPE_CHECKING:
    from rich.markdown import Markdown  # loaded only where a card needs it (markdown-it, pygments)
    from markdown_it.token import Token

# What only rich.markdown draws: a table, an inline link (or, with a line starting with `[`, a
# reference one), a line that can start a block (heading, quote, list, rule, setext underline,
# fence) or is indented code, a hard break (two trailing spaces), and whitespace other than
# spaces, which Markdown strips or expands in its own way. The rest, code spans and
# ``**strong**`` with what can stand beside them, ``_inline`` reads or refuses.
_MARKDOWN_SYNTAX = re.compile(r"\||\]\(|^ {0,3}([\[#>+=_-]|\*(?!\*[^*\s])|```|\d+[.)])|^ {4}| {2}$|[^\S \n]", re.MULTILINE)
_OTHER_INLINE = frozenset("<&~")  # HTML and autolinks, entities, strikethrough: rich.markdown's
_ASCII_PUNCTUATION = frozenset(string.punctuation)  # what a backslash escapes
STRONG, CODE = "markdown.strong", "markdown.code"
Chunk = tuple[str, tuple[str, ...]]  # text and the Markdown styles it is drawn in, outermost first
# C0 controls but tab and newline, DEL, C1 controls, and the bidi overrides that reorder a line
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
# the bytes of a terminal not set to UTF-8 (GBK), as the line editor hands them over: no text can
# hold them (a database refuses them), so each is shown and kept as U+FFFD
_UNDECODED = re.compile("[\ud800-\udfff]")


def clean(text: str) -> str:
    """Text that cannot steer the terminal: no escape sequences (colours, title, clipboard),
    no bell, no carriage return, no bidi overrides; a byte that was not UTF-8 shows as U+FFFD.
    Deck text and typed answers are data."""
    return _UNDECODED.sub("\ufffd", _CONTROL.sub("", text))


def safe(text: str) -> str:
    """Data text for a rich markup string: cleaned, and brackets that are not markup."""
    return escape(clean(text))


def markdown(text: str) -> RenderableType:
    """Deck text as the terminal shows it: rich Markdown where the text uses Markdown syntax
    beyond code spans and strong (rich.markdown, with markdown-it and pygments, loads then), else
    its paragraphs as rich Text styled as rich.markdown styles them, which looks the same and
    loads nothing: most cards and every numeric question but those with a table or a list."""
    source = join_wide_lines(math_to_unicode(clean(text)))
    if not _MARKDOWN_SYNTAX.search(source) and source.strip():
        lines = (p.split("\n") for p in re.split(r"\n(?: *\n)+", source.strip(" \n")))
        paragraphs = [_inline("\n".join(line.strip(" ") for line in p)) for p in lines]
        read = [chunks for chunks in paragraphs if chunks is not None]
        if len(read) == len(paragraphs):
            return Paragraphs(read)
    return rich_markdown(source)


def rich_markdown(source: str) -> Markdown:
    """rich.markdown's rendering of ``source`` with raw HTML read as text, as the Anki export reads
    it: `<pad>` in a deck is a token to show, and rich.markdown drops every tag it does not draw."""
    from markdown_it import MarkdownIt

    shown = _markdown()("", hyperlinks=False)  # a link shows its address: no hidden terminal hyperlink (OSC 8)
    shown.markup, shown.parsed = source, _cleaned(MarkdownIt("commonmark", {"html": False}).enable(
        ["strikethrough", "table"]).parse(source))
    return shown


@functools.cache
def _markdown() -> type[Markdown]:
    """rich.markdown with tables drawn without their top and bottom edges: in their box those are
    blank lines, which doubled the blank line the paragraphs around a table keep (a worked
    solution's). Made on first use: rich.markdown loads markdown-it and pygments."""
    from rich.markdown import Markdown, TableElement
    from rich.table import Table

    class EdgelessTable(TableElement):
        def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
            for table in super().__rich_console__(console, options):
                if isinstance(table, Table):
                    table.show_edge = False
                    for column in table.columns:  # a cell wraps and folds a long word, never cut with "…"
                        column.overflow = "fold"
                yield table

    class Shown(Markdown):
        elements = {**Markdown.elements, "table_open": EdgelessTable}

    return Shown


def _cleaned(tokens: list[Token]) -> list[Token]:
    """``tokens`` with their text and attributes cleaned again: a character reference
    (``&#x202e;``) becomes its character only as Markdown is parsed."""
    for token in tokens:
        token.content = clean(token.content)
        token.attrs = {name: clean(str(value)) for name, value in token.attrs.items()}
        if token.children:
            _cleaned(token.children)
    return tokens


def _inline(source: str) -> list[Chunk] | None:
    """A paragraph's text as markdown-it reads it when its only syntax is code spans, ``**strong**``,
    backslash escapes, and ``*``, ``_`` or brackets that stay text (no link can form: see
    ``_MARKDOWN_SYNTAX``); None for anything else.

    Each chunk is one of markdown-it's text, code or line-break tokens, as rich.markdown appends
    them (a line break inside a paragraph is a space)."""
    chunks: list[Chunk] = []
    pending: list[str] = []
    styles: tuple[str, ...] = ()

    def flush() -> None:
        if pending:
            chunks.append(("".join(pending), styles))
            pending.clear()

    i = 0
    while i < len(source):
        char = source[i]
        if char == "\\":
            escaped = source[i + 1 : i + 2]
            if escaped == "\n":
                return None  # a hard break
            pending.append(escaped if escaped in _ASCII_PUNCTUATION else char)
            i += 2 if escaped in _ASCII_PUNCTUATION else 1
        elif char == "`":
            ticks = _run(source, i)
            close = _closing_ticks(source, i + ticks, ticks)
            if close < 0:
                pending.append(char * ticks)  # no closing run of the same length: literal
            elif "\n" in source[i:close]:
                return None  # a code span keeps the spaces around a line break, which are gone here
            else:
                flush()
                chunks.append((_code(source[i + ticks : close]), (*styles, CODE)))
                ticks += close - i
            i += ticks
        elif char in "*_":
            run = _run(source, i)
            can_open, can_close = _delimits(source, i, run)
            if can_open or can_close:
                if char == "_" or run != 2 or not (can_close if styles else can_open):
                    return None  # emphasis, or strong that pairs in some other way
                flush()
                styles = () if styles else (STRONG,)
            else:
                pending.append(char * run)
            i += run
        elif char in _OTHER_INLINE:
            return None
        elif char == "\n":
            flush()
            chunks.append((" ", styles))
            i += 1
        else:
            pending.append(char)
            i += 1
    flush()
    return None if styles else chunks


def _run(source: str, start: int) -> int:
    """How many times source[start] repeats from start."""
    end = start
    while end < len(source) and source[end] == source[start]:
        end += 1
    return end - start


def _closing_ticks(source: str, start: int, ticks: int) -> int:
    """Where the next run of exactly ``ticks`` backticks starts, or -1."""
    for match in re.finditer("`+", source[start:]):
        if len(match.group()) == ticks:
            return start + match.start()
    return -1


def _code(content: str) -> str:
    """A code span's text: one space off each end when both ends have one."""
    return content[1:-1] if content[:1] == content[-1:] == " " and content.strip(" ") else content


def _delimits(source: str, start: int, run: int) -> tuple[bool, bool]:
    """(can open, can close) emphasis: markdown-it's scanDelims for the run at ``start``."""
    before = source[start - 1] if start else " "
    after = source[start + run] if start + run < len(source) else " "
    before_space, after_space = before in " \n", after in " \n"  # other spaces go to rich.markdown
    before_punct, after_punct = _punctuation(before), _punctuation(after)
    left = not (after_space or (after_punct and not (before_space or before_punct)))
    right = not (before_space or (before_punct and not (after_space or after_punct)))
    if source[start] == "*":
        return left, right
    return left and (not right or before_punct), right and (not left or after_punct)


def _punctuation(char: str) -> bool:
    return char in _ASCII_PUNCTUATION or unicodedata.category(char)[0] in "PS"


@dataclass(frozen=True)
class Paragraphs:
    """Paragraphs drawn as rich Markdown draws them: each a left-justified Text (so padded to the
    width) holding its chunks in the paragraph's style plus theirs, an empty line between them,
    and no measurement of its own."""

    paragraphs: list[list[Chunk]]

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        paragraph = console.get_style("none", default="none") + console.get_style("markdown.paragraph", default="none")
        for number, chunks in enumerate(self.paragraphs):
            if number:
                yield Segment.line()
            text = Text(justify="left")
            for chunk, styles in chunks:
                style = paragraph
                for name in styles:
                    style += console.get_style(name, default="none")
                text.append(chunk, style)
            yield text


class _Console(Console):
    def on_broken_pipe(self) -> None:
        """The reader went away (`quiz cards | head`): the command's error boundary says how
        every command ends then (rich's own way is a silent exit 1)."""
        self.quiet = True
        raise BrokenPipeError


WIDEST = 1000  # columns at most, whatever COLUMNS says: a card's padding stays small and quick to draw
NARROWEST = 20  # and at least: every line, study's `saved` line on a pipe too, has room to be drawn


def console() -> Console:
    """The terminal's console, with Chinese line breaking in everything it wraps."""
    install_line_breaking()
    drawn = _Console()
    if not NARROWEST <= drawn.width <= WIDEST:
        drawn.width = WIDEST if drawn.width > WIDEST else 80 if drawn.width < 1 else NARROWEST
    return drawn


def section_text(source: str) -> str:
    """A card's course section as it is shown: ``§8.2``; a paper's names itself (``Vaswani2017§3.2``)."""
    return source if "§" in source else f"§{source}"


def card(console: Console, parts: Sequence[Text], front: str, optional: int | None = None) -> None:
    """A card's (or question's) front in a panel under its title: ``parts`` joined by `` · ``. A
    title wider than the border leaves out ``parts[optional]`` (a long deck title), then is cut
    with ``…`` where the border ends."""
    from rich.panel import Panel

    room = console.width - 6  # the corners, the rule before the title and the spaces around it
    if optional is not None and sum(part.cell_len + 3 for part in parts) - 3 > room:
        parts = [part for i, part in enumerate(parts) if i != optional]
    title = Text(" · ").join(parts)
    title.truncate(max(room, 1), overflow="ellipsis")
    console.print()
    console.print(Panel(markdown(front), title=title, title_align="left"))


def waiting(console: Console) -> Callable[[DatabaseError], None]:
    """What an answer waiting for the write lock or the server says, once each try (``app.busy``)."""

    def say(busy: DatabaseError) -> None:
        said = (_("{why}: this answer waits and is saved once it is free (Ctrl-C gives it up)") if isinstance(busy, DatabaseBusy)
                else _("{why}: trying again; this answer is saved once the server answers (Ctrl-C gives it up)"))
        console.print(Text(said.format(why=busy.message), style="yellow"))

    return say


@contextmanager
def progress(what: str, total: int) -> Iterator[Callable[[int], None]]:
    """A bar on standard error, ``what`` beside it, for a task of ``total`` steps, told how many
    are done; gone when the task ends. On a pipe nothing is drawn (a log would fill with it)."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    shown = Console(stderr=True)
    if not shown.is_terminal:
        yield lambda done: None
        return
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                  console=shown, transient=True) as bar:
        task = bar.add_task(safe(what), total=total)
        yield lambda done: bar.update(task, completed=done)


def retry(console: Console, message: str) -> None:
    """Why an answer is asked again."""
    console.print(f"[yellow]{safe(message)}[/yellow]", highlight=False)
