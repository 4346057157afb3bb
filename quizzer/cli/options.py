"""The option and argument types commands share, and the checks of their values."""

from __future__ import annotations

import enum
import re
import sys
from datetime import date
from pathlib import Path
from typing import Annotated, Any, BinaryIO, Optional

import typer

from quizzer.cli.help_text import help_with
from quizzer.cli.typer_compat import typed_options
from quizzer.base.defaults import SEED_MAX
from quizzer.base.errors import QuizError, UsageError
from quizzer.base.i18n import N_, _
from quizzer.app.kind_names import KINDS

_DAY = re.compile(r"(\d{4})\s*[-/.年]\s*(\d{1,2})\s*[-/.月]\s*(\d{1,2})\s*日?")


def calendar_day(text: str) -> date:
    """A day as a learner writes it: 2026-12-20, 2026/12/20, 2026.12.20 or 2026年12月20日 (only
    the first was read); ValueError otherwise."""
    found = _DAY.fullmatch(text.strip())
    if found is None:
        raise ValueError(text)
    return date(*map(int, found.groups()))


STANDARD = Path("-")  # the argument `-` itself: standard input or output (`./-` names a file called -)


def path_or_standard(text: str) -> Path:
    """A FILE argument where ``-`` means standard input or output: ``-`` is STANDARD, to compare
    with ``is``, since ``Path("./-") == Path("-")``; anything else is a path, but not an empty one
    (``Path("")`` is ``.``: a command named the working folder, not what was given)."""
    if not text:
        raise typer.BadParameter(_("the name is empty: name a file"))
    return STANDARD if text == "-" else Path(text)


def standard_input(file: Path, what: str, example: str) -> BinaryIO | None:
    """Standard input's bytes when ``file`` is STANDARD, else None (the file is read). A terminal
    there is a UsageError: a command would wait on it with no prompt. ``what`` and ``example``
    word the error: the kind of file, and a command that pipes one in."""
    if file is not STANDARD:
        return None
    if sys.stdin is None or sys.stdin.isatty():
        raise UsageError(_("- reads the {what} from standard input, which is the terminal here").format(what=what),
                         _("pipe it in ({example}) or name the file").format(example=example))
    return sys.stdin.buffer


def _deck_ids(ctx: typer.Context, incomplete: str) -> list[str]:
    """The deck ids Tab completes --deck with: those of the command's --decks, QUIZ_DECKS or the
    bundled decks (from the deck cache, as any command reads them), those with problems left out
    as every command leaves them out; none if no deck can be used."""
    from quizzer.app.collection import load_decks

    try:
        loaded, _left_out = load_decks(ctx.params.get("decks_dir"))
    except QuizError:  # completion prints nothing into the shell's line
        return []
    return [deck.id for deck in loaded if deck.id.startswith(incomplete)]


DeckFilter = Annotated[Optional[list[str]], typer.Option("--deck", metavar="DECK", show_default=False,
                                                         autocompletion=_deck_ids,
                                                         help=N_("Only this deck (repeatable)."))]
TagFilter = Annotated[Optional[list[str]], typer.Option("--tag", metavar="TAG", show_default=False,
                                                        help=N_("Only cards with this tag (repeatable)."))]
Kind = enum.Enum("Kind", {kind: kind for kind in KINDS}, type=str)  # type: ignore[misc]  # built from the registry; typer validates the choice
KindFilter = Annotated[Optional[list[Kind]], typer.Option(
    "--kind", metavar="KIND", show_default=False,
    help=help_with(N_("Only this kind: {kinds} (repeatable)."), kinds=KINDS))]
JsonOption = Annotated[bool, typer.Option("--json", help=N_("Print JSON instead of a table."))]
NoPagerOption = Annotated[bool, typer.Option(
    "--no-pager", help=N_("Print plainly, not through the pager (QUIZ_PAGER, PAGER, else less -FRX) that output "
                          "longer than the screen goes through on a terminal."))]


def seed_in_range(value: int | None) -> int | None:
    """A seed's upper bound (what the database's integer columns hold), checked here rather
    than by ``max=``, which would print all nineteen digits in every ``-h``."""
    if value is not None and value > SEED_MAX:
        raise typer.BadParameter(_("Input should be less than or equal to {le}").format(le=SEED_MAX))
    return value


def given(ctx: typer.Context, *names: str) -> list[str]:
    """Which of the options ``names`` the command line gave, as typed (``--count``), for one that
    another option makes pointless: said, not passed over in silence."""
    return typed_options(ctx, names)


def kind_values(chosen: list[Any] | None) -> list[str] | None:
    return [k.value for k in chosen] if chosen else None
