"""A checker's message: an English template and its values, which the interface translates."""

from __future__ import annotations

from typing import Any


class Said(str):
    """A message as an English template and its values. checkers know no interface language, so
    the text itself is the English; the interface translates ``template`` (a catalogue id) and
    formats it with ``values`` (a nested Said translated too, a list joined as the language joins
    lists)."""

    template: str
    values: dict[str, Any]

    def __new__(cls, template: str, **values: Any) -> Said:
        shown = {name: ", ".join(map(str, v)) if isinstance(v, list) else v for name, v in values.items()}
        said = super().__new__(cls, template.format(**shown))
        said.template, said.values = template, values
        return said
