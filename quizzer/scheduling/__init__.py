"""Scheduling on top of the store, one module per concern: ``memory`` (FSRS and the rule for
one answer), ``curve`` (the forgetting curve), ``answer`` (answering, undo, bury, suspend),
``queue`` (what to study now), ``summary`` (counts, forecasts, one card's state), ``plan`` and
``forecast`` (interview-date mode), ``learner`` (the learner's own scheduler) and ``fit``
(``quiz optimize``). No SQL here: the store does that."""
