"""Help texts as catalogue ids, translated when they are drawn: a command's module can load
before the run's language is chosen (``quiz --help`` lists every command), so ``help=`` takes
an ``N_()`` id and ``QuizHelpFormatter`` translates it as it writes it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from quizzer.base.i18n import _, join

HelpField = str | int | Sequence[str]


@dataclass(frozen=True)
class _HelpTemplate:
    template: str  # a catalogue id with {fields}
    fields: dict[str, HelpField]


_TEMPLATES: dict[str, _HelpTemplate] = {}  # a help text as typer holds it → the id and fields it was made from


def _filled(template: str, fields: dict[str, HelpField], joined: str | None) -> str:
    """``template`` with its fields, a list joined by ``joined`` (the language's way when None)."""
    def value(field: HelpField) -> str:
        if isinstance(field, (str, int)):
            return str(field)
        return join(field) if joined is None else joined.join(field)

    return template.format(**{name: value(field) for name, field in fields.items()})


def help_with(template: str, **fields: HelpField) -> str:
    """The help text ``template`` (an ``N_()`` id) with its fields, as the text typer holds (in
    English, lists joined with ``, ``); drawn in the interface language, lists joined as the
    language joins them (``drawn_help``)."""
    text = _filled(template, fields, ", ")
    _TEMPLATES[text] = _HelpTemplate(template, dict(fields))
    return text


def drawn_help(text: str) -> str:
    """A help text (an id, or a ``help_with`` text) in the interface language."""
    made = _TEMPLATES.get(text)
    if made is not None:
        return _filled(_(made.template), made.fields, None)
    return _(text) if text else text
