"""Hand-made report data for the report, e-mail and browser tests."""

from __future__ import annotations

from tests.support.report_data import report_data


def test_report_filename_names_the_side_or_the_referee():
    from pbem.reports.render import report_filename

    assert report_filename(3, "republic") == "report-k3-republic.html"
    assert report_filename(0, None, "txt") == "report-k0-referee.txt"
    assert "/" not in report_filename(1, "../etc/passwd")


def test_your_move_only_for_a_due_side_of_a_running_game():
    assert report_data(side="empire", awaiting=("empire",)).your_move
    assert not report_data(side="empire", awaiting=("republic",)).your_move
    assert not report_data(side="empire", awaiting=("empire",), over=True).your_move
    assert not report_data(side=None).your_move
