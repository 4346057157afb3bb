"""A course chapter in the platform's markup, turned into a deck draft (``quiz import chapter``):
the markup read into blocks (``markup``), the blocks converted into cards (``convert``), the
cards written as YAML (``yaml_out``), merged into a deck already there (``merge``) and the deck
file written (``write``), in that order by ``importer``."""

from quizzer.transfer.chapter.convert import Chapter, read_chapter
from quizzer.transfer.chapter.importer import (
    ImportReport,
    default_deck_id,
    import_chapter,
)
from quizzer.transfer.chapter.markup import ChapterError

__all__ = ["Chapter", "ChapterError", "ImportReport", "default_deck_id", "import_chapter", "read_chapter"]
