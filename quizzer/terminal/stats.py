"""Drawing ``quiz stats``: rich tables, bars and a calendar heatmap, fitted to the terminal width.

Side-by-side tables (``Columns``) fall back to one under the other on a narrow terminal; the
heatmap shows as many weeks as fit (up to a year).
"""

from __future__ import annotations

import statistics
from bisect import bisect_left
from datetime import date, timedelta

from rich import box
from rich.bar import Bar
from rich.cells import cell_len
from rich.columns import Columns
from rich.console import Console, RenderableType
from rich.table import Column, Table
from rich.text import Text

from quizzer.app.stats import DeckCards, Retention, Stats
from quizzer.base.i18n import N_, _, join, ngettext
from quizzer.terminal.render import safe
from quizzer.terminal.tables import ident, listing, number, text

WEEKDAYS = (N_("Mon"), N_("Tue"), N_("Wed"), N_("Thu"), N_("Fri"), N_("Sat"), N_("Sun"))
# heatmap levels: no reviews, then the quartiles of the busy days shown (as GitHub's calendar)
LEVELS = (("·", "grey35"), ("░", "#40c463"), ("▒", "#30a14e"), ("▓", "#216e39"), ("█", "#0e4429"))
MONTHS = (N_("Jan"), N_("Feb"), N_("Mar"), N_("Apr"), N_("May"), N_("Jun"), N_("Jul"), N_("Aug"), N_("Sep"),
          N_("Oct"), N_("Nov"), N_("Dec"))


def percent(value: float | None) -> str:
    return "-" if value is None else f"{value:.1%}"


def minutes(ms: int) -> str:
    if 0 < ms < 30_000:
        return _("under a minute")
    total = round(ms / 60_000)
    if total >= 60:
        return _("{hours} h {minutes} min").format(hours=total // 60, minutes=f"{total % 60:02d}")
    return _("{minutes} min").format(minutes=total)


def day_label(day: date, today: date) -> str:
    """``today``, else the weekday and date (``Mon 06-30`` / ``周一 06-30``)."""
    return _("today") if day == today else f"{_(WEEKDAYS[day.weekday()])} {day:%m-%d}"


def _bar_width(console: Console) -> int:
    return max(8, min(30, (console.width - 36) // 2))


SHORT = {N_("learn"): N_("lrn"), N_("review"): N_("rev"), N_("relearn"): N_("rel"), N_("suspended"): N_("susp"),
         N_("buried"): N_("bur")}


def _cards(stats: Stats, width: int) -> list[RenderableType]:
    deck_width = max((len(d.deck or "") for d in stats.cards), default=4)
    names = [_(n) for n in (N_("new"), N_("learn"), N_("review"), N_("relearn"), N_("suspended"), N_("buried"),
                            N_("leech"), N_("total"))]
    short = deck_width + sum(map(cell_len, names)) + 3 * len(names) > width  # abbreviated, explained below
    shorter = {_(long): _(abbreviated) for long, abbreviated in SHORT.items()}
    headers = [shorter.get(n, n) if short else n for n in names]
    roomy = deck_width + sum(max(cell_len(h), 4) for h in headers) + 3 * len(headers) <= width
    table = Table(_("deck"), *headers, title=_("Cards"), show_footer=len(stats.cards) > 1, box=box.SIMPLE_HEAD,
                  show_edge=False, padding=(0, 1) if roomy else (0, 0))
    for column in table.columns[1:]:
        column.justify = "right"
    table.columns[0].min_width = min(deck_width, width // 3)
    table.columns[0].overflow = "fold"  # the whole id, for --deck

    def row(c: DeckCards) -> list[str]:
        return [str(n) for n in (c.new, c.learning, c.review, c.relearning, c.suspended, c.buried, c.leech, c.total)]

    for deck in stats.cards:
        table.add_row(safe(deck.deck or ""), *row(deck))
    if len(stats.cards) > 1:
        for column, value in zip(table.columns, [_("all"), *row(stats.cards_total)]):
            column.footer = value
    legend = Text(_("lrn learning, rev review, rel relearning, susp suspended, bur buried"), style="dim")
    return [table, legend] if short else [table]


def _overview(stats: Stats) -> Table:
    table = Table(show_header=False, title=_("Overview"), title_justify="left", box=None, padding=(0, 2, 0, 0))
    table.add_column(style="bold")
    table.add_column()
    if stats.first_day is not None:
        span = (stats.today - stats.first_day).days + 1
        table.add_row(_("reviews"), _("{count} since {day}").format(count=f"{stats.reviews_total:,}", day=stats.first_day))
        table.add_row(_("days studied"), _("{studied} of {span} ({share})").format(
            studied=f"{stats.days_studied:,}", span=f"{span:,}", share=f"{stats.days_studied / span:.0%}"))
        table.add_row(_("streak"), ngettext("{count} day", "{count} days", stats.streak).format(count=stats.streak))
    table.add_row(_("due today, learning included"), f"{stats.due_today:,}")  # the overview counts them apart
    recall = (_("{recall} over {count} cards").format(recall=percent(stats.average_recall), count=f"{stats.recall_cards:,}")
              if stats.recall_cards else "-")
    table.add_row(_("average recall now"), recall)
    return table


def _bar_table(title: str, headers: tuple[str, ...], rows: list[tuple[list[str], float]], size: float,
               width: int, caption: str | None = None) -> Table:
    # at least as wide as its caption, which would otherwise wrap inside a word ("分\n钟")
    table = Table(*headers, "", title=title, caption=caption, box=None, padding=(0, 1),
                  min_width=cell_len(caption) if caption else None)
    for column in table.columns[1:-1]:
        column.justify = "right"
    for cells, value in rows:
        table.add_row(*cells, Bar(size=max(size, 1), begin=0, end=value, width=width, color="green"))
    return table


QUIET_DAYS = 3  # days in a row with nothing, shown as one row: thirty rows of 0 after a break filled the screen


def _days(days: list[tuple[date, list[str], float, bool]], today: date) -> list[tuple[list[str], float]]:
    """A row per day (its label, then its cells, and its bar's value); a run of QUIET_DAYS or more
    days with nothing (the last item: quiet) is one row, ``12-13 – 01-01``; today has its own."""
    rows: list[tuple[list[str], float]] = []
    run: list[tuple[date, list[str], float, bool]] = []

    def end_run() -> None:
        if len(run) >= QUIET_DAYS:
            rows.append(([f"{run[0][0]:%m-%d} – {run[-1][0]:%m-%d}", *run[0][1]], 0.0))
        else:
            rows.extend(([day_label(day, today), *cells], value) for day, cells, value, _quiet in run)
        run.clear()

    for day, cells, value, quiet in days:
        if quiet and day != today:
            run.append((day, cells, value, quiet))
            continue
        end_run()
        rows.append(([day_label(day, today), *cells], value))
    end_run()
    return rows


def _forecast(stats: Stats, width: int) -> Table:
    rows = _days([(d.day, [f"{d.due:,}"], float(d.due), not d.due) for d in stats.forecast], stats.today)
    return _bar_table(_("Due, next {days} days").format(days=len(stats.forecast)), (_("day"), _("due")), rows,
                      max(d.due for d in stats.forecast), width)


def _time(stats: Stats, width: int) -> Table:
    total = sum(d.duration_ms for d in stats.time_per_day)
    studied = sum(1 for d in stats.time_per_day if d.reviews)
    caption = (_("{total} in all, {per_day} a study day").format(total=minutes(total), per_day=minutes(total // studied))
               if studied else _("no reviews"))
    rows = _days([(d.day, [f"{d.reviews:,}", f"{d.duration_ms / 60_000:.1f}"], d.duration_ms / 60_000, not d.reviews)
                  for d in stats.time_per_day], stats.today)
    return _bar_table(_("Time per day, last {days} days").format(days=stats.period_days),
                      (_("day"), _("reviews"), _("min")), rows,
                      max(d.duration_ms for d in stats.time_per_day) / 60_000, width, caption)


def _retention(stats: Stats) -> Table:
    table = Table(_("cards"), _("passed"), _("failed"), _("retention"),
                  title=_("True retention, last {days} days").format(days=stats.period_days),
                  caption=_("mature: interval 21+ days"), box=None, padding=(0, 1))
    for column in table.columns[1:]:
        column.justify = "right"
    rows: list[tuple[str, Retention]] = [(_("young"), stats.true_retention.young),
                                         (_("mature"), stats.true_retention.mature), (_("all"), stats.true_retention.all)]
    for name, r in rows:
        table.add_row(name, f"{r.passed:,}", f"{r.failed:,}", percent(r.rate))
    return table


def _ratings(stats: Stats, width: int) -> Table:
    counts = [(_("Again"), stats.ratings.again), (_("Hard"), stats.ratings.hard), (_("Good"), stats.ratings.good),
              (_("Easy"), stats.ratings.easy)]
    total = sum(n for _name, n in counts)
    rows = [([name, f"{n:,}", percent(n / total if total else None)], float(n)) for name, n in counts]
    return _bar_table(_("Ratings, last {days} days").format(days=stats.period_days),
                      (_("rating"), _("count"), _("share")), rows,
                      max((n for _name, n in counts), default=0), min(width, 20))


def levels(values: list[int]) -> list[int]:
    """A heatmap shade per day: 0 for none, else 1-4 by the quartiles of the days with reviews
    (a day on a quartile takes the lower shade)."""
    busy = [v for v in values if v > 0]
    if not busy:
        return [0] * len(values)
    edges = statistics.quantiles(busy, n=4, method="inclusive") if len(busy) > 1 else busy * 3
    return [0 if v == 0 else 1 + bisect_left(edges, v) for v in values]


def heatmap(stats: Stats, width: int) -> list[RenderableType]:
    """Reviews per study day as a calendar: a column per week (Monday first), a row per weekday."""
    label = max(cell_len(_(name)) for name in WEEKDAYS) + 1  # the weekday labels' column, a cell to spare
    weeks = max(4, min(53, (width - label) // 2))
    last_monday = stats.today - timedelta(days=stats.today.weekday())
    first = last_monday - timedelta(weeks=weeks - 1)
    per_day = {d.day: d.reviews for d in stats.reviews_per_day if d.day >= first}
    days = [first + timedelta(days=i) for i in range((stats.today - first).days + 1)]
    level = dict(zip(days, levels([per_day.get(d, 0) for d in days])))

    months = Text(" " * label, no_wrap=True, overflow="crop")
    free = 0
    for week in range(weeks):
        week_days = [first + timedelta(weeks=week, days=k) for k in range(7)]
        firsts = [d for d in week_days if d.day == 1]  # a month begins in this week
        position = label + 2 * week
        if firsts and position >= free and week < weeks - 1:
            months.append(" " * (position - months.cell_len) + _(MONTHS[firsts[0].month - 1]))
            free = months.cell_len + 1

    grid = Table.grid(padding=0)
    grid.add_column(width=label, no_wrap=True)
    for _week in range(weeks):
        grid.add_column(width=2, no_wrap=True)
    for weekday, name in enumerate(WEEKDAYS):
        cells: list[Text] = [Text(_(name))]
        for week in range(weeks):
            day = first + timedelta(weeks=week, days=weekday)
            if day > stats.today:
                cells.append(Text("  "))
                continue
            glyph, style = LEVELS[level[day]]
            cells.append(Text(glyph * 2 if glyph != "·" else "· ", style=style))
        grid.add_row(*cells)
    shown = sum(per_day.values())
    busiest = max(per_day.items(), key=lambda item: (item[1], item[0]), default=None)
    legend = Text(_("less") + " ")
    for glyph, style in LEVELS:
        legend.append(glyph, style=style)
        legend.append(" ")
    legend.append(_("more"))
    summary = _("{count} reviews in {weeks} weeks").format(count=f"{shown:,}", weeks=weeks)
    if busiest:
        summary += _(", most {count} on {day}").format(count=f"{busiest[1]:,}", day=busiest[0])
    return [Text(_("Reviews per day, last {weeks} weeks").format(weeks=weeks), style="italic"), months, grid, legend,
            Text(summary)]


def _exams(stats: Stats, width: int) -> Table:
    shown = stats.exams[-10:]
    caption = None
    if stats.exam_trend is not None:
        caption = _("trend {slope} points per exam over {count} exams").format(
            slope=f"{stats.exam_trend:+.1f}", count=len(stats.exams))
    rows = [([f"{e.finished_at.astimezone():%Y-%m-%d}", f"{e.score:.1f}%"], e.score) for e in shown]
    title = _("Exam scores") + (_(" (last {count})").format(count=len(shown)) if len(stats.exams) > len(shown) else "")
    return _bar_table(title, (_("finished"), _("score")), rows, 100.0, width, caption)


def _weakest(stats: Stats, console: Console) -> list[Table]:
    def counts() -> tuple[Column, ...]:
        return number(_("lapses")), number(_("mistakes")), number(_("recall"))

    def weakest_cards(with_deck: bool, short: bool) -> Table:
        decks = (ident(_("deck")),) if with_deck else ()
        table = listing(ident(_("card")), *decks, *counts(), title=_("Weakest cards"))
        for card in stats.weakest_cards:
            table.add_row(safe(card.short_id if short else card.card_id), *((safe(card.deck),) if with_deck else ()),
                          str(card.lapses), str(card.mistakes), percent(card.recall))
        return table

    # ids are typed back (`quiz show ID`, --tag), so never folded or cut: whole where they fit on
    # one line, the deck column going first (`quiz show` names the deck), else the short ids
    # `quiz cards` shows, which `quiz show` takes as well
    layouts = [weakest_cards(with_deck, short) for short in (False, True) for with_deck in (True, False)]
    unbounded = console.options.update_width(1_000)
    cards = next((t for t in layouts if console.measure(t, options=unbounded).maximum <= console.width), layouts[-1])
    tags = listing(text(_("tag")), number(_("cards")), *counts(), title=_("Weakest tags"))
    for tag in stats.weakest_tags:
        tags.add_row(safe(tag.tag), str(tag.cards), str(tag.lapses), str(tag.mistakes), percent(tag.recall))
    return ([cards] if stats.weakest_cards else []) + ([tags] if stats.weakest_tags else [])


def show(console: Console, stats: Stats) -> None:
    """Every figure of ``stats``, or what there is of an empty collection."""
    chosen = [_("deck {names}").format(names=join(stats.decks)) if stats.decks else "",
              _("tag {names}").format(names=join(stats.tags)) if stats.tags else ""]
    scope = " · ".join(c for c in chosen if c)
    console.print(Text(_("Statistics, {day}").format(day=stats.today) + (f" · {scope}" if scope else ""), style="bold"))
    if stats.empty and stats.cards_total.total == 0:
        console.print(_("No cards and no reviews match.") if scope else _("The collection is empty: no cards and no reviews."))
        return
    if stats.cards:
        for part in _cards(stats, console.width):
            console.print(part)
    if stats.empty:
        console.print(_("{problem} {remedy}").format(
            problem=_("No reviews yet: nothing studied among these cards.") if scope else _("No reviews yet: nothing studied."),
            remedy=_("`quiz study` starts the daily drill.")))
        return
    width = _bar_width(console)
    console.print(_overview(stats))
    console.print()
    for line in heatmap(stats, console.width):
        console.print(line)
    console.print()
    console.print(Columns([_forecast(stats, width), _time(stats, width)], padding=(0, 4)))
    console.print(Columns([_retention(stats), _ratings(stats, width)], padding=(0, 4)))
    if stats.exams:
        console.print(_exams(stats, width))
    for table in _weakest(stats, console):
        console.print(table)
