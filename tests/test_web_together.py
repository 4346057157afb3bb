"""One collection, two front ends at once: a terminal's study session (``quizzer.app.study``'s
machine, as ``quiz study`` drives it) and a browser (``quiz serve`` through TestClient) over the
same database, taking turns. Nothing is lost and neither shows a card the other answered."""

from __future__ import annotations

import re
import threading
from datetime import timedelta
from itertools import count

import pytest
import test_web
from test_app import Clock
from test_web import T0, post

from conftest import MINI_DECK
from quizzer.app import study, study_views
from quizzer.app.collection import open_collection
from quizzer.app.queue import Planned, plan_session
from quizzer.settings import DEFAULTS

make_client = test_web.make_client  # the fixture: a client of the web drill over a fresh collection

CARDS = [f"q{n}" for n in range(1, 9)]
DECK = MINI_DECK + "".join(f'  - {{id: {card}, kind: qa, source: "1.1", question: 问题{card}, answer: 答案{card}, '
                           f"points: [p]}}\n" for card in CARDS)


class Browser:
    """A learner at the browser: reveal, then Easy (a card that leaves today's study), or a reload."""

    def __init__(self, client) -> None:
        self.client, self.page = client, client.get("/study?deck=mini").text
        self.answered: list[str] = []

    def on_screen(self) -> str | None:
        shown = re.search(r"<code>(q\d)</code>", self.page)
        return shown[1] if shown and "No cards left" not in self.page else None

    def step(self) -> None:
        if 'value="rate"' in self.page:
            self.page = post(self.client, self.page, action="rate", rating="4").text
        elif 'value="reveal"' in self.page:
            self.page = post(self.client, self.page, action="reveal").text
        self.answered += re.findall(r"Saved: (q\d)", self.page)

    def reload(self) -> None:
        self.page = self.client.get("/study").text


class TerminalLearner:
    """A learner at the terminal, on the same database opened again: reveal, then Easy."""

    def __init__(self, collection) -> None:
        planned = plan_session(collection, collection.card_filter(["mini"]), DEFAULTS, T0)
        assert isinstance(planned, Planned)
        self.machine = study.StudySession(collection, planned.queue, tick=Clock(), settings=DEFAULTS)
        self.views = self.machine.start()
        self.answered: list[str] = []

    def on_screen(self) -> str | None:
        shown = self.views[-1]
        return shown.card_id if isinstance(shown, (study_views.CardView, study_views.BackView)) else None

    def step(self) -> None:
        event = study_views.Rate(4) if isinstance(self.views[-1], study_views.BackView) else study_views.Reveal()
        self.views = self.machine.handle(event)
        self.answered += [view.card_id for view in self.views if isinstance(view, study.Notice) and view.kind == "saved"]


def test_a_terminal_and_a_browser_taking_turns_lose_nothing_and_never_show_what_the_other_answered(
        make_client, monkeypatch, tmp_path):
    from quizzer.app.browse import show

    client = make_client(DECK)
    browser = Browser(client)
    terminal = TerminalLearner(open_collection(client.opened.deck_dirs[0], tmp_path / "web.db"))
    assert browser.on_screen() == terminal.on_screen() == "q1"  # the same queue, the same first card
    moments = (T0 + timedelta(seconds=n) for n in count(1))
    skipped_in_browser = skipped_in_terminal = 0
    for turn in "TTBRBBTTBTBRBTTTBBBBTTTTBBBBRTTTTBBBBR" * 2:
        monkeypatch.setenv("QUIZ_NOW", next(moments).isoformat())
        if turn == "T":
            terminal.step()
            skipped_in_terminal += any(getattr(view, "kind", "") == "answered_elsewhere" for view in terminal.views)
            assert terminal.on_screen() not in browser.answered  # the screen just drawn
        else:
            browser.step() if turn == "B" else browser.reload()
            skipped_in_browser += "answered elsewhere meanwhile" in browser.page
            assert browser.on_screen() not in terminal.answered
    assert browser.on_screen() is None and terminal.on_screen() is None  # both came to the end
    assert skipped_in_browser and skipped_in_terminal  # each met a card the other had answered since it was drawn
    assert not set(browser.answered) & set(terminal.answered)
    assert sorted(browser.answered + terminal.answered) == CARDS  # every card answered once, by one of them
    for card in CARDS:  # each answer in the store, once: none lost, none twice
        reviews = show(client.opened, card, T0 + timedelta(hours=1), settings=DEFAULTS).info.reviews
        assert [review.rating for review in reviews] == [4]


@pytest.mark.parametrize("answer_first", ["terminal", "browser"])
def test_a_card_on_both_screens_is_answered_once(make_client, monkeypatch, tmp_path, answer_first):
    client = make_client(DECK)
    browser = Browser(client)
    terminal = TerminalLearner(open_collection(client.opened.deck_dirs[0], tmp_path / "web.db"))
    monkeypatch.setenv("QUIZ_NOW", (T0 + timedelta(minutes=1)).isoformat())
    first, second = (terminal, browser) if answer_first == "terminal" else (browser, terminal)
    first.step(), first.step()  # q1 revealed and rated Easy
    assert first.answered == ["q1"] and second.on_screen() == "q1"  # still drawn where it was shown before
    second.step()  # a reveal: q1 was answered meanwhile, the next card takes its place
    assert second.on_screen() == "q2" and second.answered == []


def test_a_reload_does_not_show_the_card_the_terminal_answered_meanwhile(make_client, monkeypatch, tmp_path):
    client = make_client(DECK)
    browser = Browser(client)
    browser.step()  # q1's back on the page
    terminal = TerminalLearner(open_collection(client.opened.deck_dirs[0], tmp_path / "web.db"))
    monkeypatch.setenv("QUIZ_NOW", (T0 + timedelta(minutes=1)).isoformat())
    terminal.step(), terminal.step()
    assert terminal.answered == ["q1"]
    browser.reload()
    assert browser.on_screen() == "q2" and "q1 was answered elsewhere meanwhile" in browser.page


class WaitingKeys:
    """A terminal's key prompter without a terminal: at each key prompt it runs the next of
    ``moves`` (what happens elsewhere while the learner looks at the screen), then asks the screen's
    ``taken`` as the real one does while waiting (every 0.1 s, here at once, a few times): a card
    gone elsewhere ends the prompt with TAKEN; else it gives the move's key."""

    interactive = True

    def __init__(self, moves) -> None:
        self.moves = iter(moves)
        self.redraw = self.resumed = self.taken = None
        self.prompts: list[str] = []

    def discard_typed_ahead(self) -> None:
        pass

    def key(self, prompt: str, allowed=None) -> str:
        from quizzer.terminal.prompter import TAKEN

        self.prompts.append(prompt)
        happen, key = next(self.moves)
        happen()
        for _ in range(3):
            if self.taken is not None and self.taken():
                return TAKEN
        return key

    def line(self, prompt: str, **_: object) -> str:
        raise AssertionError("no typed answer in this deck")


def test_a_terminal_waiting_for_a_key_moves_on_when_the_browser_answers_its_card(make_client, monkeypatch, tmp_path):
    from io import StringIO

    from rich.console import Console

    from quizzer.app.browse import show
    from quizzer.terminal.study import StudyScreen

    client = make_client(DECK)
    terminal = TerminalLearner(open_collection(client.opened.deck_dirs[0], tmp_path / "web.db"))
    browser = Browser(client)
    monkeypatch.setenv("QUIZ_NOW", (T0 + timedelta(minutes=1)).isoformat())
    out = StringIO()
    keys = WaitingKeys([(lambda: (browser.step(), browser.step()), "x"),  # q1 answered in the browser;
                        (lambda: None, "q")])  # a key passed over: only the look moves on
    screen = StudyScreen(terminal.machine, keys, Console(file=out, width=80, force_terminal=False))
    screen.page.show(terminal.views, True)
    summary = terminal.machine.handle(screen.read(terminal.views[-1]))
    assert browser.answered == ["q1"]
    shown = [view for view in summary if isinstance(view, (study.Notice, study_views.CardView))]
    assert [(type(view).__name__, view.card_id) for view in shown] == [("Notice", "q1"), ("CardView", "q2")]
    assert shown[0].kind == "answered_elsewhere"
    screen.page.show(summary, True)
    assert "q1 was answered on another device meanwhile" in out.getvalue() and "问题q2" in out.getvalue()
    reviews = show(client.opened, "q1", T0 + timedelta(hours=1), settings=DEFAULTS).info.reviews
    assert [review.rating for review in reviews] == [4]  # the browser's answer only: nothing saved for it here


def test_a_card_the_browser_buries_leaves_the_terminal_too(make_client, monkeypatch, tmp_path):
    client = make_client(DECK)
    terminal = TerminalLearner(open_collection(client.opened.deck_dirs[0], tmp_path / "web.db"))
    browser = Browser(client)
    monkeypatch.setenv("QUIZ_NOW", (T0 + timedelta(minutes=1)).isoformat())
    assert terminal.machine.taken_elsewhere() is None
    post(client, browser.page, action="bury")
    assert terminal.machine.taken_elsewhere() == "set_aside_elsewhere"
    terminal.views = terminal.machine.handle(study_views.Look())
    assert [getattr(view, "kind", None) for view in terminal.views[:1]] == ["set_aside_elsewhere"]
    assert terminal.on_screen() == "q2" and terminal.machine.summary.reviewed == 0


@pytest.fixture
def typing_terminal():
    """prompt_toolkit reading keys from a pipe the test types into (no terminal), drawing nowhere."""
    from prompt_toolkit.application import create_app_session
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    with create_pipe_input() as keys, create_app_session(input=keys, output=DummyOutput()):
        enter = threading.Timer(5.0, keys.send_text, ["\r"])  # a prompt nothing ends is answered: fails, not hangs
        enter.start()
        yield keys
        enter.cancel()
        enter.join()


def test_a_typed_answer_prompt_ends_when_its_card_is_taken_and_keeps_what_was_typed(typing_terminal):
    from io import StringIO

    from rich.console import Console

    from quizzer.terminal.prompter import Taken, TerminalPrompter

    prompter = TerminalPrompter(Console(file=StringIO()))
    looks = count(1)
    prompter.taken = lambda: next(looks) >= 3  # gone at the third look, 0.2 s after the prompt opened
    typing_terminal.send_text("编码")
    with pytest.raises(Taken) as ended:
        prompter.line("answer (the blank)")
    assert ended.value.typed == "编码" and next(looks) == 4  # no look after it ended
    prompter.taken = lambda: False
    typing_terminal.send_text("编码器\r")
    assert prompter.line("answer (the blank)") == "编码器"  # a card not taken: the answer as typed


CLOZE_DECK = MINI_DECK + "".join(f'  - {{id: {card}, kind: cloze, source: "1.1", text: "{card} 的 {{{{c1::编码器}}}}"}}\n'
                                 for card in ("q1", "q2"))


def test_a_terminal_waiting_for_a_typed_answer_moves_on_when_the_browser_answers_its_card(
        make_client, monkeypatch, tmp_path, typing_terminal):
    from io import StringIO

    from rich.console import Console

    from quizzer.app.browse import show
    from quizzer.terminal.prompter import TerminalPrompter
    from quizzer.terminal.study import StudyScreen

    client = make_client(CLOZE_DECK)
    terminal = TerminalLearner(open_collection(client.opened.deck_dirs[0], tmp_path / "web.db"))
    browser = Browser(client)
    assert terminal.on_screen() == browser.on_screen() == "q1"
    monkeypatch.setenv("QUIZ_NOW", (T0 + timedelta(minutes=1)).isoformat())
    out = StringIO()
    prompter = TerminalPrompter(Console(file=out))
    prompter.discard_typed_ahead = lambda: None  # type: ignore[method-assign]  # flushes a terminal: there is none
    screen = StudyScreen(terminal.machine, prompter, Console(file=out, width=80))
    screen.page.show(terminal.views, True)
    typing_terminal.send_text("编码")  # typed, not sent, while the browser answers the same card
    browser.page = post(client, browser.page, action="answer", answer="编码器").text
    event = screen.read(terminal.views[-1])
    assert isinstance(event, study_views.Look)
    views = terminal.machine.handle(event)
    shown = [(type(view).__name__, view.card_id) for view in views if isinstance(view, (study.Notice, study_views.CardView))]
    assert shown == [("Notice", "q1"), ("CardView", "q2")] and views[0].kind == "answered_elsewhere"
    screen.page.show(views, True)
    assert "q1 was answered on another device meanwhile" in out.getvalue()
    reviews = show(client.opened, "q1", T0 + timedelta(hours=1), settings=DEFAULTS).info.reviews
    assert [review.answer_text for review in reviews] == ["编码器"]  # the browser's answer alone
