"""Section 7: movement (with the ZOC rules of section 8 and optional rule 10.1).

One unit at a time, along a path given hex by hex.  ``check_move`` is the one
source of legality, shared by the order checker, the resolver and the bots.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from pbem.rules.furor_barbarus.battlefield import ACTIVE, Battlefield
from pbem.rules.furor_barbarus.maps import GameMap
from pbem.rules.furor_barbarus.morale import zoc_to_zoc_test
from pbem.rules.furor_barbarus.stacking import stacking_problem
from pbem.rules.furor_barbarus.terrain import (
    FORD_CROSSING_HALF,
    MOVE_COST_HALF,
    ROAD_COST_HALF,
    ROAD_TERRAIN,
    STREAM_EXTRA_HALF,
    Crossing,
    Feature,
)
from pbem.rules.furor_barbarus.zones_of_control import enemy_zoc, zone_and_index
from pbem.rules.suggest import did_you_mean, listing

ZOC_TO_ZOC = "zoc-to-zoc"


class MoveCheck(NamedTuple):
    """What ``check_move`` says of a move (a named tuple: made for every move at
    submit and again at resolve, where a frozen dataclass's six ``object.__setattr__``
    calls cost more than the walk of a short path)."""

    problem: str | None = None
    step: int = 0  # 1-based step of the problem (0: the unit itself)
    zoc_tests: tuple[int, ...] = ()  # steps needing the morale test of optional 10.1
    overruns: tuple[tuple[int, str], ...] = ()  # (step, lone enemy commander passed through)
    spent_half: int = 0
    stops: bool = False  # the unit may go no further (ZOC entered, minimum move)

    @property
    def legal(self) -> bool:
        return self.problem is None


def step_cost_half(field: Battlefield, a: str, b: str, on_road: bool) -> int | None:
    """Half-MPs to move from ``a`` into adjacent ``b`` (None: impassable).
    ``on_road``: the unit began its move on a road hex and has stayed on road.
    Read from the map's :data:`StepFacts` (worked out once per map); on a map whose
    own terrain is a road (none ships) it is worked out at each step."""
    gm = field.game_map
    _neighbours, enter, default, road, crossed = gm.__dict__.get("_step_facts") or step_facts(gm)
    if not default:  # no facts for this map (``_facts_of``)
        return _cost_half(gm, a, b, on_road)
    across = crossed.get(a)
    if across is not None and b in across:
        return across[b][on_road]
    return ROAD_COST_HALF if on_road and b in road else enter.get(b, default)


StepFacts = tuple[
    dict[str, frozenset[str]],  # hex -> its on-map neighbours (``GameMap.neighbour_set``'s table)
    dict[str, int],  # hex of another terrain than the map's default -> half-MPs to enter it
    int,  # half-MPs to enter a hex of the map's default terrain
    frozenset[str],  # the hexes of a road terrain
    dict[str, dict[str, tuple[int | None, int | None]]],  # hex -> next hex across a hexside -> off road, on road
]
"""What a plain step's cost is read from, per map (worked out once per map from its
few hexes of other terrain and its few hexsides, not per hex): a step into an
adjacent ``b`` across no hexside costs ``enter.get(b, default)`` half-MPs, or
``ROAD_COST_HALF`` from a road hex into a road hex by a unit still on road (as
``_cost_half`` says: ``tests/test_costs_furor_campus.py`` compares the two on every
map); a step across a hexside costs ``crossed[a][b][on_road]``, worked out by
``_cost_half`` for each of the map's hexsides.  A plain tuple (a named tuple's class
is made from source at import, some 2 M instructions in every process).  A hex not
in the neighbours' table (a map not ``prepared``) leaves its steps to ``_step``."""


def step_facts(gm: GameMap) -> StepFacts:
    """The map's :data:`StepFacts`, worked out once per map (kept on it, as its other tables)."""
    facts: StepFacts | None = gm.__dict__.get("_step_facts")
    if facts is None:
        facts = gm.__dict__["_step_facts"] = _facts_of(gm)
    return facts


def _facts_of(gm: GameMap) -> StepFacts:
    if gm.default_terrain in ROAD_TERRAIN:  # no shipped map: every step is left to ``_step``, worked out there
        return ({}, {}, 0, frozenset(), {})
    terrain_of = gm.terrain_of
    enter = {h: MOVE_COST_HALF[t] for h, t in terrain_of.items()}
    road = frozenset(h for h, t in terrain_of.items() if t in ROAD_TERRAIN)  # any other hex is of the default terrain
    crossed: dict[str, dict[str, tuple[int | None, int | None]]] = {}
    for a, b in gm.hexsides:  # off road, on road (``crossed[a][b][on_road]``)
        crossed.setdefault(a, {})[b] = (_cost_half(gm, a, b, False), _cost_half(gm, a, b, True))
        crossed.setdefault(b, {})[a] = (_cost_half(gm, b, a, False), _cost_half(gm, b, a, True))
    neighbours: dict[str, frozenset[str]] = gm.__dict__.setdefault("_neighbour_set", {})
    return (neighbours, enter, MOVE_COST_HALF[gm.default_terrain], road, crossed)


def _cost_half(gm: GameMap, a: str, b: str, on_road: bool) -> int | None:
    terrain = gm.terrain(b)
    side = gm.hexside(a, b)
    cost = MOVE_COST_HALF[terrain]
    if on_road and terrain in ROAD_TERRAIN and gm.terrain(a) in ROAD_TERRAIN and (side is None or side.bridged):
        cost = ROAD_COST_HALF
    if side is not None:
        if side.feature is Feature.RIVER and side.crossing is None:
            return None
        if side.crossing is Crossing.FORD:
            cost = max(cost, FORD_CROSSING_HALF)
        elif side.feature is Feature.STREAM and not side.bridged:
            cost += STREAM_EXTRA_HALF
    return cost


class _Walk(NamedTuple):
    """A move in progress: where the unit is after ``step`` steps."""

    here: str
    step: int = 0
    spent: int = 0
    on_road: bool = False
    stopped: str | None = None
    zoc_tests: tuple[int, ...] = ()
    overruns: tuple[tuple[int, str], ...] = ()


def _unit_problem(field: Battlefield, uid: str, side: str) -> str | None:
    if uid not in field.units:
        movable = sorted(u for u in field.on_map(side) if u not in field.moved and field.counter(u).mp > 0)
        return f"unknown unit {uid!r}; your units that may move are: {listing(movable)}{did_you_mean(uid, movable)}"
    if not field.exists(uid):
        return f"{uid} is not on the map"
    if field.side_of(uid) != side:
        return f"{uid} is not a unit of {side}"
    if uid in field.moved:
        return f"{uid} has already moved this phase: each unit finishes its move before another moves (7)"
    if field.counter(uid).mp <= 0:
        return f"{uid} has no movement points"
    return None


def _step(
    field: Battlefield, uid: str, side: str, walk: _Walk, nxt: str, zoc: frozenset[str] | None = None
) -> _Walk | str:
    """One more hex: the new walk, or the reason it is illegal (7, 8, TEC).
    ``zoc``: the hexes in an enemy zone of control of ``side`` (looked up if not given)."""
    i = walk.step + 1
    here = walk.here
    if walk.stopped:
        return f"step {i} to {nxt}: {uid} {walk.stopped}"
    gm = field.game_map
    if nxt not in gm.neighbour_set(here):  # the on-map hexes adjacent to ``here``
        if not gm.on_map(nxt):
            return f"step {i} to {nxt}: off the map"
        return f"step {i} to {nxt}: not adjacent to {here}"
    overruns = walk.overruns
    occupants = field.units_in(nxt)
    if occupants:
        hostile = [u for u in occupants if field.side_of(u) != side]
        if hostile:
            lone_enemy_commander = (
                len(occupants) == 1
                and field.counter(hostile[0]).is_commander
                and field.enemies(side, field.side_of(hostile[0]))
            )
            if not lone_enemy_commander:
                return (
                    f"step {i} to {nxt}: {nxt} is occupied by {hostile[0]}; a unit never enters another side's hex (5)"
                )
            overruns = overruns + ((i, hostile[0]),)
    cost = step_cost_half(field, here, nxt, walk.on_road)
    if cost is None:
        return f"step {i} to {nxt}: the river between {here} and {nxt} has no bridge or ford (TEC: impassable)"
    stopped = None
    allowance = 2 * field.counter(uid).mp
    if walk.spent + cost > allowance:
        if i == 1:
            stopped = "has used its one-hex minimum move (7)"
        else:
            left = (allowance - walk.spent) / 2
            return f"step {i} to {nxt}: costs {cost / 2:g} MP but {uid} has {left:g} MP left (7)"
    zoc_tests = walk.zoc_tests
    if zoc is None:
        zoc = enemy_zoc(field, side)
    to_zoc = nxt in zoc
    if to_zoc and here in zoc:
        if ZOC_TO_ZOC not in field.options:
            return f"step {i} to {nxt}: {uid} may not pass directly from one enemy zone of control to another (8)"
        zoc_tests = zoc_tests + (i,)
    if to_zoc and not stopped:
        stopped = _zoc_stop(nxt)
    return _Walk(nxt, i, walk.spent + cost, walk.on_road and cost == ROAD_COST_HALF, stopped, zoc_tests, overruns)


def _zoc_stop(h: str) -> str:
    return f"stopped on entering an enemy zone of control at {h} (8)"


def _begin(field: Battlefield, uid: str) -> _Walk:
    start = field.hex_of(uid)
    assert start is not None
    return _Walk(start, on_road=field.game_map.terrain(start) in ROAD_TERRAIN)


def _plain_steps(
    field: Battlefield,
    here: str,
    allowance: int,
    side: str,
    path: Sequence[str],
    zoc: frozenset[str],
    where: dict[str, list[str]],
) -> tuple[str, int, int, bool, bool]:
    """How far ``_step`` would take the leading steps of ``path`` as they are: into an
    adjacent hex empty or held by its own side, within the movement allowance, not
    from one enemy zone of control (``zoc``) to another (entering one stops the walk
    there, as in ``_step``).  A step's cost is read from the map's :data:`StepFacts`,
    without a ``_Walk`` per step
    and without working out a cost per hex and next hex: a fresh process met some
    forty steps a resolution whose cost it had not worked out yet.  The first step
    that is anything else is left to ``_step``, which says why it is illegal, stops
    the unit or counts a test or an overrun.  Returns the hex reached, the steps
    taken, the half-MPs spent, whether the unit is still on road and whether it
    stopped in an enemy zone.  ``here``: the unit's hex; ``allowance``: its
    movement allowance in half-MPs."""
    units = field.units
    gm = field.game_map
    neighbours, enter, default, road, crossed = gm.__dict__.get("_step_facts") or step_facts(gm)
    on_road = here in road
    spent = 0
    for step, nxt in enumerate(path):  # ``step``: the steps taken before this one
        if nxt not in neighbours.get(here, ()):
            break
        if here in crossed and nxt in crossed[here]:  # (few hexes have a hexside: one look-up for the rest)
            cost = crossed[here][nxt][on_road]
            if cost is None:
                break
        elif on_road and nxt in road:  # from a road hex (``on_road``) into a road hex
            cost = ROAD_COST_HALF
        else:
            cost = enter.get(nxt, default)
        if spent + cost > allowance:
            break
        if nxt in where:  # (most hexes of a path are empty: one look-up for them)
            hostile = False
            for u in where[nxt]:
                if units[u]["side"] != side:
                    hostile = True
            if hostile:
                break
        if nxt in zoc:
            if here in zoc:
                break
            return nxt, step + 1, spent + cost, on_road and cost == ROAD_COST_HALF, True
        spent += cost
        if on_road and cost != ROAD_COST_HALF:
            on_road = False
        here = nxt
    else:
        return here, len(path), spent, on_road, False
    return here, step, spent, on_road, False


def check_move(field: Battlefield, uid: str, path: Sequence[str], side: str, final: bool = True) -> MoveCheck:
    """Is moving ``uid`` along ``path`` (hexes after its current one) legal now?
    ``final=False`` skips the end-of-move stacking check (paths in progress)."""
    entry = field.units.get(uid)  # _may_move, without the call
    if (
        entry is None
        or entry["status"] != ACTIVE
        or entry["hex"] is None
        or entry["side"] != side
        or uid in field.moved
        or (mp := field.scenario.counters[uid].mp) <= 0
    ):
        problem = _unit_problem(field, uid, side)
        if problem:
            return MoveCheck(problem)
        assert entry is not None  # _unit_problem says what is wrong with a unit that may not move
        mp = field.scenario.counters[uid].mp
    if not path:
        return MoveCheck(f"a move of {uid} needs at least one hex")
    # nothing moves while a path is checked: the enemy zone (enemy_zoc) and the hex index, looked up once
    zoc = field._cache.get(("zoc", side))
    where = field._where
    if zoc is None or where is None:
        if zoc is None and where is None:  # the battlefield's first check: both in one pass over the units
            zoc, where = zone_and_index(field, side)
        else:
            zoc = enemy_zoc(field, side) if zoc is None else zoc
            where = field.occupied() if where is None else where
    here, step, spent, on_road, stopped = _plain_steps(field, entry["hex"], 2 * mp, side, path, zoc, where)
    if step < len(path):  # a step the tables do not settle: walked by _step
        walk = _Walk(here, step, spent, on_road, _zoc_stop(here) if stopped else None)
        for nxt in path[step:]:
            result = _step(field, uid, side, walk, nxt, zoc)
            if isinstance(result, str):
                return MoveCheck(result, walk.step + 1)
            walk = result
        here, spent, stopped = walk.here, walk.spent, walk.stopped is not None
        zoc_tests, overruns = walk.zoc_tests, walk.overruns
    else:
        zoc_tests = overruns = ()
    # a last hex that holds no unit has nothing to object (stacking_problem's first test)
    problem = stacking_problem(field, uid, here, side) if final and here in where else None
    if problem:
        return MoveCheck(f"{uid} may not end its move in {here}: {problem}", len(path))
    return _tuple_new(MoveCheck, (None, 0, zoc_tests, overruns, spent, stopped))  # MoveCheck(...), without its __new__


_tuple_new = tuple.__new__  # what a named tuple's ``__new__`` calls with its fields, all of them given


def apply_move(field: Battlefield, uid: str, path: Sequence[str], checked: MoveCheck | None = None) -> MoveCheck:
    """Carry out a move already found legal; rolls the 10.1 morale tests.
    ``checked``: what ``check_move`` said of this very move just before (not
    worked out a second time).

    A scenario's ``before_move`` may change the path (impetuousness); the path
    it returns is checked again with ``check_move``, so that the ZOC stops, the
    10.1 tests and the overruns are those of the path actually followed.  An
    empty or illegal new path leaves the unit where it is (it has moved)."""
    entry = field.units[uid]
    side = str(entry["side"])
    check = checked if checked is not None else check_move(field, uid, path, side)
    if check.problem is not None:
        return check
    wanted = tuple(path)
    path = tuple(field.special.before_move(field, uid, wanted))
    if path != wanted:
        if not field.exists(uid):
            return check
        if not path:
            field.moved.add(uid)
            field.paths[uid] = [field.hex_of(uid) or ""]
            return MoveCheck(None, 0)
        check = check_move(field, uid, path, side)
        if not check.legal:
            field.add_event(
                "skip",
                f"{field.counter(uid).name} ({uid}) stays in {field.hex_of(uid)}: the move "
                f"{' '.join(path)} set by the special rules is illegal: {check.problem}.",
                unit=uid,
                reason=check.problem,
            )
            field.moved.add(uid)
            field.paths[uid] = [field.hex_of(uid) or ""]
            return check
    start = entry["hex"] if entry["status"] == ACTIVE else None
    if path and start is not None and not check.zoc_tests and not check.overruns:
        # _followed's plain move (placed once, in its last hex) and the lines below, without their calls
        field.place(uid, path[-1])
        field.moved.add(uid)
        field.paths[uid] = [start, *path]
        _move_event(field, uid, side, [start, *path])
        return check
    followed = _followed(field, uid, path, check)
    field.moved.add(uid)
    field.paths[uid] = [h for h in followed if h is not None]
    if len(followed) > 1:
        _move_event(field, uid, side, [h for h in followed if h])
    return check


def _move_event(field: Battlefield, uid: str, side: str, shown: list[str]) -> None:
    """The event of ``uid``'s move along ``shown`` (its start hex, then each hex entered)."""
    text = f"{field.scenario.counters[uid].name} ({uid}) moves {' '.join(shown)}."
    field.events.append({"type": "move", "text": text, "unit": uid, "side": side, "path": shown})


def _followed(field: Battlefield, uid: str, path: tuple[str, ...], check: MoveCheck) -> list[str | None]:
    """Move ``uid`` along ``path`` (legal, as ``check`` says): its start hex and the
    hexes it entered.  With no 10.1 test and no overrun on the way nothing can stop
    it or happen before it arrives, and it is placed once, in the last hex."""
    start = field.hex_of(uid)
    if path and start is not None and not check.zoc_tests and not check.overruns:
        field.place(uid, path[-1])
        return [start, *path]
    followed = [start]
    overruns = dict(check.overruns)
    for i, nxt in enumerate(path, start=1):
        if not field.exists(uid):
            break
        if i in check.zoc_tests:
            if not zoc_to_zoc_test(field, uid, nxt):
                break
        if i in overruns and field.exists(overruns[i]):
            field.eliminate(overruns[i], f"alone in {nxt} when {uid} passed through (6)")
        field.place(uid, nxt)
        followed.append(nxt)
    return followed


def reachable(field: Battlefield, uid: str) -> dict[str, tuple[str, ...]]:
    """Every hex ``uid`` may legally end a move in, with one path to it (bots);
    built from the same ``_step`` as ``check_move``."""
    side = field.side_of(uid)
    if _unit_problem(field, uid, side):
        return {}
    start = _begin(field, uid)
    zoc = enemy_zoc(field, side)
    out: dict[str, tuple[str, ...]] = {}
    best: dict[str, int] = {start.here: 0}
    frontier: list[tuple[_Walk, tuple[str, ...]]] = [(start, ())]
    while frontier:
        new: list[tuple[_Walk, tuple[str, ...]]] = []
        for walk, path in frontier:
            for n in field.game_map.neighbours(walk.here):
                if n == start.here or n in path:
                    continue
                result = _step(field, uid, side, walk, n, zoc)
                if isinstance(result, str):
                    continue
                cand = path + (n,)
                if n not in out and not result.overruns and stacking_problem(field, uid, n, side) is None:
                    out[n] = cand
                if result.stopped or result.overruns or result.spent >= best.get(n, 10**6):
                    continue
                best[n] = result.spent
                new.append((result, cand))
        frontier = new
    return out
