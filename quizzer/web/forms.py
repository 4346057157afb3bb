"""What the forms send, read into the app's terms: the interview plan's day and target (the plan
page, as ``quiz plan --date --retention --deck``), and the cards chosen to study (the today page,
as ``quiz study --deck --tag --kind``). A bad value is a UsageError naming the field."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import TYPE_CHECKING, Any

from quizzer.base.errors import UsageError
from quizzer.base.i18n import _
from quizzer.settings import BadValue, retention

if TYPE_CHECKING:
    from quizzer.app.collection import Collection


@dataclass(frozen=True)
class Interview:
    day: date
    retention: float | None  # None: the default target
    decks: list[str] | None  # None: every deck


def interview_of(form: Any, today: date) -> Interview:
    """The plan form's interview (``day``: YYYY-MM-DD, ``retention``: 0.70-0.99 or empty, ``deck``:
    the decks ticked, none for every deck), checked as ``quiz plan --date`` checks it."""
    from quizzer.app.plan import day_problem

    sent = str(form.get("day", "")).strip()
    try:
        day = date.fromisoformat(sent)
    except ValueError:
        raise UsageError(_("The interview's day {value!r} is not a date").format(value=sent),
                         _("e.g. 2026-12-24")) from None
    problem = day_problem(day, today)
    if problem:
        raise UsageError(_("The interview's day: {problem}").format(problem=problem),
                         _("give the interview's day, later than today"))
    target = str(form.get("retention", "")).strip()
    try:
        chosen = retention(target) if target else None
    except BadValue as bad:
        raise UsageError(_("The target recall {problem}").format(problem=bad)) from None
    decks = [str(deck) for deck in form.getlist("deck")]
    return Interview(day, chosen, decks or None)


@dataclass(frozen=True)
class Chosen:
    """The cards a study session is of: these decks, tags and kinds (empty: any)."""

    decks: list[str]
    tags: list[str]
    kinds: list[str]

    @classmethod
    def of(cls, query: Any) -> Chosen:
        """From ``?deck=&tag=&kind=`` (each may repeat; an empty value is no choice)."""
        def values(name: str) -> list[str]:
            return [value for value in query.getlist(name) if value]
        return cls(values("deck"), values("tag"), values("kind"))


def chooses_cards(query: Any) -> bool:
    """Whether a study URL chooses cards (and so starts a session), not just shows the one going."""
    return any(name in query for name in ("deck", "tag", "kind"))


@dataclass(frozen=True)
class Choices:
    """What the study form offers: each deck (id, title), tag and kind (id, title)."""

    decks: list[tuple[str, str]]
    tags: list[str]
    kinds: list[tuple[str, str]]


def choices(collection: Collection) -> Choices:
    from quizzer.app.kind_names import KINDS, title

    decks = [(loaded.id, loaded.title or loaded.id) for loaded in collection.decks]
    tags = sorted(set().union(*(loaded.tags for loaded in collection.decks)))
    return Choices(decks, tags, [(kind, title(kind)) for kind in KINDS])
