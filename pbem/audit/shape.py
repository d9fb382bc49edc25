"""The archive's structure, checked before the audit reads it: every field the
audit reads, of the type the audit reads it as (docs/formats.md, "Archive,
version 1").  A damaged archive is refused with one line naming the field's path,
``archive.resolutions[3].rolls[0].sides: expected an integer, found null``, never
in Python's words.  Fields the audit does not read are not checked (a reader of
v1 ignores what it does not know)."""

from __future__ import annotations

import re
from typing import Any

_HEX = re.compile(r"(?:[0-9a-fA-F]{2})+")


class ShapeError(ValueError):
    """An archive field missing or of the wrong type; the message names its path."""


# A spec is a type name ("str", "int", "bool", "hex", "list", "object", "any"), a
# dict (an object: its fields, a trailing "?" on a name marks it optional; a
# leading "?" on a type name allows null), or a one-element list (a list of that).
_RESOLUTION: dict[str, Any] = {
    "k": "int",
    "label?": "str",
    "reveal": "hex",
    "previous_state_hash?": "hex",
    "nmr?": ["str"],
    "deadline?": {"deadline": "str", "grace_until": "str", "resolved_at": "str", "sides": ["str"]},
    "submissions": [{"side": "str", "turn_file": "str", "signature": "str"}],
    "rolls": [{"index": "int", "sides": "int", "value": "int", "purpose": "str"}],
    "state_hash": "hex",
    "events": "list",
    "civil_disorder?": [{"side": "str", "bot?": "?str", "bot_seed?": "?str", "orders?": "?str"}],
}
ARCHIVE: dict[str, Any] = {
    "format": "str",
    "game": {
        "id": "str",
        "rules": "str",
        "rules_version?": "?str",
        "scenario": "str",
        "options": ["str"],
        "tables?": "object",
    },
    "players": [{"side": "str", "public_key": "str"}],
    "dice": {
        "chain_length": "int",
        "anchor": "hex",
        "extensions?": [{"first_k": "int", "chain_length": "int", "anchor": "hex"}],
    },
    "initial_state_hash": "hex",
    "resolutions": [_RESOLUTION],
    "set_aside?": [{"to": "int", "at": "str", "resolutions": [_RESOLUTION]}],
    "player_changes?": [
        {
            "side": "str",
            "from_k": "int",
            "at": "str",
            "email?": "?str",
            "previous_email?": "?str",
            "public_key?": "?str",
            "previous_public_key?": "?str",
        }
    ],
    "civil_disorder?": [{"side": "str", "from": "int", "until?": "?int", "ended_by?": "?str"}],
    "ledger?": [
        {
            "seq": "int",
            "act": "str",
            "time": "str",
            "details": "object",
            "previous?": "?hex",
            "hash": "hex",
            "signature?": "?str",
        }
    ],
    "final": {"over": "bool", "result": "any"},
}

_EXPECTED = {
    "str": "a string",
    "int": "an integer",
    "bool": "true or false",
    "hex": "a hex string",
    "list": "a list",
    "object": "an object",
}


def found(value: Any) -> str:
    """What a JSON value is, in words."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    names = {int: "an integer", float: "a number", str: "a string", list: "a list", dict: "an object"}
    return names.get(type(value), type(value).__name__)


def _fits(kind: str, value: Any) -> bool:
    if kind == "any":
        return True
    if kind.startswith("?"):
        return value is None or _fits(kind[1:], value)
    if kind == "int":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "hex":
        return isinstance(value, str) and _HEX.fullmatch(value) is not None
    types = {"str": str, "bool": bool, "list": list, "object": dict}
    return isinstance(value, types[kind])


def check(archive: Any) -> None:
    """Raise :class:`ShapeError` for the first field the audit cannot read."""
    stack: list[tuple[Any, Any, str]] = [(ARCHIVE, archive, "archive")]
    while stack:
        spec, value, path = stack.pop()
        if isinstance(spec, dict):
            if not isinstance(value, dict):
                raise ShapeError(f"{path}: expected an object, found {found(value)}")
            for name, inner in reversed(spec.items()):
                key = name.rstrip("?")
                if key not in value:
                    if name.endswith("?"):
                        continue
                    raise ShapeError(f"{path}.{key}: missing")
                stack.append((inner, value[key], f"{path}.{key}"))
        elif isinstance(spec, list):
            if not isinstance(value, list):
                raise ShapeError(f"{path}: expected a list, found {found(value)}")
            stack.extend((spec[0], item, f"{path}[{i}]") for i, item in reversed(list(enumerate(value))))
        elif not _fits(spec, value):
            raise ShapeError(f"{path}: expected {_EXPECTED.get(spec.lstrip('?'), spec)}, found {found(value)}")
