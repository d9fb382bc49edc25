"""What an order template's fitting to 72 columns no longer does (the reports'
speed work, third round): each test counts, never times, and failed before the
change it guards.

- a line within the width is kept without a regular expression tried on it
  (every line of every template was matched against the comment pattern);
- a long line is wrapped once per process: the next template with the same line
  (an order template's forms and most of its moves are those of the last one)
  takes the wrapped lines kept.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from pbem.rules import template_text
from pbem.rules.template_text import fit_comments
from tests.support.calls import counted_calls

LONG = "#   move cav-3 cav-4 (MF 3): alegrete cachoeira camaqua cangucu encruzilhada jaguarao piratini rio-pardo"
TEXT = "# Farrapos - orders\n#   attack: bage\n" + LONG + "\n#   invade: x y\n"


class _Counting:
    """A stand-in for a module or a compiled pattern that counts the calls of some of its methods."""

    def __init__(self, real: Any, names: tuple[str, ...]) -> None:
        self._real, self._names, self.calls = real, names, 0

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._real, name)
        if name not in self._names:
            return attr

        def counted(*args: Any, **kwargs: Any) -> Any:
            self.calls += 1
            return attr(*args, **kwargs)

        return counted


def test_short_lines_are_kept_without_a_regular_expression(monkeypatch: pytest.MonkeyPatch) -> None:
    counting = _Counting(re, ("match", "fullmatch", "search", "compile"))
    monkeypatch.setattr(template_text, "re", counting)
    text = "# a comment\n#   attack: bage\nmove a b\n\n# Your MU:\n"
    assert fit_comments(text) == text
    assert counting.calls == 0


def test_a_long_line_is_wrapped_once(monkeypatch: pytest.MonkeyPatch) -> None:
    first = fit_comments(TEXT)
    assert first.split("\n")[2:4] == [
        "#   move cav-3 cav-4 (MF 3): alegrete cachoeira camaqua cangucu",
        "#     encruzilhada jaguarao piratini rio-pardo",
    ]
    wrapped = counted_calls(monkeypatch, template_text, "_wrap_line")
    wraps = _Counting(template_text.textwrap, ("wrap",))
    monkeypatch.setattr(template_text, "textwrap", wraps)
    assert fit_comments(TEXT) == first
    assert wrapped == []
    assert wraps.calls == 0
    assert fit_comments(TEXT, 40) != first  # another width is its own wrapping
    assert wrapped == [(LONG, 40)]
    assert fit_comments(TEXT, 40) == fit_comments(TEXT, 40)
    assert wrapped == [(LONG, 40)]
