"""Battles (rulebook, "Battles" and "Battle Table").

Each round: the attackers' AF are summed; the defenders' DF are summed, with the
Militia's DF and the city's VP as extra defence (none under siege, advanced rule);
each player rolls 1D6; the Battle Table gives each an index; the higher index wins
and the loser loses one step; a tie costs both sides a step.  A full MU flips to its
reduced face, a reduced MU or a Militia is eliminated.  The attacker fights on or
stops by the standing decision in his order; the defender cannot quit.

Only the die-1 row of the table is printed.  The other rows are designed data
(``data/battle-table.toml``: ``index = value(die 1) + die - 1``), which gives both
printed examples; a game may play a house table instead (``rules/farrapos/tables.py``):

>>> battle_index(13, 3)   # Republic: AF 13 and 1D6 is 3 give 6
6
>>> battle_index(10, 5)   # Empire: DF 10 and 1D6 is 5 give 7
7
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pbem.rules.base import Dice, Event
from pbem.rules.farrapos.board import Board
from pbem.rules.farrapos.counters import SIDE_NAMES
from pbem.rules.farrapos.orders import MILITIA, Attack, Persistence
from pbem.rules.farrapos.position import Position, View, enemy, occupied_entry, own_cities, sort_units
from pbem.rules.farrapos.tables import BattleTable, battle_table, shipped_battle_table


def column_value(strength: int) -> int:
    """The printed die-1 value of the column holding ``strength`` (columns 1..10,
    11-15, 16-20, 21-25, +25)."""
    return shipped_battle_table().index(strength, 1)


def battle_index(strength: int, die: int, table: BattleTable | None = None) -> int:
    """The index ``strength`` and ``die`` give on ``table`` (the shipped one by default)."""
    return (table or shipped_battle_table()).index(strength, die)


def under_siege(view: View, city: str, attacker: str) -> bool:
    """Advanced rule: every city linked to ``city`` is held by the attacker."""
    if "siege" not in view.options:
        return False
    return all(view.controller(n) == attacker for n in view.board.neighbours(city))


@dataclass
class _Losses:
    """A loss list consumed one entry per step lost; then the default."""

    order: list[str]
    used: int = 0
    taken: list[dict[str, Any]] = field(default_factory=list)


def _flip_cost(view: View, unit: str, attack: bool) -> int:
    c = view.sheet.counters[unit]
    if attack:
        return c.type.full.af - c.type.reduced.af
    return c.type.full.df - c.type.reduced.df


def _default_victim(view: View, units: list[str], militia: int, attack: bool) -> str:
    """Documented default: flip the full MU whose flip costs least (AF for the
    attacker, DF for the defender); then (defender) a Militia; then eliminate the
    reduced MU with the least AF/DF.  Ties go to the first MU in id order (as
    ``sort_units`` lists them), never to the order the attack order named them in."""
    in_id_order = sort_units(list(units))
    full = [u for u in in_id_order if u not in view.reduced]
    if full:
        return min(full, key=lambda u: _flip_cost(view, u, attack))
    if militia > 0:
        return MILITIA
    return min(in_id_order, key=lambda u: view.factors(u).af if attack else view.factors(u).df)


def _lose_step(
    work: Position, view: View, side: str, city: str, units: list[str], losses: _Losses, attacking: bool
) -> dict[str, Any]:
    militia = 0 if attacking else int(work["cities"][city]["militia"])
    victim = None
    while losses.used < len(losses.order):
        entry = losses.order[losses.used]
        losses.used += 1
        if (entry == MILITIA and militia > 0) or entry in units:
            victim = entry
            break
    if victim is None:
        victim = _default_victim(view, units, militia, attack=attacking)
    if victim == MILITIA:
        work["cities"][city]["militia"] = militia - 1
        lost = work.setdefault("militia_lost", {"empire": 0, "republic": 0})
        lost[side] = int(lost.get(side, 0)) + 1
        record = {"side": side, "counter": MILITIA, "result": "eliminated"}
    elif victim in view.reduced:
        view.reduced.discard(victim)
        work["reduced"] = sort_units([u for u in work["reduced"] if u != victim])
        work["cities"][city]["units"] = [u for u in work["cities"][city]["units"] if u != victim]
        work["eliminated"] = sort_units([*work["eliminated"], victim])
        units.remove(victim)
        record = {"side": side, "counter": victim, "result": "eliminated"}
    else:
        view.reduced.add(victim)
        work["reduced"] = sort_units([*work["reduced"], victim])
        record = {"side": side, "counter": victim, "result": "reduced"}
    losses.taken.append(record)
    return record


def _loss_text(record: dict[str, Any]) -> str:
    what = "a Militia" if record["counter"] == MILITIA else record["counter"]
    return f"{what} {'is eliminated' if record['result'] == 'eliminated' else 'flips to its reduced face'}"


def _round_event(
    name: str,
    side: str,
    defender: str,
    target: str,
    origin: str,
    round_no: int,
    siege: bool,
    extra: int,
    a: tuple[int, int, int],
    d: tuple[int, int, int],
    records: list[dict[str, Any]],
) -> Event:
    """The ``battle_round`` event of one round ("Battles"): ``a`` and ``d`` are
    (strength, die, index) of the attacker and the defender."""
    a_strength, a_die, a_index = a
    d_strength, d_die, d_index = d
    winner = side if a_index > d_index else defender if d_index > a_index else "tie"
    verdict = "a tie: both sides lose a step" if winner == "tie" else f"the {SIDE_NAMES[winner]} wins the round"
    siege_text = " (under siege: no extra defence)" if siege else f" (with {extra} extra defence for the city's VP)"
    return {
        "type": "battle_round",
        "text": (
            f"Battle of {name}, round {round_no}: {SIDE_NAMES[side]} AF {a_strength} and die {a_die} give "
            f"{a_index}; {SIDE_NAMES[defender]} DF {d_strength}{siege_text} and die {d_die} give {d_index}; "
            f"{verdict}; " + ", ".join(_loss_text(r) for r in records) + "."
        ),
        "city": target,
        "origin": origin,
        "round": round_no,
        "attacker": side,
        "defender": defender,
        "attack_strength": a_strength,
        "defence_strength": d_strength,
        "extra_defence": extra,
        "siege": siege,
        "attacker_die": a_die,
        "defender_die": d_die,
        "attacker_index": a_index,
        "defender_index": d_index,
        "winner": winner,
        "losses": records,
    }


def _battle_result(
    work: Position, board: Board, side: str, defender: str, attack: Attack, attackers: list[str], taken: bool
) -> tuple[list[str], str, str | None]:
    """After the last round ("Battles"): the attacker takes the city if he won it
    (and moves in his occupants), else the defender holds it.  Returns the
    occupants, the result's words and the winner (None: both wiped out)."""
    name = board.name(attack.target)
    occupants: list[str] = []
    if taken:
        wanted = attackers if attack.occupy is None else [u for u in attack.occupy if u in attackers]
        if attack.occupy and not wanted:
            wanted = attackers  # every listed occupant fell: the survivors move in
        occupants = sort_units(wanted)
        work["cities"][attack.origin]["units"] = [
            u for u in work["cities"][attack.origin]["units"] if u not in occupants
        ]
        work["cities"][attack.target]["units"] = occupants
        work["cities"][attack.target]["owner"] = side
        result = f"the {SIDE_NAMES[side]} takes {name}" + (
            f" and moves in {', '.join(occupants)}" if occupants else ", moving no MU in (the city is empty)"
        )
        winner_side: str | None = side
    elif not attackers and not occupied_entry(work["cities"][attack.target]):
        result = f"both sides are wiped out; {name} stays the {SIDE_NAMES[defender]}'s but is empty"
        winner_side = None
    elif not attackers:
        result = f"every attacking MU is lost; the {SIDE_NAMES[defender]} holds {name}"
        winner_side = defender
    else:
        result = (
            f"the {SIDE_NAMES[side]} stops the attack and keeps his MU in {board.name(attack.origin)}; the "
            f"{SIDE_NAMES[defender]} holds {name}"
        )
        winner_side = defender
    return occupants, result, winner_side


def fight(work: Position, side: str, attack: Attack, dice: Dice, start: View | None = None) -> list[Event]:
    """Resolve ``attack`` by ``side`` on the working position ``work`` (mutated);
    ``start``, a View of the position the turn began with, lends its board and
    counter sheet (the turn changes neither)."""
    view = View(work) if start is None else View(work, start.board, start.sheet)
    board = view.board
    defender = enemy(side)
    target, origin = attack.target, attack.origin
    own_cities(work, target, origin)  # the two cities a battle changes: the working copy's own entries
    name = board.name(target)
    present = work["cities"][origin]["units"]  # not the View's map of every MU: a MU is in one city
    attackers = [u for u in attack.units if u in present]
    standing = work.get("standing", {}).get(defender, {})
    defender_losses = _Losses(list(standing.get(target, standing.get("*", []))))
    attacker_losses = _Losses(list(attack.losses))
    siege = under_siege(view, target, side)
    table = battle_table(work)
    extra = 0 if siege else board.cities[target].vp
    events: list[Event] = []
    round_no = 0
    steps_lost = 0
    taken = False
    while True:
        round_no += 1
        defenders = list(work["cities"][target]["units"])
        militia = int(work["cities"][target]["militia"])
        a_strength = view.strength(attackers, attack=True)
        d_strength = view.strength(defenders, attack=False) + militia * view.sheet.militia_df + extra
        purpose = f"battle of {name}, round {round_no}"
        a_die = dice.roll(6, f"{purpose}, attacker ({SIDE_NAMES[side]})")
        d_die = dice.roll(6, f"{purpose}, defender ({SIDE_NAMES[defender]})")
        a_index, d_index = battle_index(a_strength, a_die, table), battle_index(d_strength, d_die, table)
        records = []
        if a_index >= d_index:
            records.append(_lose_step(work, view, defender, target, defenders, defender_losses, attacking=False))
        if d_index >= a_index:
            records.append(_lose_step(work, view, side, origin, attackers, attacker_losses, attacking=True))
            steps_lost += 1
        events.append(
            _round_event(
                name,
                side,
                defender,
                target,
                origin,
                round_no,
                siege,
                extra,
                (a_strength, a_die, a_index),
                (d_strength, d_die, d_index),
                records,
            )
        )
        if not occupied_entry(work["cities"][target]):  # no defender left
            taken = bool(attackers)
            break
        if not attackers:
            break
        decision = attack.decision
        if decision.kind is Persistence.ROUNDS and round_no >= decision.n:
            break
        if decision.kind is Persistence.STOP_AFTER and steps_lost >= decision.n:
            break
    occupants, result, winner_side = _battle_result(work, board, side, defender, attack, attackers, taken)
    events.append(
        {
            "type": "battle",
            "text": f"Battle of {name} ({round_no} round{'s' if round_no > 1 else ''}): {result}.",
            "city": target,
            "origin": origin,
            "attacker": side,
            "defender": defender,
            "rounds": round_no,
            "winner": winner_side,
            "taken": taken,
            "occupants": occupants,
        }
    )
    return events
