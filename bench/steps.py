"""Python steps: the bytecode instructions Python runs in each function's own code,
counted exactly (``sys.settrace`` with opcode events).  A step count does not move
with the machine's load, as time does; it does not see work done in C.  Used by
``bench/profile_stage.py --steps`` and by the cost tests (``tests/support/calls.py``)."""

from __future__ import annotations

import collections
import sys
from collections.abc import Callable
from types import FrameType
from typing import Any

Where = tuple[str, int, str]
"""A function: its file, first line and name."""


class Steps:
    """Python steps per function, of what :meth:`runcall` runs (added up over calls)."""

    def __init__(self) -> None:
        self.counts: collections.Counter[Where] = collections.Counter()

    def runcall(self, func: Callable[..., Any], *args: Any) -> Any:
        counts = self.counts

        def called(frame: FrameType, event: str, arg: Any) -> Any:  # each frame entered (or resumed)
            frame.f_trace_opcodes, frame.f_trace_lines = True, False
            code = frame.f_code
            where = (code.co_filename, code.co_firstlineno, code.co_name)

            def step(frame: FrameType, event: str, arg: Any) -> Any:
                if event == "opcode":
                    counts[where] += 1
                return step

            return step

        sys.settrace(called)
        try:
            return func(*args)
        finally:
            sys.settrace(None)

    def totals(self) -> dict[Where, float]:
        return dict(self.counts)
