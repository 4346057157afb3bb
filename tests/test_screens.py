"""The screens as a learner sees them, read back from a real terminal (tmux) at 60, 80 and 120
columns in both interface languages: no line starts with closing punctuation, the Chinese
interface shows no English word of its own and the English one no Chinese character."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from quizzer.kinds import KINDS
from quizzer.base.learners import login_name
from quizzer.settings import KEYS

pytestmark = [pytest.mark.slow,  # every test here starts a process
              pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux, a terminal whose screen can be read back")]

HEADER = "id: {deck}\ntitle: {title}\nlanguage: {language}\nsource: {{file: c.txt, sections: '1'}}\ncards:\n"
ZH_DECK = HEADER.format(deck="zh-deck", title="注意力机制", language="zh") + (
    "  - {id: card-one, kind: qa, source: '1.1', tags: [attention], question: 为什么要除以根号下的维度？,\n"
    "     answer: 点积的方差随维度增大而增大，不缩放时 softmax 会进入饱和区，梯度变得很小。,\n"
    "     points: [方差随维度增长, softmax 饱和, 梯度消失]}\n"
    "  - {id: card-two, kind: choice, source: '1.2', question: 哪一项是缩放因子？,\n"
    "     options: [维度的平方根, 维度本身, 头数], answer: A, explanation: 缩放的是根号下的维度。}\n")
EN_DECK = HEADER.format(deck="en-deck", title="Attention", language="en") + (
    "  - {id: card-one, kind: qa, source: '1.1', tags: [attention], question: Why divide by the square root of d?,\n"
    "     answer: The variance of a dot product grows with d; without scaling softmax saturates and gradients vanish.,\n"
    "     points: [variance grows with d, softmax saturates, gradients vanish]}\n"
    "  - {id: card-two, kind: choice, source: '1.2', question: Which is the scaling factor?,\n"
    "     options: [the square root of d, d itself, the number of heads], answer: A,\n"
    "     explanation: It is the square root of d.}\n")

CLOSING = "。，、；：？！）」』"
# what the Chinese interface may show in Latin letters: ids and names the learner types, keys,
# command and option names, and the names of things (FSRS, Anki)
ALLOWED = re.compile(
    r"`[^`]*`|--?[a-z][a-z-]*|\b(?:quiz|quizzer|python|shell|Schema|[A-Z][A-Z0-9_]+|Anki|Transformer|PostgreSQL|SQLite|MathJax|Markdown|LaTeX"
    r"|toml|zh|en|softmax|[a-z]+(?:-[a-z]+)+|[a-z_]+_[a-z_]+)\b"
    r"|/[\w./-]+|\b[A-Za-z]\b|\d+[a-z]{1,2}\b|[\w.-]+\.(?:toml|db|yaml|json|csv|apkg)\b|(?:https?|postgresql)://\S*")


def command_names() -> set[str]:
    import click
    import typer.main

    from quizzer.cli import app

    group = typer.main.get_command(app)
    return set(group.list_commands(click.Context(group)))  # type: ignore[attr-defined]  # loaded lazily: listed, not held


COMMANDS = command_names()
SETTINGS = {"on", "off", *KEYS, *KINDS}  # values, keys and kind names the learner types


class Tmux:
    def __init__(self, name: str, columns: int) -> None:
        self.name, self.columns, self.shown = name, columns, 0
        self.server: list[str] = []

    def run(self, *args: str) -> str:
        return subprocess.run([*self.server, *args], check=True, capture_output=True, text=True).stdout

    def screen(self) -> str:
        return self.run("capture-pane", "-p", "-S", "-", "-t", "s")

    def show(self, command: str, env: dict[str, str], until: str, keys: tuple[str, ...] = ()) -> str:
        """Run ``command`` in a fresh pane; send each key once the screen has stopped changing (the
        program waits for input); the screen and scrollback once ``until`` appears."""
        settings = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
        self.shown += 1  # a server of its own each time: a killed one may still be going away
        self.server = ["tmux", "-L", f"quizzer-screens-{os.getpid()}-{self.name}-{self.shown}", "-f", os.devnull]
        self.run("new-session", "-d", "-s", "s", "-x", str(self.columns), "-y", "50",
                 f"env -u COLUMNS -u LINES {settings} {command}; sleep 60")
        try:
            deadline = time.monotonic() + 120
            for key in keys:
                self.settle(deadline)
                self.run("send-keys", "-t", "s", *key.split(" "))
            while until not in (shot := self.screen()) and time.monotonic() < deadline:
                time.sleep(0.2)
            return shot
        finally:
            self.run("kill-server")

    def settle(self, deadline: float, quiet: float = 1.5) -> None:
        last, since = self.screen(), time.monotonic()
        while time.monotonic() < deadline:
            time.sleep(0.2)
            now = self.screen()
            if now != last:
                last, since = now, time.monotonic()
            elif now.strip() and time.monotonic() - since >= quiet:
                return


def screens(tmp_path: Path, language: str, columns: int) -> list[str]:
    folder = tmp_path / "decks"
    folder.mkdir()
    (folder / "deck.yaml").write_text(ZH_DECK if language == "zh" else EN_DECK, "utf-8")
    short = Path(tempfile.mkdtemp(prefix="q"))  # a path printed on screen stays on one line
    env = {"QUIZ_LANG": language, "QUIZ_DECKS": str(folder), "QUIZ_DB": str(tmp_path / "q.db"),
           "QUIZ_CONFIG": str(short / "config.toml"), "QUIZ_CACHE_DIR": str(tmp_path / "cache"),
           "QUIZ_NOW": "2026-01-05T10:00", "TZ": "UTC",
           "QUIZ_PAGER": ""}  # the screens are read back whole from the scrollback (test_pager has the pager)
    quiz = f"{shlex.quote(sys.executable)} -m quizzer"
    done = "·OK·"
    term = Tmux(f"{language}-{columns}", columns)
    shots = [term.show(f"{quiz} {args}; echo {done}", env, done) for args in ("--help", "", "config", "study --help")]
    shots.append(term.show(f"{quiz} study; echo {done}", env, done,
                           keys=("Enter", "3", "B Enter", "Enter", "!q Enter")))  # reveal, Good; B; next; !q quits at any prompt
    # an exam through the line protocol fills the mistakes notebook: a wrong free answer, a wrong letter, no marks
    exam = subprocess.run([sys.executable, "-m", "quizzer", "exam", "--count", "2", "--seed", "1"], input="x\nC\n\n",
                          capture_output=True, text=True, env={**os.environ, **env}, timeout=120)
    assert exam.returncode == 0, exam.stderr
    shots.append(term.show(f"{quiz} stats; echo {done}", env, done))  # after the exam: its mistakes are weak cards
    shots += [term.show(f"{quiz} {args}; echo {done}", env, done)
              for args in ("mistakes", "cards", "exam --history", "study --nope", "exam --minutes x")]
    return shots


# the mistakes notebook's headers, whole on one line: short below 100 columns, where the date gives way
HEADERS = {("en", False): ("card", "question", "wrong", "wrong answer", "right days"),
           ("zh", False): ("卡片", "问题", "次数", "你的答案", "答对天数"),
           ("en", True): ("card", "question", "times wrong", "last wrong", "last wrong answer", "right on later days"),
           ("zh", True): ("卡片", "问题", "错误次数", "上次答错", "上次错误答案", "之后答对")}


WEAKEST = {"en": ("card", "deck", "lapses", "mistakes", "recall"), "zh": ("卡片", "牌组", "遗忘", "错题", "回忆概率")}


@pytest.mark.parametrize("columns", [60, 80, 120])
@pytest.mark.parametrize("language", ["zh", "en"])
def test_the_screens_keep_to_one_language_and_break_lines_well(tmp_path, language, columns):
    shots = screens(tmp_path, language, columns)
    for shot in shots:
        lines = [line.rstrip() for line in shot.splitlines()]
        starts = [line.lstrip(" │┃║|") for line in lines]
        assert not [line for line in starts if line and line[0] in CLOSING], shot
        if language == "en":
            assert not re.search(r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]", shot), shot
        else:
            # what the learner types; `quiz config` shows the learner's name (the login name here)
            content = set(re.findall(r"[A-Za-z]{2,}", ZH_DECK)) | COMMANDS | SETTINGS | {login_name()}
            words = {word for word in re.findall(r"[A-Za-z]{2,}", ALLOWED.sub(" ", shot)) if word not in content}
            assert not words, (words, shot)
    assert any("card-one" in shot for shot in shots)  # the study session did run
    weakest = WEAKEST[language]  # the weakest cards' headers whole on one line: ids fold, numbers never cut
    assert any(all(header in line.split() for header in weakest) for line in shots[5].splitlines()), shots[5]
    mistakes = shots[6]
    assert "card-one" in mistakes and "card-two" in mistakes
    headers = [h for h in HEADERS[language, columns >= 100] if columns >= 80 or h not in ("wrong answer", "你的答案")]
    assert any(all(header in line for header in headers) for line in mistakes.splitlines()), mistakes
