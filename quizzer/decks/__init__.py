"""Deck files: reading them as hostile input (``files``), validating (``validate``), linting
(``lint``) and loading for study through the cache (``load``, ``cache``); the deck format's
shapes (``model``) and its YAML reader (``yamlsource``).

The names below are what the layers above use.
"""

from quizzer.decks.files import DECK_SUFFIXES, deck_files, display, read_stream
from quizzer.decks.lint import asked_elsewhere, lint, shared_id, warnings
from quizzer.decks.load import LoadedDeck, load_decks, load_usable
from quizzer.decks.problems import Problem
from quizzer.decks.validate import Checked, validate_text
from quizzer.base.locations import deck_dirs

__all__ = ["DECK_SUFFIXES", "Checked", "asked_elsewhere", "warnings", "LoadedDeck", "Problem", "deck_dirs", "deck_files", "display", "lint",
           "load_decks", "load_usable", "read_stream", "shared_id", "validate_text"]
