"""Every interview question, quiz and section-5 misconception of the course is a card.

Counts come from the course files themselves (../shared/seeds), so a card deleted from a
deck, or a question reworded away from the course, fails here.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from quizzer.decks import load_decks
from quizzer.kinds.fields import LETTERS

ROOT = Path(__file__).resolve().parents[1]
SEEDS = ROOT.parent / "shared" / "seeds"
CH08 = SEEDS / "000_54c1e0fa0697e990.txt"
DAY12 = SEEDS / "004_88078590c83ee215.txt"

pytestmark = pytest.mark.skipif(not CH08.exists(), reason="the course files are not beside this checkout")


def deck(deck_id: str):
    return next(d.deck for d in load_decks([ROOT / "decks"]) if d.deck.id == deck_id)


def cards_of(deck_id: str, kind: str) -> list:
    return [c for c in deck(deck_id).cards if c.kind == kind]


def blocks(text: str, name: str) -> list[str]:
    """Bodies of the top-level `:::name` blocks (they nest `:::answer` inside)."""
    found, depth, body = [], 0, None
    for line in text.splitlines():
        if depth == 0 and line.startswith(f":::{name}"):
            depth, body = 1, []
            continue
        if depth:
            if line.strip() == ":::":
                depth -= 1
                if depth == 0:
                    found.append("\n".join(body))
                    continue
            elif line.startswith(":::"):
                depth += 1
            body.append(line)
    return found


def test_chapter8_every_interview_question_is_a_qa_card():
    text = CH08.read_text("utf-8")
    questions = [q for block in blocks(text, "interview") for q in re.findall(r"^\*\*Q\d?：(.+?)\*\*$", block, re.M)]
    assert len(questions) == 10
    asked = {c.question for c in cards_of("ch08-bert", "qa")}
    assert [q for q in questions if q not in asked] == []


def test_chapter8_every_quiz_is_a_choice_card_with_the_same_answer():
    quizzes = blocks(CH08.read_text("utf-8"), "quiz")
    assert len(quizzes) == 4
    cards = {c.question: c for c in cards_of("ch08-bert", "choice")}
    for quiz in quizzes:
        question = quiz.strip().splitlines()[0]
        options = re.findall(r"^([A-H])\. (.+)$", quiz, re.M)
        answer = re.search(r"^答案: ?([A-H]+)", quiz, re.M).group(1)
        card = cards[question]
        assert card.options == [text for _, text in options]
        assert card.answer == list(answer)
        assert all(letter in LETTERS for letter in card.answer)


def test_chapter8_every_warning_item_is_a_mistake_card():
    items = 0
    for block in blocks(CH08.read_text("utf-8"), "warning"):
        bullets = re.findall(r"^- \*\*", block, re.M)
        rows = [r for r in re.findall(r"^\|(.+)\|$", block, re.M) if not set(r) <= set("-| ")][1:]
        items += len(bullets) or (len(rows) if rows else 1)
    assert len(cards_of("ch08-bert", "mistake")) >= items >= 10


def test_day12_every_section8_question_is_a_qa_card():
    text = DAY12.read_text("utf-8")
    section = text[text.index("八、重点问答"): text.index("九、延伸阅读")]
    questions = re.findall(r"^Q\d：(.+)$", section, re.M)
    assert len(questions) == 9
    asked = {c.question for c in cards_of("day12-bert-gpt", "qa")}
    assert [q for q in questions if q not in asked] == []


def test_day12_every_section5_pair_is_a_mistake_card():
    text = DAY12.read_text("utf-8")
    section = text[text.index("五、"): text.index("六、")]
    # each pair is a claim line followed by its correction, opened by one of these phrases
    pairs = re.findall(r"^(实际上|其实|真实情况是|事实正相反)", section, re.M)
    assert len(pairs) == 8
    section5 = [c for c in cards_of("day12-bert-gpt", "mistake") if c.source.split(".")[0] == "5"]
    assert len(section5) >= len(pairs)
