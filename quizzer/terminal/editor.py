"""The learner's editor, opened on a deck file at a card's line: study's ``e`` and ``quiz edit``."""

from __future__ import annotations

import os
import shlex
import subprocess
from pathlib import Path

from quizzer.base.errors import QuizError, os_reason
from quizzer.base.i18n import _


class EditorFailed(QuizError):
    """The editor could not be started (exit 1): the file is as it was."""


def editor_command() -> str:
    """$VISUAL, else $EDITOR, else vi: the command line the editor is started with."""
    return os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"


def open_in_editor(path: Path, line: int) -> None:
    """Run the editor on ``path`` at ``line`` (``+LINE FILE``, as vi, nano, emacs and code -w read
    it) and wait for it; EditorFailed when it cannot start."""
    editor = editor_command()
    try:
        subprocess.call([*shlex.split(editor), f"+{line}", str(path)])
    except (OSError, ValueError) as err:  # no such program, or a command line shlex cannot read
        reason = os_reason(err) if isinstance(err, OSError) else str(err)
        raise EditorFailed(_("Could not start the editor '{editor}' ({reason}); set $EDITOR.").format(
            editor=editor, reason=reason)) from None
