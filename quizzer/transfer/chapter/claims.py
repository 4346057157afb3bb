"""Sentences of a chapter that credit a paper or later work with a finding (``15% 是 BERT 论文通过
对比实验确定的``, ``RoBERTa 等后续工作发现 NSP 任务过于简单``): no checker can recompute them, and
courses get them wrong, so the draft names each one to be checked against the source."""

from __future__ import annotations

import re
from dataclasses import dataclass

from quizzer.transfer.chapter.markup import Block

_CREDITED = re.compile(r"[^。；;！!？?\n]*(?:论文|研究|工作|实验)[^。；;\n]{0,30}?(?:发现|确定|证明|表明|指出)[^。；;！!？?\n]*")


@dataclass(frozen=True)
class Credited:
    line: int
    sentence: str


def credited(block: Block) -> list[Credited]:
    """Every sentence outside code that credits a paper or later work with a finding, in file order."""
    found: list[Credited] = []
    for item in block.body:
        if isinstance(item, Block):
            found += credited(item)
        elif not item.code:
            found += [Credited(item.number, _plain(match.group())) for match in _CREDITED.finditer(item.text)]
    return sorted(found, key=lambda claim: claim.line)


def _plain(sentence: str) -> str:
    return " ".join(sentence.replace("**", "").strip(" -*：:，,").split())


def section_of(line: int, starts: list[tuple[int, str]]) -> str:
    """The section a line is in, from the lines where sections start (in file order)."""
    return next((section for start, section in reversed(starts) if start <= line), starts[0][1] if starts else "0")

