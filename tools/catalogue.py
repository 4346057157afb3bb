"""Keep the two message catalogues in step with the code: extract every ``_()`` / ``N_()`` /
``ngettext()`` string of ``quizzer/`` (and its web pages) into ``quizzer/locale/zh/LC_MESSAGES/quizzer.po``,
and every ``_()`` / ``N_()`` string and ``Said()`` template of ``checkers/`` (prompts, worked
solutions, verdicts, lint's reasons) into ``checkers/locale/zh/LC_MESSAGES/checkers.po``; merge
(translations kept, new ids added untranslated, gone ones dropped) and compile each ``.mo`` the
program reads. ``tests/test_i18n.py`` fails while an id is untranslated or a ``.mo`` is stale.
Needs babel (a test dependency).

Usage: python tools/catalogue.py            (update the .po and compile the .mo)
       python tools/catalogue.py --check    (exit 1 if anything is missing or stale)
"""

from __future__ import annotations

import io
import sys
from pathlib import Path
from typing import Any, NamedTuple

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po

ROOT = Path(__file__).resolve().parents[1]
KEYWORDS = {"_": None, "N_": None, "ngettext": (1, 2)}
Source = tuple[Path, str, dict[str, Any], str]  # folder, file pattern, keywords, babel's extraction method


class Domain(NamedTuple):
    """One catalogue: its .po (the .mo beside it) and the sources whose marked words it holds."""

    name: str
    po: Path
    sources: tuple[Source, ...]

    @property
    def mo(self) -> Path:
        return self.po.with_suffix(".mo")


DOMAINS = (
    Domain("quizzer", ROOT / "quizzer/locale/zh/LC_MESSAGES/quizzer.po", (
        (ROOT / "quizzer", "**.py", KEYWORDS, "python"),
        (ROOT / "quizzer/web/templates", "**.html", KEYWORDS, "jinja2.ext:babel_extract"))),  # the web pages' words
    Domain("checkers", ROOT / "checkers/locale/zh/LC_MESSAGES/checkers.po", (
        (ROOT / "checkers", "**.py", {"_": None, "N_": None, "C_": ((1, "c"), 2), "Said": None}, "python"),)),
)
QUIZZER, CHECKERS = DOMAINS
PO, MO = QUIZZER.po, QUIZZER.mo


def extract(domain: Domain = QUIZZER) -> Catalog:
    """Every message id ``domain``'s code marks, as a template catalogue."""
    template = Catalog(project=domain.name, fuzzy=False)
    for folder, pattern, keywords, method in domain.sources:
        for filename, line, message, _comments, context in extract_from_dir(
                folder, method_map=[(pattern, method)], keywords=keywords, comment_tags=()):
            template.add(message, locations=[(filename, line)], context=context)
    return template


def merged(domain: Domain = QUIZZER) -> Catalog:
    with domain.po.open("rb") as handle:
        catalogue = read_po(handle, locale="zh", domain=domain.name)
    created = catalogue.creation_date
    catalogue.update(extract(domain), no_fuzzy_matching=True)
    catalogue.creation_date = created  # the file changes only when its messages do
    catalogue.obsolete.clear()
    return catalogue


def untranslated(catalogue: Catalog) -> list[str]:
    missing = []
    for message in catalogue:
        if not message.id:
            continue
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        if message.fuzzy or not all(strings):
            missing.append(message.id if isinstance(message.id, str) else message.id[0])
    return missing


def po_bytes(catalogue: Catalog) -> bytes:
    out = io.BytesIO()
    write_po(out, catalogue, width=0, no_location=True, sort_output=True, omit_header=False)
    return out.getvalue()


def mo_bytes(catalogue: Catalog) -> bytes:
    out = io.BytesIO()
    write_mo(out, catalogue)
    return out.getvalue()


def main() -> int:
    failed = False
    for domain in DOMAINS:
        catalogue = merged(domain)
        if "--check" in sys.argv:
            missing = untranslated(catalogue)
            stale = domain.po.read_bytes() != po_bytes(catalogue) or domain.mo.read_bytes() != mo_bytes(catalogue)
            for message in missing:
                print(f"{domain.name}: untranslated: {message!r}")
            if stale:
                print(f"{domain.name}: the catalogue is stale: run python tools/catalogue.py")
            failed = failed or bool(missing) or stale
            continue
        domain.po.write_bytes(po_bytes(catalogue))
        domain.mo.write_bytes(mo_bytes(catalogue))
        print(f"{domain.name}: {len(catalogue)} messages, {len(untranslated(catalogue))} untranslated")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
