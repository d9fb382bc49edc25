"""Costs that must not grow, continued (the third wave's instruction budgets):
each test counts calls or statements, never time.

- the Furor Barbarus map draws its static board (terrain, rivers, crossings, hex
  labels) once per map in a process, not once per resolution;
- a resolution keeps no ``marshal`` copy of the position it replaces, and hands
  that position over to the rules (``owned``), which Furor Barbarus plays on
  without copying it first;
- a resolution reads a queued file's orders without parsing its header again
  (checked at submit), and still refuses a row that is no turn file;
- Furor Barbarus looks whether orders name the game's own units without a
  generator per order.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import pytest

from pbem.dice import DiceStream
from pbem.rules import find_ruleset
from tests.support.calls import python_calls


def _furor_positions(scenario: str, count: int) -> list[tuple[Any, list[Any]]]:
    """``count`` positions of a bot game of ``scenario`` with the events that led there."""
    import random

    rules = find_ruleset("furor-barbarus")
    position = rules.setup(scenario, [])
    out = []
    for n in range(count):
        side = rules.due(position)[0]
        orders = rules.parse_orders(rules.bot_orders(position, side, "random", random.Random(n)))[0]
        result = rules.resolve(position, {side: orders}, DiceStream(hashlib.sha256(b"%d" % n).digest()))
        position = result.position
        out.append((position, list(result.events)))
    return out


def test_the_furor_barbarus_board_is_drawn_once_per_map(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each map of a resolution drew every hex, hexside and label again (a third of
    a Furor Barbarus report); now a map's second drawing draws no terrain hex."""
    from pbem.rules.furor_barbarus import svg, svg_board

    rules = find_ruleset("furor-barbarus")
    hexes = [0]
    real = svg.corners

    def counting(*args: Any, **kwargs: Any) -> str:
        hexes[0] += 1
        return real(*args, **kwargs)

    for module in (svg, svg_board):  # the board is drawn by svg_board, the combats' hexes by svg
        monkeypatch.setattr(module, "corners", counting)
    monkeypatch.setattr(svg_board, "_BOARDS", {})
    drawn = []
    for position, events in _furor_positions("soissons", 3):
        hexes[0] = 0
        drawn.append(rules.map_svg(position, events))
        combats = sum(1 for e in events if e.get("type") == "combat")
        drawn.append(hexes[0] - combats)
    first, later = drawn[1], drawn[3::2]
    board = rules.field(_furor_positions("soissons", 1)[0][0]).game_map
    assert first >= len(board.all_hexes())
    assert all(n < len(board.all_hexes()) / 10 for n in later), drawn[1::2]  # the legend's terrain symbols only


def test_a_resolution_reads_only_its_own_turn_s_submissions(tmp_path: Path) -> None:
    """A game's queued files and a file's earlier copies were found by reading every
    submission of the game (the only index was ``game_id``): a resolution cost more
    the longer the game.  Every statement of a submit and a resolution on the
    submission table now goes through the ``(game_id, turn, status)`` index or the
    digest index: SQLite's own plan says so."""
    import sqlite3

    from pbem import store
    from pbem.referee import intake
    from pbem.referee import resolve as resolving
    from tests.support.desk import new_games, open_desk, signed_next_turns

    desk = open_desk(tmp_path)
    [game] = new_games(desk, 1)
    for n in range(3):
        for _, message, signature in signed_next_turns(desk, [game], seed=n):
            intake.submit(desk.engine, message, signature)
        assert resolving.process(desk.engine, [game])[0].resolved == n + 1
    desk.engine.dispose()
    db = store.open_database(desk.db)
    statements: list[str] = []
    db.connection().set_trace_callback(statements.append)
    try:
        for _, message, signature in signed_next_turns(desk, [game], seed=9):
            intake.submit(db, message, signature)
        assert resolving.process(db, [game])[0].resolved == 4
    finally:
        db.connection().set_trace_callback(None)
    on_submissions = [s for s in statements if "submission" in s and not s.lstrip().upper().startswith("INSERT")]
    assert on_submissions
    plans = {}
    raw = sqlite3.connect(desk.db)
    try:
        for statement in on_submissions:
            plan = raw.execute("EXPLAIN QUERY PLAN " + statement).fetchall()
            outer = [row[-1] for row in plan if "submission" in row[-1] or " s " in f" {row[-1]} "][:1]
            plans[statement] = outer
    finally:
        raw.close()
        db.dispose()
    for statement, outer in plans.items():
        assert outer and "ix_submission_game_id " not in outer[0] + " ", (statement, outer)


def test_a_resolution_keeps_no_copy_of_the_position_it_replaces(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A fresh ``process`` parsed each game's position and kept a ``marshal`` copy of
    the parse for later reads that never come (the resolution replaces it); now the
    resolution's read keeps none, and it hands the position over to the rules."""

    from pbem.referee import resolve as resolving
    from pbem.store import records
    from tests.support.desk import new_games, open_desk, queue_next_turns
    from tests.support.position_reads import counted_copies

    desk = open_desk(tmp_path)
    [game] = new_games(desk, 1)
    queue_next_turns(desk, [game], seed=1)
    dumped = counted_copies(monkeypatch)
    monkeypatch.setattr(records, "_positions", {})  # as in a fresh process: nothing read yet
    rules = type(find_ruleset("farrapos"))
    real = rules.resolve_validated
    handed: list[bool] = []

    def recording(self: Any, position: Any, orders: Any, dice: Any, owned: bool = False) -> Any:
        handed.append(owned)
        return real(self, position, orders, dice, owned)

    monkeypatch.setattr(rules, "resolve_validated", recording)
    assert resolving.process(desk.engine, [game])[0].resolved == 1
    assert dumped == []
    assert handed == [True]


def test_a_furor_barbarus_position_handed_over_is_played_without_a_copy(monkeypatch: pytest.MonkeyPatch) -> None:
    """The referee's resolution copied the position it had just read for itself before
    playing on it; a position handed over (``owned``) is now played on as it is, with
    the same new position and events as a copy gives."""
    import copy
    import random

    from pbem.rules.furor_barbarus import ruleset as furor

    rules = find_ruleset("furor-barbarus")
    copies: list[object] = []
    real = furor.copied_position

    def counting(position: Any) -> Any:
        copies.append(position)
        return real(position)

    monkeypatch.setattr(furor, "copied_position", counting)
    for position, _ in _furor_positions("vouille", 4)[1:]:
        side = rules.due(position)[0]
        orders = rules.parse_orders(rules.bot_orders(position, side, "random", random.Random(7)))[0]
        seed = hashlib.sha256(repr(position).encode()).digest()
        kept = rules.resolve_validated(position, {side: orders}, DiceStream(seed))
        copies.clear()
        handed = rules.resolve_validated(copy.deepcopy(position), {side: orders}, DiceStream(seed), owned=True)
        assert copies == []
        assert handed.position == kept.position and handed.events == kept.events


def test_a_resolution_does_not_parse_a_queued_file_s_header_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A fresh ``process`` parsed each queued file's header again (keys, turn, state)
    though ``submit`` had checked it and the resolution reads none of it; now it
    takes the body alone, the same text at the same line, and a damaged row is
    still refused."""
    from pbem.referee import judging, verdict
    from pbem.referee import resolve as resolving
    from pbem.turnfiles import envelope
    from tests.support.desk import new_games, open_desk, queue_next_turns

    desk = open_desk(tmp_path)
    [game] = new_games(desk, 1)
    queue_next_turns(desk, [game], seed=1)
    monkeypatch.setattr(judging, "_orders_read", {})  # as if another process had queued it
    headers: list[bytes] = []
    real = envelope.parse_turn_file

    def counting(data: bytes) -> Any:
        headers.append(data)
        return real(data)

    monkeypatch.setattr(envelope, "parse_turn_file", counting)
    monkeypatch.setattr(verdict, "parse_turn_file", counting, raising=False)
    assert resolving.process(desk.engine, [game])[0].resolved == 1
    assert headers == []
    message = (
        b"game: g\n# the header\nrules: farrapos\nside: empire\nTurn: 1\nstate: " + b"0" * 64 + b"\n\n# a\npass  # b\n"
    )
    tf = real(message)
    assert envelope.queued_body(message) == (tf.body, tf.body_offset)
    assert headers == []
    for damaged in (b"not a turn file\n", message.replace(b"Turn: 1", b"turn: x"), b"game: g\n\x00\n\npass\n"):
        with pytest.raises(envelope.TurnFileError):  # through the whole parse (the same problems as before)
            envelope.queued_body(damaged)


def test_furor_barbarus_orders_naming_the_game_s_units_are_taken_without_a_generator_per_order() -> None:
    """Every resolution looks whether its orders name the game's units by their ids
    (nothing to settle): a generator per order and one over them, about 7 k
    instructions an order; now plain loops, and the same orders come back."""
    import random

    from pbem.rules.furor_barbarus.unit_names import settle_orders

    rules = find_ruleset("furor-barbarus")
    position, _ = _furor_positions("vouille", 3)[-1]
    side = rules.due(position)[0]
    orders = rules.parse_orders(rules.bot_orders(position, side, "random", random.Random(3)))[0]
    counters = rules.field(position).scenario.counters
    (settled, problems), called = python_calls(lambda: settle_orders(counters, orders))
    assert len(orders) > 3 and settled is orders and problems == []
    assert "<genexpr>" not in called, called
