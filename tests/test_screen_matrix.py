"""Every screen drawn in process at 60, 80 and 120 columns in both interface languages: no Latin
word split across lines (``take back th`` / ``e last mark``), no card id cut with ``…``, no line
past the screen's edge, and in English no Chinese character (the deck here is English: every
character on screen is quizzer's own or the card's). The real-terminal screens are in
test_screens.py (slow)."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pytest
from rich.cells import cell_len
from typer.testing import CliRunner

from quizzer.base import i18n
from quizzer.cli import app

LONG_ID = "d12-bert-position-embedding-learnable-vs-sinusoidal"  # 52 characters: a marking title cut it at 60
IDS = (LONG_ID, "card-two")
DECK = (
    "id: en-deck\ntitle: Attention\nlanguage: en\nsource: {file: c.txt, sections: '1'}\ncards:\n"
    f"  - {{id: {LONG_ID}, kind: qa, source: '1.1', tags: [attention], question: Why divide by the square root of d?,\n"
    "     answer: The variance of a dot product grows with d; without scaling softmax saturates and gradients vanish.,\n"
    "     points: [variance grows with d, softmax saturates, gradients vanish]}\n"
    "  - {id: card-two, kind: choice, source: '1.2', question: Which is the scaling factor?,\n"
    "     options: [the square root of d, d itself, the number of heads], answer: A,\n"
    "     explanation: It is the square root of d.}\n")
ANSWER = "bidirectional attention understands sentences"  # long words in the review history

# command line, and what is typed (a pipe's lines) for it
SCREENS: list[tuple[tuple[str, ...], str]] = [
    (("--help",), ""), (("study", "--help"), ""), (("exam", "--help"), ""), ((), ""), (("decks",), ""),
    (("study",), "\n3\nB\n\n!q\n"),  # front, back, Good; a wrong letter's verdict; quit
    (("exam", "--count", "2", "--seed", "1"), f"{ANSWER}\nC\n1\n\n"),  # question, marking, the last mark, report
    (("show", LONG_ID), ""), (("cards",), ""), (("stats",), ""), (("mistakes",), ""), (("exam", "--history"), ""),
    (("plan", "--date", "2026-01-20"), ""), (("config",), ""),
    (("study", "--nope"), ""), (("show", "no-such-card"), ""), (("exam", "--minutes", "x"), ""),
    (("cards", "--sort", "lapses"), ""), (("show", hashlib.sha1(LONG_ID.encode()).hexdigest()[:6]), ""),
]

CJK = re.compile(r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]")
BORDERS = re.compile(r"[│┃║|]")
# lines written whole, as a script reads them, where the output is not a terminal (the runner's is
# not): an error's one line (on a terminal wrapped as the screen is) and a typed-answer prompt's echo
WHOLE_OFF_TERMINAL = re.compile(r"^(Error: |错误：|points covered \(|答到的要点（)")
LETTERS_END, LETTERS_START = re.compile(r"([A-Za-z]+)$"), re.compile(r"^([A-Za-z]+)")


def draw(folder: Path, language: str, columns: int,
         screens: list[tuple[tuple[str, ...], str]] = SCREENS) -> list[str]:
    """Every screen of ``screens``, in order, as ``columns`` wide a terminal shows it."""
    runner = CliRunner()
    env = {"QUIZ_LANG": language, "COLUMNS": str(columns), "QUIZ_DECKS": str(folder), "QUIZ_NOW": "2026-01-05T10:00",
           "TZ": "UTC"}
    i18n.use(language)
    try:
        # click's help takes its width from the context (the terminal's size, which a runner has not)
        return [runner.invoke(app, list(args), input=typed, env=env, terminal_width=columns).output for args, typed in screens]
    finally:
        i18n.use("en")


def split_words(screen: str, words: set[str]) -> list[str]:
    """Latin words broken across two lines of the same panel or table cell: the end of one line and
    the start of the next make a word of ``words`` that one of them is not."""
    found = []
    lines = screen.splitlines()
    for upper, lower in zip(lines, lines[1:]):
        above, below = BORDERS.split(upper), BORDERS.split(lower)
        if len(above) != len(below):
            continue
        for left, right in zip(above, below):
            end, start = LETTERS_END.search(left.rstrip()), LETTERS_START.search(right.lstrip())
            if end and start and end[1] + start[1] in words and not {end[1], start[1]} <= words:
                found.append(f"{end[1]}|{start[1]}")
    return found


@pytest.fixture(scope="module")
def drawn(tmp_path_factory) -> dict[tuple[str, int], list[str]]:
    shots = {}
    for language in ("en", "zh"):
        home = tmp_path_factory.mktemp(f"screens-{language}")
        folder = home / "decks"
        folder.mkdir()
        (folder / "deck.yaml").write_text(DECK, "utf-8")
        with pytest.MonkeyPatch.context() as patch:
            patch.setenv("QUIZ_DB", str(home / "q.db"))  # the study and exam above fill the history below
            patch.setenv("QUIZ_CONFIG", str(home / "config.toml"))
            for columns in (120, 80, 60):
                shots[language, columns] = draw(folder, language, columns)
    return shots


@pytest.mark.parametrize("columns", [60, 80, 120])
@pytest.mark.parametrize("language", ["en", "zh"])
def test_every_screen_keeps_words_and_ids_whole_and_one_language(drawn, language, columns):
    shots = drawn[language, columns]
    words = set(re.findall(r"[A-Za-z]+", DECK + ANSWER + "".join(drawn[language, 120])))
    assert LONG_ID in shots[6] and ANSWER.split()[0] in shots[7], shots[6] + shots[7]  # the exam and its history ran
    for (args, _), shot in zip(SCREENS, shots):
        assert not split_words(shot, words), (args, split_words(shot, words), shot)
        assert not [card for card in IDS for cut in range(3, len(card)) if card[:cut] + "…" in shot], (args, shot)
        assert not [line for line in shot.splitlines() if cell_len(line) > columns and not WHOLE_OFF_TERMINAL.match(line)], (
            args, shot)
        if language == "en":
            assert not CJK.search(shot), (args, shot)
    assert "..." not in shots[0].split("\n", 1)[1], shots[0]  # the commands' summaries whole (the usage line has [ARGS]...)


@pytest.mark.parametrize("columns", [60, 80, 120])
@pytest.mark.parametrize("language", ["en", "zh"])
def test_the_card_browser_keeps_each_id_on_one_line_and_the_deck_from_80_columns(drawn, language, columns):
    """At 80 columns the browser dropped the kind and deck and folded ids over lines (3-4 a card at
    60): each row now starts with its whole id or its short id (the start of the id's SHA-1), whole
    on its line, and a short id is what `quiz show` takes (the last screen)."""
    shots = drawn[language, columns]
    short = {hashlib.sha1(card.encode()).hexdigest(): card for card in IDS}
    for args in (("cards",), ("cards", "--sort", "lapses")):
        shot = shots[[screen for screen, _typed in SCREENS].index(args)]
        first = [line.split()[0] for line in shot.splitlines()[2:] if line[:1].strip()][:len(IDS)]
        named = {word if word in IDS else next(card for hexed, card in short.items() if hexed.startswith(word))
                 for word in first}
        assert named == set(IDS), (args, shot)
        assert columns < 80 or "en-deck" in shot, (args, shot)
    assert shots[-1].startswith(LONG_ID), shots[-1]


@pytest.mark.parametrize("columns", [60, 80, 120])
@pytest.mark.parametrize("language", ["en", "zh"])
def test_the_prompts_and_the_interruption_keep_their_words_whole(language, columns):
    """What the terminal alone draws (the line editor's prompts, the message after Ctrl-C) is
    broken by the line breaker first: the terminal broke it at its edge, inside a word."""
    from quizzer.terminal.linebreak import wrap
    from quizzer.terminal.prompter import prompt_lines

    i18n.use(language)
    try:
        said = [i18n._("points covered (e.g. 1 3 · empty: none · a: all of 1-{count} · {undo}: take back the last mark · "
                       "{leave}: leave)").format(count=3, undo="!u", leave="!q"),
                i18n._("Every answer is marked. Enter: the report · {undo}: take back the last mark · {leave}: leave").format(
                    undo="!u", leave="!q"),
                i18n._("Interrupted: every answer so far is saved, nothing half-written.")]
    finally:
        i18n.use("en")
    for text, shown in zip(said, [prompt_lines(said[0], columns), prompt_lines(said[1], columns), wrap(said[2], columns)]):
        lines = shown.splitlines()
        assert "".join(lines).replace(" ", "") == text.replace(" ", ""), shown  # nothing lost
        assert not split_words(shown, set(re.findall(r"[A-Za-z]+", text))), shown
        assert all(line == line.strip() and len(line) < columns for line in lines), shown  # no stray space, a cell for the cursor


def test_a_verdict_keeps_its_arrow_and_rating_name_together():
    """A wrong six-element answer's verdict broke ``→ 重`` / ``来`` at 57-59 columns (and 40)."""
    from quizzer.terminal.linebreak import divide_line

    verdict = "错误：第 3 个数偏差过大，期望 [0.12, 0.34, 0.56, 0.78, 0.91, 0.23]，你给出 [0.1, 0.3, 0.5, 0.7, 0.9, 0.2]。"
    for name in ("重来", "困难", "良好", "简单"):
        line = f"{verdict} → {name} · 1 分钟后到期"
        start = line.index("→")
        for width in range(30, 100):
            assert not [cut for cut in divide_line(line, width) if start < cut <= start + 4], (name, width)


# a collection whose weak cards have long ids: lapses (a review failed), study's own mistakes
# (failed twice within a week), so that the notebook and the stats' weakest cards list them
LONG_IDS = ("d12-qa-why-gpt-not-native-for-cls-ner", "bert-causal-plus-padding-matrix", LONG_ID)
LAPSED_DECK = "id: en-deck\ntitle: Attention\nlanguage: en\nsource: {file: c.txt, sections: '1'}\ncards:\n" + "".join(
    f"  - {{id: {card}, kind: qa, source: '1.{n}', question: Why is number {n} so?, answer: Because it is., points: [it is]}}\n"
    for n, card in enumerate(LONG_IDS, 1))
WEAK_SCREENS: list[tuple[tuple[str, ...], str]] = [(("mistakes",), ""), (("stats",), "")]


@pytest.fixture(scope="module")
def weak_drawn(tmp_path_factory) -> dict[tuple[str, int], list[str]]:
    from datetime import datetime, timedelta, timezone

    import fsrs

    from quizzer.scheduling.answer import answer
    from quizzer.store import open_store

    home = tmp_path_factory.mktemp("weak-screens")
    folder = home / "decks"
    folder.mkdir()
    (folder / "deck.yaml").write_text(LAPSED_DECK, "utf-8")
    shots = {}
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("QUIZ_DB", str(home / "q.db"))
        patch.setenv("QUIZ_CONFIG", str(home / "config.toml"))
        draw(folder, "en", 120, [(("cards",), "")])  # the decks into the collection
        store = open_store(home / "q.db")
        now, day = datetime(2026, 1, 5, 10, tzinfo=timezone.utc), timedelta(days=1)
        ratings = [(-20, 3), (-10, 3), (-2, 1), (-1, 1)]  # learnt, reviewed, lapsed, and failed again within a week
        try:
            for card in LONG_IDS:
                for days, rating in ratings:
                    answer(store, card, rating, now=now + days * day, duration_ms=5000,
                           scheduler=fsrs.Scheduler(enable_fuzzing=False), ahead_rule=False)
        finally:
            store.close()
        for language in ("en", "zh"):
            for columns in (120, 80, 60):
                shots[language, columns] = draw(folder, language, columns, WEAK_SCREENS)
    return shots


@pytest.mark.parametrize("columns", [60, 80, 120])
@pytest.mark.parametrize("language", ["en", "zh"])
def test_the_notebook_and_the_weakest_cards_keep_each_id_on_one_line(weak_drawn, language, columns):
    """The mistakes notebook and the stats' weakest cards folded long ids over lines at 60 and 80
    columns: each card there shows its whole id or its short id (the start of the id's SHA-1, as
    `quiz cards` shows it), on one line."""
    digests = {card: hashlib.sha1(card.encode()).hexdigest() for card in LONG_IDS}
    shots = weak_drawn[language, columns]

    def on_one_line(card: str, shot: str) -> bool:
        words = re.findall(r"[\w-]+", shot)
        return card in words or any(len(word) >= 4 and digests[card].startswith(word) for word in words)

    missing = [(args, card) for (args, _typed), shot in zip(WEAK_SCREENS, shots) for card in LONG_IDS
               if not on_one_line(card, shot)]
    assert not missing, (missing, *shots)
    assert not [line for shot in shots for line in shot.splitlines() if cell_len(line) > columns], shots
