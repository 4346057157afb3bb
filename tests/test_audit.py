"""docs/audit.md, the claim-by-claim audit of the decks, stays complete and names real cards.

Every non-numeric card of the two course decks has exactly one row under its deck's heading,
with one of the three decisions; the corrections the audit made stay made.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from quizzer import kinds
from quizzer.decks import load_decks

ROOT = Path(__file__).resolve().parents[1]
AUDIT = ROOT / "docs" / "audit.md"
AUDITED_DECKS = ("ch08-bert", "day12-bert-gpt")
DECISIONS = {"kept", "corrected", "note added"}
HEADING = re.compile(r"^## (\S+)\s*$")
ROW = re.compile(r"^\|\s*`([^`]+)`\s*\|(.*)\|\s*$")


def audit_rows(text: str) -> list[tuple[str | None, str, list[str], int]]:
    """(deck heading, card id, the other cells, line number) of every table row naming a card."""
    rows, deck = [], None
    for number, line in enumerate(text.splitlines(), 1):
        if heading := HEADING.match(line):
            deck = heading[1]
        elif row := ROW.match(line):
            rows.append((deck, row[1], [cell.strip() for cell in row[2].split("|")], number))
    return rows


@pytest.fixture(scope="module")
def cards() -> dict[str, dict[str, object]]:
    """The audited decks' cards by id, per deck."""
    loaded = {d.deck.id: d.deck for d in load_decks([ROOT / "decks"])}
    return {deck: {c.id: c for c in loaded[deck].cards} for deck in AUDITED_DECKS}


@pytest.fixture(scope="module")
def rows() -> list[tuple[str | None, str, list[str], int]]:
    return audit_rows(AUDIT.read_text("utf-8"))


def test_the_parser_reads_headings_rows_and_cells():
    text = "# t\n\n## deck-a\n\n| card | claim | source | decision |\n| --- | --- | --- | --- |\n| `x-1` | a | b | kept |\n"
    assert audit_rows(text) == [("deck-a", "x-1", ["a", "b", "kept"], 7)]


def test_every_row_names_a_card_of_its_deck_once_with_an_allowed_decision(rows, cards):
    problems, seen = [], set()
    for deck, card_id, cells, line in rows:
        if deck not in cards:
            problems.append(f"line {line}: `{card_id}` is under '{deck}', not one of {AUDITED_DECKS}")
        elif card_id not in cards[deck]:
            problems.append(f"line {line}: `{card_id}` is not a card of {deck}")
        if len(cells) != 3 or not all(cells):
            problems.append(f"line {line}: `{card_id}` needs a claim, a source and a decision")
        elif cells[-1] not in DECISIONS:
            problems.append(f"line {line}: decision '{cells[-1]}' is not one of {sorted(DECISIONS)}")
        if card_id in seen:
            problems.append(f"line {line}: `{card_id}` is listed twice")
        seen.add(card_id)
    assert problems == []


def test_every_non_numeric_card_of_the_audited_decks_has_a_row(rows, cards):
    listed = {(deck, card_id) for deck, card_id, _, _ in rows}
    missing = [
        f"{deck}: {card.id}"
        for deck, deck_cards in cards.items()
        for card in deck_cards.values()
        if not kinds.of(card).generated and (deck, card.id) not in listed
    ]
    assert missing == []


def test_the_audit_covers_every_kind_it_claims_to_and_no_numeric_card(rows, cards):
    """Numeric cards are checked by their checkers, so a row for one is a mistake."""
    by_id = {card_id: card for deck_cards in cards.values() for card_id, card in deck_cards.items()}
    audited = [by_id[card_id] for _, card_id, _, _ in rows if card_id in by_id]
    assert {card.kind for card in audited} == {"qa", "choice", "mistake", "cloze"}
    assert [card.id for card in audited if kinds.of(card).generated] == []


def texts(card: object) -> str:
    return "\n".join(kinds.of(card).texts(card))


def test_the_random_word_reason_is_the_papers_in_both_decks(cards):
    """The course's "防背位置" may only appear as what the course says, beside the paper's reason."""
    for deck_cards in cards.values():
        for card in deck_cards.values():
            text = texts(card)
            if "背位置" in text:
                assert "课程" in text and "A.1" in text, card.id
    reason = texts(cards["day12-bert-gpt"]["d12-mlm-random-word-purpose"])
    assert "上下文表示" in reason


def test_bert_cannot_generate_is_not_blamed_on_its_output_layer(cards):
    """BERT's MLM head is tied to the word embeddings (d12-bert-mlm-head-tied-to-embeddings)."""
    card = cards["day12-bert-gpt"]["d12-qa-why-bert-cannot-generate"]
    assert "绑定" in card.answer and "P(x_t \\mid x_{<t})" in card.answer
    assert not re.search(r"缺[^。]*转置当输出层", card.answer.split("（注")[0])


def test_no_card_uses_course_production_jargon(cards):
    assert [c.id for d in cards.values() for c in d.values() if "抽取稿" in texts(c)] == []


def test_a_number_the_audit_quotes_is_one_the_decks_state():
    """A numeric card's figure quoted here (240.59, not 240.60) is the one its card states."""
    text = re.sub(r"(?:PyTorch|torch) \d+(?:\.\d+)+", "", AUDIT.read_text("utf-8"))  # versions are not figures
    decks = "\n".join(path.read_text("utf-8") for path in sorted((ROOT / "decks").glob("*.yaml")))
    quoted = set(re.findall(r"(?<![\d.])\d+\.\d{2,}(?![\d.])", text))
    assert quoted and sorted(n for n in quoted if n not in decks) == []


def graded(card: object) -> str:
    """What a card teaches as its own: every text but the wrong claim of a mistake card and the
    options of a choice card (distractors by design), each cut at its note on what the course says."""
    fields = [getattr(card, name, None) for name in ("question", "answer", "correction", "why", "explanation", "text")]
    fields += list(getattr(card, "points", None) or [])
    return "\n".join(f.split("（注")[0].split("（补充")[0] for f in fields if isinstance(f, str))


REMOVED = [  # what the audit corrected: in a card whose own text matches the first pattern, the second must not come back
    ("", r"生成时[^。；]{0,6}看到未来", "bidirectional attention 'sees the future' at generation: there is none then (BERT §3.1)"),
    ("", r"RoBERTa[^。]*(?:过于简单|太简单)", "'NSP is too easy' is ALBERT's conjecture (§3.1), not RoBERTa's finding"),
    ("ALBERT", r"推理快", "ALBERT's sharing cuts parameters, not computation (ALBERT §5)"),
    ("", r"更省算力", "same-size BERT and GPT cost the same per token (BERT §4.1)"),
    ("", r"除自己", "an MLM position attends to itself; only a replaced one misses its original word"),
    ("", r"图里|图中|红框|灰色块|这张图|结构图", "a figure the learner cannot see"),
    ("", r"材料明确点出", "authority instead of a reason"),
    ("", r"而是不是", "reads as 'whether'; 而是并非"),
    ("SpanBERT", r"实体识别更强", "SpanBERT's paper reports no NER"),
]


def test_what_the_audit_corrected_stays_corrected(cards):
    found = [
        f"{card.id}: {why}"
        for deck_cards in cards.values()
        for card in deck_cards.values()
        if not kinds.of(card).generated
        for scope, pattern, why in REMOVED
        if re.search(scope, graded(card)) and re.search(pattern, graded(card))
    ]
    assert found == []


def test_the_qa_head_is_taught_as_the_linear_layer_gives_it(cards):
    """Linear(768, 2) gives [B, S, 2]; the course's [B, 2, S] appears only beside it."""
    for deck_cards in cards.values():
        for card in deck_cards.values():
            text = texts(card)
            if "[B, 2, S]" in text:
                assert "[B, S, 2]" in text, card.id
    assert "[B, S, 2]" in texts(cards["ch08-bert"]["bert-qa-head-shape"])
