"""Drawing ``quiz stats``: rich tables, bars and a calendar heatmap, fitted to the terminal width.

Side-by-side tables (``Columns``) fall back to one under the other on a narrow terminal; the
heatmap shows as many weeks as fit (up to a year).
"""

from __future__ import annotations

from datetime import timedelta

import numpy as np
from rich import box
from rich.bar import Bar
from rich.columns import Columns
from rich.console import Console, RenderableType
from rich.table import Table
from rich.text import Text

from quizzer.app.stats import DeckCards, Retention, Stats
from quizzer.terminal.render import safe

WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
LABEL = 4  # the weekday labels' column in the heatmap
# heatmap levels: no reviews, then the quartiles of the busy days shown (as GitHub's calendar)
LEVELS = (("·", "grey35"), ("░", "#40c463"), ("▒", "#30a14e"), ("▓", "#216e39"), ("█", "#0e4429"))
MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def percent(value: float | None) -> str:
    return "-" if value is None else f"{value:.1%}"


def minutes(ms: int) -> str:
    total = round(ms / 60_000)
    return f"{total // 60} h {total % 60:02d} min" if total >= 60 else f"{total} min"


def _bar_width(console: Console) -> int:
    return max(8, min(30, (console.width - 36) // 2))


SHORT = {"learn": "lrn", "review": "rev", "relearn": "rel", "suspended": "susp", "buried": "bur"}


def _cards(stats: Stats, width: int) -> list[RenderableType]:
    deck_width = max((len(d.deck or "") for d in stats.cards), default=4)
    names = ["new", "learn", "review", "relearn", "suspended", "buried", "leech", "total"]
    short = deck_width + sum(map(len, names)) + 3 * len(names) > width  # abbreviated, explained below
    headers = [SHORT.get(n, n) if short else n for n in names]
    roomy = deck_width + sum(max(len(h), 4) for h in headers) + 3 * len(headers) <= width
    table = Table("deck", *headers, title="Cards", show_footer=len(stats.cards) > 1, box=box.SIMPLE_HEAD,
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
        for column, value in zip(table.columns, ["all", *row(stats.cards_total)]):
            column.footer = value
    legend = Text("lrn learning, rev review, rel relearning, susp suspended, bur buried", style="dim")
    return [table, legend] if short else [table]


def _overview(stats: Stats) -> Table:
    table = Table(show_header=False, title="Overview", title_justify="left", box=None, padding=(0, 2, 0, 0))
    table.add_column(style="bold")
    table.add_column()
    if stats.first_day is not None:
        span = (stats.today - stats.first_day).days + 1
        table.add_row("reviews", f"{stats.reviews_total:,} since {stats.first_day}")
        table.add_row("days studied", f"{stats.days_studied:,} of {span:,} ({stats.days_studied / span:.0%})")
        table.add_row("streak", f"{stats.streak} day{'s' if stats.streak != 1 else ''}")
    table.add_row("due today", str(stats.due_today))
    recall = f"{percent(stats.average_recall)} over {stats.recall_cards:,} cards" if stats.recall_cards else "-"
    table.add_row("average recall now", recall)
    return table


def _bar_table(title: str, headers: tuple[str, ...], rows: list[tuple[list[str], float]], size: float,
               width: int, caption: str | None = None) -> Table:
    table = Table(*headers, "", title=title, caption=caption, box=None, padding=(0, 1))
    for column in table.columns[1:-1]:
        column.justify = "right"
    for cells, value in rows:
        table.add_row(*cells, Bar(size=max(size, 1), begin=0, end=value, width=width, color="green"))
    return table


def _forecast(stats: Stats, width: int) -> Table:
    rows = [([("today" if d.day == stats.today else f"{d.day:%a %m-%d}"), str(d.due)], float(d.due))
            for d in stats.forecast]
    return _bar_table(f"Due, next {len(stats.forecast)} days", ("day", "due"), rows,
                      max(d.due for d in stats.forecast), width)


def _time(stats: Stats, width: int) -> Table:
    total = sum(d.duration_ms for d in stats.time_per_day)
    studied = sum(1 for d in stats.time_per_day if d.reviews)
    caption = f"{minutes(total)} in all, {minutes(total // studied)} a study day" if studied else "no reviews"
    rows = [([("today" if d.day == stats.today else f"{d.day:%a %m-%d}"), str(d.reviews),
              f"{d.duration_ms / 60_000:.1f}"], d.duration_ms / 60_000) for d in stats.time_per_day]
    return _bar_table(f"Time per day, last {stats.period_days} days", ("day", "reviews", "min"), rows,
                      max(d.duration_ms for d in stats.time_per_day) / 60_000, width, caption)


def _retention(stats: Stats) -> Table:
    table = Table("cards", "passed", "failed", "retention", title=f"True retention, last {stats.period_days} days",
                  caption="mature: interval 21+ days", box=None, padding=(0, 1))
    for column in table.columns[1:]:
        column.justify = "right"
    rows: list[tuple[str, Retention]] = [("young", stats.true_retention.young), ("mature", stats.true_retention.mature),
                                         ("all", stats.true_retention.all)]
    for name, r in rows:
        table.add_row(name, str(r.passed), str(r.failed), percent(r.rate))
    return table


def _ratings(stats: Stats, width: int) -> Table:
    counts = [("Again", stats.ratings.again), ("Hard", stats.ratings.hard), ("Good", stats.ratings.good),
              ("Easy", stats.ratings.easy)]
    total = sum(n for _, n in counts)
    rows = [([name, str(n), percent(n / total if total else None)], float(n)) for name, n in counts]
    return _bar_table(f"Ratings, last {stats.period_days} days", ("rating", "count", "share"), rows,
                      max((n for _, n in counts), default=0), min(width, 20))


def _levels(values: list[int]) -> list[int]:
    busy = np.array([v for v in values if v > 0])
    if not busy.size:
        return [0] * len(values)
    edges = np.quantile(busy, [0.25, 0.5, 0.75])
    return [0 if v == 0 else 1 + int(np.searchsorted(edges, v, side="left")) for v in values]


def heatmap(stats: Stats, width: int) -> list[RenderableType]:
    """Reviews per study day as a calendar: a column per week (Monday first), a row per weekday."""
    weeks = max(4, min(53, (width - LABEL) // 2))
    last_monday = stats.today - timedelta(days=stats.today.weekday())
    first = last_monday - timedelta(weeks=weeks - 1)
    per_day = {d.day: d.reviews for d in stats.reviews_per_day if d.day >= first}
    days = [first + timedelta(days=i) for i in range((stats.today - first).days + 1)]
    level = dict(zip(days, _levels([per_day.get(d, 0) for d in days])))

    months = Text(" " * LABEL, no_wrap=True, overflow="crop")
    free = 0
    for week in range(weeks):
        week_days = [first + timedelta(weeks=week, days=k) for k in range(7)]
        firsts = [d for d in week_days if d.day == 1]  # a month begins in this week
        position = LABEL + 2 * week
        if firsts and position >= free and week < weeks - 1:
            months.append(" " * (position - len(months)) + MONTHS[firsts[0].month - 1])
            free = len(months) + 1

    grid = Table.grid(padding=0)
    grid.add_column(width=LABEL, no_wrap=True)
    for _ in range(weeks):
        grid.add_column(width=2, no_wrap=True)
    for weekday, name in enumerate(WEEKDAYS):
        cells: list[Text] = [Text(name)]
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
    legend = Text("less ")
    for glyph, style in LEVELS:
        legend.append(glyph, style=style)
        legend.append(" ")
    legend.append("more")
    summary = Text(f"{shown:,} reviews in {weeks} weeks" + (f", most {busiest[1]:,} on {busiest[0]}" if busiest else ""))
    return [Text(f"Reviews per day, last {weeks} weeks", style="italic"), months, grid, legend, summary]


def _exams(stats: Stats, width: int) -> Table:
    shown = stats.exams[-10:]
    caption = None
    if stats.exam_trend is not None:
        caption = f"trend {stats.exam_trend:+.1f} points per exam over {len(stats.exams)} exams"
    rows = [([f"{e.finished_at.astimezone():%Y-%m-%d}", f"{e.score:.0f}%"], e.score) for e in shown]
    return _bar_table("Exam scores" + (f" (last {len(shown)})" if len(stats.exams) > len(shown) else ""),
                      ("finished", "score"), rows, 100.0, width, caption)


def _weakest(stats: Stats) -> list[Table]:
    def table(*headers: str, title: str) -> Table:
        made = Table(*headers, title=title, box=box.SIMPLE_HEAD, show_edge=False, padding=(0, 1))
        made.columns[0].overflow = "fold"  # the whole id, for `quiz card ID` / --tag
        for column in made.columns[2:]:
            column.justify = "right"
        return made

    cards = table("card", "deck", "lapses", "mistakes", "recall", title="Weakest cards")
    for card in stats.weakest_cards:
        cards.add_row(safe(card.card_id), safe(card.deck), str(card.lapses), str(card.mistakes), percent(card.recall))
    tags = table("tag", "cards", "lapses", "mistakes", "recall", title="Weakest tags")
    tags.columns[1].justify = "right"
    for tag in stats.weakest_tags:
        tags.add_row(safe(tag.tag), str(tag.cards), str(tag.lapses), str(tag.mistakes), percent(tag.recall))
    return ([cards] if stats.weakest_cards else []) + ([tags] if stats.weakest_tags else [])


def show(console: Console, stats: Stats) -> None:
    """Every figure of ``stats``, or what there is of an empty collection."""
    chosen = [f"deck {', '.join(stats.decks)}" if stats.decks else "", f"tag {', '.join(stats.tags)}" if stats.tags else ""]
    scope = " · ".join(c for c in chosen if c)
    console.print(Text(f"Statistics, {stats.today}" + (f" · {scope}" if scope else ""), style="bold"))
    if stats.empty and stats.cards_total.total == 0:
        console.print("The collection is empty: no cards and no reviews" + (" match" if scope else "") + ".")
        return
    if stats.cards:
        for part in _cards(stats, console.width):
            console.print(part)
    if stats.empty:
        console.print(f"No reviews yet: nothing studied{' among these cards' if scope else ''}. "
                      "`quiz study` starts the daily drill.")
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
    for table in _weakest(stats):
        console.print(table)
