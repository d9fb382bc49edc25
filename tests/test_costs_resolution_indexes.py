"""The indexes a resolution writes (the ``process --all`` budget of
``bench/budgets.py``): each test counts the database pages a resolution writes and
the indexes it keeps up, never time, and fails on the referee before this work.

- ``resolution`` and ``roll`` each had an index on ``game_id`` alone
  (``ix_resolution_game_id``, ``ix_roll_game_id``) besides their unique index,
  which begins with ``game_id`` and answers every read by game as well: each
  resolution wrote a row into both, a page more of its commit apiece.  Schema
  version 7 has neither, and drops them from a database of version 6
  (tests/test_schema.py).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from pbem.referee import resolve
from tests.support.desk import new_games, open_desk, queue_next_turns
from tests.support.wal_pages import emptied_wal, pages_written


def _indexes(db: Path, table: str) -> list[str]:
    con = sqlite3.connect(db)
    try:
        return sorted(row[1] for row in con.execute(f"PRAGMA index_list({table})"))
    finally:
        con.close()


def test_a_resolution_writes_one_index_of_its_own_and_one_of_its_rolls(tmp_path: Path) -> None:
    db = tmp_path / "referee.db"
    desk = open_desk(tmp_path)
    [game] = new_games(desk, 1)
    written: list[list[str]] = []
    for n in range(20):  # until a resolution with a battle (its rolls written), and one more
        queue_next_turns(desk, [game], seed=n)
        emptied_wal(db)
        assert resolve.process(desk.engine, [game])[0].resolved == n + 1
        written.append(pages_written(db))
        if len(written) >= 2 and any("roll" in pages for pages in written):
            break
    assert any("roll" in pages for pages in written), "no battle in twenty resolutions"
    for pages in written:
        indexes = sorted({page for page in pages if page.startswith(("ix_", "sqlite_autoindex_"))})
        # before: ix_resolution_game_id too, and ix_roll_game_id with the rolls
        assert [page for page in indexes if page.startswith(("ix_resolution", "ix_roll"))] == []
        assert pages.count("sqlite_autoindex_resolution_1") == 1
    assert _indexes(db, "resolution") == ["sqlite_autoindex_resolution_1"]
    assert _indexes(db, "roll") == ["sqlite_autoindex_roll_1"]
