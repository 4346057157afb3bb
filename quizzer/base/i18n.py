"""The interface language, from a gettext message catalogue: the process's, or a context's own.

Message ids are the English text; ``quizzer/locale/zh/LC_MESSAGES/quizzer.po`` translates them
and is compiled to the ``.mo`` beside it (``pybabel compile``; a test keeps the two equal), so
the running program needs only the standard library's ``gettext``. The language is chosen once
per process, by the front end once it has read the config file: ``QUIZ_LANG`` (or
``QUIZ_LANGUAGE``, the setting's own variable), the ``language`` setting in the config file, the
locale (``LC_ALL``, ``LC_MESSAGES``, ``LANG``), and with none of these the language the decks in
use are written in. This module reads no settings itself (``choose`` is handed the setting).
A block of code can speak a language of its own (``speaking``): the web answers each request in
its browser's language while another request is served in another.

Write ``_("Reviewed {count}").format(count=n)``, never an f-string inside ``_()``: the id must
be a literal for extraction. The line protocol's machine lines are not translated.
"""

from __future__ import annotations

import gettext
import os
import re
import stat
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from functools import cache
from pathlib import Path

from checkers import said

DOMAIN = "quizzer"
LOCALE_DIR = Path(__file__).parents[1] / "locale"  # quizzer/locale
LANGUAGES = ("zh", "en")
FALLBACK = "zh"  # the decks' language when no deck says otherwise
# the CJK ideographs (the unified ones, extension A, the compatibility ones), as a regex class body:
# Chinese words, which search and line breaking treat apart from Latin ones
IDEOGRAPHS = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"

_language: str | None = None  # the process's: what the front end chose, read where no context chose one
_context_language: ContextVar[str | None] = ContextVar("quizzer_language", default=None)  # ``speaking``'s
_pinned = False  # the language was set by ``use(language)``, not chosen
_chooser: Callable[[], str] | None = None  # None: ``choose``; set by a front end that knows the config file (chosen_by)


def language_code(value: str | None) -> str | None:
    """``zh_CN.UTF-8`` → ``zh``; None for anything that is not one of ours (``C``, ``fr_FR``)."""
    if not value:
        return None
    code = re.split(r"[_.@:-]", value.strip().lower(), maxsplit=1)[0]
    return code if code in LANGUAGES else None


def from_locale(environ: Mapping[str, str]) -> str | None:
    """The first locale variable that is set decides, as in POSIX (``LC_ALL`` over ``LANG``)."""
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        if environ.get(name):
            return language_code(environ[name])
    return None


def from_decks(folders: Iterable[Path]) -> str:
    """The language most decks in ``folders`` declare, read from their first lines (no YAML
    parse: the language is chosen before anything is drawn)."""
    seen: dict[str, int] = {}
    try:
        for folder in folders:
            for path in sorted(folder.glob("*.y*ml"))[:200]:
                head = _head(path)
                found = re.search(r"^language:\s*['\"]?([A-Za-z-]+)", head, re.MULTILINE)
                code = language_code(found.group(1)) if found else None
                if code:
                    seen[code] = seen.get(code, 0) + 1
    except OSError:
        pass
    return max(seen, key=lambda code: seen[code]) if seen else FALLBACK


def _head(path: Path) -> str:
    """A deck file's first 4 KiB; '' for anything but a plain file: a named pipe's open waited for
    a writer forever (Ctrl-C too), before the decks' own check could leave it out."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        return os.read(fd, 4096).decode("utf-8", "replace") if stat.S_ISREG(os.fstat(fd).st_mode) else ""
    finally:
        os.close(fd)


def requested(environ: Mapping[str, str]) -> str | None:
    """The language the environment asks for: ``QUIZ_LANG``, else ``QUIZ_LANGUAGE``."""
    for variable in ("QUIZ_LANG", "QUIZ_LANGUAGE"):
        code = language_code(environ.get(variable))
        if code:
            return code
    return None


def unasked(environ: Mapping[str, str], deck_folders: Sequence[Path] | None = None) -> str:
    """The language when neither the environment nor the setting asks for one: the locale's, else
    that of the decks in ``deck_folders`` (None: those of ``QUIZ_DECKS`` or the bundled ones),
    English on an output that cannot write Chinese."""
    chosen = from_locale(environ) or from_decks(_default_decks(environ) if deck_folders is None else deck_folders)
    return "en" if chosen == "zh" and not _writes_chinese(sys.stdout) else chosen


def _default_decks(environ: Mapping[str, str]) -> list[Path]:
    from quizzer.base.locations import deck_dirs

    return deck_dirs(None, environ)


def choose(environ: Mapping[str, str] | None = None, configured: str | None = None,
           deck_folders: Sequence[Path] | None = None) -> str:
    """``QUIZ_LANG``, else ``configured`` (the config file's ``language``), else ``unasked``."""
    environ = os.environ if environ is None else environ
    chosen = requested(environ) or configured or unasked(environ, deck_folders)
    if chosen == "zh" and not requested(environ) and not _writes_chinese(sys.stdout):
        return "en"  # a Latin-1 or ASCII output would show escapes: only QUIZ_LANG=zh insists
    return chosen


def _writes_chinese(stream: object) -> bool:
    """Whether ``stream``'s encoding has Chinese characters (UTF-8, GB18030 do; ASCII, Latin-1 not)."""
    encoding = getattr(stream, "encoding", None)
    if not isinstance(encoding, str):
        return True  # a test's capture, or no stream: nothing to judge by
    try:
        "中文".encode(encoding)
    except (UnicodeEncodeError, LookupError):
        return False
    return True


def chosen_by(chooser: Callable[[], str]) -> None:
    """How ``use()`` chooses from here on: a front end that reads the config file chooses with it."""
    global _chooser
    _chooser = chooser


def use(language: str | None = None) -> str:
    """Switch the process to ``language``, which then holds over the language a run chooses
    (``follow``): a program or a test that set it keeps it. None: choose as the module docstring
    says, and let each run choose its own."""
    global _pinned, _language
    if _language is None:  # while choosing (reading the config file), messages stay English
        _language = "en"
    _pinned = language in LANGUAGES
    return _switch(language if language in LANGUAGES else (_chooser or choose)())


def follow(language: str) -> str:
    """Switch to the language a run chose, unless the process set one itself (``use``)."""
    return _language if _pinned and _language is not None else _switch(language)


def _switch(language: str) -> str:
    global _language
    _language = language
    said.speak(language)  # the checkers' words (their own catalogue) follow the interface's
    return language


@contextmanager
def speaking(language: str) -> Iterator[None]:
    """Speak ``language`` (one of ``LANGUAGES``) inside the block only, the checkers too: in this
    context and the tasks and threads that copy it; the process's language stays as it is."""
    token = _context_language.set(language)
    try:
        with said.speaking(language):
            yield
    finally:
        _context_language.reset(token)


def current() -> str:
    """The language in force here: this context's (``speaking``), else the process's."""
    language = _context_language.get() or _language
    return language if language is not None else use()


@cache
def _catalogue(language: str) -> gettext.NullTranslations:
    return gettext.translation(DOMAIN, LOCALE_DIR, [language], fallback=True)


def _(message: str) -> str:
    return _catalogue(current()).gettext(message)


def ngettext(singular: str, plural: str, count: int) -> str:
    return _catalogue(current()).ngettext(singular, plural, count)


def join(items: Iterable[str]) -> str:
    """A list in a sentence as the language writes it: ``A, B, C`` in English, ``A、B、C`` in
    Chinese (the enumeration comma; a ``，`` there reads as two clauses)."""
    return _(", ").join(items)


def join_some(items: Sequence[str], shown: int = 20) -> str:
    """The first ``shown`` items joined, then how many more: a problem found in a million rows
    stays one line that names a few."""
    more = _(" and {count} more").format(count=len(items) - shown) if len(items) > shown else ""
    return join(items[:shown]) + more


def translate_checker_message(message: str) -> str:
    """A message from ``checkers`` in the interface language (the checkers' catalogue, which
    ``_switch`` and ``speaking`` keep speaking it): a ``checkers.said.Said`` is translated from its template, any
    other text is shown as is."""
    return said.text(message)


def N_(message: str) -> str:
    """Marks a string for the catalogue where it is defined (a table of names); translate it
    with ``_()`` where it is shown."""
    return message
