"""What a piece of work calls, for the cost tests: the Python functions it runs, and
how often it calls one function that a test wraps."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import pytest


def python_calls(work: Callable[[], Any]) -> tuple[Any, list[str]]:
    """What ``work()`` returns, and the name of each Python function it called."""
    called: list[str] = []

    def profile(frame: Any, event: str, _arg: Any) -> None:
        if event == "call":
            called.append(frame.f_code.co_name)

    sys.setprofile(profile)
    try:
        found = work()
    finally:
        sys.setprofile(None)
    return found, called


def counted_calls(monkeypatch: pytest.MonkeyPatch, owner: Any, name: str) -> list[tuple[Any, ...]]:
    """Replace ``owner.name`` by a wrapper that records each call's arguments in the
    list returned, then calls the real function."""
    real = getattr(owner, name)
    calls: list[tuple[Any, ...]] = []

    def counted(*args: Any) -> Any:
        calls.append(args)
        return real(*args)

    monkeypatch.setattr(owner, name, counted)
    return calls
