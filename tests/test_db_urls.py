"""A mistyped database URL is refused in one line that never shows its password (in process:
the words are the point, not the process)."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from quizzer.cli import app


def mistyped_urls(port: int) -> list[str]:
    """A server URL with the password s3cret in it, mistyped in each way that once showed it."""
    return [f"postgresql://ann:s3cret@127.0.0.1:{port}x/quiz",  # a port that is no number
            f"postgresql:/ann:s3cret@127.0.0.1:{port}/quiz",  # one slash: was a relative file path
            f"postgresql:ann:s3cret@127.0.0.1:{port}/quiz",  # no slash at all
            f"postgresql://127.0.0.1:{port}/quiz?user=ann&password=s3cret",  # the password as an option
            f"postgresql://ann:pw@s3cret@127.0.0.1:{port}/quiz",  # an @ in the password, not written %40
            f"postgre sql://ann:s3cret@127.0.0.1:{port}/quiz",  # no URL SQLAlchemy can parse
            f"mysql://ann:s3cret@127.0.0.1:{port}/quiz",  # no database quizzer can use
            f"mysql:/ann:s3cret@127.0.0.1:{port}/quiz",  # and a slash short: it was a file path
            f"postgresql//ann:s3cret@127.0.0.1:{port}/quiz"]  # no colon: a file path too


@pytest.mark.parametrize("how", ["QUIZ_DB", "--db", "db copy --to"])
def test_no_mistyped_url_shows_its_password(deck_folder, tmp_path, how):
    """Each of these printed s3cret: the raw URL in "not a database URL (invalid literal for int()...)",
    a QUIZ_DB with one slash taken for a file path (`--db` had it mended), a ``?password=``."""
    from pg import free_port

    runner = CliRunner()
    env = {"QUIZ_DECKS": str(deck_folder("id: d\ntitle: D\nlanguage: en\nsource: {file: f, sections: s}\ncards:\n"
                                         "  - {id: c0, kind: qa, source: '1', question: Q0, answer: A0, points: [p]}\n")),
           "COLUMNS": "200"}
    for url in mistyped_urls(free_port()):  # nothing listens there: a URL that parses cannot connect
        if how == "QUIZ_DB":
            result = runner.invoke(app, ["stats"], env={**env, "QUIZ_DB": url})
        elif how == "--db":
            result = runner.invoke(app, ["--db", url, "stats"], env=env)
        else:
            result = runner.invoke(app, ["db", "copy", "--to", url], env={**env, "QUIZ_DB": str(tmp_path / "from.db")})
        output = result.stdout + result.stderr
        assert result.exit_code in (1, 2) and result.stderr.startswith("Error: "), (url, output)
        assert "s3cret" not in output and "Traceback" not in output, (url, output)
        assert "int()" not in output and "does not exist" not in output, (url, output)
