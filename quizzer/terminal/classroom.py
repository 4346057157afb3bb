"""Drawing ``quiz class report``: one row per learner, then the cards and tags the class fails most."""

from __future__ import annotations

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from quizzer.app.classroom import ClassReport, Failed
from quizzer.errors import printable
from quizzer.i18n import _, join
from quizzer.terminal.stats import percent


def _trend(points: float | None) -> str:
    """The exam scores' slope: ``+2.5/exam``; ``-`` with one exam."""
    return "-" if points is None else _("{points}/exam").format(points=f"{points:+.1f}")


def _failed(title: str, what: str, rows: list[Failed]) -> Table:
    table = Table(what, _("failed"), _("learners"), title=title, box=box.SIMPLE_HEAD, show_edge=False, padding=(0, 1))
    table.columns[0].overflow = "fold"  # the whole id, for `quiz show ID` / --tag
    for column in table.columns[1:]:
        column.justify = "right"
    for row in rows:
        table.add_row(Text(row.name), f"{row.failures:,}", f"{row.learners:,} ({row.share:.0%})")
    return table


def show(console: Console, report: ClassReport) -> None:
    span = _("{first} to {last}").format(first=report.first_day, last=report.last_day)
    console.print(Text(_("Class report, {span}").format(span=span), style="bold"))
    versions = [u for u in report.unread if u.version is not None]
    if versions:
        console.print(Text(_("Left out, their collection being at another schema version, which only their own quiz "
                             "upgrades: {learners}").format(
            learners=join([f"{u.learner} ({u.version})" for u in versions]))))
    for unread in report.unread:
        if unread.version is None:
            console.print(Text(_("Left out: {reason}").format(reason=printable(unread.reason))))
    if not report.learners:
        if not report.unread:
            console.print(_("No learner has a collection on this database yet."))
        return
    learners = Table(_("learner"), _("reviews"), _("days studied"), _("true retention"), _("last exam (trend)"),
                     _("interview"), box=box.SIMPLE_HEAD, show_edge=False, padding=(0, 1))
    learners.columns[0].min_width = min(max(len(one.learner) for one in report.learners), console.width // 4)
    for column in learners.columns:
        column.overflow = "fold"  # the whole name (it is what QUIZ_USER takes), date and figure
    learners.columns[-1].min_width = len("2026-01-01")
    for column in learners.columns[1:5]:
        column.justify = "right"
    for one in report.learners:
        exam = f"{one.exams[-1]:.0f}% ({_trend(one.exam_trend)})" if one.exams else "-"
        learners.add_row(Text(one.learner), f"{one.reviews:,}", f"{one.days_studied:,}", percent(one.retention.rate),
                         exam, str(one.interview) if one.interview else "-")
    console.print(learners)
    if not report.cards:
        console.print(_("Nobody failed a card in these days."))
        return
    console.print(_failed(_("Cards failed most"), _("card"), report.cards))
    console.print(_failed(_("Tags failed most"), _("tag"), report.tags))
