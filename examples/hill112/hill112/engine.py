"""Legality and resolution (RULES.md 4-8).  Pure: a position and orders in, a new
position and events out; every die from the dice stream given."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hill112.board import BOARD, SIDES
from hill112.orders import Attack, Move
from pbem.rules.base import (
    Dice,
    Event,
    Orders,
    Outcome,
    OutcomeKind,
    Position,
    Problem,
    Resolution,
    Ruleset,
    side_title,
)

SCENARIO = "july-1944"

# RULES.md 6.3: the combat results table, one row per odds column, one entry per d6 roll.
COLUMNS = ("1:2", "1:1", "2:1", "3:1")
CRT: dict[str, tuple[str, ...]] = {
    "1:2": ("AL", "AL", "AL", "NE", "NE", "EX"),
    "1:1": ("AL", "AL", "NE", "EX", "DL", "DL"),
    "2:1": ("AL", "NE", "EX", "DL", "DL", "DL"),
    "3:1": ("NE", "EX", "DL", "DL", "DL", "D2"),
}
RESULT_WORDS = {
    "AL": "the attacker loses a unit",
    "DL": "the defender loses a unit",
    "EX": "both lose a unit",
    "NE": "no effect",
    "D2": "the defender loses two units",
}


def opening_position() -> Position:
    """RULES.md 3: every unit on its starting place, turn 1, the British to move."""
    return {
        "scenario": SCENARIO,
        "turn": 1,
        "side": SIDES[0],
        "units": {uid: u.start for uid, u in sorted(BOARD.units.items())},
        "vp": {side: 0 for side in SIDES},
        "outcome": None,
    }


def enemy(side: str) -> str:
    return SIDES[1] if side == SIDES[0] else SIDES[0]


def holder(position: Position, place: str) -> str | None:
    """The side with units in ``place``, or ``None`` (RULES.md 4.2: never both)."""
    for uid, where in position["units"].items():
        if where == place:
            return BOARD.units[uid].side
    return None


def units_in(position: Position, place: str) -> list[str]:
    return sorted(uid for uid, where in position["units"].items() if where == place)


def odds_column(attack: int, defence: int) -> str:
    """RULES.md 6.2.

    >>> odds_column(2, 3), odds_column(4, 4), odds_column(5, 2), odds_column(9, 3)
    ('1:2', '1:1', '2:1', '3:1')
    """
    if attack < defence:
        return "1:2"
    if attack < 2 * defence:
        return "1:1"
    if attack < 3 * defence:
        return "2:1"
    return "3:1"


def defence_of(position: Position, place: str) -> int:
    total = sum(BOARD.units[u].strength for u in units_in(position, place))
    return total + (BOARD.hill_bonus if BOARD.places[place].hill and total else 0)


def attack_of(units: tuple[str, ...]) -> int:
    return sum(BOARD.units[u].strength for u in units)


def validate_orders(position: Position, side: str, orders: Orders) -> list[Problem]:
    """Every reason ``orders`` are not allowed for ``side`` now (RULES.md 4, 6.1)."""
    problems: list[Problem] = []
    if position.get("outcome") is not None:
        return [Problem(0, "the game is over")] if len(orders) else []
    if side != position["side"]:
        return [Problem(0, f"not your turn: the {side_title(position['side'])} move now")] if len(orders) else []
    units = position["units"]
    used: dict[str, int] = {}
    after = dict(units)
    targets: dict[str, int] = {}
    move_lines: dict[str, int] = {}
    for line in orders:
        order = line.order
        for uid in order.units:
            if uid not in units or BOARD.units[uid].side != side:
                mine = " ".join(u for u in units if BOARD.units[u].side == side)
                problems.append(
                    Problem(line.line, f"{uid} is not a unit of the {side_title(side)} on the map (yours: {mine})")
                )
            elif uid in used:
                problems.append(
                    Problem(line.line, f"{uid} already has an order on line {used[uid]} (one order per unit)")
                )
            else:
                used[uid] = line.line
        if isinstance(order, Move):
            if order.to not in BOARD.places:
                problems.append(Problem(line.line, f"no place {order.to!r} (places: {' '.join(BOARD.places)})"))
                continue
            if holder(position, order.to) == enemy(side):
                problems.append(Problem(line.line, f"{order.to} is held by the enemy: attack it instead"))
            for uid in order.units:
                if uid in units and not BOARD.linked(units[uid], order.to):
                    problems.append(
                        Problem(
                            line.line,
                            f"{uid} in {units[uid]} has no road to {order.to} (roads to: "
                            f"{' '.join(sorted(BOARD.links[units[uid]]))})",
                        )
                    )
                after[uid] = order.to
            move_lines[order.to] = line.line
        elif isinstance(order, Attack):
            if order.target not in BOARD.places:
                problems.append(Problem(line.line, f"no place {order.target!r} (places: {' '.join(BOARD.places)})"))
                continue
            if holder(position, order.target) != enemy(side):
                problems.append(Problem(line.line, f"{order.target} holds no enemy unit to attack"))
            if order.target in targets:
                problems.append(
                    Problem(
                        line.line,
                        f"{order.target} is already attacked on line {targets[order.target]} (one attack per place)",
                    )
                )
            targets[order.target] = line.line
            if len(order.units) > BOARD.stacking:
                problems.append(Problem(line.line, f"at most {BOARD.stacking} units attack together"))
            for uid in order.units:
                if uid in units and not BOARD.linked(units[uid], order.target):
                    problems.append(Problem(line.line, f"{uid} in {units[uid]} has no road to {order.target}"))
    for place, line_no in sorted(move_lines.items()):
        count = sum(1 for where in after.values() if where == place)
        if count > BOARD.stacking:
            problems.append(Problem(line_no, f"{count} units would be in {place}: at most {BOARD.stacking}"))
    return problems


def resolve_turn(position: Position, orders: Mapping[str, Orders], dice: Dice) -> Resolution:
    """One side's turn (RULES.md 5): its moves, then its attacks in file order,
    then the end of turn (VP for the hill, the end of the game)."""
    side = position["side"]
    mine = orders.get(side, Orders())
    problems = validate_orders(position, side, mine)
    if problems:
        raise ValueError(f"orders refused: {'; '.join(map(str, problems))}")
    new = Ruleset.copy_position(position)
    units: dict[str, str] = new["units"]
    events: list[Event] = []
    turn = int(new["turn"])
    for line in mine:
        if isinstance(line.order, Move):
            for uid in line.order.units:
                events.append(
                    {
                        "type": "move",
                        "side": side,
                        "unit": uid,
                        "from": units[uid],
                        "to": line.order.to,
                        "text": f"{uid} moves from {BOARD.places[units[uid]].title} to "
                        f"{BOARD.places[line.order.to].title}.",
                    }
                )
                units[uid] = line.order.to
    for line in mine:
        if isinstance(line.order, Attack):
            events.extend(_battle(new, side, line.order, dice, turn))
    if not len(mine):
        events.append({"type": "hold", "side": side, "text": f"The {side_title(side)} hold their ground."})
    _end_of_turn(new, events)
    return Resolution(new, events)


def _lose(units: dict[str, str], among: list[str], how_many: int) -> list[str]:
    """RULES.md 6.4: the weakest units go first (then by id)."""
    gone = sorted((u for u in among if u in units), key=lambda u: (BOARD.units[u].strength, u))[:how_many]
    for uid in gone:
        del units[uid]
    return gone


def _battle(position: Position, side: str, order: Attack, dice: Dice, turn: int) -> list[Event]:
    units: dict[str, str] = position["units"]
    attackers = [u for u in order.units if u in units]
    defenders = units_in(position, order.target)
    place = BOARD.places[order.target].title
    if not attackers or not defenders:
        return []
    a, d = attack_of(tuple(attackers)), defence_of(position, order.target)
    column = odds_column(a, d)
    roll = dice.roll(6, f"attack on {place}, turn {turn}, {side_title(side)}")
    result = CRT[column][roll - 1]
    lost_a = _lose(units, attackers, 1) if result in ("AL", "EX") else []
    lost_d = _lose(units, defenders, 2 if result == "D2" else 1) if result in ("DL", "EX", "D2") else []
    advance = [u for u in attackers if u in units] if not units_in(position, order.target) else []
    for uid in advance:
        units[uid] = order.target
    text = f"Attack on {place}: {a} against {d} ({column}), die {roll}: {RESULT_WORDS[result]}"
    if lost_a or lost_d:
        text += f" ({', '.join(lost_a + lost_d)} lost)"
    if advance:
        text += f"; {' '.join(advance)} take {place}"
    return [
        {
            "type": "battle",
            "side": side,
            "place": order.target,
            "attackers": attackers,
            "defenders": defenders,
            "attack": a,
            "defence": d,
            "column": column,
            "die": roll,
            "result": result,
            "lost": lost_a + lost_d,
            "advance": advance,
            "text": text + ".",
        }
    ]


def _end_of_turn(position: Position, events: list[Event]) -> None:
    """RULES.md 5, 7 and 8: VP for the hill after the Germans' move; the game ends when
    a side has no units left or after the last turn."""
    sides_left = {BOARD.units[u].side for u in position["units"]}
    for side in SIDES:
        if side not in sides_left:
            winner = enemy(side)
            _finish(position, events, Outcome(OutcomeKind.WIN, winner, f"the {side_title(side)} have no units left"))
            return
    if position["side"] == SIDES[1]:
        held = holder(position, BOARD.hill)
        if held:
            position["vp"][held] += 1
            events.append(
                {
                    "type": "vp",
                    "side": held,
                    "vp": dict(position["vp"]),
                    "text": f"The {side_title(held)} hold Hill 112 at the end of turn {position['turn']}: 1 VP "
                    f"({position['vp'][held]} in all).",
                }
            )
        if position["turn"] >= BOARD.turns:
            vp = position["vp"]
            score = f"{vp[SIDES[0]]} VP against {vp[SIDES[1]]} after turn {BOARD.turns}"
            if vp[SIDES[0]] == vp[SIDES[1]]:
                _finish(position, events, Outcome(OutcomeKind.DRAW, None, f"equal VP ({score})"))
            else:
                winner = max(SIDES, key=lambda s: vp[s])
                _finish(position, events, Outcome(OutcomeKind.WIN, winner, score))
            return
        position["turn"] += 1
    position["side"] = enemy(position["side"])


def _finish(position: Position, events: list[Event], outcome: Outcome) -> None:
    position["outcome"] = outcome.to_json()
    events.append(
        {
            "type": "game_end",
            **outcome.to_json(),
            "text": outcome.in_words(side_title(outcome.winner) if outcome.winner else None, plural=True) + ".",
        }
    )


def legal_targets(position: Position, side: str, uid: str) -> tuple[list[str], list[str]]:
    """Where a unit may move, and which places it may attack (before other orders)."""
    here = position["units"][uid]
    moves, attacks = [], []
    for place in sorted(BOARD.links[here]):
        held = holder(position, place)
        if held == enemy(side):
            attacks.append(place)
        else:
            moves.append(place)
    return moves, attacks


def case_position(data: Mapping[str, Any]) -> Position:
    """A position from a rule case's compact form (RULES.md 11): ``turn``, ``side``,
    ``units`` (unit -> place; units not named are eliminated) and ``vp``."""
    position = opening_position()
    position["turn"] = int(data.get("turn", 1))
    position["side"] = str(data.get("side", SIDES[0]))
    if "units" in data:
        unknown = [u for u in data["units"] if u not in BOARD.units]
        if unknown:
            raise ValueError(f"unknown units {unknown}")
        position["units"] = {u: str(p) for u, p in sorted(data["units"].items())}
    position["vp"].update({k: int(v) for k, v in dict(data.get("vp", {})).items()})
    return position


def case_form(position: Position) -> dict[str, Any]:
    return {
        "turn": position["turn"],
        "side": position["side"],
        "units": dict(position["units"]),
        "vp": dict(position["vp"]),
    }
