"""``quiz class report``: where a class sharing one server stands before mock interviews.

Per learner, over the last ``days`` study days: reviews, days studied, true retention (as
``quiz stats`` defines it), the exam scores' trend and the interview date. For the class: the
cards and tags failed most often (rated Again), with the share of learners who failed them. The
class is the learners who reviewed in these days: one without a review (a name mistyped once, a
learner who has not started) is listed, not counted in the shares. The figures are each
learner's own, read from their collection one after the other; a SQLite file is a class of one.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from pathlib import Path

from quizzer.app.stats import Retention, exam_trend, summed, true_retention
from quizzer.base.clock import day_start, next_day_start, study_day, to_utc
from quizzer.base.errors import OtherSchemaVersion, UnreadCollection
from quizzer.store import classroom
from quizzer.store import learner as learner_state
from quizzer.store import stats as queries
from quizzer.store.engine import Store
from quizzer.store.filter import EVERYTHING
from quizzer.store.review_days import review_days_of

DAYS = 14
HARDEST = 10  # cards and tags listed


@dataclass(frozen=True)
class LearnerFigures:
    learner: str
    reviews: int
    days_studied: int
    retention: Retention  # true retention, young and mature cards together
    exams: list[float]  # finished exams' scores in percent, oldest first
    exam_trend: float | None  # points per exam; None with fewer than two exams
    interview: date | None


@dataclass(frozen=True)
class Failed:
    """A card or tag the class failed: failed reviews, and the learners who failed it."""

    name: str
    failures: int
    learners: int
    share: float  # of the class's learners


@dataclass(frozen=True)
class Unread:
    """A learner whose collection the report leaves out: at another schema version (``version``),
    not granted to this login, or damaged; ``reason`` says which, in a line."""

    learner: str
    version: str | None
    reason: str

    @property
    def newer(self) -> bool:
        """At a schema version a later quizzer made: the reader's quizzer is the one behind."""
        from quizzer.store.schema import SCHEMA_HEAD

        return self.version is not None and self.version > SCHEMA_HEAD


@dataclass(frozen=True)
class ClassReport:
    first_day: date
    last_day: date
    learners: list[LearnerFigures]
    class_size: int  # the learners with a review in these days: what the shares are of
    cards: list[Failed]  # the HARDEST failed most
    tags: list[Failed]
    cards_failed: int  # how many cards and tags someone failed, those not listed too
    tags_failed: int
    unread: list[Unread]  # left out of every figure, the class's shares included
    public_collection: bool  # one kept before learners, still in ``public``: the first learner to open it takes it


def _learner(store: Store, days: list[date], rollover_hour: int) -> LearnerFigures:
    """One learner's figures over ``days``, from the review log's aggregate as ``quiz stats`` reads
    it (what it lacks is counted, not stored: the reader's day rule need not be the learner's)."""
    by_day = review_days_of(store, EVERYTHING, rollover_hour, keep=False)
    total = summed(by_day, days)
    points, trend = exam_trend(store, EVERYTHING)
    interview = learner_state.load(store).interview
    return LearnerFigures(
        learner=store.learner, reviews=total["reviews"],
        days_studied=sum(1 for day in days if summed(by_day, [day])["reviews"]),
        retention=true_retention(total).all, exams=[p.score for p in points], exam_trend=trend,
        interview=interview.day if interview else None)


def _ranked(failed: dict[str, Counter[str]], learners: int) -> list[Failed]:
    """``{name: {learner: failures}}`` as the most failed first (by learners who failed, then failures)."""
    rows = [Failed(name, sum(by.values()), len(by), len(by) / learners) for name, by in failed.items()]
    rows.sort(key=lambda f: (-f.learners, -f.failures, f.name))
    return rows[:HARDEST]


def class_report(location: str | Path | None, learner: str | None, now: datetime, rollover_hour: int,
                 days: int = DAYS) -> ClassReport:
    """The class report of the database at ``location`` (``learner``'s own on a SQLite file), read
    without creating or upgrading anybody's collection."""
    store = classroom.open_class(location, learner)
    try:
        return report(store, now, rollover_hour, days)
    finally:
        store.close()


def report(store: Store, now: datetime, rollover_hour: int, days: int = DAYS) -> ClassReport:
    """The class report for the ``days`` study days up to and including today."""
    today = study_day(to_utc(now), rollover_hour)
    first = today - timedelta(days=days - 1)
    period = [first + timedelta(days=i) for i in range(days)]
    since, until = day_start(first, rollover_hour), next_day_start(now, rollover_hour)
    figures: list[LearnerFigures] = []
    by_card: dict[str, Counter[str]] = {}
    by_tag: dict[str, Counter[str]] = {}
    unread: list[Unread] = []
    refused: list[UnreadCollection] = []
    for name in classroom.names(store):
        try:
            with classroom.opened(store, name) as theirs:
                mine = _learner(theirs, period, rollover_hour)
                failures = classroom.failures(theirs, since, until)
                tags = queries.tags_of(theirs, sorted(failures))
        except UnreadCollection as why:
            version = why.version if isinstance(why, OtherSchemaVersion) else None
            unread.append(Unread(name, version, why.message))
            if version is None:
                refused.append(why)
            continue
        figures.append(mine)
        for card_id, count in failures.items():
            by_card.setdefault(card_id, Counter())[name] += count
        for card_id, tag in tags:
            by_tag.setdefault(tag, Counter())[name] += failures[card_id]
    if refused and not figures:  # this login reads nobody's collection: an error, not an empty report
        raise refused[0]
    size = sum(1 for one in figures if one.reviews)
    learners = max(size, 1)
    return ClassReport(first, today, figures, size, _ranked(by_card, learners), _ranked(by_tag, learners),
                       len(by_card), len(by_tag), unread, classroom.public_collection(store))
