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
