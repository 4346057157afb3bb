"""Looking at the collection without studying it: the card browser (``quiz cards``), one card
(``quiz show``) and the mistakes notebook as a list.

Texts come from each card's Kind (front, back, solution, texts), never from its fields, so a
new kind shows up here with nothing to change. ``plain`` turns a front's Markdown/LaTeX into
the text a one-line preview should show (the CLI passes the terminal's math rendering).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any


from quizzer import kinds
from quizzer.app import notebook, short_ids
from quizzer.app.collection import Collection
from quizzer.base.clock import next_day_start, to_utc
from quizzer.base.errors import CardNotFound
from quizzer.base.i18n import IDEOGRAPHS
from quizzer.kinds.base import Asked
from quizzer.scheduling import answer as answering
from quizzer.scheduling.learner import schedule_of
from quizzer.scheduling.memory import retrievability
from quizzer.scheduling.summary import CardInfo, card_info
from quizzer.settings import DEFAULTS, Settings
from quizzer.store import browse as browse_store
from quizzer.store.records import (
    LEARNING,
    NEW,
    RELEARNING,
    REVIEW,
    STATE_NAMES,
    CardRecord,
)

STATES = ("new", "learning", "review", "due", "suspended", "buried", "leech", "mistake")
SORTS = ("due", "recall", "lapses", "id")

Plain = Callable[[str], str]


def _same(text: str) -> str:
    return text


# ------------------------------------------------------------------ one-line previews


_MARKERS = re.compile(r"\*\*|__|`|^#+\s+|^\s*[-*]\s+|^\s*>\s?", re.M)


def one_line(text: str) -> str:
    """``text`` on one line, without Markdown markers (a table cuts it to its column)."""
    return " ".join(_MARKERS.sub("", text).split())


def front_line(card: Any, plain: Plain = _same, seed: int | None = None) -> str:
    """A card's front on one line, as study would show it; a generated kind's front without
    drawing a question (so no checker runs), or with the question ``seed`` draws."""
    kind = kinds.of(card)
    return one_line(plain(kind.front(kind.ask(card, seed) if seed is not None and kind.generated else Asked(card))))


# ------------------------------------------------------------------ search


def _fold(text: str) -> str:
    """Width and case do not matter (``ＢＥＲＴ``, ``bert`` and ``BERT`` are one word)."""
    return unicodedata.normalize("NFKC", text).casefold()


# a term is a run of Chinese or a run of anything else: "BERT生成" is "bert" and "生成", as the
# decks write "BERT 生成" with a space or without
_TERM = re.compile(f"[{IDEOGRAPHS}]+|[^\\s{IDEOGRAPHS}]+")


_AROUND = ",.;:?!()[]{}<>\"'、。「」『』《》…"  # punctuation typed beside a term (，and （ fold to , and ()


def search_terms(query: str | None) -> list[str]:
    """The terms every one of which a card must hold; a query of punctuation alone (``(``, ``->``)
    is searched as typed: stripped, it was no term, and every card matched."""
    typed = _TERM.findall(_fold(query or ""))
    return [term for term in (t.strip(_AROUND) for t in typed) if term] or typed


def card_text(card: Any) -> str:
    """Everything search looks at: the id, the tags and every text of the card (its Kind's texts)."""
    return _fold("\n".join([card.id, *card.tags, *kinds.of(card).texts(card)]))


def matches(card: Any, terms: Iterable[str]) -> bool:
    """Whether every term occurs somewhere in the card's text."""
    text = card_text(card)
    return all(term in text for term in terms)


# ------------------------------------------------------------------ the browser


@dataclass(frozen=True)
class Row:
    """One card of ``quiz cards`` (also its --json object)."""

    id: str
    short_id: str  # unique in the collection (short_ids): what a table shows where the id does not fit
    kind: str
    deck: str
    section: str
    front: str  # the first ~40 columns of the front, one line
    state: str  # new, learning, relearning or review
    due: datetime | None  # None for a new card
    stability: float | None  # days
    recall: float | None  # the chance of recall now, 0..1; None for a new card
    lapses: int
    tags: list[str]
    due_today: bool  # learning or review, due before the study day ends, not suspended or buried
    suspended: bool
    buried: bool
    leech: bool
    mistake: bool  # in the mistakes notebook

    @property
    def flags(self) -> list[str]:
        names = ("due", "suspended", "buried", "leech", "mistake")
        return [name for name, on in zip(names, (self.due_today, self.suspended, self.buried, self.leech,
                                                 self.mistake)) if on]


@dataclass(frozen=True)
class Status:
    """What ``--state`` filters on, known from the store's record alone: the browser decides
    whether a card is wanted before it loads the card's texts."""

    state: str  # new, learning, relearning or review
    due_today: bool  # learning or review, due before the study day ends, not suspended or buried
    suspended: bool
    buried: bool
    leech: bool
    mistake: bool

    @classmethod
    def of(cls, record: CardRecord, now: datetime, end: datetime, mistakes: set[str]) -> Status:
        memory = record.memory
        buried = record.buried_until is not None and record.buried_until > now
        due_today = (memory.state != NEW and memory.due is not None and memory.due < end
                     and not record.suspended and not buried)
        return cls(STATE_NAMES[memory.state], due_today, record.suspended, buried, memory.leech,
                   record.id in mistakes)

    def has(self, state: str) -> bool:
        """Whether the card is in ``state`` (one of STATES)."""
        checks = {
            "new": self.state == STATE_NAMES[NEW],
            "learning": self.state in (STATE_NAMES[LEARNING], STATE_NAMES[RELEARNING]),
            "review": self.state == STATE_NAMES[REVIEW],
            "due": self.due_today, "suspended": self.suspended, "buried": self.buried,
            "leech": self.leech, "mistake": self.mistake,
        }
        return checks[state]


def _row(record: CardRecord, card: Any, recall: float | None, status: Status, plain: Plain, short_id: str) -> Row:
    memory = record.memory
    seen = memory.state != NEW
    return Row(
        id=record.id, short_id=short_id, kind=record.kind, deck=record.deck, section=card.source,
        front=front_line(card, plain), state=status.state, due=memory.due if seen else None,
        stability=memory.stability if seen else None, recall=recall,
        lapses=memory.lapses, tags=list(record.tags), due_today=status.due_today, suspended=status.suspended,
        buried=status.buried, leech=status.leech, mistake=status.mistake,
    )


@dataclass(frozen=True)
class _Found:
    """A card the filters kept, with what its order needs, before its texts are loaded."""

    order: int  # its place in the decks
    record: CardRecord
    status: Status
    recall: float | None  # None for a new card


def _sort_key(sort: str) -> Callable[[_Found], tuple[Any, ...]]:
    """Cards never reviewed come last (in deck order) where they have no value."""
    def due(f: _Found) -> tuple[bool, float]:
        when = f.record.memory.due if f.record.memory.state != NEW else None
        return (True, 0.0) if when is None else (False, when.timestamp())

    keys: dict[str, Callable[[_Found], tuple[Any, ...]]] = {
        "due": lambda f: (*due(f), f.order),
        "recall": lambda f: (f.recall is None, f.recall if f.recall is not None else 0.0, f.order),
        "lapses": lambda f: (-f.record.memory.lapses, f.order),
        "id": lambda f: (f.record.id,),
    }
    return keys[sort]


@dataclass(frozen=True)
class Browsed:
    """The first ``limit`` rows of the cards the filters match, and how many match in all."""

    rows: list[Row]
    total: int


def browse(collection: Collection, now: datetime, *, search: str | None = None, decks: list[str] | None = None,
           tags: list[str] | None = None, kinds_wanted: list[str] | None = None, state: str | None = None,
           sort: str = "due", limit: int | None = None, plain: Plain = _same, settings: Settings = DEFAULTS) -> Browsed:
    """The cards in the decks that the filters match, sorted, the first ``limit`` of them (None:
    all) as rows. An unknown deck, tag or kind is an UnknownName (exit 2), as for ``quiz study``;
    ``state`` is one of STATES, ``sort`` of SORTS. Filters and order come from the store's records;
    a card's texts are loaded only for a search and for the rows returned (50,000 cards decode in
    seconds)."""
    if state is not None and state not in STATES:
        raise ValueError(f"state must be one of {STATES}")
    chosen = collection.card_filter(decks, tags, kinds_wanted)
    now = to_utc(now)
    end = next_day_start(now, settings.day_start_hour)
    terms = search_terms(search)
    # the notebook of the rows shown alone, unless it filters (its whole reads every twice-lapsed card's reviews)
    in_notebook = _noted(collection, settings, None) if state == "mistake" else set()
    scheduler = schedule_of(collection.store, settings).scheduler
    found: list[_Found] = []
    narrowed = browse_store.in_state(state, now, end)  # the store narrows; Status.has decides
    for order, record in enumerate(browse_store.matching(collection.store, chosen, narrowed)):
        status = Status.of(record, now, end, in_notebook)
        if state is not None and not status.has(state):
            continue
        if record.id not in collection.cards or (terms and not matches(collection.cards[record.id], terms)):
            continue
        seen = record.memory.state != NEW
        found.append(_Found(order, record, status, retrievability(record.memory, now, scheduler) if seen else None))
    found.sort(key=_sort_key(sort))
    shown = found if limit is None else found[:limit]
    if state != "mistake":
        noted = _noted(collection, settings, [f.record.id for f in shown])
        shown = [replace(f, status=replace(f.status, mistake=f.record.id in noted)) for f in shown]
    shortened = collection.cards.short_ids
    return Browsed([_row(f.record, collection.cards[f.record.id], f.recall, f.status, plain, shortened[f.record.id])
                    for f in shown], len(found))


def _noted(collection: Collection, settings: Settings, card_ids: list[str] | None) -> set[str]:
    """The cards of ``card_ids`` (None: any) in the mistakes notebook."""
    return {entry.card_id for entry in notebook.entries(collection.store, settings.day_start_hour, card_ids)}


# ------------------------------------------------------------------ one card


@dataclass(frozen=True)
class Worked:
    """A card's answer and worked solution, worked out when first read: a numeric card's by its
    checker's torch reference, which ``start`` sets going on a background thread once the question
    is on screen (as study does), so that the question is drawn without waiting for torch."""

    kind: Any
    asked: Asked

    def start(self) -> None:
        self.kind.prepare(self.asked)

    @property
    def back(self) -> str:
        return str(self.kind.back(self.asked))

    @property
    def solution(self) -> str | None:
        solution: str | None = self.kind.solution(self.asked)
        return solution


@dataclass(frozen=True)
class Shown:
    """One card as ``quiz show`` gives it: its texts as study and exam ask it, and its state."""

    info: CardInfo
    deck_title: str | None  # None: the card is in no deck now (its history stays)
    source: str | None
    seed: int | None  # the generated question's seed (numeric), to ask the same one again
    front: str | None
    worked: Worked | None  # the answer and solution (None with no front)
    buried: bool
    mistake: bool
    wrong_at: datetime | None = None  # the question shown is the notebook's: got wrong then

    @property
    def back(self) -> str | None:
        return self.worked.back if self.worked else None

    @property
    def solution(self) -> str | None:
        return self.worked.solution if self.worked else None

    @property
    def status(self) -> str:
        if not self.info.active:
            return "not in any deck now"
        if self.info.suspended:
            return "suspended"
        return "buried" if self.buried else "active"


def show(collection: Collection, card_id: str, now: datetime, seed: int | None = None,
         settings: Settings = DEFAULTS) -> Shown:
    """One card, named by its id, its short id or the start of its id (``short_ids.resolve``);
    CardNotFound (exit 1) if the store has never seen it, AmbiguousCard (exit 1) if several cards
    have that start. A generated kind draws its question from ``seed``; without one, a card in the
    mistakes notebook shows the question it was got wrong on, any other a fresh one. Its answer
    and solution are worked out when read (``Worked``)."""
    now = to_utc(now)
    scheduler = schedule_of(collection.store, settings).scheduler
    try:  # a whole id first: a card no deck has now is known by its whole id alone
        info = card_info(collection.store, card_id, now, scheduler)
    except CardNotFound:
        card_id = short_ids.resolve(card_id, collection.cards)  # a short id or an id's start, else the closest ids
        info = card_info(collection.store, card_id, now, scheduler)
    noted = next(iter(notebook.entries(collection.store, settings.day_start_hour, [card_id])), None)
    buried = info.buried_until is not None and info.buried_until > now
    card = collection.cards.get(card_id)
    if card is None:
        return Shown(info, None, None, None, None, None, buried, noted is not None)
    kind = kinds.of(card)
    wrong_at = None
    if seed is None and noted is not None and noted.last_wrong_seed is not None and kind.generated:
        seed, wrong_at = noted.last_wrong_seed, noted.last_wrong_at
    asked = kind.ask(card, seed)
    return Shown(info, collection.deck_of(card_id).title, card.source, asked.seed, kind.front(asked),
                 Worked(kind, asked), buried, noted is not None, wrong_at)


def put_back(collection: Collection, shown: Shown, now: datetime, *, unsuspend: bool = False, unbury: bool = False,
             settings: Settings = DEFAULTS) -> Shown:
    """The card ``show`` gave, put back into the drill: unsuspended (``unsuspend``, if it was
    suspended) and unburied (``unbury``, if it was buried); shown again with the same question."""
    card_id = shown.info.id
    if not ((unsuspend and shown.info.suspended) or (unbury and shown.buried)):
        return shown
    if unsuspend and shown.info.suspended:
        answering.unsuspend(collection.store, card_id)
    if unbury and shown.buried:
        answering.unbury(collection.store, card_id)
    return show(collection, card_id, now, None if shown.wrong_at else shown.seed, settings)


# ------------------------------------------------------------------ the mistakes notebook


@dataclass(frozen=True)
class MistakeRow:
    """One card of ``quiz mistakes`` (also its --json object)."""

    id: str
    short_id: str  # unique in the collection (short_ids), as ``Row.short_id``: what the table shows where ids do not fit
    front: str | None  # None: the card is in no deck now
    times_wrong: int
    last_wrong_at: datetime
    last_wrong_answer: str | None
    seed: int | None  # a numeric card's question got wrong, which ``front`` is and ``quiz show`` works out
    right_days: int
    right_days_needed: int
    sources: tuple[str, ...]  # where its mistakes came from: "exam", "study" or both


def mistakes(collection: Collection, plain: Plain = _same, settings: Settings = DEFAULTS) -> list[MistakeRow]:
    """The notebook, most recent mistake first, with each card's question: a numeric card's as it
    was got wrong."""
    rows = []
    entries = notebook.entries(collection.store, settings.day_start_hour)
    shortened = short_ids.of_collection(collection.cards.short_ids, [entry.card_id for entry in entries])
    for entry in entries:
        card = collection.cards.get(entry.card_id)
        seed = entry.last_wrong_seed if card is not None and kinds.of(card).generated else None
        rows.append(MistakeRow(entry.card_id, shortened[entry.card_id], front_line(card, plain, seed) if card is not None else None,
                               entry.times_wrong, entry.last_wrong_at, entry.last_wrong_answer, seed, entry.right_days,
                               notebook.RIGHT_DAYS_TO_LEAVE, entry.sources))
    return rows


def mistakes_drill(collection: Collection, rows: list[MistakeRow], now: datetime) -> list[str]:
    """``quiz mistakes --drill``'s queue: the notebook's cards (``rows``, as ``mistakes`` lists
    them) that a session may show now (not suspended, not buried)."""
    return notebook.drill(collection.store, [row.id for row in rows], now)
