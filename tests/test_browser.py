"""The HTML reports in a real browser: each report opened
in headless Chromium (Debian's ``chromium``), with no console errors, no map wider
than a phone screen, and a screenshot saved in ``test-artifacts/``.

Console errors are caught without the DevTools protocol: a copy of the page gets a
small script that records ``error`` events and ``console.error`` calls and writes
them into the DOM on load; ``--dump-dom`` returns that DOM.  Chromium's own log
(``--enable-logging=stderr``) is checked for console errors too."""

from __future__ import annotations

import pytest

from pbem.reports.audit_page import render_audit_page
from pbem.reports.render import RollLine, render_html
from pbem.rules.base import ScoreLine
from tests.support.browser import check_in_browser
from tests.support.report_data import (
    EVIL,
    played_report,
    real_ruleset_report,
    report_data,
)

pytestmark = pytest.mark.browser


def test_hand_made_report_opens_without_errors(tmp_path):
    check_in_browser(tmp_path, "hand-made", render_html(report_data(side_name=EVIL, unit_name=EVIL, email=EVIL)))


@pytest.mark.parametrize("rules_id", ["farrapos", "furor-barbarus"])
def test_real_ruleset_report_opens_without_errors(tmp_path, rules_id):
    check_in_browser(tmp_path, f"{rules_id}-setup", render_html(real_ruleset_report(rules_id, side=None)))
    check_in_browser(tmp_path, f"{rules_id}-played", render_html(played_report(rules_id, resolutions=4)))


def test_audit_page_opens_without_errors(tmp_path):
    rolls = [
        (k, RollLine(i, s, (i * 5 + k) % s + 1, f"battle {k}, roll {i}"))
        for k in range(1, 6)
        for i, s in enumerate((6, 6, 10))
    ]
    score = [(k, [ScoreLine("republic", k, f"{k} VP"), ScoreLine("empire", 6 - k, f"{6 - k} VP")]) for k in range(1, 6)]
    html = render_audit_page(
        "g1",
        "Farrapos",
        "ab" * 32,
        [(k, f"turn {k}", "cd" * 32) for k in range(1, 6)],
        rolls,
        score,
        ["empire", "republic"],
    )
    check_in_browser(tmp_path, "audit", html)


def test_the_browser_check_catches_console_errors_and_pages_wider_than_a_phone(tmp_path):
    broken = render_html(report_data()).replace("</main>", "</main><script>console.error('boom')</script>")
    with pytest.raises(AssertionError, match="boom"):
        check_in_browser(tmp_path, "broken", broken)
    wide = render_html(report_data()).replace("</main>", '</main><div style="width:2000px">wide</div>')
    with pytest.raises(AssertionError, match="sideways"):
        check_in_browser(tmp_path, "wide", wide)
