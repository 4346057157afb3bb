"""Drawing ``quiz class report``: one row per learner, then the cards and tags the class fails most."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table
from rich.text import Text

from quizzer.app.classroom import ClassReport, Failed
from quizzer.base.errors import printable
from quizzer.base.i18n import _, join, join_some, ngettext
from quizzer.terminal.stats import percent
from quizzer.terminal.tables import fit, listing, number


def _trend(points: float | None) -> str:
    """The exam scores' slope: ``+2.5/exam``; ``-`` with one exam."""
    return "-" if points is None else _("{points}/exam").format(points=f"{points:+.1f}")


def _failed(console: Console, title: str, what: str, rows: list[Failed]) -> Table:
    table = listing(what, number(_("failed")), number(_("learners")), title=title)  # the whole id, for `quiz show ID` / --tag
    return fit(console, table, [[row.name, f"{row.failures:,}", f"{row.learners:,} ({percent(row.share)})"]
                                for row in rows])


def show(console: Console, report: ClassReport) -> None:
    span = _("{first} to {last}").format(first=report.first_day, last=report.last_day)
    console.print(Text(_("Class report, {span}").format(span=span), style="bold"))
    older = [u for u in report.unread if u.version is not None and not u.newer]
    newer = [u for u in report.unread if u.newer]
    if older:
        console.print(Text(_("Left out, their collection being at an older schema version, which only their own quiz "
                             "upgrades: {learners}").format(learners=join([f"{u.learner} ({u.version})" for u in older]))))
    if newer:  # a later quizzer than this one upgraded them: the reader's quizzer is the one behind
        console.print(Text(_("Left out, their collection being at a newer schema version than this quizzer reads: "
                             "upgrade quizzer to include them: {learners}").format(
            learners=join([f"{u.learner} ({u.version})" for u in newer]))))
    for unread in report.unread:
        if unread.version is None:
            console.print(Text(_("Left out: {reason}").format(reason=printable(unread.reason))))
    if report.public_collection:
        console.print(_("Left out: a collection kept before quizzer had learners, still in the schema public; the first "
                        "learner whose quiz opens this database takes it."))
    if not report.learners:
        if not report.unread:
            console.print(_("No learner has a collection on this database that this login may read."))
        return
    learners = listing(_("learner"), number(_("reviews")), number(_("days studied")), number(_("true retention")),
                       number(_("last exam (trend)")), _("interview"))
    rows = [[one.learner, f"{one.reviews:,}", f"{one.days_studied:,}", percent(one.retention.rate),
             f"{one.exams[-1]:.1f}% {_trend(one.exam_trend)}" if one.exams else "-",
             str(one.interview) if one.interview else "-"] for one in report.learners]
    fit(console, learners, rows)  # the whole name (it is what QUIZ_USER takes) wraps; no figure or date is cut
    console.print(learners)
    idle = [one.learner for one in report.learners if not one.reviews]
    if idle:
        console.print(Text(_("Not in the class's shares, having no review in these days: {learners}").format(
            learners=join_some(idle))))
    if not report.cards:
        console.print(_("Nobody failed a card in these days."))
        return
    console.print(_failed(console, _("Cards failed most"), _("card"), report.cards))
    more = report.cards_failed - len(report.cards)
    if more:
        console.print(ngettext("and {count} more card failed", "and {count} more cards failed", more).format(count=f"{more:,}"))
    console.print(_failed(console, _("Tags failed most"), _("tag"), report.tags))
    more = report.tags_failed - len(report.tags)
    if more:
        console.print(ngettext("and {count} more tag failed", "and {count} more tags failed", more).format(count=f"{more:,}"))
