"""A handed-over resolution's position as its stored text parses, without parsing it all.

``pbem process --reports`` writes a resolution's reports right after storing it.
The reports read the position as ``json.loads`` gives it from the stored text (a
quarter of a million instructions of a Farrapos report).  The stored text is
``canonical_json`` of the turn's new position, whose first member's entries the
turn left as they were are the very objects the process parsed from the stored
text before (``canonical_json_after``: a working copy shares them): those parse
back to themselves, and :func:`parsed_after` parses only the rest.
"""

from __future__ import annotations

import json
from itertools import compress
from json.encoder import encode_basestring
from operator import is_not
from typing import Any


def parsed_after(new: dict[str, Any], before: dict[str, Any], written: str) -> dict[str, Any] | None:
    """``json.loads(written)``, where ``written`` is ``canonical_json(new)`` (as
    ``canonical_json_after`` writes it too) and ``before`` the parse of a text
    ``canonical_json`` wrote, unchanged since: the first member of both is a dict of
    flat dicts with no brace in their strings (``Ruleset.reuses_position_text``).

    The parse of canonical JSON is made of the parses of its values' canonical
    texts.  An entry of the first member that ``new`` shares with ``before`` is a
    parse of canonical JSON (JSON data, keys in their sorted order), which its own
    canonical text parses back to: the very object is taken.  The text of each
    entry the turn made anew (from its name to the first closing brace) and of the
    other members (after the first two closing braces) are cut out of ``written``
    and parsed in one ``json.loads``.  Any other shape (another first member, not
    a dict of the same names, none, an escape in the text, a cut that does not
    parse) gives ``None``: the caller parses the text whole."""
    member = next(iter(before), None)
    if member is None or min(new) != member:
        return None
    old, entries = before[member], new[member]
    start = "{" + encode_basestring(member) + ":{"
    if type(old) is not dict or type(entries) is not dict or not entries or list(old) != list(entries):
        return None
    if not written.startswith(start) or "\\" in written:
        return None
    end = written.find("}}", len(start)) + 1  # the member's closing brace (its entries are flat)
    if not end:
        return None
    values = list(entries.values())
    names = list(old)
    parts = []
    made = list(compress(range(len(values)), map(is_not, values, old.values())))  # the entries made anew
    at_text = len(start) - 1
    for at in made:  # in the text's order: each found after the one before
        name = encode_basestring(names[at]) + ":{"  # an entry's name: no entry's member opens a brace
        at_text = written.find(name, at_text, end) + len(name) - 1
        parts.append(written[at_text : written.index("}", at_text) + 1])
    tail = written[end + 1 :]  # "," and the other members, or the position's closing brace
    parts.append("{" + tail[1:] if len(tail) > 1 else "{}")
    try:
        parsed = json.loads("[" + ",".join(parts) + "]")
    except ValueError:  # a text that is not what the ruleset answers for (a brace in a string)
        return None
    kept = list(old.values())
    for at, value in zip(made, parsed):
        kept[at] = value
    position = {member: dict(zip(names, kept))}
    position.update(parsed[-1])
    return position
