"""Keep the message catalogue in step with the code: extract every ``_()`` / ``N_()`` /
``ngettext()`` string of ``quizzer/`` and every ``Said()`` template of ``checkers/`` (the verdicts
and lint's reasons, which checkers write in English and the interface translates), merge them into
``quizzer/locale/zh/LC_MESSAGES/quizzer.po``
(translations kept, new ids added untranslated, gone ones dropped) and compile the ``.mo``
the program reads. ``tests/test_i18n.py`` fails while an id is untranslated or the ``.mo`` is
stale. Needs babel (a test dependency).

Usage: python tools/catalogue.py            (update the .po and compile the .mo)
       python tools/catalogue.py --check    (exit 1 if anything is missing or stale)
"""

from __future__ import annotations

import io
import sys
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po

ROOT = Path(__file__).resolve().parents[1]
PO = ROOT / "quizzer/locale/zh/LC_MESSAGES/quizzer.po"
MO = PO.with_suffix(".mo")
KEYWORDS = {"_": None, "N_": None, "ngettext": (1, 2)}
SOURCES = ((ROOT / "quizzer", "**.py", KEYWORDS, "python"), (ROOT / "checkers", "*.py", {"Said": None}, "python"),
           (ROOT / "quizzer/web/templates", "**.html", KEYWORDS, "jinja2.ext:babel_extract"))  # the web pages' words


def extract() -> Catalog:
    """Every message id the code marks, as a template catalogue."""
    template = Catalog(project="quizzer", fuzzy=False)
    for folder, pattern, keywords, method in SOURCES:
        for filename, line, message, _comments, _context in extract_from_dir(
                folder, method_map=[(pattern, method)], keywords=keywords, comment_tags=()):
            template.add(message, locations=[(filename, line)])
    return template


def merged() -> Catalog:
    with PO.open("rb") as handle:
        catalogue = read_po(handle, locale="zh")
    created = catalogue.creation_date
    catalogue.update(extract(), no_fuzzy_matching=True)
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
    catalogue = merged()
    if "--check" in sys.argv:
        missing = untranslated(catalogue)
        stale = PO.read_bytes() != po_bytes(catalogue) or MO.read_bytes() != mo_bytes(catalogue)
        for message in missing:
            print(f"untranslated: {message!r}")
        if stale:
            print("the catalogue is stale: run python tools/catalogue.py")
        return 1 if missing or stale else 0
    PO.write_bytes(po_bytes(catalogue))
    MO.write_bytes(mo_bytes(catalogue))
    print(f"{len(catalogue)} messages, {len(untranslated(catalogue))} untranslated")
    return 0


if __name__ == "__main__":
    sys.exit(main())
