"""The stored records a front end shows, and their states' names: a front end takes them from
here, and imports nothing below ``quizzer.app`` (an import-linter contract holds it)."""

from quizzer.store.filter import EVERYTHING, CardFilter
from quizzer.store.records import NEW, STATE_NAMES, ExamRecord

__all__ = ["EVERYTHING", "NEW", "STATE_NAMES", "CardFilter", "ExamRecord"]
