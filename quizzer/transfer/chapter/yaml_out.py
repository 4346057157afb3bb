"""A chapter's cards written as YAML, as the shipped decks are written."""

from __future__ import annotations

import functools
from typing import Any

from quizzer.transfer.chapter.convert import Chapter


class _Flow(list[str]):
    """A short list written on one line (``tags: [interview]``, ``answer: [A, C]``)."""


@functools.cache
def _dumper() -> Any:
    """A YAML dumper writing as the shipped decks are written: '|' blocks for long texts, nested lists indented."""
    import yaml

    class Dumper(yaml.SafeDumper):
        def increase_indent(self, flow: bool = False, indentless: bool = False) -> None:
            return super().increase_indent(flow, False)

    def text(dumper: yaml.SafeDumper, value: str) -> yaml.Node:
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style="|" if "\n" in value else None)

    def flow(dumper: yaml.SafeDumper, value: _Flow) -> yaml.Node:
        return dumper.represent_sequence("tag:yaml.org,2002:seq", value, flow_style=True)

    Dumper.add_representer(str, text)
    Dumper.add_representer(_Flow, flow)
    return Dumper


def dump(data: Any) -> str:
    import yaml

    return yaml.dump(data, Dumper=_dumper(), allow_unicode=True, sort_keys=False, width=1_000_000, default_flow_style=False)


def cards_yaml(chapter: Chapter, cards: list[dict[str, Any]], indent: int) -> str:
    """The cards as items of the deck's ``cards`` list, each section opened by a comment."""
    out: list[str] = []
    section = None
    pad = " " * indent
    for card in cards:
        if card["source"] != section:
            section = card["source"]
            out.append(f"{pad}# {'-' * 16} {chapter.headings[card['id']]}\n")
            out += [f"{pad}# 待与原文核对的出处说法（{claim}）\n" for claim in chapter.credited.get(section, [])]
        if card["id"] in chapter.comments:
            out.append(f"{pad}# {chapter.comments[card['id']]}\n")
        shaped = {k: _Flow(v) if k == "tags" or (k == "answer" and isinstance(v, list)) else v for k, v in card.items()}
        out.append("".join(pad + line if line.strip() else line for line in dump([shaped]).splitlines(True)) + "\n")
    return "".join(out)


def deck_yaml(chapter: Chapter, deck_id: str) -> str:
    """The whole deck file for a chapter."""
    sections = [s for s in chapter.sections if any(card["source"] == s for card in chapter.cards)]
    span = sections[0] if len(sections) == 1 else f"{sections[0]}-{sections[-1]}" if sections else "-"
    head = dump({"id": deck_id, "title": chapter.title, "language": chapter.language,
                  "source": {"file": chapter.file, "sections": span}})
    return "# yaml-language-server: $schema=./schema.json\n" + head + "cards:\n" + cards_yaml(chapter, chapter.cards, 2).rstrip("\n") + "\n"
