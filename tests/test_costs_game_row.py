"""A resolution's write of its game's row (the ``process --all`` budget of
``bench/budgets.py``): each test counts the database pages a resolution writes,
never time, and fails on the referee before this work.

- the dice chain's values a game keeps for its next reveals (``game.dice_walk``,
  secret) are left as they were: the next reveal is the value kept just below
  the reveal before.  Shortened by one value at each resolution, the game's row
  (8 KB of seed checkpoints, the initial position, the values kept) changed size,
  and SQLite wrote its overflow pages anew: six of the thirteen pages a
  resolution's commit wrote, where a row of the same size is overwritten in
  place, one page;
- each reveal read from them is the value kept just below the reveal before,
  checked by one hash (tests/test_costs_dice_walk.py: values that do not follow
  are walked again; those below the latest reveal are in no archive).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from pbem import dice
from pbem.referee import resolve
from tests.support.desk import new_games, open_desk, play_resolutions, queue_next_turns
from tests.support.wal_pages import emptied_wal, pages_written


def _kept(db: Path, game: str) -> tuple[str, int]:
    con = sqlite3.connect(db)
    try:
        walked, size = con.execute(
            "SELECT dice_walk, length(seed) + length(seed_checkpoints) + length(initial_position) + length(dice_walk)"
            " FROM game WHERE id = ?",
            (game,),
        ).fetchone()
    finally:
        con.close()
    return walked, size


def test_a_resolution_reading_its_reveal_from_the_values_kept_writes_one_page_of_the_game_row(
    tmp_path: Path,
) -> None:
    db = tmp_path / "referee.db"
    desk = open_desk(tmp_path)
    [game] = new_games(desk, 1)
    play_resolutions(desk, game, 4)  # resolution 1 walked from the checkpoint; 2 to 4 read the values kept
    walked, size = _kept(db, game)
    queue_next_turns(desk, [game], seed=4)
    emptied_wal(db)
    assert resolve.process(desk.engine, [game])[0].resolved == 5
    assert _kept(db, game) == (walked, size)  # the row keeps its size
    pages = pages_written(db)
    # before: 13 pages, 6 of them the row's (its leaf, its overflow pages freed and others written anew)
    assert pages.count("game") == 1
    assert [page for page in pages if page.isdigit()] == []  # no page left free by the write
    assert len(pages) <= 8


def test_each_reveal_is_the_value_kept_below_the_one_before(tmp_path: Path) -> None:
    db = tmp_path / "referee.db"
    desk = open_desk(tmp_path)
    [game] = new_games(desk, 1)
    play_resolutions(desk, game, 6)
    walked, _ = _kept(db, game)
    con = sqlite3.connect(db)
    try:
        reveals = [r[0] for r in con.execute("SELECT reveal FROM resolution WHERE game_id = ? ORDER BY k", (game,))]
    finally:
        con.close()
    assert len(walked) == 64 * 30  # s_4065 .. s_4094, walked below reveal 1 (s_4095) and kept since
    assert [walked[-64 * n : len(walked) - 64 * (n - 1)] for n in range(1, 6)] == reveals[1:]
    assert all(dice.H(bytes.fromhex(b)) == bytes.fromhex(a) for a, b in zip(reveals, reveals[1:], strict=False))


def test_the_values_kept_in_either_form_give_the_next_reveal() -> None:
    values = [bytes([7]) * 32]
    for _ in range(5):
        values.append(dice.H(values[-1]))  # s_0 .. s_5: each value hashes to the one above it
    walked = b"".join(values[1:5]).hex()  # walked up from s_0 to the reveal s_5: s_1 .. s_4, lowest first
    assert dice.kept_reveal(walked, values[5].hex()) == (values[4], walked)  # as written: the last value
    assert dice.kept_reveal(walked, values[4].hex()) == (values[3], walked)  # then the one below the reveal before
    assert dice.kept_reveal(walked, values[1].hex()) is None  # used up: walked from the checkpoint
    assert dice.kept_reveal(walked[:-64], values[4].hex()) == (values[3], walked[:-64])  # as a resolution cut them
    assert dice.kept_reveal(walked, values[0].hex()) is None  # below them all: no value follows it
