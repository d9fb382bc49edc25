"""Jinja's ``wordwrap`` filter, the same lines at a fraction of the cost.

The text report wraps every board line, event and reason with ``wordwrap``
(``textwrap`` underneath): it split each line into chunks with a long regular
expression and filled lines chunk by chunk, most of a text report's cost.  For
the lines a report is made of (printable text, words separated by single spaces,
``break_long_words=False``) :func:`wordwrap` finds the same breaks with ``rfind``:
textwrap breaks a line at the last chunk boundary that fits, and the boundaries
are the spaces (dropped at a break) and the points inside a hyphenated word where
textwrap's own expression splits it (worked out once per word).  Anything else
(tabs, line breaks, runs of spaces, long words broken) goes to Jinja's
own filter.  ``tests/test_report_wrap.py`` compares both on many lines.
"""

from __future__ import annotations

import textwrap
from typing import Any

_WORDSEP = textwrap.TextWrapper.wordsep_re
_cuts_of: dict[str, tuple[int, ...]] = {}
"""A hyphenated word's inner chunk boundaries (offsets), as textwrap splits it."""

_wrapped: dict[tuple[str, int, str | None, str], str] = {}
"""Lines wrapped lately (``break_long_words=False``), by line, width and line break."""

calls = {"fast": 0, "jinja": 0}
"""How many strings each way wrapped (tests count them)."""


def _word_cuts(word: str) -> tuple[int, ...]:
    cuts = _cuts_of.get(word)
    if cuts is None:
        ends, at = [], 0
        for chunk in _WORDSEP.split(word):
            if chunk:
                at += len(chunk)
                ends.append(at)
        cuts = tuple(ends[:-1])
        if len(_cuts_of) > 4096:
            _cuts_of.clear()
        _cuts_of[word] = cuts
    return cuts


def _simple(s: Any, break_long_words: bool, break_on_hyphens: bool) -> bool:
    """Whether :func:`fill` gives what textwrap gives for ``s``."""
    return (
        type(s) is str
        and not break_long_words
        and break_on_hyphens
        and s.isprintable()  # no tab, line break or other whitespace than " "
        and s[:1] != " "
        and s[-1:] != " "
        and "  " not in s
    )


def _hyphen_cuts(s: str) -> list[int]:
    """Where textwrap may break ``s`` inside its hyphenated words: each word (between
    single spaces) holding a hyphen, found from its hyphen with ``find`` and ``rfind``
    (a pattern searched from every position of the line cost more than the rest of
    the fill: the pattern ``(?<![^ ])[^ -]*-[^ ]*``, tests/test_costs_reports.py)."""
    cuts: list[int] = []
    at = s.find("-")
    while at >= 0:
        start = s.rfind(" ", 0, at) + 1
        end = s.find(" ", at)
        if end < 0:
            end = len(s)
        cuts += [start + cut for cut in _word_cuts(s[start:end])]
        at = s.find("-", end)
    return cuts


def fill(s: str, width: int) -> list[str]:
    """``textwrap.wrap(s, width, break_long_words=False)`` for a :func:`_simple` ``s``."""
    if width <= 0:
        raise ValueError(f"invalid width {width!r} (must be > 0)")
    hyphen_cuts = _hyphen_cuts(s)
    lines: list[str] = []
    p, n, h = 0, len(s), 0
    while n - p > width:
        limit = p + width
        space = s.rfind(" ", p, limit + 1)  # a line may end before a space (the space is dropped)
        while h < len(hyphen_cuts) and hyphen_cuts[h] <= p:
            h += 1
        j = h
        while j < len(hyphen_cuts) and hyphen_cuts[j] <= limit:
            j += 1
        hyphen = hyphen_cuts[j - 1] if j > h else -1  # or after a hyphen, where textwrap splits the word
        if space > p or hyphen > p:
            end = max(space, hyphen)
        else:  # the first chunk is longer than a line: it is the line
            space = s.find(" ", p)
            end = min(space if space >= 0 else n, hyphen_cuts[h] if h < len(hyphen_cuts) else n)
        lines.append(s[p:end])
        p = end + 1 if end < n and s[end] == " " else end
    if p < n:
        lines.append(s[p:])
    return lines


def wordwrap(
    environment: Any,
    s: str,
    width: int = 79,
    break_long_words: bool = True,
    wrapstring: str | None = None,
    break_on_hyphens: bool = True,
) -> str:
    """Jinja's ``wordwrap`` (same arguments, same result); a line wrapped a moment
    ago (the same board line in each side's report) is not wrapped again."""
    key = (s, width, wrapstring, environment.newline_sequence)
    if type(s) is str and not break_long_words and break_on_hyphens and key in _wrapped:
        return _wrapped[key]
    if _simple(s, break_long_words, break_on_hyphens):
        calls["fast"] += 1
        text = (environment.newline_sequence if wrapstring is None else wrapstring).join(fill(s, width))
        if len(_wrapped) > 1024:
            _wrapped.clear()
        _wrapped[key] = text
        return text
    from jinja2.filters import do_wordwrap

    calls["jinja"] += 1
    return do_wordwrap(environment, s, width, break_long_words, wrapstring, break_on_hyphens)
