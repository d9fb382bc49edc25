"""The list of earlier resolutions in the HTML report, counted: a report written at
the time of a resolution (``process --reports``, without links) read every active
resolution's number, label and hash and rendered a line for each (a row and some
18 k instructions per earlier resolution, in every report).  The store now keeps
the rendered lines (``report_history``): a report reads that one row and renders
its own line, however long the game; a rollback, an older report or another
template is served from the rows, with the same bytes."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pbem import store
from pbem.referee import lifecycle
from pbem.referee import resolve as resolving
from pbem.reports import assemble, reads
from pbem.reports import history as history_list
from pbem.reports import render as report
from pbem.store.transaction import transaction
from tests.support.desk import Desk, new_games, open_desk, queue_next_turns

SIDES = ("republic", "empire")


@pytest.fixture
def desk(tmp_path: Path) -> Iterator[Desk]:
    d = open_desk(tmp_path)
    yield d
    d.engine.dispose()


class Counted:
    """The history's reads and lines rendered, counted per report."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.rows_listed: list[int] = []  # active rows read for the list (one a line to render)
        self.lines = 0  # lines rendered by the history_lines macro
        self.full_reads = 0  # reads of every active resolution (the old way)
        real_for, real_lines, real_active = reads.history_for, history_list.lines, reads.active_history

        def history_for(*args: Any) -> reads.KeptHistory:
            found = real_for(*args)
            self.rows_listed.append(len(found.missing))
            return found

        def lines(rows: Any) -> str:
            self.lines += len(rows)
            return real_lines(rows)

        def active_history(*args: Any) -> list[reads.HistoryLine]:
            self.full_reads += 1
            return real_active(*args)

        monkeypatch.setattr(reads, "history_for", history_for)
        monkeypatch.setattr(history_list, "lines", lines)
        monkeypatch.setattr(reads, "active_history", active_history)


def _resolve(desk: Desk, game_id: str, seed: int) -> int:
    queue_next_turns(desk, [game_id], seed=seed)
    resolved = resolving.process(desk.engine, [game_id])[0].resolved
    assert resolved is not None
    return resolved


def _listed(page: str) -> list[int]:
    """The resolution numbers an HTML report's list shows."""
    section = page.split('<section id="history"', 1)[1].split("</ul>", 1)[0]
    return [int(item.split(":", 1)[0]) for item in section.split("<li>resolution ")[1:]]


def _kept(desk: Desk, game_id: str) -> tuple[int, str] | None:
    con = sqlite3.connect(desk.db)
    try:
        row = con.execute("SELECT k, lines FROM report_history WHERE game_id = ?", (game_id,)).fetchone()
    finally:
        con.close()
    return (row[0], row[1]) if row else None


def test_a_report_at_the_time_of_a_resolution_renders_one_line_however_long_the_game(
    desk: Desk, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (game_id,) = new_games(desk, 1)
    db = store.open_database(desk.db)
    counted = Counted(monkeypatch)
    try:
        for seed in range(12):
            k = _resolve(desk, game_id, seed)
            before = (counted.lines, len(counted.rows_listed))
            written = assemble.write_resolution_reports(db, game_id, k, tmp_path / "reports")
            page = next(p for p in written if p.name == report.report_filename(k, "republic", "html")).read_text()
            assert _listed(page) == list(range(1, k + 1))
            # one read of the kept list, with the one active row it lacks; one line rendered
            assert (counted.lines - before[0], len(counted.rows_listed) - before[1]) == (1, 1), k
            assert counted.rows_listed[-1] == 1 and counted.full_reads == 0
            kept = _kept(desk, game_id)
            assert kept is not None and kept[0] == k and kept[1].count("<li>") == k
    finally:
        db.dispose()


def test_the_kept_lines_are_the_bytes_the_rows_render(desk: Desk, tmp_path: Path) -> None:
    """The same macro renders the kept lines and the lines of a report's own rows:
    each page is byte for byte what the list rendered from its rows gives."""
    (game_id,) = new_games(desk, 1)
    db = store.open_database(desk.db)
    try:
        for seed in range(5):
            k = _resolve(desk, game_id, seed)
            assemble.write_resolution_reports(db, game_id, k, tmp_path / "r")
        with transaction(db, write=False) as tx:
            views = assemble.report_views(tx, game_id, None, SIDES)
            rows = tuple((r.k, r.label, r.state_hash) for r in reads.active_history(tx, game_id))
        assert views[0].history_lines and views[0].history == ()
        for view in views:
            from_rows = assemble._with(view, history=rows, history_lines="")
            assert report.render_html(view) == report.render_html(from_rows)
    finally:
        db.dispose()


def test_a_rollback_and_an_older_report_are_served_from_the_rows(
    desk: Desk, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A rollback sets aside the resolution the kept list ends at: the next report
    reads the active rows again (and keeps its own list); a report of an older
    resolution, re-rendered later, lists only the resolutions up to it and leaves
    the kept list alone."""
    (game_id,) = new_games(desk, 1)
    db = store.open_database(desk.db)
    counted = Counted(monkeypatch)
    folder = tmp_path / "reports"
    try:
        for seed in range(6):
            k = _resolve(desk, game_id, seed)
            assemble.write_resolution_reports(db, game_id, k, folder)
        assert _kept(desk, game_id) is not None and _kept(desk, game_id)[0] == 6  # type: ignore[index]
        lifecycle.rollback(desk.engine, game_id, 3)
        seen = []
        for seed in (10, 11):
            k = _resolve(desk, game_id, seed)
            written = assemble.write_resolution_reports(db, game_id, k, folder)
            page = next(p for p in written if p.name == report.report_filename(k, "empire", "html")).read_text()
            seen.append((k, _listed(page), counted.rows_listed[-1]))
        assert seen == [(7, [1, 2, 3, 7], 4), (8, [1, 2, 3, 7, 8], 1)]
        with transaction(db, write=False) as tx:
            (older,) = assemble.report_views(tx, game_id, 2, ("republic",))
            (rolled_to,) = assemble.report_views(tx, game_id, 3, ("republic",))
        assert _listed(report.render_html(older)) == [1, 2]
        assert _listed(report.render_html(rolled_to)) == [1, 2, 3]
        assemble.write_resolution_reports(db, game_id, 2, tmp_path / "again")
        kept = _kept(desk, game_id)
        assert kept is not None and kept[0] == 8 and kept[1].count("<li>") == 5
    finally:
        db.dispose()


def test_lines_kept_with_another_template_are_rendered_again(desk: Desk, tmp_path: Path) -> None:
    (game_id,) = new_games(desk, 1)
    db = store.open_database(desk.db)
    try:
        for seed in range(3):
            k = _resolve(desk, game_id, seed)
            assemble.write_resolution_reports(db, game_id, k, tmp_path / "r")
        with transaction(db, write=False) as tx:
            (kept,) = assemble.report_views(tx, game_id, None, ("republic",))
        con = sqlite3.connect(desk.db)
        con.execute("UPDATE report_history SET template = 'another', lines = '<li>stale</li>'")
        con.commit()
        con.close()
        with transaction(db, write=False) as tx:
            found = reads.history_for(tx, game_id, 3, history_list.key())
            (again,) = assemble.report_views(tx, game_id, None, ("republic",))
        assert (found.kept_k, [line.k for line in found.missing]) == (0, [1, 2, 3])
        assert report.render_html(again) == report.render_html(kept) and "stale" not in report.render_html(again)
    finally:
        db.dispose()


@pytest.mark.postgres
def test_the_kept_list_on_postgresql(postgres_url: str, tmp_path: Path) -> None:
    """The kept list's statements (the kept row with the rows it lacks, and its
    upsert) on PostgreSQL: kept, extended, set aside by a rollback, rebuilt."""
    desk = open_desk(tmp_path, postgres_url)
    (game_id,) = new_games(desk, 1)
    db = store.open_database(postgres_url)
    folder = tmp_path / "reports"
    try:
        for seed in range(4):
            k = _resolve(desk, game_id, seed)
            assemble.write_resolution_reports(db, game_id, k, folder)
        lifecycle.rollback(desk.engine, game_id, 2)
        k = _resolve(desk, game_id, 9)
        assemble.write_resolution_reports(db, game_id, k, folder)
        page = (folder / report.report_filename(k, "republic", "html")).read_text(encoding="utf-8")
        assert _listed(page) == [1, 2, 5]
        with transaction(db, write=False) as tx:
            found = reads.history_for(tx, game_id, 5, history_list.key())
            (older,) = assemble.report_views(tx, game_id, 2, ("republic",))
        assert found.kept_k == 5 and found.missing == [] and found.lines.count("<li>") == 3
        assert older.history_lines.count("<li>") == 2 and "resolution 2: " in older.history_lines
    finally:
        db.dispose()
        desk.engine.dispose()


def test_a_mailed_report_keeps_the_list_as_the_written_one_does(
    desk: Desk, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The outbox renders a side's report through ``views_keeping_history``: the
    first report of a resolution keeps the list, the other side's reads it whole."""
    (game_id,) = new_games(desk, 1)
    db = store.open_database(desk.db)
    counted = Counted(monkeypatch)
    try:
        for seed in range(4):
            k = _resolve(desk, game_id, seed)
            for side in SIDES:
                (view,) = assemble.views_keeping_history(db, game_id, None, [side])
                assert view.history_lines.count("<li>") == k
        assert counted.rows_listed == [1, 0] * 4 and counted.lines == 4
    finally:
        db.dispose()
