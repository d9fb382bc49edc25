"""Random games: seeded bot-vs-bot games played to the end, checking after every
turn that the VP equal a recount from the board, no MU is in two places,
eliminated MU stay out, arrivals happen in their phase, and the game ends by a rule."""

from __future__ import annotations

from collections import Counter

import pytest

from pbem.rules.farrapos.counters import load_counters
from pbem.rules.farrapos.position import View
from pbem.rules.farrapos.victory_points import count_vp
from pbem.turnfiles.canonical import position_hash
from tests.support.farrapos_games import RULES, play_game

SHEET = load_counters()


BOTS = [
    {"republic": "random", "empire": "random"},
    {"republic": "greedy", "empire": "random"},
    {"republic": "random", "empire": "greedy"},
    {"republic": "greedy", "empire": "greedy"},
]
OPTIONS = [(), ("siege",), ("port-transport",), ("siege", "port-transport")]


def check_turn(before, after, side, events):
    view = View(after)
    # VP equal a recount from the board
    assert after["vp"] == count_vp(view)
    # no MU is in two places; every MU stands in a city of its own side
    places = Counter(u for city in after["cities"].values() for u in city["units"])
    assert all(n == 1 for n in places.values()), places
    for city, data in after["cities"].items():
        for unit in data["units"]:
            assert view.side_of(unit) == data["owner"], (unit, city)
        assert data["militia"] >= 0
    # eliminated MU stay out, and once out never come back
    assert not set(after["eliminated"]) & set(places)
    assert set(before["eliminated"]) <= set(after["eliminated"])
    assert set(after["reduced"]) <= set(places)
    for s in ("empire", "republic"):
        assert view.militia_available(s) >= 0
    # arrivals happen in their phase: a MU is on the board or eliminated exactly
    # from the end of its side's first turn of the Phase printed on it
    phase, turn = before["phase"], before["turn"]
    for counter in SHEET.counters.values():
        entered = counter.arrival == 1835 or (counter.arrival, 1 if counter.side == "republic" else 2) <= (phase, turn)
        present = counter.id in places or counter.id in after["eliminated"]
        assert present == entered, (counter.id, phase, turn)
    arrived = {e["unit"] for e in events if e["type"] == "arrival"}
    assert all(SHEET.counters[u].arrival == phase for u in arrived)
    position_hash(after)  # JSON-serialisable


def check_end(final):
    outcome = RULES.outcome(final)
    assert outcome is not None and RULES.due(final) == ()
    if final["phase"] < 1845:
        assert outcome.winner and final["vp"][outcome.winner] >= 24  # 24 VP before 1845
    else:
        assert final["turn"] == 4  # the end of the 4th turn of 1845
        vp = final["vp"]
        assert outcome.winner == (None if vp["empire"] == vp["republic"] else max(vp, key=vp.get))


def run_games(seeds):
    for seed in seeds:
        final = play_game(seed, BOTS[seed % 4], OPTIONS[(seed // 4) % 4], check_turn)
        check_end(final)


def test_random_games_32_seeded_games_keep_every_invariant():
    """Each pairing of bots with each set of options, twice (seeds 0-31); the
    slow suite plays 200 games."""
    run_games(range(32))


@pytest.mark.slow
def test_random_games_200_seeded_games_keep_every_invariant():
    """Slow (about 10 s of CPU alone): the default run plays the first 32 of these
    games, every pairing of bots and set of options twice."""
    run_games(range(200))
