"""Claims courses get wrong that no checker computes (``双向注意力在生成时会「看到未来」``, a QA head
of ``[B, 2, S]``), read from ``course_claims.yaml``, data shipped with the package: the course's
words, the correction and its primary source. A drafted card holding a known claim is flagged as a
wrong course number is (``worked``): the tag ``course-error``, a comment above it, and the
correction with its source in the card; a known claim met only outside the card blocks becomes a
``mistake`` card whose claim is the course's sentence."""

from __future__ import annotations

import functools
import re
import unicodedata
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from quizzer.transfer.chapter.ids import Item, kind_of
from quizzer.transfer.chapter.worked import FLAG

CLAIMS_FILE = Path(__file__).with_name("course_claims.yaml")
_SENTENCE = re.compile(r"[^。；;！!？?\n]+[。；;！!？?]?")
_LIST_MARK = re.compile(r"^\s*(?:[-*+]|\d+[.、)）]|[A-Z][.．、)）])\s*")


@dataclass(frozen=True)
class KnownClaim:
    id: str
    course: tuple[str, ...]  # the phrases the course writes it in
    correction: str
    source: str
    cards: tuple[str, ...]  # the hand-made cards that correct it

    def said_in(self, text: str) -> str | None:
        """The first of the course's phrases ``text`` holds (spaces, width and case aside), or None."""
        plain = comparable(text)
        return next((phrase for phrase in self.course if comparable(phrase) in plain), None)

    def note(self, phrase: str) -> str:
        """The correction as the card states it."""
        return f"（课程写「{phrase}」，有误：{self.correction}出处：{self.source}。）"

    def comment(self, phrase: str) -> str:
        """The line written above a flagged card."""
        return f"{FLAG}: 课程说法有误：课程写「{phrase}」；{self.correction}（出处：{self.source}）"


def comparable(text: str) -> str:
    return "".join(unicodedata.normalize("NFKC", text).casefold().split())


@functools.cache
def known_claims() -> tuple[KnownClaim, ...]:
    import yaml

    entries = yaml.safe_load(CLAIMS_FILE.read_text("utf-8"))
    return tuple(KnownClaim(entry["id"], tuple(entry["course"]), entry["correction"].strip(), entry["source"],
                            tuple(entry.get("cards", ()))) for entry in entries)


@dataclass(frozen=True)
class Met:
    """A known claim where the chapter states it."""

    claim: KnownClaim
    phrase: str
    line: int


def met_in(lines: list[tuple[int, str]]) -> list[Met]:
    """Every known claim each line states, in line order."""
    return [Met(claim, phrase, number) for number, text in lines for claim in known_claims()
            if (phrase := claim.said_in(text)) is not None]


def _texts(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [text for item in value.values() for text in _texts(item)]
    if isinstance(value, list):
        return [text for item in value for text in _texts(item)]
    return []


def _appended(text: str, note: str) -> str:
    """``note`` as a paragraph of its own after ``text`` (a line right after a table would be a row of it)."""
    return text.rstrip("\n") + "\n\n" + note + "\n"


def _flagged(item: Item, claim: KnownClaim, phrase: str) -> Item:
    """``item`` tagged, with the correction where its kind keeps the why: a note, else after its
    answer, explanation or why; a graded point stating the claim is the correction instead."""
    fields = dict(item.fields)
    fields["tags"] = [*fields.get("tags", []), FLAG] if FLAG not in fields.get("tags", []) else fields["tags"]
    kind = kind_of(item)
    note = claim.note(phrase)
    if kind == "qa":
        fields["answer"] = _appended(fields["answer"], note)
        fields["points"] = [claim.correction if claim.said_in(point) else point for point in fields["points"]]
    elif kind in ("choice", "mistake"):
        name = "explanation" if kind == "choice" else "why"
        fields[name] = _appended(fields[name], note)
    else:
        fields["note"] = _appended(fields["note"], note).strip() if fields.get("note") else note
    comment = claim.comment(phrase)
    return replace(item, fields=fields, comment=f"{item.comment}；{comment}" if item.comment else comment)


def flag_cards(items: list[Item]) -> list[Item]:
    """The items with every card holding a known claim flagged."""
    flagged: list[Item] = []
    for item in items:
        texts = [text for name, value in item.fields.items() if name != "tags" for text in _texts(value)]
        for claim in known_claims():
            phrase = next((found for text in texts if (found := claim.said_in(text))), None)
            if phrase is not None:
                item = _flagged(item, claim, phrase)
        flagged.append(item)
    return flagged


def _sentence(text: str, phrase: str) -> str:
    """The sentence of ``text`` stating ``phrase``, without its list mark and bold."""
    wanted = comparable(phrase)
    found = next((part for part in _SENTENCE.findall(text) if wanted in comparable(part)), text)
    return _LIST_MARK.sub("", found.replace("**", "")).strip(" ：:，,")


def prose_cards(prose: dict[str, list[tuple[int, str]]], headings: dict[str, str]) -> list[Item]:
    """A ``mistake`` card for each known claim the chapter states outside its card blocks: the
    course's sentence is the claim, flagged as a drafted card holding it is."""
    cards: list[Item] = []
    for section, lines in prose.items():
        for met in met_in([(number, line) for number, line in lines if not line.lstrip().startswith("|")]):  # rows: cards
            text = next(line for number, line in lines if number == met.line)
            sentence = _sentence(text, met.phrase)
            fields = {"tags": [FLAG], "claim": sentence, "correction": met.claim.correction, "why": f"出处：{met.claim.source}。"}
            cards.append(Item("warning", section, headings.get(section, section), f"{met.claim.id} {sentence}", fields,
                              comment=met.claim.comment(met.phrase)))
    return cards
