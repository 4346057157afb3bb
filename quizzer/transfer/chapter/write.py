"""Writing a deck file made from a chapter: only a draft that passes lint, only if no other deck of
its folder shares an id with it, and only once the new text is complete on disk."""

from __future__ import annotations

from pathlib import Path

from quizzer import decks
from quizzer.base.errors import DeckProblems, QuizError, UsageError
from quizzer.base.files import write_whole
from quizzer.base.i18n import _


def validated(text: str, target: Path) -> decks.Checked:
    checked = decks.validate_text(text, target, verify_examples=False)
    if checked.problems:
        raise DeckProblems(checked.problems)
    return checked


def drafted(text: str, target: Path, chapter: str) -> None:
    """``text``, the deck the import would write, passes lint; else an error naming the chapter:
    the problems' lines are of a text not written (what the markup checks missed, as a count of
    values no deck may pass)."""
    try:
        validated(text, target)
    except DeckProblems as failed:
        raise QuizError(_("{file}: the deck made from it would not pass lint: {problem}").format(
            file=chapter, problem=failed.problems[0].message), _("fix the chapter and run the import again; nothing was written")) from None


def write_deck(out: Path, text: str) -> None:
    """Replace ``out`` only once the new text is complete on disk, and only if no other deck of its
    folder has its deck id or one of its card ids (every command on that folder would refuse the pair)."""
    shared = decks.shared_id(text, out)
    if shared is not None:
        what, shared_id, other = shared
        if what == "deck":
            message = _("--out {path}: {other} already holds deck {id}")
            hint = _("--out {other} adds the chapter's new cards to that deck, or --deck names another id; nothing was written")
        else:
            message = _("--out {path}: card {id} is already in {other}, a deck beside it")
            hint = _("the chapter is in that deck already: --out {other} adds its new cards there; nothing was written")
        raise UsageError(message.format(path=out, other=decks.display(other), id=shared_id),
                         hint.format(other=decks.display(other)))
    write_whole(out, text.encode("utf-8"))
