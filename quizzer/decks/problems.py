"""A deck problem: ``path:line:column: message``, as validation, lint and loading report it."""

from __future__ import annotations

from dataclasses import dataclass

from quizzer.base.errors import UNLISTED, printable
from quizzer.base.i18n import _


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


def in_order(problems: list[Problem]) -> list[Problem]:
    """By file, line and column; a file's "not listed" line last, whatever the language sorts
    its message before."""
    return sorted(problems, key=lambda p: (p.file, p.message == _(UNLISTED), p.line, p.column, p.message))
