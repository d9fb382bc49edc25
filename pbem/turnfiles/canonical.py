"""Canonical JSON and the position hash (docs/design.md, "Positions")."""

from __future__ import annotations

import hashlib
import json
from typing import Any

_ENCODER = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False, check_circular=False)
"""One encoder for the process: ``json.dumps`` built a new one per call, and the
circular check keeps a table of every list and dict written, which JSON data
(positions, events: never circular) does not need.  The text is the same as
``json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)``."""


def canonical_json(obj: Any) -> str:
    return _ENCODER.encode(obj)


def position_hash(position: Any) -> str:
    """Lowercase hex SHA-256 of the position's canonical JSON in UTF-8."""
    return hashlib.sha256(canonical_json(position).encode("utf-8")).hexdigest()


def text_hash(canonical: str) -> str:
    """The position hash of a position already written as canonical JSON (the same
    as ``position_hash`` of the position, without writing it out again)."""
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()
