"""Order templates fit in 72 columns (rules/template_text.py): the quick wrapper of
plain comment lines gives exactly what ``textwrap.wrap`` gives, and anything else
still goes through ``textwrap``."""

from __future__ import annotations

import textwrap

from hypothesis import given, settings
from hypothesis import strategies as st

from pbem.rules import template_text
from pbem.rules.template_text import fit_comments

WORD = st.text(alphabet=st.characters(blacklist_categories=("Zs", "Zl", "Zp", "Cc", "Cs")), min_size=1, max_size=90)


def _textwrap(text: str, width: int) -> str:
    """fit_comments as it was: every long comment line through textwrap."""
    out = []
    for line in text.split("\n"):
        lead = line[: len(line) - len(line[1:].lstrip())] if line.startswith("#") else ""
        if len(line) <= width or not line.startswith("#"):
            out.append(line)
            continue
        out.extend(
            textwrap.wrap(
                line[len(lead) :],
                width=width,
                initial_indent=lead,
                subsequent_indent=lead + "  ",
                break_long_words=False,
                break_on_hyphens=False,
            )
        )
    return "\n".join(out)


@settings(max_examples=400, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(["#", "# ", "#   ", "#     "]), st.lists(WORD, min_size=1, max_size=30)),
        min_size=1,
        max_size=6,
    ),
    st.sampled_from([30, 72]),
)
def test_plain_comment_lines_wrap_as_textwrap_wraps_them(lines: list[tuple[str, list[str]]], width: int) -> None:
    text = "\n".join(lead + " ".join(words) for lead, words in lines)
    assert fit_comments(text, width) == _textwrap(text, width)


def test_other_lines_still_go_through_textwrap(monkeypatch) -> None:
    plain = "#   move cav-3 cav-4 (MF 3): alegrete cachoeira camaqua cangucu encruzilhada jaguarao livramento"
    spaced = "#   two  spaces\tand a tab in a line that is long enough to be wrapped at seventy-two columns"
    expected = _textwrap(plain + "\n" + spaced, 72)
    calls = []
    real = textwrap.wrap
    monkeypatch.setattr(template_text.textwrap, "wrap", lambda *a, **k: calls.append(a[0]) or real(*a, **k))
    assert fit_comments(plain + "\n" + spaced) == expected
    assert calls == ["two  spaces\tand a tab in a line that is long enough to be wrapped at seventy-two columns"]
