"""What a piece of work calls, for the cost tests: the Python functions it runs, the
built-in functions of one name it calls, and how often it calls one function that a
test wraps."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import pytest

from tests.support.scripts import load_script


def _profiled(work: Callable[[], Any], profile: Callable[[Any, str, Any], None]) -> Any:
    """``work()`` with ``profile`` told of each call and return (``sys.setprofile``)."""
    sys.setprofile(profile)
    try:
        return work()
    finally:
        sys.setprofile(None)


def python_calls(work: Callable[[], Any]) -> tuple[Any, list[str]]:
    """What ``work()`` returns, and the name of each Python function it called."""
    called: list[str] = []

    def profile(frame: Any, event: str, _arg: Any) -> None:
        if event == "call":
            called.append(frame.f_code.co_name)

    return _profiled(work, profile), called


def python_codes(work: Callable[[], Any]) -> tuple[Any, list[Any]]:
    """What ``work()`` returns, and the code object of each Python function it called."""
    called: list[Any] = []

    def profile(frame: Any, event: str, _arg: Any) -> None:
        if event == "call":
            called.append(frame.f_code)

    return _profiled(work, profile), called


def c_calls(work: Callable[[], Any], name: str) -> tuple[Any, int]:
    """What ``work()`` returns, and how many times it called a built-in function or
    method named ``name`` (``str.split``: ``"split"``)."""
    called: list[None] = []

    def profile(_frame: Any, event: str, arg: Any) -> None:
        if event == "c_call" and getattr(arg, "__name__", "") == name:
            called.append(None)

    return _profiled(work, profile), len(called)


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


def opcodes(call: Callable[[], Any]) -> int:
    """The bytecode instructions Python runs in ``call()`` (its own and its callees'):
    ``bench/steps.py``'s count, summed over every function."""
    steps = STEPS.Steps()
    steps.runcall(call)
    return sum(steps.counts.values())


STEPS = load_script("bench/steps.py", "bench_steps")
