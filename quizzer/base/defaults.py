"""Numbers the scheduler and the CLI share, each defined once. The daily limits here are the
defaults of the settings (``quizzer.settings``: config.toml, QUIZ_<KEY>, options)."""

from __future__ import annotations

from enum import IntEnum

from quizzer.base.i18n import N_, _


class Rating(IntEnum):
    """Anki's four buttons (the values fsrs uses)."""

    AGAIN = 1
    HARD = 2
    GOOD = 3
    EASY = 4

    @property
    def label(self) -> str:
        """The English name: the line protocol's machine lines use it in every UI language."""
        return self.name.capitalize()

    @property
    def shown(self) -> str:
        """The button's name in the UI language (Anki's Chinese words: 重来 困难 良好 简单)."""
        return _(self.label)


RATING_NAMES = (N_("Again"), N_("Hard"), N_("Good"), N_("Easy"))  # for the catalogue


ARCHIVE_DECK = "archived"  # the deck of reviewed ids that no deck file has (history import): no deck file's id
ARCHIVE_TAKEN = N_("the deck id '{id}' is taken: `quiz history import` keeps there the cards no deck has")
NEW_PER_DAY = 20  # Anki's default
REVIEWS_PER_DAY = 200  # Anki's default
LEECH_LAPSES = 8  # Anki's leech threshold
EXAM_COUNT = 15
SERVER_RETRY_SECONDS = 15  # the server_retry_seconds setting's default: how long an answer tries to reach a server
EXAM_MINUTES = 30  # whole, so `-h` says 30, not 30.0
EXAM_MIN_MINUTES = 0.01  # 0.6 s, the least a test needs; the paper simply times out
EXAM_MAX_MINUTES = 1440.0  # a day: the deadline must be a date, and no interview lasts longer
SEED_MAX = 2**63 - 1  # the largest --seed: what the database's integer columns hold
SEEDS = 2**31  # a generated question's seed, and a new paper's, is drawn below this
