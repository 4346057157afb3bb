"""The shipped decks, the schema file and deck loading as `quiz decks` uses it."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from quizzer import decks
from quizzer.decks import cache as deck_cache
from quizzer.cli import app
from quizzer.kinds import KINDS
from quizzer.decks.model import json_schema

runner = CliRunner()
ROOT = Path(__file__).resolve().parents[1]


def test_schema_file_is_generated_from_the_model():
    assert (ROOT / "decks" / "schema.json").read_text("utf-8") == json_schema()


def test_schema_accepts_the_shipped_decks_as_editors_see_them():
    """The YAML language server reads decks as YAML 1.2 data; the schema must accept them."""
    import jsonschema
    import yaml

    schema = json.loads(json_schema())
    for path in decks.deck_files([ROOT / "decks"]):
        jsonschema.validate(yaml.safe_load(path.read_text("utf-8")), schema)


@pytest.mark.parametrize("card, bad", [
    ("{checker: kv_cache, params: {decimals: 9}}", True),  # decimals 1-4
    ("{checker: kv_cache, params: {layers: 2}}", True),  # an input, not a param
    ("{checker: kv_cache, params: {decimals: 3, attention: gqa}}", False),
    ("{checker: kv_cache, example: {inputs: {layers: 2, heads: 4, kv_heads: 2, head_dim: 8}, answer: 128}}", False),
    ("{checker: kv_cache, example: {inputs: {layers: 2}, answer: 64}}", True),  # heads, kv_heads, head_dim missing
    ("{checker: kv_cach}", True),
])
def test_the_schema_holds_a_numeric_card_to_its_checker_s_params_as_lint_does(tmp_path, card, bad):
    """The schema took any params and any checker name: an editor flagged nothing lint refuses."""
    import jsonschema
    import yaml

    text = ("id: t\ntitle: T\nlanguage: zh\nsource: {file: f, sections: '1'}\ncards:\n"
            f"  - {{id: n1, kind: numeric, source: '1', {card[1:-1]}}}\n")
    try:
        jsonschema.validate(yaml.safe_load(text), json.loads(json_schema()))
        rejected = False
    except jsonschema.ValidationError:
        rejected = True
    (tmp_path / "t.yaml").write_text(text, "utf-8")
    linted = runner.invoke(app, ["lint", str(tmp_path / "t.yaml")])
    assert rejected == bad == (linted.exit_code == 1), linted.stdout


def test_every_deck_file_starts_with_the_schema_comment():
    for path in decks.deck_files([ROOT / "decks"]):
        assert path.read_text("utf-8").startswith("# yaml-language-server: $schema=./schema.json\n"), path


@pytest.mark.parametrize("columns", [60, 80, 120])
@pytest.mark.parametrize("language", ["en", "zh"])
def test_quiz_decks_lists_the_decks_with_counts(columns, language):
    """At 60 columns in English the total column was cut: 105 read 10, 13 read 1."""
    from quizzer.base import i18n

    i18n.use(language)
    try:
        result = runner.invoke(app, ["decks"], env={"COLUMNS": str(columns)})
    finally:
        i18n.use("en")
    assert result.exit_code == 0, result.output
    loaded = decks.load_decks([ROOT / "decks"])
    assert {d.deck.id for d in loaded} == {"ch08-bert", "day12-bert-gpt", "interview-numbers"}
    for deck in loaded:
        counts = [str(sum(c.kind == k for c in deck.deck.cards)) for k in KINDS]
        row = next(line for line in result.stdout.splitlines() if line.startswith(deck.deck.id[:10]))
        assert re.findall(r"\b\d+\b", row)[-len(KINDS) - 1:] == counts + [str(len(deck.deck.cards))]


def test_decks_option_and_env_choose_the_folder(tmp_path, monkeypatch):
    (tmp_path / "mine.yaml").write_text(
        "id: mine\ntitle: Mine\nlanguage: en\nsource: {file: notes, sections: all}\ncards:\n"
        "  - {id: m1, kind: mistake, source: '1', claim: a, correction: b, why: c}\n",
        "utf-8",
    )
    result = runner.invoke(app, ["decks", "--decks", str(tmp_path)])
    assert result.exit_code == 0 and "mine" in result.stdout and "ch08-bert" not in result.stdout
    monkeypatch.setenv("QUIZ_DECKS", str(tmp_path))
    result = runner.invoke(app, ["decks"])
    assert "mine" in result.stdout and "ch08-bert" not in result.stdout
    # the folder named twice, once with a slash: every card was a duplicate of itself
    monkeypatch.setenv("QUIZ_DECKS", os.pathsep.join([str(tmp_path), f"{tmp_path}/"]))
    assert runner.invoke(app, ["decks"]).exit_code == 0


def test_loading_uses_the_cache_and_notices_edits(tmp_path, own_deck_cache):
    deck = tmp_path / "d.yaml"
    text = "id: d\ntitle: D\nlanguage: en\nsource: {file: f, sections: s}\ncards:\n  - {id: q1, kind: qa, source: '1', question: Q, answer: A, points: [p]}\n"
    deck.write_text(text, "utf-8")
    first = decks.load_decks([tmp_path])[0]
    assert len(list(deck_cache.cache_dir().glob("*.index.json"))) == 1
    again = decks.load_decks([tmp_path])[0]
    assert again.validated is None  # from the cache: nothing validated until a card is wanted
    assert again.entries == first.entries and again.digest == first.digest
    assert again.card("q1") == first.deck.cards[0] and again.deck == first.deck
    deck.write_text(text.replace("answer: A", "answer: B"), "utf-8")
    edited = decks.load_decks([tmp_path])[0]
    assert edited.deck.cards[0].answer == "B" and edited.digest != first.digest
    assert len(list(deck_cache.cache_dir().glob("*.index.json"))) == 2


def test_the_cache_key_changes_with_the_code_that_validates_a_deck_checkers_included(tmp_path):
    """A checker's ``Params`` decide whether a numeric card is valid: a deck cached before a bound
    changed was trusted after it, and the card failed at study time with a ValidationError."""
    installed = Path(decks.__file__).parents[1]
    package, checkers = tmp_path / "quizzer", tmp_path / "checkers"
    (package / "kinds").mkdir(parents=True)
    (package / "decks").mkdir()
    checkers.mkdir()
    for name in ("decks/model.py", "decks/yamlsource.py", "decks/validate.py", "decks/cache.py", "kinds/base.py"):
        (package / name).write_bytes((installed / name).read_bytes())
    (checkers / "embedding.py").write_text("min_len: int = Field(ge=1)\n")
    before = deck_cache.fingerprint(package)
    (checkers / "embedding.py").write_text("min_len: int = Field(ge=1, le=3)\n")
    bounded = deck_cache.fingerprint(package)
    (package / "kinds" / "base.py").write_text("changed\n")
    kind_changed = deck_cache.fingerprint(package)
    (package / "decks" / "validate.py").write_text("changed\n")
    assert len({before, bounded, kind_changed, deck_cache.fingerprint(package)}) == 4


def test_a_deck_cached_again_removes_cache_files_unused_for_a_month_and_nothing_else(tmp_path, own_deck_cache):
    """Every edit of a deck caches it anew, so a miss removes what no load has used for
    CACHE_KEPT_DAYS (a hit renews its files); only names the cache writes go (QUIZ_CACHE_DIR may
    be a shared folder), and a deck whose entry went is parsed again."""
    import os
    import time

    deck = tmp_path / "d.yaml"
    text = "id: d\ntitle: D\nlanguage: en\nsource: {file: f, sections: s}\ncards:\n  - {id: q1, kind: qa, source: '1', question: Q, answer: A, points: [p]}\n"
    folder = deck_cache.cache_dir()

    def cached_as(answer: str) -> set[Path]:
        """Load the deck with this answer; the cache files it added."""
        before = set(folder.glob("*")) if folder.exists() else set()
        deck.write_text(text.replace("answer: A", f"answer: {answer}"), "utf-8")
        assert decks.load_decks([tmp_path])[0].card("q1").answer == answer
        return set(folder.glob("*")) - before

    unused, used = cached_as("A"), cached_as("B")
    assert len(unused) == len(used) == 2
    recent = folder / ("a" * 64 + ".deck.jsonl")
    left_over = folder / ("b" * 64 + ".index.1234.tmp")  # a write a crash interrupted
    foreign = [folder / "notes.txt", folder / ("c" * 64 + ".index.json.bak")]
    for path in (recent, left_over, *foreign):
        path.write_text("x", "utf-8")
    month = deck_cache.CACHE_KEPT_DAYS * 86400
    for path in (*unused, *used, left_over, *foreign):
        os.utime(path, (time.time() - month - 60,) * 2)
    os.utime(recent, (time.time() - month + 3600,) * 2)

    assert decks.load_decks([tmp_path])[0].card("q1").answer == "B"  # a hit: renews, removes nothing
    assert all(path.exists() for path in (*unused, left_over))
    assert cached_as("C")  # a miss: cached, then pruned
    assert not any(path.exists() for path in (*unused, left_over))
    assert all(path.exists() for path in (*used, recent, *foreign))
    assert cached_as("A")  # its entry went: parsed and cached again


def test_a_cache_that_lost_its_deck_file_reads_the_deck_again(tmp_path, own_deck_cache):
    deck = tmp_path / "d.yaml"
    deck.write_text("id: d\ntitle: D\nlanguage: en\nsource: {file: f, sections: s}\ncards:\n"
                    "  - {id: q1, kind: qa, source: '1', question: Q, answer: A, points: [p]}\n", "utf-8")
    decks.load_decks([tmp_path])
    for data in deck_cache.cache_dir().glob("*.deck.jsonl"):
        data.unlink()
    assert decks.load_decks([tmp_path])[0].card("q1").answer == "A"


def test_cached_card_lines_out_of_step_with_the_index_are_not_trusted(tmp_path, own_deck_cache):
    """A card is decoded from its own line of the cached deck; lines that are not the index's
    cards (swapped, or one missing) give way to the deck file."""
    deck = tmp_path / "d.yaml"
    deck.write_text("id: d\ntitle: D\nlanguage: en\nsource: {file: f, sections: s}\ncards:\n"
                    "  - {id: q1, kind: qa, source: '1', question: Q1, answer: A1, points: [p]}\n"
                    "  - {id: q2, kind: qa, source: '1', question: Q2, answer: A2, points: [p]}\n", "utf-8")
    decks.load_decks([tmp_path])
    [data] = deck_cache.cache_dir().glob("*.deck.jsonl")
    header, first, second = data.read_text("utf-8").split("\n")
    data.write_text("\n".join([header, second, first]), "utf-8")
    swapped = decks.load_decks([tmp_path])[0]
    assert swapped.validated is None
    assert (swapped.card("q1").answer, swapped.card("q2").answer) == ("A1", "A2")
    data.write_text("\n".join([header, first]), "utf-8")
    shortened = decks.load_decks([tmp_path])[0]
    assert shortened.card("q2").answer == "A2" and [c.id for c in shortened.deck.cards] == ["q1", "q2"]
    data.write_text("\n".join([header, first, "{not json"]), "utf-8")
    assert decks.load_decks([tmp_path])[0].card("q2").answer == "A2"
    assert [c.answer for c in decks.load_decks([tmp_path])[0].deck.cards] == ["A1", "A2"]


def test_a_corrupt_cache_entry_is_ignored(tmp_path, own_deck_cache):
    deck = tmp_path / "d.yaml"
    deck.write_text("id: d\ntitle: D\nlanguage: en\nsource: {file: f, sections: s}\ncards:\n  - {id: q1, kind: qa, source: '1', question: Q, answer: A, points: [p]}\n", "utf-8")
    decks.load_decks([tmp_path])
    for entry in deck_cache.cache_dir().glob("*.json*"):
        entry.write_text("{not json", "utf-8")
    assert decks.load_decks([tmp_path])[0].deck.cards[0].answer == "A"


def test_deck_format_examples_are_valid_cards(tmp_path):
    """Each card kind's example in docs/decks.md passes `quiz lint`, worked example included."""
    guide = (ROOT / "docs" / "decks.md").read_text("utf-8")
    blocks = [b for b in re.findall(r"```yaml\n(.*?)```", guide, re.S) if b.startswith("  - id:")]
    assert len(blocks) == len(KINDS)
    deck = tmp_path / "examples.yaml"
    deck.write_text("id: examples\ntitle: E\nlanguage: zh\nsource: {file: f, sections: s}\ncards:\n" + "".join(blocks), "utf-8")
    assert decks.lint([deck]) == []


def test_the_deck_table_of_the_docs_matches_the_decks():
    page = (ROOT / "docs" / "decks.md").read_text("utf-8")
    for loaded in decks.load_decks([ROOT / "decks"]):
        counts = [sum(c.kind == k for c in loaded.deck.cards) for k in KINDS] + [len(loaded.deck.cards)]
        row = f"| {loaded.deck.id} | {loaded.deck.title} | " + " | ".join(map(str, counts)) + " |"
        assert row in page
