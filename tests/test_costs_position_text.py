"""The canonical JSON of a Farrapos resolution's new position (the ``process --all``
budget of ``bench/budgets.py``): each test counts what is written, never time,
and fails on the referee before this work.

- a resolution copies each city the turn left as it was from the stored text of
  the position before, and writes only the cities it changed and the rest of the
  position (writing every city was most of writing the position);
- the text is the one ``canonical_json`` writes, over every resolution of seeded
  bot games, and a text or a position of another shape is written whole.
"""

from __future__ import annotations

import copy
import hashlib
import json
import random
from pathlib import Path
from typing import Any

import pytest

from pbem.dice import DiceStream
from pbem.referee import resolve
from pbem.rules import find_ruleset
from pbem.turnfiles import canonical
from pbem.turnfiles.canonical import canonical_json, canonical_json_after
from tests.support.desk import new_games, open_desk, play_resolutions, queue_next_turns


def _resolutions(seed: int, count: int) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(position before, position after) of a random-bot Farrapos game's resolutions,
    as the engine returns them."""
    rules = find_ruleset("farrapos")
    position = rules.setup(None, [])
    found = []
    for n in range(count):
        if not rules.due(position):
            break
        (side,) = rules.due(position)
        body = rules.bot_orders(position, side, "random", random.Random(seed * 1000 + n))
        orders, problems = rules.parse_orders(body)
        assert not problems
        dice = DiceStream(hashlib.sha256(b"%d/%d" % (seed, n)).digest())
        before = json.loads(canonical_json(position))  # as the referee reads it: parsed from the stored text
        after = rules.resolve_validated(before, {side: orders}, dice, owned=True).position
        found.append((before, after))
        position = after
    return found


@pytest.mark.parametrize("seed", range(4))
def test_the_text_is_the_canonical_json_of_every_resolution(seed: int) -> None:
    for before, after in _resolutions(seed, 40):
        text = canonical_json(before)
        assert canonical_json_after(after, before, text) == canonical_json(after)
        assert canonical_json(before) == text  # the turn left the position it was handed as it was


def test_other_shapes_are_written_whole() -> None:
    before = {"cities": {"a": {"n": 1, "u": ["x"]}, "b": {"n": 2, "u": []}}, "turn": 1}
    cases: list[tuple[dict[str, Any], dict[str, Any]]] = [
        (before, {**before, "turn": 2}),
        (before, {"cities": {"b": {"n": 2, "u": []}, "a": {"n": 1, "u": ["x"]}}, "turn": 2}),  # another order
        (before, {"cities": {"a": {"n": 1, "u": ["x"]}}, "turn": 2}),  # one city fewer
        (before, {"aaa": 1, **before}),  # a member before the cities
        ({"cities": {"a": {"n": 1, "u": ["x}"]}, "b": {"n": 2, "u": []}}}, {"cities": {"a": {"n": 1, "u": []}}}),
        ({"cities": {"a": {"n": {"m": 1}}, "b": {"n": 2}}}, {"cities": {"a": {"n": {"m": 1}}, "b": {"n": 3}}}),
        ({"cities": {"a\\b": {"n": 1}}}, {"cities": {"a\\b": {"n": 2}}}),
        ({"cities": {"é": {"n": 1}, "ü": {"n": 1}}}, {"cities": {"é": {"n": 1}, "ü": {"n": 2}}}),
        ({"cities": {}}, {"cities": {}, "turn": 1}),
        ({"cities": [1, 2]}, {"cities": [1, 3]}),
        ({"cities": {"a": {"n": 1}}}, {"cities": {"a": {"n": 1}}}),
    ]
    for old, new in cases:
        assert canonical_json_after(new, old, canonical_json(old)) == canonical_json(new), new
    assert canonical_json_after({"cities": {"a": {"n": 1}}}, {}, "{}") == '{"cities":{"a":{"n":1}}}'


def test_a_resolution_writes_only_the_cities_it_changed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    desk = open_desk(tmp_path)
    [game] = new_games(desk, 1)
    play_resolutions(desk, game, 4)
    queue_next_turns(desk, [game], seed=4)
    written: list[tuple[Any, str]] = []
    real = canonical._C_ENCODER
    assert real is not None

    def recording(obj: Any, level: int) -> Any:
        chunks = real(obj, level)
        written.append((copy.deepcopy(obj), "".join(chunks)))
        return chunks

    monkeypatch.setattr(canonical, "_C_ENCODER", recording)
    assert resolve.process(desk.engine, [game])[0].resolved == 5
    import sqlite3

    con = sqlite3.connect(tmp_path / "referee.db")
    try:
        (position,) = con.execute("SELECT position FROM resolution WHERE k = 5").fetchone()
        (before,) = con.execute("SELECT position FROM resolution WHERE k = 4").fetchone()
    finally:
        con.close()
    new, old = json.loads(position), json.loads(before)
    changed = [c for c in new["cities"] if new["cities"][c] != old["cities"][c]]
    cities = [obj for obj, _ in written if obj in new["cities"].values()]
    assert len(cities) == len(changed) < len(new["cities"]) / 4
    assert not any(isinstance(obj, dict) and "cities" in obj for obj, _ in written)  # never the whole position
    assert sum(len(text) for obj, text in written if isinstance(obj, dict)) < len(position) / 2
