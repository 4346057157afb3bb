"""Turning deck text (Markdown with $LaTeX$) into something a terminal shows well."""

from __future__ import annotations

import re
from dataclasses import dataclass

from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
from rich.markup import escape
from rich.segment import Segment
from rich.text import Text

from quizzer.terminal.linebreak import install as install_line_breaking
from quizzer.terminal.linebreak import join_wide_lines
from quizzer.terminal.mathtext import to_text

_MATH = re.compile(r"\$\$(.+?)\$\$|\$(.+?)\$", re.DOTALL)
# What can make Markdown differ from plain paragraphs: inline syntax (emphasis, code, links,
# escapes, entities, HTML, tables, strikethrough), a line that can start a block (heading,
# quote, list, rule, setext underline) or is indented code, a hard break (two trailing
# spaces), and whitespace other than spaces, which Markdown strips or expands in its own way.
_MARKDOWN_SYNTAX = re.compile(r"[\\`*_\[\]<>&|~]|^ {0,3}([#>+=-]|\d+[.)])|^ {4}| {2}$|[^\S \n]", re.MULTILINE)
# C0 controls but tab and newline, DEL, C1 controls, and the bidi overrides that reorder a line
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def clean(text: str) -> str:
    """Text that cannot steer the terminal: no escape sequences (colours, title, clipboard),
    no bell, no carriage return, no bidi overrides. Deck text and typed answers are data."""
    return _CONTROL.sub("", text)


def safe(text: str) -> str:
    """Data text for a rich markup string: cleaned, and brackets that are not markup."""
    return escape(clean(text))


def math_to_unicode(text: str) -> str:
    """Replace every ``$...$`` / ``$$...$$`` by its Unicode reading (``\\sqrt{d_k}`` -> ``√(d_k)``)."""
    if "$" not in text:
        return text

    def convert(match: re.Match[str]) -> str:
        block, inline = match.groups()
        rendered = to_text(block or inline)
        return f"\n\n{rendered}\n\n" if block else f"`{rendered}`"

    return _MATH.sub(convert, text)


def markdown(text: str) -> RenderableType:
    """Deck text as the terminal shows it: rich Markdown where the text uses Markdown syntax
    (rich.markdown, with markdown-it and pygments, loads then), else its paragraphs as plain
    rich Text, which looks the same and loads nothing: most cards are plain text."""
    source = join_wide_lines(math_to_unicode(clean(text)))
    if _MARKDOWN_SYNTAX.search(source) or not source.strip():
        from rich.markdown import Markdown

        return Markdown(source)
    paragraphs = re.split(r"\n(?: *\n)+", source.strip(" \n"))
    return Paragraphs([" ".join(line.strip(" ") for line in p.split("\n")) for p in paragraphs])


@dataclass(frozen=True)
class Paragraphs:
    """Plain paragraphs drawn as rich Markdown draws them: each a left-justified Text (so padded
    to the width), an empty line between them, and no measurement of its own."""

    paragraphs: list[str]

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        for number, paragraph in enumerate(self.paragraphs):
            if number:
                yield Segment.line()
            yield Text(paragraph, justify="left")


def console() -> Console:
    """The terminal's console, with Chinese line breaking in everything it wraps."""
    install_line_breaking()
    return Console()


def card(console: Console, title: str, front: str) -> None:
    """A card's (or question's) front in a panel under its title (markup: escape deck text)."""
    from rich.panel import Panel

    console.print()
    console.print(Panel(markdown(front), title=title, title_align="left"))


def retry(console: Console, message: str) -> None:
    """Why an answer is asked again."""
    console.print(f"[yellow]{safe(message)}[/yellow]", highlight=False)
