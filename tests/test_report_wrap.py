"""The text report's ``wordwrap`` (:mod:`pbem.reports.wrap`): the same lines as
Jinja's filter, without textwrap's chunk-by-chunk fill for a report's lines."""

from __future__ import annotations

import random
import textwrap
from pathlib import Path
from typing import Any

import jinja2
import pytest

from pbem import store
from pbem.reports import assemble as reporting
from pbem.reports import render as report
from pbem.reports import wrap
from tests.support.desk import new_games, open_desk, play_resolutions


def _jinja(s: str, width: int, **options: Any) -> str:
    from jinja2.filters import do_wordwrap

    return do_wordwrap(jinja2.Environment(), s, width, **options)


@pytest.mark.parametrize(
    "texts,fast_at_least",
    [pytest.param(4000, 1000, id="4000"), pytest.param(20000, 5000, id="20000", marks=pytest.mark.slow)],
)
def test_wordwrap_gives_jinjas_lines(texts: int, fast_at_least: int) -> None:
    """Random texts, widths and options, each wrapped as Jinja's ``wordwrap`` wraps
    it: 4,000 in the default run, 20,000 in the slow one."""
    env = jinja2.Environment()
    rng = random.Random(7)
    plain = list("abZé12-(),.'!çã_/-") + ["--", "---"]
    odd = plain + [" ", "  ", "\t", "\n", "\xa0"]  # each sends the line to Jinja's filter
    fast = 0
    for _ in range(texts):
        first = "".join(rng.choice(plain if rng.random() < 0.9 else odd) for _ in range(rng.randint(1, 12)))
        length = rng.choice((3, 9, 25))
        rest = ["".join(rng.choice(plain) for _ in range(rng.randint(1, length))) for _ in range(rng.randint(0, 25))]
        words = [first, *rest]
        s = " ".join(words)
        width = rng.randint(1, 80)
        options = {"break_long_words": rng.random() < 0.1, "break_on_hyphens": rng.random() < 0.95}
        before = wrap.calls["fast"]
        assert wrap.wordwrap(env, s, width, **options) == _jinja(s, width, **options), (s, width, options)
        fast += wrap.calls["fast"] - before
    assert fast > fast_at_least  # many took the fast way
    assert wrap.wordwrap(env, "", 10, False) == _jinja("", 10, break_long_words=False) == ""
    with pytest.raises(ValueError):
        wrap.fill("a b", 0)


def test_a_text_report_wraps_its_lines_without_textwrap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each board line, event and reason of a text report went through textwrap's
    chunk-by-chunk fill (about a third of a Farrapos resolution's reports); now
    none does, and the report is the same."""
    desk = open_desk(tmp_path)
    [game] = new_games(desk, 1)
    play_resolutions(desk, game, 3)
    desk.engine.dispose()
    db = store.open_database(desk.db)
    with reporting.transaction(db, write=False) as tx:
        [data] = reporting.report_views(tx, game, 3, ["republic"])
    fills = 0
    real = textwrap.TextWrapper._wrap_chunks

    def counted(self: textwrap.TextWrapper, chunks: list[str]) -> list[str]:
        nonlocal fills
        fills += 1
        return real(self, chunks)

    monkeypatch.setattr(textwrap.TextWrapper, "_wrap_chunks", counted)
    before = wrap.calls["fast"]
    text = report.render_text(data)
    assert fills == 0 and wrap.calls["fast"] - before > 5
    env = report.environment()
    monkeypatch.setitem(env.filters, "wordwrap", jinja2.filters.do_wordwrap)
    monkeypatch.setitem(  # wrap_indent: Jinja's wordwrap, then its indent
        env.filters,
        "wrap_indent",
        jinja2.pass_environment(
            lambda e, s, width, by: jinja2.filters.do_indent(jinja2.filters.do_wordwrap(e, s, width, False), by)
        ),
    )
    monkeypatch.setitem(  # wrap_lines: each line through that wrap_indent
        env.filters,
        "wrap_lines",
        jinja2.pass_environment(
            lambda e, lines, width, by: "\n".join(
                jinja2.filters.do_indent(jinja2.filters.do_wordwrap(e, s, width, False), by) for s in lines
            )
        ),
    )
    # the parts' macros (the board in words among them) took the filter when their module was made: made again
    monkeypatch.setattr(env.get_template("report_parts.txt.j2"), "_module", None)
    assert report.render_text(data) == text and fills > 5
