"""The way to the first card: no pydantic (the deck cache holds validated JSON, built into plain
card shapes; a numeric card's params are read into its checker's plain dataclass), no
rich.markdown for plain text, code spans and bold, and a deck index that stays cheap at scale."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError
from rich.console import Console
from rich.markdown import Markdown
from rich.panel import Panel

from checkers import registry, shapes, validating
from quizzer import decks, kinds
from quizzer.cli import app
from quizzer.decks import load_decks
from quizzer.base.errors import DeckProblems
from quizzer.terminal import mathtext, render
from quizzer.terminal.linebreak import install
from quizzer.base.widetext import join_wide_lines

ROOT = Path(__file__).resolve().parent.parent
QUESTION = "BERT 和 GPT 的核心区别？"
DECK = f"""id: mini
title: Mini
language: zh
source: {{file: course.md, sections: '8'}}
cards:
  - id: q-one
    kind: qa
    source: '8.1'
    question: {QUESTION}
    answer: BERT 是编码器，GPT 是解码器。
    points: [方向]
"""
NUMERIC_INTRO = "注意"
NUMERIC_DECK = f"""id: mini
title: Mini
language: zh
source: {{file: course.md, sections: '8'}}
cards:
  - id: n-one
    kind: numeric
    source: '8.5'
    checker: masked_softmax
    params: {{variant: unmasked, min_kept: 2, decimals: 4}}
    prompt: "{NUMERIC_INTRO}：**忘了** `attention_mask`"
"""
HEAVY = ("pydantic", "rich.markdown", "markdown_it")


def imported_on_the_way_to_the_first_card(folder: Path, *options: str, shown: str = QUESTION) -> set[str]:
    """Module names ``python -X importtime -m quizzer study [options]`` imports, stdin closed (the
    card is shown, then the session ends at end of input)."""
    env = {**os.environ, "QUIZ_DECKS": str(folder), "QUIZ_NOW": "2026-01-05T10:00:00+00:00"}
    result = subprocess.run([sys.executable, "-X", "importtime", "-m", "quizzer", "study", *options],
                            stdin=subprocess.DEVNULL,
                            capture_output=True, text=True, env=env, timeout=120)
    assert result.returncode == 0 and shown in result.stdout, result.stdout + result.stderr
    return {line.split("|")[-1].strip() for line in result.stderr.splitlines() if line.startswith("import time:")}


@pytest.mark.slow
def test_the_first_qa_card_imports_neither_pydantic_nor_rich_markdown(deck_folder):
    folder = deck_folder(DECK)
    cold = imported_on_the_way_to_the_first_card(folder)  # validates the deck and fills the cache
    assert "pydantic" in cold  # what the check below would see if the study path still loaded it
    warm = imported_on_the_way_to_the_first_card(folder)
    assert [name for name in HEAVY if name in warm] == []
    with_options = imported_on_the_way_to_the_first_card(folder, "--kind", "qa", "--new", "5")
    assert [name for name in HEAVY if name in with_options] == []  # options are read without pydantic too


@pytest.mark.slow
def test_the_first_numeric_card_imports_neither_pydantic_nor_rich_markdown(deck_folder):
    """A numeric card's params (text, as the deck gives them) are read into the checker's plain
    dataclass without pydantic, and its prompt's bold and code spans are drawn without rich.markdown."""
    folder = deck_folder(NUMERIC_DECK)
    cold = imported_on_the_way_to_the_first_card(folder, shown=NUMERIC_INTRO)
    assert "pydantic" in cold  # lint's checks of the params, while the deck is validated and cached
    warm = imported_on_the_way_to_the_first_card(folder, "--kind", "numeric", shown=NUMERIC_INTRO)
    assert "checkers.base" in warm and [name for name in HEAVY if name in warm] == []


@pytest.mark.slow
def test_cards_read_from_the_cache_equal_the_validated_cards_without_pydantic():
    """Every bundled card, every kind (a numeric card's worked example included): the cache's
    trusted path builds the same shapes as validation, in a process that never loads pydantic."""
    fresh = {loaded.id: loaded.deck for loaded in load_decks([ROOT / "decks"])}
    code = (
        "import sys, pickle\n"
        "from pathlib import Path\n"
        "from quizzer.decks import load_decks\n"
        f"loaded = load_decks([Path({str(ROOT / 'decks')!r})])\n"
        "shapes = {d.id: [d.card(i) for i in d.ids] for d in loaded}\n"
        "assert 'pydantic' not in sys.modules, 'pydantic loaded'\n"
        "sys.stdout.buffer.write(pickle.dumps(shapes))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=120, cwd=ROOT)
    assert result.returncode == 0, result.stderr.decode()
    import pickle

    cached = pickle.loads(result.stdout)
    assert cached == {deck_id: deck.cards for deck_id, deck in fresh.items()}
    assert {kinds.of(card).name for cards in cached.values() for card in cards} == set(kinds.KINDS)


# -- a checker's params and inputs read without pydantic, as pydantic reads them ----------------


def outcome(read: Callable[[Any], Any], raw: Any) -> str:
    """What reading ``raw`` gives: the values with their types, or pydantic's error text."""
    try:
        return repr(read(raw).model_dump())
    except ValidationError as err:
        return str(err)


def as_text(value: Any) -> Any:
    """Every scalar as the text a deck file holds (None stays None)."""
    if isinstance(value, dict):
        return {k: as_text(v) for k, v in value.items()}
    if isinstance(value, list):
        return [as_text(v) for v in value]
    return value if value is None else str(value)


def test_the_bundled_cards_params_are_read_without_pydantic_as_pydantic_reads_them():
    """Each numeric card's params (text, as the deck cache holds them) take the plain path, and
    every drawn question's inputs, written as text, read alike on both paths."""
    cards = [card for loaded in load_decks([ROOT / "decks"]) for card in loaded.deck.cards if kinds.of(card).generated]
    assert len(cards) >= 40
    for card in cards:
        params = registry.get(card.checker).Params
        assert params(**shapes.plain(params, card.params)) == validating.validate(params, card.params), card.id
    for name in registry.names():
        checker = registry.get(name)
        for seed in range(10):
            raw = as_text(checker.draw(seed).inputs.model_dump(exclude_none=True))
            assert outcome(checker.Inputs.model_validate, raw) == outcome(partial(validating.validate, checker.Inputs), raw)


SHAPES = [(name, which) for name in registry.names() for which in ("Params", "Inputs")]
WORDS = ["4", "0", "-1", "2", "0.5", "-0.25", "1e-5", " 4", "4.0", "007", "+3", "1_0", "true", "false", "True", "any",
         "padding", "causal", "unmasked", "q", "k_heads", "gpt2", "bert", "fp16", "total", "mha", "probs", "logits", ""]
SCALARS = st.one_of(st.integers(-5, 5000), st.floats(-10, 10), st.booleans(), st.none(), st.sampled_from(WORDS))
VALUES = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=4), max_leaves=8)


@given(st.data())
def test_params_and_inputs_read_without_pydantic_as_pydantic_reads_them(data):
    """Drawn inputs (or default params) with a few fields changed, as values or as text: the plain
    path gives what pydantic gives, or leaves the data to pydantic, which words the same error."""
    name, which = data.draw(st.sampled_from(SHAPES))
    checker = registry.get(name)
    shape = getattr(checker, which)
    base = checker.draw(data.draw(st.integers(0, 30))).inputs.model_dump(exclude_none=True) if which == "Inputs" else {}
    names = st.sampled_from([*shapes.declared(shape), "nope"])
    raw = {**base, **data.draw(st.dictionaries(names, VALUES, max_size=3))}
    if data.draw(st.booleans()):
        raw = as_text(raw)
    assert outcome(shape.model_validate, raw) == outcome(partial(validating.validate, shape), raw)


# -- plain text without rich.markdown, drawn exactly as rich.markdown draws it -------------------


def drawn(renderable: object, width: int, panel: bool) -> str:
    out = io.StringIO()
    console = Console(file=out, width=width, force_terminal=True, color_system="truecolor", legacy_windows=False)
    console.print(Panel(renderable) if panel else renderable)  # type: ignore[arg-type]
    return out.getvalue()


def texts_of_the_bundled_cards() -> list[str]:
    texts = []
    for loaded in load_decks([ROOT / "decks"]):
        for card in loaded.deck.cards:
            kind = kinds.of(card)
            if not kind.generated:
                asked = kind.ask(card)
                texts += [kind.front(asked), kind.back(asked), kind.solution(asked) or ""]
            texts += kind.texts(card)
    return texts


PLAIN = [
    "BERT 和 GPT 的核心区别？",
    "one line\nthe next line of the same paragraph\n\n\n   a second paragraph after blank lines  ",
    "中文一行\n接着一行。\n \nThe end 1. 2024.",
    "a very long word " + "x" * 70 + " and words after it " * 5,
]


@pytest.mark.parametrize("width", [20, 60, 100])
def test_plain_text_is_drawn_as_rich_markdown_draws_it(width):
    install()
    texts = PLAIN + texts_of_the_bundled_cards()
    plain = [text for text in texts if not isinstance(render.markdown(text), Markdown)]
    assert len(plain) >= 40  # the bundled plain questions and answers, not only the ones above
    for text in plain:
        reference = Markdown(join_wide_lines(mathtext.math_to_unicode(render.clean(text))))
        for panel in (False, True):
            assert drawn(render.markdown(text), width, panel) == drawn(reference, width, panel), text


@pytest.mark.parametrize("text", ["*em*", "_em_", "- a\n- b", "* a", "1. one", "# title", "> quote", "x &amp; y",
                                  "a  \nhard break", "a\\\nhard break", "\tindented", "a | b\n--|--\n1 | 2", "~~gone~~",
                                  "[link](x)", "```\ncode\n```", "***", "的**「强调」**后", "`a\nb`"])
def test_text_with_markdown_syntax_goes_through_rich_markdown(text):
    assert isinstance(render.markdown(text), Markdown)


@pytest.mark.parametrize("text", ["**粗体**", "`code`", "a\\*b", "$d_k$", "attention_mask", "mask [1, 0]", "a * b"])
def test_code_spans_and_strong_are_drawn_without_rich_markdown(text):
    assert not isinstance(render.markdown(text), Markdown)  # drawn alike: tests/test_render.py


# -- the deck index at scale ------------------------------------------------------------------------


def write_decks(folder: Path, decks_cards: dict[str, list[str]]) -> dict[str, str]:
    """One deck file per name with qa cards of the given ids; returns each file's text."""
    folder.mkdir(exist_ok=True)
    texts = {}
    for name, ids in decks_cards.items():
        cards = "".join(f"  - id: {card_id}\n    kind: qa\n    source: '1'\n    tags: [t-{name}, shared]\n"
                        f"    question: Q {card_id}\n    answer: A\n    points: [p]\n" for card_id in ids)
        texts[name] = f"id: {name}\ntitle: {name}\nlanguage: en\nsource: {{file: f, sections: s}}\ncards:\n{cards}"
        (folder / f"{name}.yaml").write_text(texts[name], "utf-8")
    return texts


def line_of(text: str, card_id: str) -> int:
    """The line a card starts on: where ``- id: ID`` is written (counted here from the text)."""
    return text.splitlines().index(f"  - id: {card_id}") + 1


def test_an_id_in_two_decks_is_reported_alike_from_the_files_and_from_the_cache(tmp_path):
    texts = write_decks(tmp_path / "d", {"a": ["x1", "same", "x2"], "b": ["y1", "y2", "same"]})
    reports = []
    for _ in range(2):  # the first load validates and caches each deck, the second reads the cache
        with pytest.raises(DeckProblems) as raised:
            load_decks([tmp_path / "d"])
        reports.append([str(problem) for problem in raised.value.problems])
    a, b = decks.display(tmp_path / "d" / "a.yaml"), decks.display(tmp_path / "d" / "b.yaml")
    expected = [f"{b}:{line_of(texts['b'], 'same')}:1: duplicate card id 'same' (also at {a}:{line_of(texts['a'], 'same')})"]
    assert reports == [expected, expected]


def test_the_index_read_from_the_cache_gives_ids_tags_lines_and_entries(tmp_path):
    ids = [f"c-{i}" for i in range(300)]
    texts = write_decks(tmp_path / "d", {"a": ids[:120], "b": ids[120:]})
    fresh = load_decks([tmp_path / "d"])
    cached = load_decks([tmp_path / "d"])
    assert all(loaded.validated is None for loaded in cached)
    assert [loaded.ids for loaded in cached] == [ids[:120], ids[120:]]
    assert [loaded.tags for loaded in cached] == [{"t-a", "shared"}, {"t-b", "shared"}]
    assert cached[1].lines == {card_id: line_of(texts["b"], card_id) for card_id in ids[120:]}
    assert [loaded.entries for loaded in cached] == [loaded.entries for loaded in fresh]
    assert [entry.tags for entry in cached[0].entries] == [("t-a", "shared")] * 120
    assert [loaded.digest for loaded in cached] == [loaded.digest for loaded in fresh]


def test_study_from_the_cached_index_filters_by_a_tag_and_finds_the_card(tmp_path):
    """Through the CLI: the tags come from the index (an unknown tag is a usage error naming them)."""
    from typer.testing import CliRunner

    write_decks(tmp_path / "d", {"a": ["c-1"]})
    runner = CliRunner()
    assert runner.invoke(app, ["decks", "--decks", str(tmp_path / "d")]).exit_code == 0  # fills the cache
    unknown = runner.invoke(app, ["study", "--decks", str(tmp_path / "d"), "--tag", "nope"])
    assert unknown.exit_code == 2 and re.search(r"shared", unknown.output), unknown.output
    shown = runner.invoke(app, ["study", "--decks", str(tmp_path / "d"), "--tag", "t-a"], input="q\n")
    assert shown.exit_code == 0 and "Q c-1" in shown.output, shown.output
