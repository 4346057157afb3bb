"""A common-mistake item states what is right; the card's claim is the wrong statement, written
out from it. The claim never holds the correction's words unchanged: a card that shows its
answer on the front teaches nothing."""

from __future__ import annotations

import re

_IS_NOT = re.compile(r"^(.*?)是(.+?)([，,、]?)\s*不是(.+)$")  # "X 是 A 不是 B", "是相加不是拼接"
# (what the statement says, what its opposite says), tried in order where the word occurs once
_TURNED = (("没有", "有"), ("只", "不只"), ("也用", "不用"), ("常", "从不"), ("用", "不用"), ("需要", "不需要"),
           ("可以", "不能"), ("能", "不能"), ("会", "不会"))


def opposite(right: str) -> str | None:
    """The wrong statement ``right`` corrects, or None where none can be written from its words."""
    if right.startswith("不是") and "不是" not in right[2:]:
        return right[2:]
    swapped = _IS_NOT.match(right)
    if swapped and "不是" not in swapped.group(1) + swapped.group(2):  # the two sides swapped
        subject, first, comma, second = swapped.groups()
        return f"{subject}是{second}{comma}不是{first}"
    if right.count("≠") == 1:
        return right.replace("≠", "=")
    if right.count("不是") == 1 and right.count("是") == 1:
        return right.replace("不是", "是")
    if right.count("是") == 1 and "不是" not in right and "（" not in right.split("是")[0]:  # "X 是可学习的"
        return right.replace("是", "不是")
    for said, turned in _TURNED:
        if right.count(said) == 1 and not ("不" + said in right or said + "不" in right):
            return right.replace(said, turned)
    return None


def claim_of(right: str, heading: str) -> str:
    """The card's claim: the wrong statement (of the bold lead alone, without the aside after it),
    else a question naming the section's topic, never the correction itself."""
    wrong = opposite(right)
    if wrong is not None:
        return wrong
    return f"关于「{heading}」的一个常见误解（说出正确的说法）" if heading else "本节的一个常见误解（说出正确的说法）"
