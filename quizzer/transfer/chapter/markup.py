"""The course's chapter markup, read into a tree of blocks.

The markup is line based: ``:::name title`` opens a block, a line ``:::`` closes the innermost
one, blocks nest (``:::interview`` holds ``:::answer`` blocks), code fences hide everything
inside them, and ``#`` headings give the course sections. So the parser reads line by line with
a stack of open blocks. Blocks it does not know are left out with a warning naming their line;
malformed markup stops the import with ``FILE:LINE: message`` and nothing written.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from quizzer.base.errors import QuizError
from quizzer.base.i18n import _

# Blocks of the course markup (../shared/seeds/README.md): those turned into cards, and those
# that hold only explanation, formulas, demos or code (left out without a word).
CONVERTED = ("interview", "answer", "quiz", "warning", "key")
EXPLANATORY = ("unfold", "math", "shapeflow", "demo", "fold", "related")
CARD_BLOCKS = ("interview", "quiz", "warning", "key")  # open at the top of the chapter, never inside another

_OPEN = re.compile(r"^:::([A-Za-z][\w-]*)(?:[ \t]+(.*))?$")
_CLOSE = re.compile(r"^:::[ \t]*$")
_FENCE = re.compile(r"^[ \t]*(```|~~~)")


class ChapterError(QuizError):
    """Markup that cannot be turned into cards (exit 1); the message is ``FILE:LINE: what``."""

    def __init__(self, file: str, line: int, message: str) -> None:
        super().__init__(f"{file}:{line}: {message}", _("fix the chapter and run the import again; nothing was written"))


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
