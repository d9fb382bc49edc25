"""Order templates fit in 72 columns: mail clients wrap longer lines, and a
wrapped line breaks an inline signature.

>>> print(fit_comments("#   move cav-3 cav-4 (MF 3): alegrete cachoeira camaqua cangucu encruzilhada jaguarao", 40))
#   move cav-3 cav-4 (MF 3): alegrete
#     cachoeira camaqua cangucu
#     encruzilhada jaguarao
"""

from __future__ import annotations

import re
import textwrap

TEMPLATE_WIDTH = 72


def fit_comments(text: str, width: int = TEMPLATE_WIDTH) -> str:
    """Every comment line of ``text`` longer than ``width`` wrapped at spaces; the
    continuation lines stay comments, indented two more columns.  Other lines
    are left as they are.  A line within ``width`` is kept without a look at
    what it holds, and each long line is wrapped once per process (an order
    template's long lines are mostly those of the template before it)."""
    out: list[str] = []
    for line in text.split("\n"):
        if len(line) <= width:
            out.append(line)
            continue
        key = (line, width)
        wrapped = _wrapped.get(key)
        if wrapped is None:
            if len(_wrapped) > 4096:
                _wrapped.clear()
            wrapped = _wrapped[key] = _wrap_line(line, width)
        out += wrapped
    return "\n".join(out)


_wrapped: dict[tuple[str, int], tuple[str, ...]] = {}
_COMMENT = re.compile(r"^(#\s*)(.*)$")


def _wrap_line(line: str, width: int) -> tuple[str, ...]:
    """One line longer than ``width``: wrapped when it is a comment, else as it is."""
    if line[:1] == "#":  # the lead and the words without the two expressions below, for plain words
        words = line[1:].lstrip()  # what ``\s*`` takes: str.lstrip and re's \s strip the same characters
        if words and words[-1] != " " and "  " not in words and words.isprintable():  # no other space than " "
            lead = line[: len(line) - len(words)]
            return tuple(_wrap_words(words, width, lead, lead + "  "))
    match = _COMMENT.match(line)
    if match is None:
        return (line,)
    lead, words = match.group(1), match.group(2)
    if _PLAIN_WORDS.fullmatch(words):
        return tuple(_wrap_words(words, width, lead, lead + "  "))
    return tuple(
        textwrap.wrap(
            words,
            width=width,
            initial_indent=lead,
            subsequent_indent=lead + "  ",
            break_long_words=False,
            break_on_hyphens=False,
        )
    )


_PLAIN_WORDS = re.compile(r"[^\s]+(?: [^\s]+)*")
"""Words between single spaces: what an order template's comment lines hold."""


def _wrap_words(words: str, width: int, first: str, rest: str) -> list[str]:
    """``textwrap.wrap`` of words between single spaces (``break_long_words`` and
    ``break_on_hyphens`` off), greedily, without its general machinery: each line
    is cut at the last space within the width (``rfind``), not built word by word
    (a wrapped template is a third of a Farrapos report's order template).  A word
    longer than a line has a line of its own, as textwrap gives it."""
    lines: list[str] = []
    text, lead = first + words, len(first)
    while len(text) > width:
        cut = text.rfind(" ", lead + 1, width + 1)  # the lead's own spaces are no place to cut
        if cut < 0:  # the line's first word is longer than the line
            cut = text.find(" ", lead + 1)
            if cut < 0:
                break
        lines.append(text[:cut])
        text, lead = rest + text[cut + 1 :], len(rest)
    lines.append(text)
    return lines
