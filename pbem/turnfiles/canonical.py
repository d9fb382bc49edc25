"""Canonical JSON and the position hash (docs/design.md, "Positions")."""

from __future__ import annotations

import hashlib
import json
from itertools import compress
from json.encoder import c_make_encoder, encode_basestring  # type: ignore[attr-defined]
from operator import is_not
from typing import Any

_ENCODER = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False, check_circular=False)
"""One encoder for the process: ``json.dumps`` built a new one per call, and the
circular check keeps a table of every list and dict written, which JSON data
(positions, events: never circular) does not need.  The text is the same as
``json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)``."""


_C_ENCODER = (
    c_make_encoder(None, _ENCODER.default, encode_basestring, None, ":", ",", True, False, True)
    if c_make_encoder is not None
    else None
)
"""The C encoder ``_ENCODER.encode`` makes at each call (with the same arguments:
no circular check, the compact separators, sorted keys, non-ASCII kept), made
once: ``encode`` and ``iterencode`` built it, and a function to write floats,
around every call (a twentieth of a Farrapos resolution's events' JSON)."""


_C_SPACED = (
    c_make_encoder(None, _ENCODER.default, encode_basestring, None, ": ", ", ", True, False, True)
    if c_make_encoder is not None
    else None
)
"""The same C encoder with ``json.dumps``'s own separators, made once (``json.dumps``
made an encoder, and the C encoder and a function for floats in it, at each call)."""


def sorted_json(obj: Any) -> str:
    """``json.dumps(obj, sort_keys=True, ensure_ascii=False)``, the same text, written
    by one encoder made at import without the circular check (JSON data: a position
    file, written with every report)."""
    if _C_SPACED is None:
        return json.dumps(obj, sort_keys=True, ensure_ascii=False)
    return "".join(_C_SPACED(obj, 0))


def canonical_json(obj: Any) -> str:
    if _C_ENCODER is None:
        return _ENCODER.encode(obj)
    return "".join(_C_ENCODER(obj, 0))


def canonical_json_after(new: dict[str, Any], before: dict[str, Any], before_text: str) -> str:
    """``canonical_json(new)``, copying from ``before_text`` (``canonical_json`` of
    ``before``) the text of each entry of the first member that is the same object
    in both (a Farrapos position's cities: most are as they were, shared by the
    turn's working copy, and writing them was most of writing the position).

    The member is ``before``'s first (the parse keeps the text's order), a dict in
    the same order in both; its text is cut into entries at each ``},`` in one
    pass, with no step per entry: a Python step costs about what writing an
    entry does.  What makes the cut right is the caller's to answer for
    (``Ruleset.reuses_position_text``): the entries are flat dicts with no brace
    in their strings, and ``before`` is unchanged since it was parsed from
    ``before_text``.  A text that shows
    otherwise (an escape, more braces than entries) is written as a whole."""
    member = next(iter(before), None)
    if member is None or min(new) != member:
        return canonical_json(new)
    old, entries = before[member], new[member]
    start = "{" + encode_basestring(member) + ":{"
    if type(old) is not dict or type(entries) is not dict or not entries or list(old) != list(entries):
        return canonical_json(new)
    end = before_text.find("}}", len(start)) + 1
    text = before_text[len(start) : end]  # the member's entries, one brace pair each
    count = len(old)
    if not before_text.startswith(start) or "\\" in before_text or not text.count("{") == text.count("}") == count:
        return canonical_json(new)
    pieces = text[:-1].split("},")  # each entry's text but its closing brace
    values = list(entries.values())
    # an entry the turn left as it was is the very object parsed (a working copy
    # shares every entry it does not change): one identity test, not a comparison
    # of its members; an entry of another object is written anew, equal or not
    for at in compress(range(count), map(is_not, values, old.values())):
        # its name's text ends at the first '":' after its opening quote (a quote in a name is escaped;
        # a name such as ":a" begins with those two characters)
        piece = pieces[at]
        pieces[at] = piece[: piece.index('":', 1) + 2] + canonical_json(values[at])[:-1]
    others = dict(new)  # the other members: a copy less one key, in C (a comprehension was a step a member)
    del others[member]
    rest = canonical_json(others)
    return start + "},".join(pieces) + ("}}," + rest[1:] if len(rest) > 2 else "}}}")


def position_hash(position: Any) -> str:
    """Lowercase hex SHA-256 of the position's canonical JSON in UTF-8."""
    return hashlib.sha256(canonical_json(position).encode("utf-8")).hexdigest()


def text_hash(canonical: str) -> str:
    """The position hash of a position already written as canonical JSON (the same
    as ``position_hash`` of the position, without writing it out again)."""
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()
