"""The position file's text written from the position's stored text.

A report attaches the position file (:meth:`PositionFile.to_text`: ``json.dumps``'s
text of the file, keys sorted), whose position is the one the report parsed from
its stored text, the canonical JSON the resolution wrote (compact, keys sorted).
Written out again by the JSON encoder, the position was a third of a million
instructions of a Farrapos report and more than half a million of a Campus
Mauriacus one; the same text is the stored one with a space after each comma and
colon that stands between values, which a few passes in C give.
"""

from __future__ import annotations

from pbem.turnfiles.canonical import sorted_json
from pbem.turnfiles.position_file import PositionFile

_KEPT = b'",:'
_OTHERS = bytes(b for b in range(256) if b not in _KEPT)
"""Every byte but a quote, a comma and a colon: what the check deletes."""

_MARKED = '"position": null'


def spaced(canonical: str) -> str | None:
    """``sorted_json(json.loads(canonical))`` for a text that ``canonical_json`` wrote
    (and that its parse gives back: JSON data, keys strings), or ``None`` when a string
    in it holds an escape, a comma or a colon.

    Both texts are the same values in the same order (keys sorted) and differ by
    their separators only: ``, `` and ``: `` between values where the canonical
    text has ``,`` and ``:``.  Where no string holds a comma or a colon, every comma
    and colon of the text stands between values, and adding a space after each is
    the whole change.  With no backslash every quote opens or closes a string;
    kept alone with the commas and colons (a byte of UTF-8 other than these is
    never one of them), a string holding none of them is two quotes side by side,
    and two strings always have a comma or a colon between them: so taking out
    every pair of quotes side by side leaves a quote exactly when some string holds
    a comma or a colon."""
    if "\\" in canonical:
        return None
    marks = canonical.encode("utf-8").translate(None, _OTHERS)
    if b'"' in marks.replace(b'""', b""):
        return None
    return canonical.replace(",", ", ").replace(":", ": ")


def file_text(kept: PositionFile, canonical: str) -> str:
    """``kept.to_text()``, where ``canonical`` is the stored text ``kept.position`` was
    parsed from: the position's part written by :func:`spaced`, the rest of the file
    (a few short fields) by the encoder around it.  The file's own ``position`` key
    is found by its text, with the position left out (``null``); where that text is
    not found exactly once, or :func:`spaced` cannot write the position, the file is
    written as :meth:`PositionFile.to_text` writes it."""
    position = spaced(canonical)
    if position is not None:
        outer = kept.to_json()
        outer["position"] = None
        around = sorted_json(outer)
        if around.count(_MARKED) == 1:
            head, _, tail = around.partition(_MARKED)
            return f'{head}"position": {position}{tail}\n'
    return kept.to_text()
