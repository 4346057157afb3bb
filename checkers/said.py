"""The checkers' words, in the language in force: a gettext catalogue of their own.

Message ids are English; ``checkers/locale/zh/LC_MESSAGES/checkers.po`` translates them (compiled
to the ``.mo`` beside it by ``tools/catalogue.py``). checkers never import quizzer: the interface
tells them its language through ``speak`` (the process's language, and this context's: a web
request's own) or ``speaking`` (a block of code, such as solving a question drawn in another
language). Until told, they speak Chinese, the course's language.

Two ways to mark words, both extracted into the catalogue:
- ``_("Keep {count} decimal places").format(count=n)``: text made now, in the language in force
  (prompts, worked solutions, table headers, precision requests); ``N_`` marks an id in a table
  that ``_()`` translates where it is used.
- ``Said("Wrong. The answer is {answer}", answer=...)``: a message kept as its template and values
  (verdicts, lint's reasons), which ``text`` translates when it is shown.
"""

from __future__ import annotations

import gettext
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import cache
from pathlib import Path
from typing import Any

DOMAIN = "checkers"
LOCALE_DIR = Path(__file__).parent / "locale"
LANGUAGES = ("zh", "en")
COURSE_LANGUAGE = "zh"

_process_language = COURSE_LANGUAGE  # what ``speak`` last chose: threads started without a context read it
_context_language: ContextVar[str | None] = ContextVar("checkers_language", default=None)


def speak(language: str) -> None:
    """Write in ``language`` from here on: in this context, and in any thread that has no language
    of its own. An unknown language is the course's."""
    global _process_language
    chosen = language if language in LANGUAGES else COURSE_LANGUAGE
    _process_language = chosen
    _context_language.set(chosen)


@contextmanager
def speaking(language: str) -> Iterator[None]:
    """Write in ``language`` inside the block only (this context's, the process's unchanged)."""
    token = _context_language.set(language if language in LANGUAGES else COURSE_LANGUAGE)
    try:
        yield
    finally:
        _context_language.reset(token)


def language() -> str:
    """The language the checkers write in here and now."""
    return _context_language.get() or _process_language


@cache
def _catalogue(code: str) -> gettext.NullTranslations:
    return gettext.translation(DOMAIN, LOCALE_DIR, [code], fallback=True)


def _(message: str) -> str:
    """``message`` (an English id) in the language in force."""
    return _catalogue(language()).gettext(message)


def C_(context: str, message: str) -> str:
    """``message`` in the language in force where the same English says two things: a separator
    between equations ("; ") is a "，" in Chinese, one between clauses a "；"."""
    return _catalogue(language()).pgettext(context, message)


def N_(message: str) -> str:
    """Marks an id for the catalogue where it is defined; ``_()`` translates it where it is shown."""
    return message


def join(items: Iterable[object]) -> str:
    """A list as the language writes it: ``A, B`` in English, ``A、B`` in Chinese."""
    return _(", ").join(map(str, items))


class Said(str):
    """A message as an English template and its values, translated when it is shown (``text``):
    the text itself is the English, so a message raised inside pydantic reads as English too."""

    template: str
    values: dict[str, Any]

    def __new__(cls, template: str, **values: Any) -> Said:
        shown = {name: ", ".join(map(str, v)) if isinstance(v, list) else v for name, v in values.items()}
        said = super().__new__(cls, template.format(**shown))
        said.template, said.values = template, values
        return said


def text(message: str) -> str:
    """``message`` in the language in force: a ``Said`` from its template (a nested Said translated
    too, a list joined as the language joins lists); any other text as it is."""
    if not isinstance(message, Said):
        return message
    values = {name: text(value) if isinstance(value, str) else
              join(text(v) if isinstance(v, str) else v for v in value) if isinstance(value, list) else value
              for name, value in message.values.items()}
    return _(message.template).format(**values)
