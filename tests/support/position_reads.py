"""Counting what the store does to read a position (pbem/store/records.py): the JSON
parses of stored positions and the ``marshal`` copies kept for later reads."""

from __future__ import annotations

import json
import marshal
from typing import Any

import pytest

from pbem.store import records


def counted_parses(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Each text the store parses as JSON from now on, in order."""
    parsed: list[str] = []

    class CountingJson:
        @staticmethod
        def loads(text: str) -> Any:
            parsed.append(text)
            return json.loads(text)

    monkeypatch.setattr(records, "json", CountingJson)
    return parsed


def counted_copies(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """Each position the store copies through ``marshal.dumps`` from now on, in order."""
    dumped: list[object] = []

    class CountingMarshal:
        loads = staticmethod(marshal.loads)

        @staticmethod
        def dumps(value: object) -> bytes:
            dumped.append(value)
            return marshal.dumps(value)

    monkeypatch.setattr(records, "marshal", CountingMarshal)
    return dumped
