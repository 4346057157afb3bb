"""TeX as MathML, drawn by the browser itself (no script, no font fetched).

latex2mathml copies ``\\text{...}`` into the output unescaped, so its output is read back as
XML and kept only when every element is a MathML one with harmless attributes; it is then
written out again, which escapes every text. Anything else shows as the TeX, escaped."""

from __future__ import annotations

import html
import xml.etree.ElementTree as ElementTree

NAMESPACE = "http://www.w3.org/1998/Math/MathML"
ELEMENTS = frozenset(
    "math mrow mi mn mo ms mtext mspace msub msup msubsup munder mover munderover mfrac msqrt mroot mstyle "
    "mpadded mphantom menclose mtable mtr mtd mlabeledtr semantics annotation mmultiscripts mprescripts none".split())
ATTRIBUTES = frozenset(
    "display xmlns mathvariant stretchy fence separator lspace rspace accent accentunder movablelimits "
    "linethickness columnalign rowalign columnspacing rowspacing width height depth form largeop symmetric "
    "minsize maxsize scriptlevel displaystyle notation align columnlines rowlines frame".split())

ElementTree.register_namespace("", NAMESPACE)


def to_mathml(tex: str, display: bool) -> str:
    """``tex`` as a MathML ``<math>`` element, or the TeX escaped in a code span when it cannot be."""
    from latex2mathml.converter import convert

    try:
        root = ElementTree.fromstring(convert(tex, display="block" if display else "inline"))
    except Exception:  # noqa: BLE001 — latex2mathml raises bare Exceptions on TeX it cannot read
        return _as_tex(tex)
    if not all(_allowed(element) for element in root.iter()):
        return _as_tex(tex)
    return ElementTree.tostring(root, encoding="unicode", short_empty_elements=False)


def _allowed(element: ElementTree.Element) -> bool:
    namespace, _, tag = element.tag.rpartition("}")
    return (namespace == "{" + NAMESPACE and tag in ELEMENTS
            and all(name in ATTRIBUTES for name in element.attrib))


def _as_tex(tex: str) -> str:
    return f'<code class="tex">{html.escape(tex)}</code>'
