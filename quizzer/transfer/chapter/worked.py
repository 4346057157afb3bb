"""A chapter's worked examples as ``numeric`` cards bound to a checker, and the numbers the
chapter states recomputed by that checker: a number that disagrees with the reference to its own
last written digit is flagged (a YAML comment above the card, a ``note``, the tag ``course-error``,
which ``quiz lint`` reports until the card is reviewed).

What is recognised: a parameter table of a named model (``Token Embedding | 30522 × 768 | 23.4M``,
``param_count``) and the share of its embeddings (``Embedding 占了约 21%``); a vector sum table
(``Token / Position / Segment / 相加``, ``embedding_sum``); a row of attention scores with a mask
(``masked_softmax``, unmasked and masked, with the weights the course states); losses of the form
``-\\ln(0.62) \\approx 0.478`` (``mlm_loss``)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from quizzer.transfer.chapter.tables import Table

FLAG = "course-error"  # the tag of a card whose course number is wrong (decks.lint reports it)
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?\s*[%MBK]?")
_VECTOR = re.compile(r"\[([^\[\]]+)\]")
_COMPONENTS = (("每层合计", "layer"), ("层合计", "encoder"), ("总计", "total"), ("token embedding", "token_embedding"),
               ("position embedding", "position_embedding"), ("segment embedding", "segment_embedding"),
               ("attention", "attention"), ("ffn", "ffn"))
_SCORES = re.compile(r"分数\s*`?\[([^\]]+)\]")
_MASK = re.compile(r"mask\s*=\s*\[([01,\s]+)\]")
_UNMASKED = re.compile(r"不加 ?mask.*?[（(]([\d、,，\s]+)[)）].*?((?:\d+(?:\.\d+)?%[、,，\s]*)+)")
_LOSS = re.compile(r"-\\ln\s*\(\s*(0?\.\d+)\s*\)\s*\\approx\s*(\d+(?:\.\d+)?)")
_SHARE = re.compile(r"Embedding\s*占了?约?\s*(\d+(?:\.\d+)?%)")
_REST = re.compile(r"(?:Transformer|层)\s*占了?约?\s*(\d+(?:\.\d+)?%)")  # the layers' share, the rest


@dataclass(frozen=True)
class Worked:
    """A numeric card drawn from the chapter; ``wrong`` says what the course gets wrong, if anything."""

    line: int
    stable: str
    fields: dict[str, Any]
    wrong: str | None = None


@dataclass
class _Stated:
    """The course's numbers beside the reference's: what agrees, what does not."""

    said: list[str] = field(default_factory=list)
    wrong: list[str] = field(default_factory=list)

    def compare(self, text: str, truth: float, shown: str) -> None:
        """``text`` agrees when it is ``truth`` rounded to its own last written digit (0.002M for 1,536)."""
        from checkers.grading import AnswerFormatError, parse_number

        try:
            number = parse_number(text.replace(" ", ""))
        except AnswerFormatError:
            return
        if abs(number.value - truth) > number.resolution * (1 + 1e-9):
            self.wrong.append(f"课程写 {text}，实算 {shown}")
        else:
            self.said.append(f"课程的 {text} 与实算 {shown} 一致")


def _floats(text: str) -> list[float]:
    return [float(part.strip().replace("−", "-")) for part in text.split(",") if part.strip()]


class _Unsolvable(Exception):
    """The checker refuses the example's numbers (a probability of 0, a row with every score masked)."""


def _solve(checker: str, inputs: dict[str, Any]) -> Any:
    from pydantic import ValidationError

    from checkers import registry

    found = registry.get(checker)
    try:
        return found.solve(found.Inputs.model_validate(inputs))
    except (ValidationError, ArithmeticError, ValueError, RuntimeError) as err:
        raise _Unsolvable(str(err)) from err


def _card(line: int, checker: str, params: dict[str, Any], inputs: dict[str, Any], answer: Any,
          stated: _Stated, what: str) -> Worked:
    wrong = "；".join(stated.wrong)
    note = f"{what}。" + (f"课程的数字有误：{wrong}，本卡按实算值。" if wrong else "；".join(stated.said) + ("。" if stated.said else ""))
    fields = {"tags": ["worked", FLAG] if wrong else ["worked"], "checker": checker, "params": params,
              "example": {"inputs": inputs, "answer": answer, "note": note}}
    return Worked(line, f"{checker} {json.dumps(inputs, sort_keys=True)}", fields, f"{FLAG}: 课程数字有误：{wrong}" if wrong else None)


def _percent(value: float) -> str:
    return f"{value:.2%}"


def _model(numbers: set[int]) -> str | None:
    """The named model whose vocabulary, width and depth the table's computations use."""
    from checkers.configs import CONFIGS

    for name, config in CONFIGS.items():
        if config.family == "bert" and {config.vocab, config.hidden, config.layers} <= numbers:
            return name
    return None


def from_table(table: Table) -> list[Worked] | None:
    """The worked table's cards, or None when the table is no worked example."""
    labels = [cells[0].lower() for _line, cells in table.rows if cells]
    model = table_model(table)
    try:
        if {"token", "position", "segment"} <= {label.split("（")[0].split("(")[0].strip() for label in labels}:
            return _vector_sum(table) or None
        if model is not None and len(table.header) >= 3:
            return _param_table(table, model) or None
    except _Unsolvable:
        pass  # numbers no checker takes: the rows become cards as any table's
    return None


def _vector_sum(table: Table) -> list[Worked]:
    vectors: dict[str, list[float]] = {}
    stated = ""
    for _line, cells in table.rows:
        found = _VECTOR.search(cells[-1])
        key = cells[0].lower().split("（")[0].split("(")[0].strip()
        if found and key in ("token", "position", "segment"):
            vectors[key] = _floats(found.group(1))
        elif found:
            stated = found.group(1)
    if len(vectors) < 3 or len({len(v) for v in vectors.values()}) != 1:
        return []
    truth = _solve("embedding_sum", vectors)
    said = _Stated()
    for text, value in zip(stated.replace("−", "-").split(","), truth):
        said.compare(text.strip(), value, f"{value:g}")
    size = len(vectors["token"])
    return [_card(table.rows[0][0], "embedding_sum", {"min_len": size, "max_len": size}, vectors,
                  [f"{v:.2f}" for v in truth], said, "课程的向量相加算例：token、position、segment 三个向量逐元素相加")]


def _param_table(table: Table, model: str) -> list[Worked]:
    cards: list[Worked] = []
    for line, cells in table.rows:
        component = next((name for word, name in _COMPONENTS if word in cells[0].lower()), None)
        stated = _NUMBER.search(cells[-1].replace("约", ""))
        if component is None or stated is None:
            continue
        inputs = {"model": model, "component": component, "convention": "textbook"}
        truth = int(_solve("param_count", inputs))
        said = _Stated()
        said.compare(stated.group(), truth, f"{truth / 1e6:.2f}M（{truth:,}）" if truth >= 1_000_000 else f"{truth / 1e6:.4g}M（{truth:,}）")
        params: dict[str, Any] = {"family": "bert", "convention": "textbook", "components": [component], "models": [model]}
        if truth >= 1_000_000:
            params |= {"precision": "millions", "decimals": 2}
        cards.append(_card(line, "param_count", params, inputs, str(truth), said,
                           f"{model} 的{cells[0]}（只算权重矩阵：{cells[1]}）"))
    return cards


def table_model(table: Table) -> str | None:
    """The model a parameter table counts, if it is one."""
    numbers = {int(n) for _line, cells in table.rows for cell in cells[1:-1] for n in re.findall(r"\d+", cell)}
    return _model(numbers) if any("参数量" in name for name in table.header) else None


def _embedding_share(found: re.Match[str], line: int, model: str) -> Worked:
    """``Embedding 占了约 21%`` beside a parameter table (and the layers' ``占约 79%`` after it):
    the share recomputed."""
    inputs = {"model": model, "component": "embedding_share", "convention": "textbook"}
    truth = float(_solve("param_count", inputs))
    said = _Stated()
    said.compare(found.group(1), truth, _percent(truth))
    rest = _REST.search(found.string, found.end())
    if rest:
        said.compare(rest.group(1), 1 - truth, _percent(1 - truth))
    params = {"family": "bert", "convention": "textbook", "components": ["embedding_share"], "models": [model]}
    return _card(line, "param_count", params, inputs, f"{truth:.4f}", said, f"{model} 中 Embedding 占总参数量的比例")


def from_prose(lines: list[tuple[int, str]], model: str | None) -> list[Worked]:
    """The worked examples written in a section's text (its code and explanation blocks
    included); ``model``: the one the section's parameter table counts."""
    cards: list[Worked] = []
    text = "\n".join(line for _number, line in lines)
    share = _SHARE.search(text) if model else None
    scores, mask = _SCORES.search(text), _MASK.search(text)
    try:
        if share and model:
            cards.append(_embedding_share(share, _line_of(lines, share.group()), model))
        if scores and mask and len(_floats(scores.group(1))) == len(_floats(mask.group(1))):
            cards += _softmax(lines, _floats(scores.group(1)), [int(v) for v in _floats(mask.group(1))], text)
    except _Unsolvable:
        pass  # numbers no checker takes: no card
    for found in _LOSS.finditer(text):
        p = float(found.group(1))
        try:
            truth = float(_solve("mlm_loss", {"probs": [p]}))
        except _Unsolvable:
            continue
        said = _Stated()
        said.compare(found.group(2), truth, f"{truth:.4f}")
        params: dict[str, Any] = {"form": "probs", "min_len": 1, "max_len": 1}
        params |= {"p_min": 0.01, "p_max": 0.1} if p < 0.1 else {"p_min": 0.3, "p_max": 0.95}
        cards.append(_card(_line_of(lines, found.group()), "mlm_loss", params, {"probs": [p]}, f"{truth:.4f}", said,
                           f"模型给正确词的概率为 {p} 时，该位置的 loss 为 $-\\ln({p})$"))
    return cards


def _line_of(lines: list[tuple[int, str]], text: str) -> int:
    return next((number for number, line in lines if text in line), lines[0][0])


def _softmax(lines: list[tuple[int, str]], scores: list[float], mask: list[int], text: str) -> list[Worked]:
    cards: list[Worked] = []
    line = _line_of(lines, "分数")
    unmasked = {"scores": scores, "mask": [1] * len(scores)}
    truth = _solve("masked_softmax", unmasked)
    said = _Stated()
    stated = _UNMASKED.search(text)
    if stated:
        positions = [int(p) for p in re.findall(r"\d+", stated.group(1))]
        for position, percent in zip(positions, re.findall(r"\d+(?:\.\d+)?%", stated.group(2))):
            if 0 <= position < len(truth):
                said.compare(percent, truth[position], _percent(truth[position]))
    cards.append(_card(line, "masked_softmax", {"variant": "unmasked", "min_kept": 2, "decimals": 4}, unmasked,
                       [f"{v:.4f}" for v in truth], said, "不加 mask 时整行分数做 softmax，PAD 位置也分到注意力"))
    if 0 in mask and 1 in mask:
        masked = {"scores": scores, "mask": mask}
        weights = _solve("masked_softmax", masked)
        cards.append(_card(line, "masked_softmax", {"variant": "padding", "min_kept": 2, "decimals": 4}, masked,
                           [f"{v:.4f}" for v in weights], _Stated(), "加 padding mask 后 PAD 的分数为 −∞，权重为 0，其余权重和仍为 1"))
    return cards
