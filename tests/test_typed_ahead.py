"""Keys typed while `quiz` starts, on a real terminal (a pseudo-terminal): dropped, as documented,
and not echoed either (their echo stood above the question, looking like an answer)."""

from __future__ import annotations

import termios
import time
from datetime import datetime, timezone

import pytest
from conftest import MINI_DECK, Terminal

pytestmark = pytest.mark.slow  # a process on a terminal

T0 = datetime(2026, 1, 5, 10, 0, tzinfo=timezone.utc)
DECK = MINI_DECK + '  - {id: q-qa, kind: qa, source: "1.1", question: What is BERT?, answer: An encoder., points: [encoder]}\n'
TYPED = "my-early-answer"


def echoes(term: Terminal) -> bool:
    """Whether the terminal echoes what is typed now (the master side reads the slave's modes)."""
    return bool(termios.tcgetattr(term.fd)[3] & termios.ECHO)


def test_keys_typed_while_quiz_starts_are_neither_echoed_nor_taken(deck_folder):
    with Terminal(["study", "--decks", str(deck_folder(DECK)), "--kind", "qa"],
                  {"QUIZ_NOW": T0.isoformat(), "QUIZ_LANG": "en"}) as term:
        deadline = time.monotonic() + 30
        while echoes(term) and not term.text:  # the program starting: echo goes off before its imports
            assert time.monotonic() < deadline, "echo never went off"
            time.sleep(0.005)
        assert not term.text, term.text  # off before anything is drawn
        term.send(f"{TYPED}\r ")
        after = term.expect("[space/Enter] show answer")
        term.settle()
        assert TYPED not in term.text and "An encoder." not in term.text, term.text  # not echoed, not revealed
        term.send("q")
        assert term.wait() == 0
    assert TYPED not in term.text[after:]
