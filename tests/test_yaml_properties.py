"""Properties of reading YAML decks: what PyYAML writes reads back exactly, with every position
inside the text; and a shipped deck mutated byte by byte (control bytes and broken UTF-8
included) always gives positioned problems or a deck, never an exception."""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from quizzer import decks
from quizzer.base.errors import MAX_PROBLEMS, DeckProblems
from quizzer.decks.yamlsource import FORBIDDEN_IN_FILE, Position, parse

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = ROOT / "decks" / "ch08-bert.yaml"
BREAKS = re.compile("\r\n|[\r\n\x85\u2028\u2029]")  # what the YAML parser counts as a new line

# ---------------------------------------------------------------- (a) round trip


def documents(text: st.SearchStrategy[str]) -> st.SearchStrategy[object]:
    """Nested dicts and lists of strings, well inside the deck limits (depth, size, length)."""
    return st.recursive(
        text,
        lambda children: st.lists(children, max_size=4) | st.dictionaries(text, children, max_size=4),
        max_leaves=12,
    )


ANY_TEXT = st.text(max_size=12)
# allow_unicode writes these as they are, and a deck file may not hold them: leave them out there
WRITABLE = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="".join(
    chr(c) for c in range(0x10000) if FORBIDDEN_IN_FILE.match(chr(c)))), max_size=12)


def assert_inside(text: str, where: Position) -> None:
    lines = BREAKS.split(text)
    assert 1 <= where.line <= len(lines), (where, len(lines))
    assert 1 <= where.column <= len(lines[where.line - 1]) + 1, (where, lines[where.line - 1])


def assert_reads_back(data: object, text: str) -> None:
    doc = parse(text)
    assert doc.data == data, (text, doc.problems)
    assert all(isinstance(p.position, Position) for p in doc.problems)
    for where in [*doc.values.values(), *doc.keys.values()]:
        assert_inside(text, where)
    assert () in doc.values


@given(documents(ANY_TEXT), st.sampled_from([None, False, True]))
def test_what_pyyaml_writes_reads_back_as_text(data, flow):
    """Every scalar comes back as the very text it was (``no``, ``1.10``, ``null`` included:
    PyYAML quotes what YAML would read as something else), every position inside the text."""
    assert_reads_back(data, yaml.safe_dump(data, default_flow_style=flow))


@given(documents(WRITABLE), st.sampled_from([None, False, True]))
def test_unicode_written_as_it_is_reads_back(data, flow):
    assert_reads_back(data, yaml.safe_dump(data, default_flow_style=flow, allow_unicode=True, width=20))


# ---------------------------------------------------------------- (b) mutated decks


ORIGINAL = SHIPPED.read_bytes()
INSERTS = [bytes([b]) for b in [*range(0x20), 0x7F, 0x80, 0x9B, 0xC0, 0xFF]] + [
    "\u009b".encode(), "\u202e".encode(), "\ufffe".encode(), b"\xed\xa0\x80",  # C1, bidi, non-character, a surrogate
    b"{", b"[", b"]", b"}", b"&a ", b"*a", b"!!python/object ", b": ", b"- ", b"\n", b"\n  ", b"'", b'"', b"\\", b"#", b"---\n",
    b'"\\e[2J"', b"{{c1::", b"}}", b"\t", "长".encode(),
]


@st.composite
def mutated(draw: st.DrawFn) -> bytes:
    """The shipped deck with a few random edits: bit flips, insertions, deletions."""
    data = bytearray(ORIGINAL)
    for _ in range(draw(st.integers(1, 6))):
        at = draw(st.integers(0, len(data) - 1))
        edit = draw(st.sampled_from(["flip", "insert", "delete"]))
        if edit == "flip":
            data[at] ^= 1 << draw(st.integers(0, 7))
        elif edit == "insert":
            data[at:at] = draw(st.sampled_from(INSERTS))
        else:
            del data[at:at + draw(st.integers(1, 40))]
    return bytes(data)


def assert_positioned(problems: list[decks.Problem], text: str) -> None:
    lines = len(BREAKS.split(text))
    for problem in problems:
        assert isinstance(problem, decks.Problem)
        assert 1 <= problem.line <= lines and problem.column >= 1, problem
        assert problem.message and "\x1b" not in str(problem)
    assert len(problems) <= 2 * (MAX_PROBLEMS + 1)


@pytest.fixture(scope="module")
def warm() -> None:
    """Import torch once (checking worked examples needs it), so that the properties time only themselves."""
    decks.validate_text(SHIPPED.read_text("utf-8"), SHIPPED)


MUTATIONS = settings(suppress_health_check=[HealthCheck.function_scoped_fixture])


@MUTATIONS
@given(mutated())
def test_mutated_deck_text_gives_problems_or_a_deck(warm, raw):
    text = raw.decode("utf-8", "surrogateescape")  # broken UTF-8 becomes lone surrogates: refused, not a crash
    checked = decks.validate_text(text, SHIPPED)
    assert_positioned(checked.problems, text)
    assert checked.problems or checked.deck is not None


@MUTATIONS
@given(mutated())
def test_mutated_deck_file_lints_to_problems(warm, raw):
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "ch08-bert.yaml"
        path.write_bytes(raw)
        problems = decks.lint([path])
        assert_positioned(problems, raw.decode("utf-8", "surrogateescape"))
        try:
            decks.load_decks([Path(folder)])  # what study does: the same problems, raised
        except DeckProblems as err:
            assert problems, "loading refused a deck that lint passed"
            assert_positioned(err.problems, raw.decode("utf-8", "surrogateescape"))
