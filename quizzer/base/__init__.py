"""The foundation every layer may use: errors, the interface language, the clock, shared
numbers, files written whole, where the decks and caches are, learner names, card Markdown as
HTML and wide text. It imports no other part of quizzer (pyproject's import contracts)."""
