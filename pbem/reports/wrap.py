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
:func:`wrap_indent` is ``wordwrap`` then ``indent`` in one filter call (the text
report's board lines and events), the same text.
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


def _cuts_in_word(s: str, at: int) -> list[int]:
    """Where textwrap may break the word of ``s`` (between single spaces) that holds
    index ``at``, inside it (after a hyphen's chunk), as indexes of ``s``.  Only the
    word a line's end falls in is looked at (each hyphenated word of the line was,
    though most lines fit and are not broken at all)."""
    start = s.rfind(" ", 0, at) + 1
    end = s.find(" ", at)
    if end < 0:
        end = len(s)
    if s.find("-", start, end) < 0:
        return []
    return [start + cut for cut in _word_cuts(s[start:end])]


def fill(s: str, width: int) -> list[str]:
    """``textwrap.wrap(s, width, break_long_words=False)`` for a :func:`_simple` ``s``."""
    if width <= 0:
        raise ValueError(f"invalid width {width!r} (must be > 0)")
    lines: list[str] = []
    p, n = 0, len(s)
    while n - p > width:
        limit = p + width
        space = s.rfind(" ", p, limit + 1)  # a line may end before a space (the space is dropped)
        if space > p and s.find("-", space + 1, limit + 1) < 0:
            # the word after that space has no hyphen within the line's reach, so no cut there (textwrap
            # cuts a word only beside a hyphen): the line ends at the space, as below, without the word's cuts
            lines.append(s[p:space])
            p = space + 1
            continue
        # or after a hyphen's chunk, where textwrap splits a word: the word after that space (any cut of
        # an earlier word comes before the space), else the word at the line's start (no space in reach)
        cuts = _cuts_in_word(s, space + 1 if space > p else p)
        hyphen = max([cut for cut in cuts if p < cut <= limit], default=-1)
        if space > p or hyphen > p:
            end = max(space, hyphen)
        else:  # the first chunk is longer than a line: it is the line
            space = s.find(" ", p)
            later = [cut for cut in cuts if cut > p]
            end = min(space if space >= 0 else n, later[0] if later else n)
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
    if type(s) is str and 0 < len(s) <= width and _simple(s, break_long_words, break_on_hyphens):
        calls["fast"] += 1
        return s  # a line that fits is given back whole (most board lines and events): nothing kept to find it
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


_wrapped_indented: dict[tuple[str, int, int], str] = {}
"""Lines wrapped and indented lately (:func:`wrap_indent`), by line, width and indent."""


def wrap_indent(environment: Any, s: Any, width: int, by: int = 4) -> Any:
    """``s|wordwrap(width, break_long_words=False)|indent(by)`` in one filter (the
    text report wraps and indents each board line and event: two filter calls and
    the wrapped text split into lines again to indent it), the same text: a line
    that fits is itself; a longer one's lines are joined with the line break and
    the indent at once, and kept a while (a board line that did not change is the
    same in the next game's or resolution's report).  Anything :func:`fill` does not
    wrap as textwrap does, or another line break than Jinja's default, goes through
    both filters."""
    if type(s) is str and environment.newline_sequence == "\n" and _simple(s, False, True):
        calls["fast"] += 1
        return s if len(s) <= width else _filled(s, width, by)
    return indent(wordwrap(environment, s, width, False), by)


def _filled(s: str, width: int, by: int) -> str:
    """A :func:`_simple` line longer than ``width``, wrapped and indented as
    :func:`wrap_indent` gives it (kept a while)."""
    key = (s, width, by)
    text = _wrapped_indented.get(key)
    if text is None:
        text = ("\n" + " " * by).join(fill(s, width))
        if len(_wrapped_indented) > 1024:
            _wrapped_indented.clear()
        _wrapped_indented[key] = text
    return text


_PLAIN = {str}


def wrap_lines(environment: Any, lines: Any, width: int, by: int = 4) -> Any:
    """``line|wrap_indent(width, by)`` for each of ``lines``, joined by line breaks, in
    one filter call (the board in words, some forty lines a Campus Mauriacus board:
    a loop step, the filter and its check a line).  When every line is a plain string
    :func:`wrap_indent` would wrap by :func:`fill` (printable, no space at either end
    nor two in a row), which most boards are, the lines are checked by a few calls
    for them all: when all fit, they are joined at once; else each that fits is
    itself and each longer one wrapped (:func:`_filled`), without a
    :func:`wrap_indent` call and its checks a line.  Any other goes through
    :func:`wrap_indent`."""
    if environment.newline_sequence == "\n" and lines and set(map(type, lines)) == _PLAIN:
        joined = "\n".join(lines)
        if (
            all(map(str.isprintable, lines))  # no line break inside a line: each is one of joined's
            and "  " not in joined
            and " \n" not in joined
            and "\n " not in joined
            and joined[:1] != " "
            and joined[-1:] != " "
        ):
            calls["fast"] += len(lines)
            if max(map(len, lines)) <= width:
                return joined
            return "\n".join([line if len(line) <= width else _filled(line, width, by) for line in lines])
    return "\n".join([wrap_indent(environment, line, width, by) for line in lines])


def indent(s: Any, width: int | str = 4, first: bool = False, blank: bool = False) -> Any:
    """Jinja's ``indent`` (same arguments, same result): a plain one-line text, with
    its first line left as it is, is itself (Jinja splits it into lines and joins
    them again: a text report indents each board line and event, most of one line)."""
    if type(s) is str and not first and s.isprintable():  # no line break of any kind that splitlines knows
        return s
    from jinja2.filters import do_indent

    return do_indent(s, width, first, blank)
