"""The list of earlier resolutions, counted: without links (a report on its own,
as ``process --reports`` and the mail write it) each line is its number, label
and hash; it called the template's ``link`` and ``report_filename`` for each
line (two calls through Jinja's context, a regular expression each), the most
of a report's cost that grows with the game's length."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from pbem.reports import render as report
from tests.support.report_data import a_report


def test_the_history_without_links_names_no_file(monkeypatch: pytest.MonkeyPatch) -> None:
    data = replace(a_report(), history=tuple((k, f"turn {k}", f"{k:064x}") for k in range(1, 41)), links="none")
    named: list[str] = []
    real = report.site_link

    def counted(d: Any, filename: str) -> str | None:
        named.append(filename)
        return real(d, filename)

    page = report.render_html(data)
    monkeypatch.setattr(report, "site_link", counted)
    assert report.render_html(data) == page
    assert [n for n in named if n.startswith("report-k")] == []
    assert page.count("<li>resolution ") == 40 and "<li>resolution 40: turn 40 <span" in page
    linked = report.render_html(replace(data, links="url", site_url="https://example.org/g/"))
    assert len([n for n in named if n.startswith("report-k")]) == 40
    assert '<a href="https://example.org/g/report-k40-' in linked


def test_a_sides_view_is_copied_without_the_constructor(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each side's view was ``dataclasses.replace`` of the shared one: the
    constructor again over every field, twice per side.  Now a copy with the
    changes, equal to what ``replace`` gives, and an unknown field refused."""
    import dataclasses

    from pbem.reports import assemble

    data = a_report()
    built = 0
    real = report.ReportData.__init__

    def counted(self: Any, *args: Any, **kwargs: Any) -> None:
        nonlocal built
        built += 1
        real(self, *args, **kwargs)

    monkeypatch.setattr(report.ReportData, "__init__", counted)
    copy = assemble._with(data, side="empire", observers=3, problems=())
    assert built == 0
    monkeypatch.undo()
    assert copy == dataclasses.replace(data, side="empire", observers=3, problems=()) and copy.side == "empire"
    assert data.observers != 3 or data.side != "empire"
    with pytest.raises(TypeError):
        assemble._with(data, sides_in_view=1)
