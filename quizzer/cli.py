"""The ``quiz`` command line: thin typer commands over the library modules.

Heavy modules (pydantic, SQLAlchemy, numpy, torch) are imported inside the commands that
need them, so ``quiz --help`` and shell completion start instantly.
"""

from __future__ import annotations

import enum
import json
import os
import sys
from pathlib import Path
from typing import Annotated, Callable, Optional, TypeVar

import typer

from quizzer import KINDS, clock  # standard library only: cheap at start-up

T = TypeVar("T")

app = typer.Typer(
    help="Flashcards, numeric drills and mock interviews for BERT / GPT / Transformer interviews.",
    invoke_without_command=True,
    add_completion=True,
    rich_markup_mode=None,
    pretty_exceptions_enable=False,
)

DecksOption = Annotated[
    Optional[Path],
    typer.Option("--decks", help="Deck folder to use instead of the bundled decks (or set QUIZ_DECKS).", show_default=False),
]


DbOption = Annotated[
    Optional[Path],
    typer.Option("--db", help="Database file (or set QUIZ_DB; default: the user data directory).", show_default=False),
]


DeckFilter = Annotated[Optional[list[str]], typer.Option("--deck", metavar="DECK", help="Only this deck (repeatable).", show_default=False)]
TagFilter = Annotated[Optional[list[str]], typer.Option("--tag", metavar="TAG", help="Only cards with this tag (repeatable).", show_default=False)]
Kind = enum.Enum("Kind", {kind: kind for kind in KINDS}, type=str)  # typer validates the choice
KindFilter = Annotated[Optional[list[Kind]], typer.Option("--kind", help="Only this kind (repeatable).", show_default=False)]


def _values(kinds: list | None) -> list[str] | None:
    return [k.value for k in kinds] if kinds else None


class LintFormat(str, enum.Enum):
    text = "text"
    github = "github"


def _console():
    from rich.console import Console

    return Console()


def _usable(load: Callable[[], T]) -> T:
    """What ``load`` returns, or a clean exit naming every problem that makes the decks unusable."""
    from quizzer.decks import DeckError

    try:
        return load()
    except DeckError as err:
        for problem in err.problems:
            typer.echo(str(problem), err=True)
        typer.echo("These decks have problems; `quiz lint` checks them.", err=True)
        raise typer.Exit(2) from None


def _load(decks_dir: Path | None):
    """The decks to use (no database needed)."""
    from quizzer import decks

    return _usable(lambda: decks.load_decks(decks.deck_dirs(decks_dir)))


@app.callback()
def overview(ctx: typer.Context, decks_dir: DecksOption = None, db: DbOption = None) -> None:
    """With no command: today's numbers per deck, as Anki's deck list shows them."""
    try:
        clock.now()
    except ValueError:
        typer.echo(f"QUIZ_NOW={os.environ['QUIZ_NOW']!r} is not an ISO date-time (e.g. 2026-01-05T10:00)", err=True)
        raise typer.Exit(2) from None
    if ctx.invoked_subcommand is not None:
        return
    from rich.table import Table

    from quizzer import scheduler

    collection = _collection(decks_dir, db)
    today = scheduler.today_by_deck(collection.store, clock.now())
    table = Table("deck", "title", "new", "learning", "due", title="Today")
    for loaded in collection.decks:
        counts = today.get(loaded.deck.id, scheduler.DeckToday(0, 0, 0))
        table.add_row(loaded.deck.id, loaded.deck.title, str(counts.new), str(counts.learning), str(counts.due))
    console = _console()
    console.print(table)
    console.print("`quiz study` for the daily drill, `quiz exam` for a mock interview, `quiz --help` for everything.")


@app.command("decks")
def decks_command(decks_dir: DecksOption = None) -> None:
    """List the decks with how many cards of each kind they hold."""
    from rich.table import Table

    table = Table("deck", "title", *KINDS, "total")
    for loaded in _load(decks_dir):
        counts = [sum(card.kind == kind for card in loaded.deck.cards) for kind in KINDS]
        table.add_row(loaded.deck.id, loaded.deck.title, *map(str, counts), str(len(loaded.deck.cards)))
    _console().print(table)


@app.command()
def lint(
    paths: Annotated[Optional[list[Path]], typer.Argument(help="Deck files or folders (default: all decks).", show_default=False)] = None,
    output: Annotated[LintFormat, typer.Option("--format", help="text: path:line:column: message; github: Actions annotations.")] = LintFormat.text,
    decks_dir: DecksOption = None,
) -> None:
    """Check deck files: YAML, fields, ids, answers, checkers and worked examples."""
    from quizzer import decks

    problems = decks.lint(paths or decks.deck_dirs(decks_dir))
    for problem in problems:
        typer.echo(problem.github() if output is LintFormat.github else str(problem))
    if problems:
        typer.echo(f"{len(problems)} problem(s)", err=True)
        raise typer.Exit(1)


@app.command()
def schema() -> None:
    """Print the JSON Schema of the deck format (decks/schema.json is this output)."""
    from quizzer.model import json_schema

    sys.stdout.write(json_schema())


@app.command("checkers")
def checkers_command() -> None:
    """List the numeric-question checkers."""
    from rich.table import Table

    from checkers import registry

    table = Table("checker", "what it asks")
    for name in registry.names():
        table.add_row(name, registry.get(name).description)
    _console().print(table)


@app.command()
def generate(
    name: Annotated[str, typer.Argument(help="Checker name (see `quiz checkers`).")],
    seed: Annotated[int, typer.Option(help="Same seed, same question.")] = 0,
    as_json: Annotated[bool, typer.Option("--json", help="Print prompt, inputs, answer and tolerance as JSON.")] = False,
) -> None:
    """Generate one numeric question with its answer and worked solution."""
    from checkers import registry

    from quizzer import render

    if name not in registry.names():
        typer.echo(f"unknown checker '{name}'; known: {', '.join(registry.names())}", err=True)
        raise typer.Exit(2)
    question = registry.get(name).generate(seed)
    if as_json:
        typer.echo(json.dumps(question.to_dict(), ensure_ascii=False, indent=2))
        return
    console = _console()
    console.print(render.markdown(question.prompt))
    console.print(f"\n[bold]答案[/bold] {question.answer_text}\n")
    console.print(render.markdown(question.solution))


def _collection(decks_dir: Path | None, db: Path | None):
    from quizzer.collection import open_collection

    return _usable(lambda: open_collection(decks_dir, db))


@app.command()
def study(
    deck: DeckFilter = None,
    tag: TagFilter = None,
    kind: KindFilter = None,
    new: Annotated[Optional[int], typer.Option("--new", min=0, help="At most N new cards this session.", show_default=False)] = None,
    limit: Annotated[Optional[int], typer.Option("--limit", min=1, help="At most N cards this session.", show_default=False)] = None,
    ahead: Annotated[bool, typer.Option("--ahead", help="Practise cards not yet due (their schedule is kept).")] = False,
    new_per_day: Annotated[int, typer.Option(min=0, help="New cards per study day.")] = 20,
    reviews_per_day: Annotated[int, typer.Option(min=0, help="Reviews per study day.")] = 200,
    decks_dir: DecksOption = None,
    db: DbOption = None,
) -> None:
    """The daily drill: due cards, then a few new ones, scheduled with FSRS."""
    from quizzer import scheduler

    collection = _collection(decks_dir, db)
    console = _console()
    now = clock.now()
    queue = scheduler.build_queue(
        collection.store, now, new_per_day=new_per_day, reviews_per_day=reviews_per_day,
        decks=deck, tags=tag, kinds=_values(kind), new_limit=new, limit=limit, ahead=ahead,
    )
    if not queue:
        upcoming = scheduler.next_due(collection.store, now)
        when = f" The next card is due {upcoming.astimezone():%Y-%m-%d %H:%M}." if upcoming else ""
        console.print(f"Nothing is due now.{when} `quiz study --ahead` practises cards early; reviews of cards not yet due leave their schedule alone.")
        return
    _run_session(collection, queue, console, filters={"decks": deck, "tags": tag, "kinds": _values(kind)})


def _run_session(collection, queue: list[str], console, *, filters: dict | None = None, only_queued: bool = False) -> None:
    """A study session over ``queue``; Ctrl-C ends it with the summary, every answer kept."""
    from quizzer.prompter import TerminalPrompter, for_stdin
    from quizzer.study import StudySession, report

    prompter = for_stdin(console)
    session = StudySession(
        collection.store, collection.decks, queue, prompter, console,
        reload=collection.reload, pause_after_feedback=isinstance(prompter, TerminalPrompter),
        filters=filters, only_queued=only_queued,
    )
    try:
        summary = session.run()
    except KeyboardInterrupt:
        summary = session.summary
        console.print("\n[yellow]Interrupted: every answered card is saved.[/yellow]")
    report(console, summary, collection.store, clock.now())


@app.command()
def card(
    card_id: Annotated[str, typer.Argument(help="A card id, as `quiz lint` and the decks show them.")],
    unsuspend: Annotated[bool, typer.Option("--unsuspend", help="Put a suspended card back into the drill.")] = False,
    decks_dir: DecksOption = None,
    db: DbOption = None,
) -> None:
    """One card: its text, its memory state and its review history."""
    from rich.panel import Panel
    from rich.table import Table

    from quizzer import render, scheduler

    collection = _collection(decks_dir, db)
    try:
        info = scheduler.card_info(collection.store, card_id, clock.now())
    except KeyError:
        typer.echo(f"no card '{card_id}'", err=True)
        raise typer.Exit(1) from None
    if unsuspend:
        scheduler.unsuspend(collection.store, card_id)
        info = scheduler.card_info(collection.store, card_id, clock.now())
    console = _console()
    memory = info.memory
    buried = info.buried_until is not None and info.buried_until > clock.now()
    status = ("suspended" if info.suspended else "not in any deck now" if not info.active
              else f"buried until {info.buried_until.astimezone():%Y-%m-%d %H:%M}" if buried else "active")
    console.print(f"[bold]{info.id}[/bold]  {info.deck} · {info.kind} · {status}  tags: {', '.join(info.tags) or '-'}")
    text = next((c for d in collection.decks for c in d.deck.cards if c.id == card_id), None)
    if text is not None:
        console.print(Panel(render.markdown(render.question_text(text)), border_style="dim"))
    retrievability = f"{info.retrievability:.0%}" if info.retrievability is not None else "-"
    stability = f"{memory.stability:.2f} days" if memory.stability is not None else "-"
    difficulty = f"{memory.difficulty:.2f}" if memory.difficulty is not None else "-"
    due = f"{memory.due.astimezone():%Y-%m-%d %H:%M}" if memory.due else "new"
    console.print(f"due {due} · stability {stability} · difficulty {difficulty} · recall now {retrievability} · lapses {memory.lapses}")
    table = Table("when", "mode", "rating", "correct", "answer", "seconds")
    for review in info.reviews:
        correct = "" if review.correct is None else "yes" if review.correct else "no"
        seconds = f"{review.duration_ms / 1000:.1f}" if review.duration_ms is not None else ""
        table.add_row(f"{review.reviewed_at.astimezone():%Y-%m-%d %H:%M}", review.mode, str(review.rating), correct, review.answer_text or "", seconds)
    console.print(table)


@app.command()
def exam(
    count: Annotated[int, typer.Option("--count", min=1, help="Questions on the paper.")] = 15,
    minutes: Annotated[float, typer.Option("--minutes", min=0.01, help="Time allowed.")] = 30.0,
    deck: DeckFilter = None,
    tag: TagFilter = None,
    kind: KindFilter = None,
    seed: Annotated[Optional[int], typer.Option("--seed", help="Draw this paper (the same seed gives the same paper).", show_default=False)] = None,
    resume: Annotated[bool, typer.Option("--resume", help="Continue the last unfinished exam.")] = False,
    show_history: Annotated[bool, typer.Option("--history", help="Past exams and the trend of the score.")] = False,
    decks_dir: DecksOption = None,
    db: DbOption = None,
) -> None:
    """A timed mock interview: no hints until the end, then a score and what to work on."""
    from quizzer import exam as exams
    from quizzer.exam_session import ExamSession, show_history as render_history, show_report
    from quizzer.prompter import for_stdin

    collection = _collection(decks_dir, db)
    console = _console()
    store = collection.store
    if show_history:
        render_history(console, exams.history(store), clock.now())
        return
    cards = {card.id: card for d in collection.decks for card in d.deck.cards}
    if resume:
        row = exams.latest_unfinished(store)
        if row is None:
            typer.echo("No unfinished exam to resume.", err=True)
            raise typer.Exit(1)
    else:
        spec = exams.PaperSpec(count, deck, tag, _values(kind))
        paper_seed = exams.new_seed() if seed is None else seed
        paper = exams.draw_paper(store, cards, spec, paper_seed, clock.now())
        if not paper:
            typer.echo("No cards match; nothing to examine.", err=True)
            raise typer.Exit(1)
        exam_id = exams.start(store, spec, paper_seed, minutes, paper, clock.now())
        row = exams.latest_unfinished(store)
        assert row is not None and row.id == exam_id
        console.print(f"Exam {exam_id}: {len(paper)} questions, {minutes:g} minutes (seed {paper_seed}).")
    session = ExamSession(store, cards, row, for_stdin(console), console)
    def left_message() -> str:
        if exams.deadline(row) <= clock.now():
            return f"Exam {row.id} left unfinished, every answer saved; its time is up: `quiz exam --resume` scores it."
        return (f"Exam {row.id} left unfinished, every answer saved; `quiz exam --resume` continues it "
                f"until {exams.deadline(row).astimezone():%H:%M}.")

    try:
        outcome = "time up" if session.left() <= 0 else session.run()
        if outcome == "time up" and resume:
            console.print("[yellow]This exam's time had run out; scoring what was answered.[/yellow]")
        if outcome == "left":
            console.print(left_message())
            return
        scored = session.mark()
    except KeyboardInterrupt:
        console.print(f"\n{left_message()}")
        raise typer.Exit(130) from None
    exams.finish(store, row.id, scored, clock.now())
    show_report(console, exams.report(store, row.id, cards))
    console.print("Wrong answers are in `quiz mistakes` and come back soon in `quiz study`.")


@app.command()
def mistakes(
    drill: Annotated[bool, typer.Option("--drill", help="Study the notebook's cards now.")] = False,
    decks_dir: DecksOption = None,
    db: DbOption = None,
) -> None:
    """The mistakes notebook: what went wrong in exams, until right on two later days."""
    from rich.table import Table

    from quizzer import notebook

    collection = _collection(decks_dir, db)
    console = _console()
    entries = notebook.entries(collection.store)
    if not entries:
        console.print("The mistakes notebook is empty.")
        return
    if drill:
        from quizzer import scheduler

        queue = scheduler.studiable(collection.store, [e.card_id for e in entries], clock.now())
        if not queue:
            console.print("Every card in the notebook is suspended or buried for today.")
            return
        _run_session(collection, queue, console, only_queued=True)
        return
    table = Table("card", "times wrong", "last wrong", "last wrong answer", "right on later days")
    table.columns[0].overflow = "fold"  # the full id, for `quiz card ID`
    for entry in entries:
        table.add_row(entry.card_id, str(entry.times_wrong), f"{entry.last_wrong_at.astimezone():%Y-%m-%d %H:%M}",
                      (entry.last_wrong_answer or "（未作答）")[:40], f"{entry.right_days} / {notebook.RIGHT_DAYS_TO_LEAVE}")
    console.print(table)


backup_app = typer.Typer(help="List and restore the automatic backups.", no_args_is_help=True)
app.add_typer(backup_app, name="backup")


def _db_path(db: Path | None) -> Path:
    from quizzer.store.engine import resolve

    _, path = resolve(db)
    if path is None:
        typer.echo("backups are for SQLite databases", err=True)
        raise typer.Exit(2)
    return path


@backup_app.command("list")
def backup_list(db: DbOption = None) -> None:
    """The backups, newest first."""
    from quizzer import backup

    for item in backup.list_backups(_db_path(db)):
        typer.echo(f"{item.taken_at.astimezone():%Y-%m-%d %H:%M:%S}  {item.path}")


@backup_app.command("restore")
def backup_restore(
    which: Annotated[str, typer.Argument(help="A backup file, or 'latest'.")] = "latest",
    db: DbOption = None,
) -> None:
    """Replace the database by a backup (the current one is backed up first)."""
    from quizzer import backup

    path = _db_path(db)
    backups = backup.list_backups(path)
    chosen = backups[0].path if which == "latest" and backups else Path(which)
    if not chosen.is_file():
        typer.echo(f"no backup '{which}'; `quiz backup list` shows them", err=True)
        raise typer.Exit(1)
    saved = backup.restore(chosen, path, clock.now())
    typer.echo(f"restored {chosen}" + (f"; the database before it is saved as {saved}" if saved else ""))


@app.command()
def check(db: DbOption = None) -> None:
    """Check the database (integrity and foreign keys)."""
    from quizzer import backup

    problems = backup.check(_db_path(db))
    for problem in problems:
        typer.echo(problem)
    if problems:
        raise typer.Exit(1)
    typer.echo("ok")


def main() -> None:
    app()
