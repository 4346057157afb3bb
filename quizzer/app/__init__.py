"""The use cases, apart from any terminal: the collection, the study session and the exam
as state machines that take events and return views (plain dataclasses). Nothing here
imports rich or SQLAlchemy; a terminal, a TUI or a web page can drive the same machines."""
