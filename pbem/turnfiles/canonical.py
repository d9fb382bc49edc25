"""Canonical JSON and the position hash (docs/design.md, "Positions")."""

from __future__ import annotations

import hashlib
import json
from json.encoder import c_make_encoder, encode_basestring  # type: ignore[attr-defined]
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


def canonical_json(obj: Any) -> str:
    if _C_ENCODER is None:
        return _ENCODER.encode(obj)
    return "".join(_C_ENCODER(obj, 0))


def position_hash(position: Any) -> str:
    """Lowercase hex SHA-256 of the position's canonical JSON in UTF-8."""
    return hashlib.sha256(canonical_json(position).encode("utf-8")).hexdigest()


def text_hash(canonical: str) -> str:
    """The position hash of a position already written as canonical JSON (the same
    as ``position_hash`` of the position, without writing it out again)."""
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()
