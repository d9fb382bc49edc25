"""A resolution's dice reveal in a fresh process (the ``process --all`` budget of
``bench/budgets.py``): each test counts hashes, never time, and fails on the
referee before this work.

- the values a reveal walks up from its checkpoint are the next resolutions'
  reveals: the game keeps them (``game.dice_walk``, secret), so the next
  resolution reads its reveal and checks it with one hash against the reveal
  before, where a fresh process walked up to 31 hashes;
- values that do not follow the reveal before (damaged, or left by a rollback)
  are never revealed: the reveal is walked from the checkpoint as before;
- the values kept below the latest reveal are secret: no archive carries them;
- a game's read leaves out the chain's seed and checkpoints, read only where a
  reveal is walked from a checkpoint;
- the dice key and the dice's bytes are HMAC-SHA256 made of two SHA-256 hashes,
  not through OpenSSL's HMAC (whose set-up cost half as much again), with the
  same bytes.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import random
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from pbem import dice
from pbem.audit import archive
from pbem.referee import resolve
from tests.support.desk import new_games, open_desk, play_resolutions, queue_next_turns


def _counting_hashes(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Links of the dice chain hashed (a hash of 32 bytes: the dice key's and the
    HMAC's hashes are of more), counted with the process's kept walks forgotten,
    as in a fresh ``pbem process``."""
    calls = [0]
    real = dice.H

    def counting(data: bytes) -> bytes:
        calls[0] += len(data) == 32
        return real(data)

    monkeypatch.setattr(dice, "H", counting)
    monkeypatch.setattr(dice, "_walks", {})
    return calls


def _reveals(db: Path, game_id: str) -> list[bytes]:
    con = sqlite3.connect(db)
    try:
        rows = con.execute("SELECT reveal FROM resolution WHERE game_id = ? ORDER BY k", (game_id,)).fetchall()
    finally:
        con.close()
    return [bytes.fromhex(r[0]) for r in rows]


def _game_row(db: Path, sql: str, *params: Any) -> None:
    con = sqlite3.connect(db)
    try:
        con.execute(sql, params)
        con.commit()
    finally:
        con.close()


def test_a_resolution_reads_its_reveal_from_the_values_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    desk = open_desk(tmp_path)
    [game] = new_games(desk, 1)
    play_resolutions(desk, game, 4)  # resolution 5 reveals s_4091: 27 hashes up from s_4064
    queue_next_turns(desk, [game], seed=4)
    hashes = _counting_hashes(monkeypatch)
    assert resolve.process(desk.engine, [game])[0].resolved == 5
    assert hashes[0] == 1  # the check against reveal 4
    reveals = _reveals(tmp_path / "referee.db", game)
    assert all(dice.H(later) == earlier for earlier, later in zip(reveals, reveals[1:], strict=False))


def test_values_that_do_not_follow_the_reveal_before_are_walked_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    desk = open_desk(tmp_path)
    [game] = new_games(desk, 1)
    play_resolutions(desk, game, 4)
    _game_row(tmp_path / "referee.db", "UPDATE game SET dice_walk = ? WHERE id = ?", "ab" * 32 * 5, game)
    queue_next_turns(desk, [game], seed=4)
    hashes = _counting_hashes(monkeypatch)
    assert resolve.process(desk.engine, [game])[0].resolved == 5
    assert hashes[0] > 27  # walked from the checkpoint
    reveals = _reveals(tmp_path / "referee.db", game)
    assert dice.H(reveals[4]) == reveals[3]


def _statements(engine: Any) -> list[str]:
    """Every SQL statement the engine's connections run from now on (its pool emptied first)."""
    from sqlalchemy import event

    engine.dispose()
    seen: list[str] = []
    event.listen(engine, "connect", lambda connection, record: connection.set_trace_callback(seen.append))
    return seen


def test_the_seed_and_its_checkpoints_are_read_only_for_a_walk(tmp_path: Path) -> None:
    """A game's read leaves out its chain's seed and checkpoints (8 KB of hex): a
    turn file's verdict never needs them, and a resolution reads them only where
    its reveal is walked from a checkpoint."""
    desk = open_desk(tmp_path)
    [game] = new_games(desk, 1)
    play_resolutions(desk, game, 4)
    seen = _statements(desk.engine)
    queue_next_turns(desk, [game], seed=4)  # each file's verdict reads the game
    assert resolve.process(desk.engine, [game])[0].resolved == 5
    assert sum("FROM game g" in s for s in seen) >= 2
    assert [s for s in seen if "seed_checkpoints" in s] == []
    _game_row(tmp_path / "referee.db", "UPDATE game SET dice_walk = ? WHERE id = ?", "ab" * 32 * 5, game)
    queue_next_turns(desk, [game], seed=5)
    dice._walks.clear()
    assert resolve.process(desk.engine, [game])[0].resolved == 6
    assert len([s for s in seen if "seed_checkpoints" in s]) == 1  # walked from the checkpoint
    reveals = _reveals(tmp_path / "referee.db", game)
    assert dice.H(reveals[5]) == reveals[4]


def test_the_values_kept_are_in_no_archive(tmp_path: Path) -> None:
    desk = open_desk(tmp_path)
    [game] = new_games(desk, 1)
    play_resolutions(desk, game, 3)
    con = sqlite3.connect(tmp_path / "referee.db")
    try:
        (walked,) = con.execute("SELECT dice_walk FROM game WHERE id = ?", (game,)).fetchone()
    finally:
        con.close()
    assert len(walked) == 64 * 30  # s_4065 .. s_4094, below reveal 1 (s_4095): kept as they were
    secret = walked[: -64 * 2]  # s_4065 .. s_4092, below reveal 3 (s_4093); s_4094 and s_4093 are reveals 2 and 3
    text = json.dumps(archive.build_archive(desk.engine, game))
    assert all(secret[i : i + 64] not in text for i in range(0, len(secret), 64))


def test_the_dice_hmac_is_hmac_sha256_without_openssl_s_hmac(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(5)
    for size in [*range(0, 130), 200]:
        key, msg = rng.randbytes(size), rng.randbytes(rng.randrange(0, 100))
        assert dice.hmac_sha256(dice._pads(key), msg) == hmac.new(key, msg, hashlib.sha256).digest()
    made: list[bytes] = []
    monkeypatch.setattr(hmac, "new", lambda *args, **kwargs: made.append(args[0]))
    stream = dice.DiceStream(dice.dice_key(b"r" * 32, "g1", 3, [b"a file"]))
    assert [stream.roll(6, "test") for _ in range(40)] == [
        2,
        5,
        2,
        4,
        2,
        2,
        4,
        1,
        1,
        6,
        6,
        5,
        6,
        5,
        2,
        6,
        6,
        5,
        1,
        5,
        6,
        5,
        4,
        4,
        5,
        2,
        4,
        5,
        3,
        1,
        1,
        3,
        2,
        1,
        1,
        1,
        2,
        2,
        1,
        5,
    ]  # as the dice rolled through hmac.new
    assert made == []
