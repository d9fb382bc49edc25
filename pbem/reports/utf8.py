"""A long text in UTF-8 (a report's map: some 40 kB with a few dozen accented names)
at a fraction of the cost of ``str.encode``, the same bytes.

CPython encodes a string that is not all ASCII character by character (about ten
instructions each under callgrind).  A text whose characters all fit in Latin-1 is
copied whole into Latin-1 bytes instead (a copy), which are its UTF-8 wherever it is
ASCII; its non-ASCII characters are found by ``str.find`` of each such character met
before in this process (``memchr``), and each is written as its own UTF-8 between the
ASCII stretches.  Every stretch is checked to be ASCII (``bytes.isascii``): a text
holding a character not met before is encoded by ``str.encode`` as it always was,
and its non-ASCII characters are remembered (at most the 128 of Latin-1 beyond ASCII).
"""

from __future__ import annotations

LONG = 4096
"""Shorter texts are encoded by ``str.encode`` (the searches would cost more)."""

_known: dict[str, bytes] = {}
"""Each non-ASCII Latin-1 character met in a long text in this process, with its UTF-8."""

calls = {"searched": 0, "encoded": 0}
"""How many long texts each way were made (tests count them)."""


def utf8(text: str) -> bytes:
    """``text.encode("utf-8")``."""
    if len(text) < LONG or text.isascii():
        return text.encode()
    try:
        latin = text.encode("latin-1")  # one copy: a compact string of this kind is held as Latin-1
    except UnicodeEncodeError:
        return _learned(text)
    spots: list[int] = []
    find = text.find
    for character in _known:
        at = find(character)
        while at >= 0:
            spots.append(at)
            at = find(character, at + 1)
    spots.sort()
    pieces: list[bytes] = []
    start = 0
    for at in spots:
        stretch = latin[start:at]
        if not stretch.isascii():  # a character not met before
            return _learned(text)
        pieces.append(stretch)
        pieces.append(_known[text[at]])
        start = at + 1
    stretch = latin[start:]
    if not stretch.isascii():
        return _learned(text)
    pieces.append(stretch)
    calls["searched"] += 1
    return b"".join(pieces)


def _learned(text: str) -> bytes:
    """``text`` encoded by ``str.encode``, its Latin-1 characters beyond ASCII remembered
    (each begins with byte C2 or C3 in UTF-8, which no other byte of UTF-8 is)."""
    data = text.encode()
    calls["encoded"] += 1
    for lead in (b"\xc2", b"\xc3"):
        at = data.find(lead)
        while at >= 0:
            _known.setdefault(data[at : at + 2].decode(), data[at : at + 2])
            at = data.find(lead, at + 2)
    return data
