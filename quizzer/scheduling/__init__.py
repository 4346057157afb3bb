"""Scheduling on top of the store, one module per concern: ``memory`` (FSRS and the rule for
one answer), ``answer`` (answering, undo, bury, suspend), ``queue`` (what to study now) and
``summary`` (counts, forecasts, one card's state). No SQL here: the store does that."""
