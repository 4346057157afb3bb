"""The study session on a terminal (or a pipe): draws its views, reads keys and typed answers.

Keys (Anki's where Anki has one): space/Enter reveals, 1-4 rate (Again, Hard, Good, Easy; after
a graded answer's verdict, another rating than the one it was given), ``u`` undoes the last review, ``b`` buries the card until tomorrow, ``s`` suspends it, ``e``
opens it in ``$EDITOR``, ``q`` quits. At a typed-answer prompt only ``!``-words are commands
(``!b`` buries, ``b`` is option B, ``q`` is an answer like any other), so nothing typed as an
answer is ever taken for a command.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from datetime import timedelta

from rich.console import Console
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from quizzer.base import clock
from quizzer.app import kind_names
from quizzer.app.busy import Waiting
from quizzer.app.collection import Collection
from quizzer.app.queue import NothingDue
from quizzer.app.study import StudySession
from quizzer.app.study_views import Answer as AnswerEvent
from quizzer.app.study_views import (
    BackView,
    Bury,
    CardView,
    Continue,
    Edited,
    Event,
    Feedback,
    Look,
    Next,
    Notice,
    QueueEnd,
    Quit,
    Rate,
    Reveal,
    Summary,
    Suspend,
    Undo,
    View,
)
from quizzer.app.views import Retry, interval
from quizzer.base.defaults import LEECH_LAPSES, Rating
from quizzer.base.errors import ConnectionLost, DatabaseError, ServerUnavailable
from quizzer.settings import Settings
from quizzer.app.records import EVERYTHING, CardFilter
from quizzer.terminal import render
from quizzer.terminal.editor import EditorFailed, open_in_editor
from quizzer.terminal.page import Page
from quizzer.terminal.prompter import TAKEN, Prompter, Taken, TerminalPrompter, command, for_stdin
from quizzer.base.i18n import _, join, translate_checker_message
from quizzer.terminal.render import clean, console, markdown, safe

LOOK_SECONDS = 1.0  # how often a screen waiting for a key or a typed answer asks whether its card went elsewhere
COMMANDS: dict[str, Event] = {"u": Undo(), "b": Bury(), "s": Suspend(), "q": Quit()}  # and "e", which the terminal handles


def reveal_prompt(editing: bool) -> str:
    """The keys at a card's front; ``e`` only where the editor can run (a terminal)."""
    if editing:
        return _("[space/Enter] show answer · u undo · b bury · s suspend · e edit · q quit")
    return _("[space/Enter] show answer · u undo · b bury · s suspend · q quit")


def answer_commands(editing: bool) -> str:
    """The typed-answer prompt's commands, in the status line below it on a terminal."""
    if editing:
        return _("!u undo · !b bury · !s suspend · !e edit · !q quit")
    return _("!u undo · !b bury · !s suspend · !q quit")


def label(rating: int) -> str:
    """The rating's name in the UI language."""
    return Rating(rating).shown


def due_in(span: timedelta | None) -> str:
    """`` · due in 3d`` after a verdict or a saved review, '' when not known."""
    return "" if span is None else " · " + _("due in {interval}").format(interval=interval(span))


def rate_prompt(intervals: Sequence[timedelta] = ()) -> str:
    """``1 Again 10m · 2 Hard 1d · 3 Good 3d · 4 Easy 8d`` (without intervals when not known). A
    practice review ahead of its day keeps the card's due date unless answered Again (then it
    relearns): one line says so, not the same wait after three buttons (read as a bug)."""
    plain = " · ".join(f"{r.value} {r.shown}" for r in Rating)
    if len(intervals) != len(Rating):
        return plain
    if len(set(intervals[1:])) == 1:  # Hard < Good < Easy, unless the schedule stays
        return (f"{Rating.AGAIN.value} {Rating.AGAIN.shown} {interval(intervals[0])} · "
                + " · ".join(f"{r.value} {r.shown}" for r in Rating if r != Rating.AGAIN) + " · "
                + _("practice: still due in {interval}").format(interval=interval(intervals[1])))
    return " · ".join(f"{r.value} {r.shown} {interval(span)}" for r, span in zip(Rating, intervals))


def progress(view: CardView) -> Text:
    """``3 done · 12 new · 1 learning · 4 due``: the overview's three counts, in Anki's colours
    (blue, red, green), of the cards still to show, the one on screen included."""
    left = view.remaining
    counts = [(_("{count} new").format(count=left.new), left.new, "blue"),
              (_("{count} learning").format(count=left.learning), left.learning, "red"),
              (_("{count} due").format(count=left.review), left.review, "green")]
    return Text(" · ", style="dim").join([Text(_("{count} done").format(count=view.done), style="dim"),
                                          *(Text(words, style=colour if count else "dim") for words, count, colour in counts)])


class StudyScreen:
    """Runs a StudySession against a prompter and a console."""

    def __init__(self, session: StudySession, prompter: Prompter, console: Console, *, clear_screen: bool = False) -> None:
        self.session = session
        self.prompter = prompter
        self.console = console
        # a transcript on a pipe keeps every card
        self.page = Page(console, self.draw, clear_screen and prompter.interactive, prompter)
        self.verdict_shown: str | None = None  # the card whose verdict line already said its rating and due
        # an answer waits out another process's long write, and a server out of reach for a while
        session.waiting = Waiting(render.waiting(console), session.settings.server_retry_seconds)
        self.next_look = 0.0  # when the prompt next asks whether the card on screen went elsewhere
        prompter.taken = self._card_taken

    def run(self) -> Summary:
        """Until the session ends; Ctrl-C propagates (every answer is already saved)."""
        views: Sequence[View] = self.session.start()
        while True:
            new_card = any(isinstance(view, CardView) for view in views)
            self.page.show(views, new_card)
            if new_card:
                self.session.prepare()  # the card is on screen: work its answer needs can start
            last = views[-1]
            if isinstance(last, Summary):
                return last
            views = self.session.handle(self.read(last))

    # -- input ---------------------------------------------------------------

    def read(self, view: View) -> Event:
        while True:
            event = self._read_once(view)
            if event is not None:
                return event

    def _read_once(self, view: View) -> Event | None:
        if isinstance(view, CardView) and view.graded:
            try:
                text = self.prompter.line(_("answer ({hint})").format(hint=view.hint),
                                          status=lambda: _("{commands} · Enter: show the answer").format(
                                              commands=answer_commands(True))).strip()  # a status line: a terminal
            except Taken:  # the notice that follows says the card was answered or set aside elsewhere
                return Look()
            word = command(text)
            if word is None:
                return AnswerEvent(text)
            if word[1:] in ("e", *COMMANDS):
                return self._command(word[1:])
            render.retry(self.console, _("{text} is not a command: {commands}").format(
                text=text, commands=answer_commands(self.prompter.interactive)))
            return None
        if isinstance(view, CardView):
            return self._key(reveal_prompt(self.prompter.interactive), {"": Reveal()})
        if isinstance(view, BackView):
            ratings: dict[str, Event] = {str(r): Rate(r) for r in range(1, 5)}
            if self.prompter.interactive:  # space or Enter is Good, as in Anki (a script types the digit)
                ratings[""] = Rate(Rating.GOOD)
            return self._key(rate_prompt(view.intervals), ratings)
        if isinstance(view, Continue):  # 1-4: another rating than the one given for the verdict
            keys: dict[str, Event] = {"": Next(), "u": Undo(), "q": Quit(), **{str(r): Rate(r) for r in range(1, 5)}}
            prompt = _("[space/Enter] next · another rating: {ratings} · u undo · q quit").format(
                ratings=rate_prompt(view.intervals))
            key = self.prompter.key(prompt, keys)
            return keys.get(key)  # another key (b, a letter typed early for the next card) is passed over
        if isinstance(view, QueueEnd):
            ending: dict[str, Event] = {"": Next(), "q": Quit(), "u": Undo()}
            return ending.get(self.prompter.key(_("No cards left. [space/Enter] finish · u undo the last answer"),
                                                ending))
        return Quit()

    def _key(self, prompt: str, allowed: dict[str, Event]) -> Event | None:
        """A key among ``allowed`` or a command; anything else asks again. The card on screen taken
        by another session meanwhile (``_card_taken``): Look, which moves on."""
        key = self.prompter.key(prompt, {*allowed, *"ubseq"})
        if key == TAKEN:
            return Look()
        if key in allowed:
            return allowed[key]
        return self._command(key) if len(key) == 1 and key in "ubseq" else None

    def _command(self, key: str) -> Event | None:
        if key == "e":
            return self._edit()
        return COMMANDS.get(key)

    def _edit(self) -> Event | None:
        """Open the card in the editor at its line; the session reloads the decks. Refused on a
        pipe: an editor would read the script's remaining lines as keystrokes."""
        if not self.prompter.interactive:
            render.retry(self.console, _("`e` needs a terminal: the editor cannot run on a pipe."))
            return None
        try:
            open_in_editor(*self.session.location())
        except EditorFailed as err:
            self.console.print(f"[red]{safe(err.message)}[/red]", highlight=False)
            return None
        return Edited()

    def _card_taken(self) -> bool:
        """Whether another session (a browser) answered, buried or suspended the card on screen
        since it was drawn: the session is asked about once a second while a key or a typed answer is awaited. A
        database that does not answer says no: the next key asks again before saving anything."""
        now = time.monotonic()
        if now < self.next_look:
            return False
        self.next_look = now + LOOK_SECONDS
        try:
            return self.session.taken_elsewhere() is not None
        except DatabaseError:
            return False

    # -- output --------------------------------------------------------------

    def draw(self, view: View) -> None:
        out = self.console
        if isinstance(view, CardView):
            # progress first; the deck title goes where the line is too narrow for it
            render.card(out, [progress(view), Text(clean(view.deck_title)), Text(kind_names.title(view.kind)),
                              Text(clean(render.section_text(view.source)))], view.front, optional=1)
        elif isinstance(view, BackView):
            out.print(Panel(markdown(view.back), border_style="green"))
        elif isinstance(view, Feedback):
            self.verdict_shown = view.card_id
            colour = "green" if view.correct else "red"
            due = due_in(view.interval)
            verdict = safe(translate_checker_message(view.message))
            out.print(f"[{colour}]{verdict}[/{colour}]", f"[dim]→ {label(view.rating)}{due}[/dim]", highlight=False)
            if view.explanation:
                out.print(markdown(view.explanation))
            if view.solution:
                out.print(Panel(markdown(view.solution), title=safe(view.solution_title), border_style="red"))
        elif isinstance(view, Retry):
            render.retry(out, translate_checker_message(view.message))
        elif isinstance(view, Notice):
            self.notice(view)
        elif isinstance(view, Summary):
            report(out, view)

    def notice(self, notice: Notice) -> None:
        card = safe(notice.card_id)
        if notice.kind == "saved" and not self.prompter.interactive:  # the line scripts read: fixed in every language
            rating = Rating(notice.rating).label if notice.rating else ""
            due = "" if notice.due_in is None else f" · due in {interval(notice.due_in, translated=False)}"
            self.console.print(f"[dim]saved {card} → {rating}{due}[/dim]", highlight=False, soft_wrap=True)  # one line
            return
        if notice.kind == "saved" and self.verdict_shown == notice.card_id:  # said just above, in the same words
            self.verdict_shown = None
            return
        if notice.kind == "saved":
            rating = label(notice.rating) if notice.rating else ""
            self.console.print("[dim]" + _("Saved {card} → {rating}").format(card=card, rating=rating)
                               + f"{due_in(notice.due_in)}[/dim]", highlight=False)
            return
        text = {
            "undone": "[yellow]" + _("Undone: {card}").format(card=card) + "[/yellow]",
            "nothing_to_undo": "[yellow]" + _("Nothing to undo.") + "[/yellow]",
            "reviewed_elsewhere": "[yellow]" + _("Not undone: {card} was answered on another device since, and that "
                                                 "answer stands.").format(card=card) + "[/yellow]",
            "answered_elsewhere": "[yellow]" + _("Skipped: {card} was answered on another device meanwhile, and that "
                                                 "answer stands.").format(card=card) + "[/yellow]",
            "set_aside_elsewhere": "[yellow]" + _("Skipped: {card} was buried or suspended on another device "
                                                  "meanwhile.").format(card=card) + "[/yellow]",
            "buried": "[yellow]" + _("Buried until tomorrow: {card}").format(card=card) + "[/yellow]",
            "suspended": "[yellow]" + _("Suspended: {card} (`quiz show {card} --unsuspend` brings it back)").format(
                card=card) + "[/yellow]",
            "edit_failed": "[red]" + _("The deck has problems now, keeping the old card:") + f"[/red]\n{safe(notice.detail)}",
            "skipped_gone": "[yellow]" + _("No longer in the decks, skipped: {cards}").format(
                cards=safe(notice.detail)) + "[/yellow]",
        }[notice.kind]
        self.console.print(text, highlight=False)


def report(console: Console, summary: Summary) -> None:
    """The end of a session: what was done, and what is coming."""
    minutes, seconds = divmod(int(summary.seconds), 60)
    ratings = " · ".join(f"{label(r)} {n}" for r, n in sorted(summary.ratings.items()) if n)
    reviewed = _("Reviewed {count}").format(count=summary.reviewed)
    time = _("{minutes}m{seconds}s").format(minutes=minutes, seconds=f"{seconds:02d}")
    rest = _(", correct {correct} in {time}").format(correct=summary.correct, time=time)
    console.print(f"\n[bold]{reviewed}[/bold]{rest}" + (_(" ({text})").format(text=ratings) if ratings else ""),
                  highlight=False)
    if summary.leeches:
        leeches = _("Leeches (lapsed {count} times; rewrite or suspend them):").format(count=LEECH_LAPSES)
        console.print(f"[red]{leeches}[/red] {join(summary.leeches)}", highlight=False)
    if summary.forecast:
        table = Table(_("day"), _("due"), title=_("Coming up"))
        for day, count in summary.forecast:
            table.add_row(day.isoformat(), str(count))
        console.print(table)


def nothing_due(why: NothingDue) -> str:
    """What ``quiz study`` says when no card is due, and what to do about it."""
    when = _(" The next card is due {when}.").format(when=clock.when(why.next_due)) if why.next_due else ""
    if why.reason == "no_new_taken":
        return _("Nothing is due now, and --new 0 takes no new card ({count} wait).{when}").format(
            count=why.waiting, when=when)
    if why.reason == "held_by_deck":
        held = join([_("{deck} by its own limit ({limit} a day)").format(deck=deck, limit=limit)
                     for deck, limit in why.held_by_deck.items()])
        return _("Today's new cards are done, {decks}, and {count} more wait.{when} "
                 "`quiz config set deck.ID.new_per_day N` raises a deck's own limit, "
                 "`quiz config unset deck.ID.new_per_day` gives it the global one.").format(
            decks=held, count=why.waiting, when=when)
    if why.reason == "new_limit":  # as Anki says the limit is reached: "nothing is due" would hide the new cards
        return _("Today's new cards are done ({limit} a day), and {count} more wait.{when} "
                 "`quiz study --new-per-day N` raises the limit for this run, "
                 "`quiz config set new_per_day N` for every day.").format(
            limit=why.pace.today, count=why.waiting, when=when)
    return _("Nothing is due now.{when} `quiz study --ahead` practises cards early; "
             "reviews of cards not yet due leave their schedule alone.").format(when=when)


def run(collection: Collection, queue: list[str], *, chosen: CardFilter = EVERYTHING, only_queued: bool = False,
        settings: Settings | None = None, refills: bool = False) -> None:
    """A study session over ``queue`` on standard input; Ctrl-C shows the summary, then
    propagates (every answer is already saved). ``settings``: the learner's (config file and
    environment) unless given."""
    from quizzer import settings as configured

    out = console()
    prompter = for_stdin(out)
    chosen_settings = configured.load() if settings is None else settings
    session = StudySession(collection, queue, chosen=chosen, only_queued=only_queued,
                           pauses=isinstance(prompter, TerminalPrompter), settings=chosen_settings,
                           refills=refills)
    try:
        StudyScreen(session, prompter, out, clear_screen=chosen_settings.clear_screen).run()
    except (KeyboardInterrupt, ServerUnavailable, ConnectionLost):  # the error that follows names the unsaved answer
        report(out, session.handle(Quit())[-1])  # type: ignore[arg-type]  # Quit always ends in the Summary
        raise
