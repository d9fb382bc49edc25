"""What ``pbem process`` reads and prints for a resolution (the ``process --all``
budget of ``bench/budgets.py``): each test counts calls, hashes or sorts, never
time, and fails on the referee before this work.

- a queued file's header as pbem writes it (the five keys in order) is taken by
  one regular expression, without a Python step per header line; any other
  header is read as before, and the body and its line are the same as the whole
  parse gives;
- the dice key takes each queued file's SHA-256 as submit stored it with the
  file (``submission.digest``) instead of hashing the file again, and is the
  same key;
- the game's small rows (civil disorder, webhooks, players, observers) are read
  in one statement that SQLite does not sort (it sorted each of its four parts
  in a table of its own), and put in the same order in Python; so are the files
  queued for the next resolution;
- the line said of each game resolved is written with the others and the
  summary in one echo (an echo per line looked at the stream and flushed it).
"""

from __future__ import annotations

from typing import Any

import pytest

from pbem import dice
from pbem.turnfiles import envelope
from tests.support.calls import python_calls

STATE = "0123456789abcdef" * 4


def test_a_header_as_pbem_writes_it_is_taken_without_a_step_per_line() -> None:
    message = f"game: g0\nrules: farrapos\nside: republic\nturn: 13\nstate: {STATE}\n\nmove a b  # x\n\npass\n"
    tf = envelope.parse_turn_file(message.encode())
    found, called = python_calls(lambda: envelope.queued_body(message.encode()))
    assert found == (tf.body, tf.body_offset) == ("move a b\n\npass\n", 6)
    assert "_plain_header" not in called and "parse_turn_file" not in called, called


@pytest.mark.parametrize(
    "header",
    [
        f"game: g0\nrules: farrapos\nside: republic\nturn: 13\nstate: {STATE}",
        f"side: republic\ngame: g0\nrules: farrapos\nstate: {STATE}\nturn: 13",  # another order
        f"# orders\ngame: g0\nrules: farrapos\nside: republic\nturn: 13\nstate: {STATE}",  # a comment
        f"GAME: g0\nrules: farrapos\nside: republic\n Turn :  13 \nstate: {STATE}  ",  # cases and spaces
        f"\ufeffgame: g0\nrules: farrapos\nside: republic\nturn: 13\nstate: {STATE}",  # a byte-order mark
        f"game: g0\nrules: farrapos\n  \nside: republic\nturn: 13\nstate: {STATE}",  # a blank line of spaces
        f"game: g0\nrules: farrapos\n\u00a0\nside: republic\nturn: 13\nstate: {STATE}",  # of another space
        f"game: g0\nrules: farrapos\nside: republic\nturn: 13\nturn: 13\nstate: {STATE}",  # a key twice
        f"game: g0\nrules: farrapos\nside: republic\nturn: x\nstate: {STATE}",  # no number
        f"game: g0\nrules: farrapos\nside: republic\nturn: 13\nstate: {STATE.upper()}",  # no hash
        "game: g0\nrules: farrapos\nside: republic\nturn: 13",  # a key missing
        "",
    ],
)
def test_a_queued_file_s_body_is_the_whole_parse_s(header: str) -> None:
    message = (header + "\n\n# a comment\nmove a b  # x\n  \npass\n").encode()
    try:
        tf = envelope.parse_turn_file(message)
    except envelope.TurnFileError as exc:
        with pytest.raises(envelope.TurnFileError) as refused:
            envelope.queued_body(message)
        assert [str(p) for p in refused.value.problems] == [str(p) for p in exc.problems]
    else:
        assert envelope.queued_body(message) == (tf.body, tf.body_offset)


def test_a_resolution_hashes_no_queued_file_for_its_dice_key(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from pbem import store
    from pbem.referee import resolve
    from pbem.store.transaction import transaction
    from tests.support.desk import new_games, open_desk, play_resolutions, queue_next_turns

    desk = open_desk(tmp_path)
    [game] = new_games(desk, 1)
    play_resolutions(desk, game, 2)
    queue_next_turns(desk, [game], seed=2)
    with transaction(desk.engine, write=False) as tx:
        files = store.next_queued_files(tx, game)
    keys: list[bytes] = []
    real_key, real_hash = getattr(dice, "dice_key_of_hashes", None), dice.H
    hashed: list[bytes] = []
    monkeypatch.setattr(dice, "H", lambda data: hashed.append(data) or real_hash(data))
    counted = lambda *args: keys.append(real_key(*args)) or keys[-1]  # type: ignore[misc]  # noqa: E731
    monkeypatch.setattr(dice, "dice_key_of_hashes", counted, raising=False)
    assert resolve.process(desk.engine, [game])[0].resolved == 3
    assert files and not [data for data in hashed if data in {f.message for f in files}]
    with transaction(desk.engine, write=False) as tx:
        reveal = bytes.fromhex(tx.one("SELECT reveal FROM resolution WHERE k = 3", {})[0])  # type: ignore[index]
    monkeypatch.undo()
    assert keys == [dice.dice_key(reveal, game, 3, [f.message for f in files])]


def test_the_game_s_small_rows_are_read_unsorted_and_come_in_their_order(tmp_path: Any) -> None:
    import sqlite3

    from pbem import store
    from pbem.referee import notices
    from pbem.store.transaction import transaction
    from tests.support.desk import new_games, open_desk, queue_next_turns

    desk = open_desk(tmp_path)
    [game] = new_games(desk, 1)
    queue_next_turns(desk, [game], seed=1)
    con = sqlite3.connect(tmp_path / "referee.db")
    try:
        at = "2026-01-01 00:00:00.000000"
        for n, (url, email, side) in enumerate([("https://b", "z@x", "republic"), ("https://a", "a@x", "empire")]):
            con.execute("INSERT INTO hook (game_id, url, format, created) VALUES (?, ?, 'json', ?)", (game, url, at))
            con.execute("INSERT INTO observer (game_id, email, added, added_k) VALUES (?, ?, ?, 0)", (game, email, at))
            con.execute(
                "INSERT INTO civil_disorder (game_id, side, from_k, started) VALUES (?, ?, ?, ?)", (game, side, n, at)
            )
        con.execute("UPDATE player SET email = side || '@x' WHERE game_id = ?", (game,))
        con.commit()
        plan = [row[3] for row in con.execute("EXPLAIN QUERY PLAN " + notices.GAME_ROWS, {"game": game})]
        ordered = con.execute(notices.GAME_ROWS + " ORDER BY 1, 2, 3", {"game": game}).fetchall()
    finally:
        con.close()
    assert not [step for step in plan if "TEMP B-TREE" in step], plan
    with transaction(desk.engine, write=False) as tx:
        rows = notices.game_rows(tx, game)
    assert list(rows.disorder.items()) == [(key, from_k) for kind, _, key, _, _, from_k, _ in ordered if kind == "d"]
    assert [(h.id, h.url) for h in rows.hooks] == [
        (number, first) for kind, number, _, first, _, _, _ in ordered if kind == "h"
    ]
    assert list(rows.players.items()) == [(key, first) for kind, _, key, first, _, _, _ in ordered if kind == "p"]
    assert rows.observers == [(number, key) for kind, number, key, _, _, _, _ in ordered if kind == "o"]
    assert len(rows.hooks) == len(rows.observers) == len(rows.disorder) == len(rows.players) == 2
    with transaction(desk.engine, write=False) as tx:
        assert rows.queued == store.next_queued_files(tx, game) and len(rows.queued) == 1


def test_the_files_queued_are_read_unsorted_and_come_by_side(tmp_path: Any) -> None:
    import sqlite3

    from pbem import store
    from pbem.store import records
    from pbem.store.transaction import transaction
    from tests.support.desk import new_games, open_desk, queue_next_turns

    desk = open_desk(tmp_path)
    [game] = new_games(desk, 1)
    queue_next_turns(desk, [game], seed=1)
    con = sqlite3.connect(tmp_path / "referee.db")
    try:
        (side,) = con.execute("SELECT side FROM submission WHERE game_id = ?", (game,)).fetchone()
        for other, digest in (("aaa", "1"), ("zzz", "2"), (side, "3")):  # rows as a damaged table could hold them
            con.execute(
                "INSERT INTO submission (game_id, side, turn, message, signature, digest, received, status, source)"
                " SELECT game_id, ?, turn, message, signature, ?, received, status, source FROM submission"
                " WHERE game_id = ? AND digest NOT IN ('1', '2', '3')",
                (other, digest, game),
            )
        con.commit()
        params = {"game": game, "queued": "QUEUED"}
        plan = [row[3] for row in con.execute("EXPLAIN QUERY PLAN " + records._NEXT_QUEUED, params)]
        ordered = con.execute(records._NEXT_QUEUED + " ORDER BY side, id", params).fetchall()
    finally:
        con.close()
    assert not [step for step in plan if "TEMP B-TREE" in step], plan
    with transaction(desk.engine, write=False) as tx:
        files = store.next_queued_files(tx, game)
    assert [(f.id, f.side, f.digest) for f in files] == [(i, s, d) for i, s, _, d in ordered] and len(files) == 4


def test_the_games_lines_and_the_summary_are_written_in_one_echo(monkeypatch: pytest.MonkeyPatch) -> None:
    import typer

    from pbem.cli import referee
    from pbem.referee.resolve import ProcessOutcome

    outcomes = [
        ProcessOutcome("g1", 3, "1836, turn 2 (Empire)"),
        ProcessOutcome("g2", 4, "1836, turn 3 (Republic)", nmr=("empire",), over=True),
        ProcessOutcome("g3", None, "1836, turn 1 (Republic)", awaiting=("republic",)),
    ]
    said: list[str] = []
    monkeypatch.setattr(typer, "echo", lambda message, **kwargs: said.append(message))
    referee._print_outcomes(outcomes, quiet=True)
    referee._print_outcomes(outcomes, quiet=False)
    assert said == [
        "g1: resolution 3 - 1836, turn 2 (Empire)\n"
        "g2: resolution 4 - 1836, turn 3 (Republic); no moves received from empire; game over\n"
        "2 resolution(s) made, 1 game(s) waiting",
        "g1: resolution 3 - 1836, turn 2 (Empire)\n"
        "g2: resolution 4 - 1836, turn 3 (Republic); no moves received from empire; game over\n"
        "g3: awaiting republic\n"
        "2 resolution(s) made, 1 game(s) waiting",
    ]
