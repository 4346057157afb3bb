"""Drawing the pages: Jinja2 templates with autoescape on, in the language of the learner's
setting (``QUIZ_LANG``, the config file), else the first of ours the browser accepts, else
Chinese; card text as HTML through ``quizzer.base.markup`` with math as MathML."""

from __future__ import annotations

import os
from datetime import timedelta
from functools import lru_cache
from pathlib import Path
from typing import Any

from markupsafe import Markup

from quizzer.base import i18n, markup
from quizzer.app.views import interval
from quizzer.base.defaults import Rating
from quizzer.web.mathml import to_mathml

TEMPLATES = Path(__file__).parent / "templates"


def language(accept: str, configured: str | None = None) -> str:
    """The pages' language: ``QUIZ_LANG``, else the learner's setting (``configured``: the config
    file's ``language``), else the browser's ``Accept-Language``."""
    chosen = i18n.requested(os.environ) or configured
    if chosen:
        return chosen
    ranked = []
    for position, part in enumerate(accept.split(",")):
        tag, _, weight = part.strip().partition(";q=")
        try:
            quality = float(weight) if weight else 1.0
        except ValueError:
            quality = 0.0
        code = i18n.language_code(tag)
        if code and quality > 0:
            ranked.append((-quality, position, code))
    return min(ranked)[2] if ranked else i18n.FALLBACK


def card_html(text: str | None) -> Markup:
    """Deck text (Markdown, TeX) as safe HTML: raw HTML in it shows as text."""
    return Markup(markup.to_html(text, to_mathml)) if text else Markup("")


def ratings(intervals: tuple[timedelta, ...]) -> list[dict[str, Any]]:
    """The four rating buttons: number, name and, when known, the wait after each."""
    waits = [interval(span) for span in intervals] if len(intervals) == len(Rating) else [""] * len(Rating)
    return [{"value": r.value, "name": r.shown, "wait": wait} for r, wait in zip(Rating, waits)]


@lru_cache(maxsize=1)
def environment() -> Any:
    from jinja2 import Environment, FileSystemLoader, select_autoescape

    env = Environment(loader=FileSystemLoader(TEMPLATES), autoescape=select_autoescape(default=True),
                      trim_blocks=True, lstrip_blocks=True)
    env.globals.update(_=lambda message: i18n._(message), ngettext=i18n.ngettext, said=i18n.translate_checker_message, card_html=card_html,
                       ratings=ratings, interval=interval)
    return env


def draw(template: str, **context: Any) -> str:
    return str(environment().get_template(template).render(**context))


def patience(retry_seconds: float) -> Any:
    """How a page's answer waits for the database: a server out of reach is tried again for
    ``retry_seconds`` (``app.busy``), as at the terminal. Nothing is said meanwhile: the request
    is still loading, and the page that follows says whether the answer was saved."""
    from quizzer.app.busy import Waiting

    return Waiting(lambda problem: None, retry_seconds)
