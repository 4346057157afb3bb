"""The course's claims no checker computes, known to be wrong (quizzer/transfer/chapter/course_claims.yaml):
every correction the hand-made chapter-8 deck records is flagged in the chapter-8 draft and by
`quiz lint` on it, and every entry of the data file is a sentence the course really writes."""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from quizzer.cli import app
from test_audit import AUDIT, audit_rows

ROOT = Path(__file__).resolve().parents[1]
SEEDS = ROOT.parent / "shared" / "seeds"
CHAPTER8 = SEEDS / "000_54c1e0fa0697e990.txt"
CLAIMS = ROOT / "quizzer" / "transfer" / "chapter" / "course_claims.yaml"
# Hand-made cards whose correction is a number: the checkers flag it (test_chapter_import's COURSE_ERRORS).
CORRECTED_BY_A_CHECKER = {"bert-embedding-share-vocab"}

runner = CliRunner()


def entries() -> list[dict]:
    return yaml.safe_load(CLAIMS.read_text("utf-8"))


def plain(text: str) -> str:
    """Spaces, width and case aside, as a reader compares the course's words."""
    return "".join(unicodedata.normalize("NFKC", text).casefold().split())


def hand_made_cards() -> dict[str, dict]:
    return {card["id"]: card for deck in (ROOT / "decks").glob("*.yaml")
            for card in yaml.safe_load(deck.read_text("utf-8"))["cards"]}


@pytest.fixture(scope="module")
def seeds() -> list[str]:
    if not CHAPTER8.is_file():
        pytest.skip(f"the shared course files are not here ({SEEDS})")
    return [path.read_text("utf-8") for path in sorted(SEEDS.glob("*.txt"))]


@pytest.fixture(scope="module")
def draft8(seeds, tmp_path_factory) -> tuple[Path, str, str]:
    """The chapter-8 draft in a folder of its own: (its file, its text, what `quiz lint` warns)."""
    out = tmp_path_factory.mktemp("decks") / "ch08.yaml"
    result = runner.invoke(app, ["import", "chapter", str(CHAPTER8), "--out", str(out)])
    assert result.exit_code == 0, result.output
    linted = runner.invoke(app, ["lint", str(out)])
    assert linted.exit_code == 0, linted.output
    return out, out.read_text("utf-8"), linted.stderr


def test_the_data_file_names_each_claim_once_with_a_correction_a_source_and_real_cards():
    cards = hand_made_cards()
    ids = [entry["id"] for entry in entries()]
    assert len(ids) == len(set(ids))
    for entry in entries():
        assert set(entry) == {"id", "course", "correction", "source", "cards"}, entry["id"]
        assert entry["course"] and all(isinstance(phrase, str) and phrase.strip() for phrase in entry["course"])
        assert re.search(r"(19|20)\d\d|PyTorch|Hugging Face", entry["source"]), entry["id"]  # a paper with its year, or the library
        assert entry["cards"] and set(entry["cards"]) <= set(cards), entry["id"]


def test_every_entry_is_a_sentence_the_course_writes(seeds):
    """No dead entry: each phrase is found in a seed, spaces and width aside."""
    written = [plain(text) for text in seeds]
    for entry in entries():
        for phrase in entry["course"]:
            assert any(plain(phrase) in text for text in written), (entry["id"], phrase)


def test_every_correction_the_hand_made_chapter8_deck_records_has_an_entry():
    """The audit's chapter-8 rows that correct the course (decision corrected, or a claim naming
    what the course says) are each named by an entry, or corrected by a checker."""
    recorded = {card_id for deck, card_id, (claim, _source, decision), _line in audit_rows(AUDIT.read_text("utf-8"))
                if deck == "ch08-bert" and (decision == "corrected" or re.search(r"\bcourse\b|course's", claim))}
    named = {card_id for entry in entries() for card_id in entry["cards"]}
    assert len(recorded) >= 12
    assert recorded - CORRECTED_BY_A_CHECKER <= named, sorted(recorded - CORRECTED_BY_A_CHECKER - named)


def _cards_of(text: str) -> list[dict]:
    return yaml.safe_load(text)["cards"]


def _all_text(value) -> str:
    if isinstance(value, dict):
        return " ".join(_all_text(item) for item in value.values())
    if isinstance(value, list):
        return " ".join(_all_text(item) for item in value)
    return str(value)


def test_every_known_claim_of_chapter8_is_flagged_in_the_draft_and_by_lint(draft8):
    out, text, warned = draft8
    flagged = [card for card in _cards_of(text) if "course-error" in card.get("tags", [])]
    for entry in entries():
        holding = [card for card in flagged if plain(entry["correction"]) in plain(_all_text(card))]
        assert holding, entry["id"]
        for card in holding:
            above = text[: text.index(f"- id: {card['id']}")].rstrip().splitlines()[-1].strip()
            assert above.startswith("# course-error:") and any(f"课程写「{phrase}」" in above for phrase in entry["course"]), above
            assert f"warning: card {card['id']} is tagged course-error" in warned
            if card["kind"] == "qa":  # a graded point never states the wrong claim
                assert not any(plain(phrase) in plain(point) for point in card["points"] for phrase in entry["course"])
    named_in_lint = re.findall(r"warning: card (\S+) is tagged course-error", warned)
    assert sorted(named_in_lint) == sorted(card["id"] for card in flagged)


def test_a_known_claim_outside_the_card_blocks_becomes_a_mistake_card_stating_it(draft8):
    """8.7's 15% 是 BERT 论文通过对比实验确定的平衡点 sits in a formula block: its card claims the course's
    sentence and corrects it; it is no longer left to be checked."""
    _out, text, _warned = draft8
    card = next(c for c in _cards_of(text) if c["kind"] == "mistake" and "对比实验" in c["claim"])
    assert card["source"] == "8.7" and card["claim"] == "15% 是 BERT 论文通过对比实验确定的平衡点。"
    assert "80/10/10" in card["correction"] and "C.2" in card["why"]
    assert "待与原文核对的出处说法（第 365 行" not in text


CHAPTER = """# 第 9 章 测试

## 9.1 生成

正文。15% 是 BERT 论文通过对比实验确定的平衡点。其余照常。

:::interview 面试常问
**Q：BERT 为什么不能直接做生成？**

:::answer
① 训练目标是完形填空；② 双向注意力在生成时会 「看到未来」，无法用于自回归推理。
:::
:::

:::quiz
BERT 抽取式问答头的输出 shape 是？

A. [B,2,S]
B. [B, C]

答案: A
解析: 课程的写法。
:::
"""


def test_any_chapter_stating_a_known_claim_gets_it_flagged(tmp_path):
    """In a card (spaces aside: 「看到未来」 after a space; [B,2,S] without), and in the prose."""
    chapter = tmp_path / "gen.md"
    chapter.write_text(CHAPTER, "utf-8")
    result = runner.invoke(app, ["import", "chapter", str(chapter)])
    assert result.exit_code == 0, result.output
    cards = {card["kind"]: card for card in _cards_of(result.stdout)}
    assert set(cards) == {"qa", "choice", "mistake"} and all("course-error" in c["tags"] for c in cards.values())
    assert "没有「未来」可看" in cards["qa"]["answer"] and any("没有「未来」可看" in p for p in cards["qa"]["points"])
    assert "[B, S, 2]" in cards["choice"]["explanation"]
    assert cards["mistake"]["claim"] == "15% 是 BERT 论文通过对比实验确定的平衡点。"
    assert f"{chapter}:5: the course says «15% 是 BERT 论文通过对比实验确定的»" in result.stderr
    assert f"{chapter}:11: the course says «双向注意力在生成时会「看到未来」»" in result.stderr
