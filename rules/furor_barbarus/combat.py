"""Sections 9.1, 9.5, 9.6 and 9.7: combat, its odds, terrain and results.

``attack_problems`` is the one source of attack legality (checker, resolver,
bots); ``resolve_attack`` rolls and applies one combat.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from dataclasses import field as dc_field
from pathlib import Path
from typing import Any

from pbem.rules import data_cache
from pbem.rules.furor_barbarus.advance import advance_after_combat
from pbem.rules.furor_barbarus.baggage import BAGGAGE_DEFENCE, baggage_bonus, defends_alone
from pbem.rules.furor_barbarus.battlefield import Battlefield
from pbem.rules.furor_barbarus.charge import charge_bonus, charge_problem
from pbem.rules.furor_barbarus.hexgrid import adjacent
from pbem.rules.furor_barbarus.missile_fire import can_fire_back, fire_problem, melee_strength
from pbem.rules.furor_barbarus.morale import morale_check, retreat
from pbem.rules.furor_barbarus.terrain import COLUMN_SHIFT, DIE_MODIFIER, STREAM_DIE_MODIFIER, Feature, Terrain
from pbem.rules.suggest import did_you_mean, listing

CRT_PATH = Path(__file__).with_name("data") / "crt.toml"
COLUMNS = ("1/2", "2/3", "1/1", "3/2", "2/1", "3/1", "4/1")
ONE_TO_ONE = COLUMNS.index("1/1")


class CrtError(ValueError):
    """A combat results table that does not follow the schema."""


_EFFECT = re.compile(r"([AD])([12]?)(T?)(R?)")


@dataclass(frozen=True)
class Effect:
    steps: int = 0
    morale: bool = False
    retreat: bool = False

    def __bool__(self) -> bool:
        return bool(self.steps or self.morale or self.retreat)


@dataclass(frozen=True)
class CombatResult:
    """One CRT cell, e.g. ``D1R``: defender loses one step and retreats (9.7)."""

    text: str
    attacker: Effect = Effect()
    defender: Effect = Effect()

    @classmethod
    def parse(cls, text: str) -> CombatResult:
        t = text.strip().upper()
        if t in ("", "-"):
            return cls("-")
        att, dfn = Effect(), Effect()
        pos = 0
        while pos < len(t):
            m = _EFFECT.match(t, pos)
            if not m or m.end() == pos:
                raise CrtError(f"not a combat result: {text!r} (e.g. DR, AT, D1R, A2)")
            e = Effect(int(m.group(2) or 0), bool(m.group(3)), bool(m.group(4)))
            if m.group(1) == "A":
                att = e
            else:
                dfn = e
            pos = m.end()
        return cls(t, att, dfn)

    def __str__(self) -> str:
        return self.text


@dataclass(frozen=True)
class CombatResultsTable:
    columns: tuple[str, ...]
    rows: Mapping[int, tuple[CombatResult, ...]]
    designed_rows: tuple[int, ...] = ()
    below: int = 1
    above: int = 6

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> CombatResultsTable:
        columns = tuple(data.get("columns", COLUMNS))
        if columns != COLUMNS:
            raise CrtError(f"CRT columns must be {COLUMNS}, not {columns}")
        rows = {int(k): tuple(CombatResult.parse(x) for x in v) for k, v in data["rows"].items()}
        if sorted(rows) != [1, 2, 3, 4, 5, 6] or any(len(r) != len(columns) for r in rows.values()):
            raise CrtError("a CRT needs rows 1-6, one result per column")
        return cls(
            columns,
            rows,
            tuple(int(x) for x in data.get("designed_rows", ())),
            int(data.get("below", 1)),
            int(data.get("above", 6)),
        )

    @classmethod
    def load(cls, path: Path | str = CRT_PATH) -> CombatResultsTable:
        return cls.from_dict(data_cache.load_toml(path))

    def row_for(self, modified_die: int) -> int:
        if modified_die < 1:
            return self.below
        if modified_die > 6:
            return self.above
        return modified_die

    def result(self, modified_die: int, column: int) -> CombatResult:
        return self.rows[self.row_for(modified_die)][column]


@functools.lru_cache(maxsize=1)
def standard_crt() -> CombatResultsTable:
    return CombatResultsTable.load(CRT_PATH)


def odds_column(attack: int, defence: int) -> int:
    """Index into ``COLUMNS`` of attack:defence, rounded in the defender's favour (9.5).

    >>> [COLUMNS[odds_column(a, d)] for a, d in [(5, 2), (3, 2), (7, 5), (1, 3), (9, 1)]]
    ['2/1', '3/2', '1/1', '1/2', '4/1']
    """
    best = 0
    for i, (a, d) in enumerate(_RATIOS):
        if attack * d >= defence * a:
            best = i
    return best


_RATIOS = tuple((int(col.split("/")[0]), int(col.split("/")[1])) for col in COLUMNS)
"""Each column of ``COLUMNS`` as (attack, defence) numbers, read once (each odds
read the seven columns' text again: a generator and two ``int`` per column)."""


@dataclass
class Combat:
    """One declared combat, filled in as it is resolved (hooks may read and change it)."""

    side: str
    target_hex: str
    defender: str
    attackers: list[str]  # combat units, in order
    melee: list[str]
    ranged: list[str]
    commanders: list[str] = dc_field(default_factory=list)
    charger: str | None = None
    attack_strength: int = 0
    defence_strength: int = 0
    odds: int = 0  # column before terrain
    column: int = 0
    die_modifier: int = 0
    die: int | None = None
    result: CombatResult | None = None
    notes: list[str] = dc_field(default_factory=list)
    cancelled: bool = False

    @property
    def odds_text(self) -> str:
        return COLUMNS[self.column]


def target_of(field: Battlefield, target: str) -> str | None:
    """The hex a target token (unit id or hex id) names, if there is a unit there."""
    if target in field.units:
        return field.hex_of(target)
    if len(target) == 4 and target.isdigit():
        return target if field.units_in(target) else None
    return None


def compute_strengths(field: Battlefield, combat: Combat) -> None:
    """9.5 with 6 (commanders), 9.2 (charge), 9.3 (missile units), 9.4 (baggage), 9.6."""
    d = combat.defender
    dh = combat.target_hex
    melee_attackers = combat.melee
    att = 0
    notes: list[str] = []
    for u in combat.attackers:
        s = field.strength(u) + field.special.strength_modifier(field, u, "attack")
        if u in melee_attackers:
            s = melee_strength(field, u, s, [d])
        if u == combat.charger:
            bonus = charge_bonus(field, u, d)
            s += bonus
            notes.append(f"charge +{bonus}" if bonus else "counter charge: no charge bonus (10.2)")
        att += max(s, 0)
    for cmd in combat.commanders:
        mate = field.combat_unit_in(field.hex_of(cmd) or "")
        if mate is not None and not field.special.commander_affects(field, cmd, mate):
            notes.append(f"{cmd} adds nothing to {mate}, not one of his troops")
            continue
        att += field.strength(cmd) + field.special.strength_modifier(field, cmd, "attack")
    if defends_alone(field, dh):
        dfn = BAGGAGE_DEFENCE
    else:
        dfn = field.strength(d) + field.special.strength_modifier(field, d, "defence")
        if melee_attackers and field.counter(d).is_combat_unit:
            dfn = melee_strength(field, d, dfn, melee_attackers)
        if field.counter(d).is_combat_unit:
            leader = field.commander_in(dh)
            if leader and melee_attackers:
                if field.special.commander_affects(field, leader, d):
                    dfn += field.strength(leader) + field.special.strength_modifier(field, leader, "defence")
                else:
                    notes.append(f"{leader} adds nothing to {d}, not one of his troops")
            dfn += baggage_bonus(field, dh)
    combat.attack_strength, combat.defence_strength = att, max(dfn, 1)
    combat.odds = odds_column(combat.attack_strength, combat.defence_strength)
    combat.notes += notes


def terrain_modifiers(field: Battlefield, combat: Combat) -> None:
    """9.6: only the defender's terrain counts; modifiers add up."""
    dh = combat.target_hex
    if defends_alone(field, dh):
        combat.column = combat.odds
        combat.die_modifier = 0
        combat.notes.append("baggage: terrain never changes its strength (9.4)")
        return
    gm = field.game_map
    t = gm.terrain(dh)
    shift = COLUMN_SHIFT.get(t, 0)
    combat.column = max(0, min(len(COLUMNS) - 1, combat.odds + shift))
    if shift:
        combat.notes.append(f"{t.value} {shift:+d} column")
    mod = 0
    if t is Terrain.VILLAGE:
        mod += DIE_MODIFIER[t]
        combat.notes.append("village +1")
    if t is Terrain.BRIDGE:
        if combat.ranged:
            combat.notes.append("bridge bonus cancelled by missile fire (9.6)")
        else:
            mod += DIE_MODIFIER[t]
            combat.notes.append("bridge +1")
    streams = []
    same_side = []
    for u in combat.melee:
        side = gm.hexside(field.hex_of(u) or "", dh)
        if side is not None and side.feature is Feature.STREAM:
            streams.append(u)
        else:
            same_side.append(u)
    if streams:
        if same_side:
            combat.notes.append(f"stream bonus cancelled: {same_side[0]} attacks from the defender's side (9.6)")
        elif combat.ranged:
            combat.notes.append("stream bonus cancelled by missile fire (9.6)")
        else:
            mod += STREAM_DIE_MODIFIER
            combat.notes.append("stream +1")
    combat.die_modifier = mod


def _sort_attackers(
    field: Battlefield, side: str, th: str, attackers: Sequence[str], problems: list[str]
) -> tuple[list[str], list[str], list[str], list[str]]:
    """The named attackers of an attack on hex ``th`` (9.1-9.4), sorted into
    (combat units, commanders, hand-to-hand, at range); each one refused is
    reported in ``problems``."""
    units: list[str] = []
    commanders: list[str] = []
    melee: list[str] = []
    ranged: list[str] = []
    for u in attackers:
        if u not in field.units:
            own = sorted(v for v in field.on_map(side) if v not in field.has_attacked)
            problems.append(f"unknown unit {u!r}; your units that may attack are: {listing(own)}{did_you_mean(u, own)}")
            continue
        if not field.exists(u):
            problems.append(f"{u} is not on the map")
            continue
        if field.side_of(u) != side:
            problems.append(f"{u} is not a unit of {side}")
            continue
        if u in units or u in commanders:
            problems.append(f"{u} is named twice")
            continue
        if u in field.has_attacked:
            problems.append(f"{u} has already attacked this phase (9.1)")
            continue
        c = field.counter(u)
        if c.is_baggage:
            problems.append(f"{u}: baggage never attacks (9.4)")
            continue
        if c.is_commander:
            commanders.append(u)
            continue
        uh = field.hex_of(u)
        assert uh is not None
        if adjacent(uh, th):
            if field.game_map.impassable_between(uh, th):
                problems.append(f"{u} faces {th} across a river without bridge or ford: no hand-to-hand combat (TEC)")
                continue
            melee.append(u)
        else:
            why = fire_problem(field, u, th)
            if why:
                problems.append(why)
                continue
            ranged.append(u)
        units.append(u)
    return units, commanders, melee, ranged


def declare(
    field: Battlefield, side: str, target: str, attackers: Sequence[str], charger: str | None, strengths: bool = True
) -> tuple[list[str], Combat | None]:
    """Check an attack (9.1-9.4) and build its :class:`Combat` (strengths included).
    ``strengths=False`` (the check of a turn file, which reads none of them): the
    strengths and odds are worked out only where they decide whether the attack is
    legal (a lone missile unit hand to hand, 9.3), and are otherwise left unset."""
    problems: list[str] = []
    th = target_of(field, target)
    if th is None:
        if len(target) == 4 and target.isdigit():
            return [f"no unit at {target} to attack"], None
        enemies = sorted(u for u in field.on_map() if field.side_of(u) != side)
        return [
            f"unknown unit {target!r}; the enemy units on the map are: "
            f"{listing(enemies)}{did_you_mean(target, enemies)}"
        ], None
    defender = field.principal(th)
    assert defender is not None
    if field.side_of(defender) == side:
        return [f"{target} is your own unit"], None
    if defender in field.was_attacked:
        problems.append(f"{defender} has already been attacked this phase (9.1)")
    if not attackers:
        problems.append("an attack needs at least one attacking unit")
    units, commanders, melee, ranged = _sort_attackers(field, side, th, attackers, problems)
    for cmd in commanders:
        mate = field.combat_unit_in(field.hex_of(cmd) or "")
        if mate not in melee:
            problems.append(
                f"the commander {cmd} fights only with the unit he is stacked with, in hand-to-hand combat (6)"
            )
    for u in melee:
        leader = field.commander_in(field.hex_of(u) or "")
        if leader and leader not in commanders and leader not in field.has_attacked:
            commanders.append(leader)
    if ranged and (field.baggage_in(th) is not None):
        problems.append(f"{th} holds baggage: hand-to-hand only (9.4)")
    if charger is not None:
        if charger not in units:
            problems.append(f"the charging unit {charger} is not one of the attackers")
        elif charger not in melee:
            problems.append(f"{charger} must be adjacent to charge (9.2)")
        else:
            why = charge_problem(field, charger, th)
            if why:
                problems.append(why)
    if problems or not units:
        return problems or ["an attack needs at least one combat unit"], None
    combat = Combat(side, th, defender, units, melee, ranged, commanders, charger)
    if len(units) == 1 and melee and field.counter(units[0]).is_missile:
        compute_strengths(field, combat)
        if combat.odds <= ONE_TO_ONE:
            return [
                f"{units[0]} alone may attack hand to hand only at odds better than 1/1, not "
                f"{combat.attack_strength}:{combat.defence_strength} = {COLUMNS[combat.odds]} (9.3)"
            ], None
    elif strengths:
        compute_strengths(field, combat)
    return [], combat


def exposed_attackers(field: Battlefield, combat: Combat) -> list[str]:
    """Attackers an A result touches: not ranged firers, unless the target can fire (9.3)."""
    fire_back = can_fire_back(field, combat.defender)
    return [u for u in combat.attackers if field.exists(u) and (u in combat.melee or fire_back)]


def allocate_steps(field: Battlefield, units: list[str], steps: int, wishes: Sequence[str]) -> list[str]:
    """9.9: which unit takes each step.  The owner's list first (a unit named
    twice takes two), then by default the unit with the most steps left, then
    the strongest, then the first named."""
    left = {u: (1 if field.is_reduced(u) or field.counter(u).steps == 1 else 2) for u in units}
    out: list[str] = []
    for w in wishes:
        if len(out) == steps:
            break
        if left.get(w, 0) > 0:
            out.append(w)
            left[w] -= 1
    while len(out) < steps:
        alive = [u for u in units if left[u] > 0]
        if not alive:
            break
        u = max(alive, key=lambda x: (left[x], field.strength(x), -units.index(x)))
        out.append(u)
        left[u] -= 1
    return out


def apply_defender(field: Battlefield, combat: Combat, effect: Effect, attackers_for_retreat: list[str]) -> None:
    d = combat.defender
    c = field.counter(d)
    if c.is_baggage:
        if effect.steps:
            field.eliminate(d, "combat (9.4)")
        elif effect:
            field.add_event("baggage", f"{c.name} ({d}): R and T have no effect on baggage (9.4).", unit=d)
        return
    for _ in range(effect.steps):
        if field.lose_step(d, "combat result"):
            return
    if effect.morale and field.exists(d):
        morale_check(field, d, f"combat at {combat.target_hex}", attackers_for_retreat)
    if effect.retreat and field.exists(d) and field.hex_of(d) == combat.target_hex:
        retreat(field, d, attackers_for_retreat, cause="combat result R")


def apply_attacker(field: Battlefield, combat: Combat, effect: Effect, wishes: Sequence[str]) -> None:
    exposed = exposed_attackers(field, combat)
    if not exposed:
        if effect:
            field.add_event("combat_note", "The firing units take no result: their target cannot fire (9.3).")
        return
    if effect.steps:
        for u in allocate_steps(field, exposed, effect.steps, wishes):
            if field.exists(u):
                field.lose_step(u, "combat result")
    if effect.morale:
        for u in exposed:
            if field.exists(u):
                morale_check(field, u, f"attack on {combat.target_hex}", [combat.defender])
    if effect.retreat:
        for u in exposed:
            if field.exists(u):
                retreat(field, u, [combat.defender], cause="combat result R")


def resolve_attack(
    field: Battlefield, combat: Combat, losses: Sequence[str], advance: str | None, crt: CombatResultsTable
) -> None:
    """Roll and apply one declared combat (9.5-9.11)."""
    field.has_attacked.update(combat.attackers + combat.commanders)
    field.was_attacked.update(field.units_in(combat.target_hex))
    if field.special.on_attacked(field, combat):
        combat.cancelled = True
        field.add_event(
            "combat", f"The attack on {combat.target_hex} does not take place.", hex=combat.target_hex, cancelled=True
        )
        return
    terrain_modifiers(field, combat)
    field.special.before_combat(field, combat)
    attacker_hexes = {u: field.hex_of(u) for u in combat.attackers + combat.commanders}
    die = field.dice.roll(6, f"combat at {combat.target_hex}: {', '.join(combat.attackers)} against {combat.defender}")
    combat.die = die
    modified = die + combat.die_modifier
    result = crt.result(modified, combat.column)
    combat.result = result
    row = crt.row_for(modified)
    notes = "; ".join(combat.notes)
    field.add_event(
        "combat",
        f"{', '.join(combat.attackers)} ({combat.attack_strength}) attack {combat.defender} in {combat.target_hex} "
        f"({combat.defence_strength}): odds {COLUMNS[combat.odds]}"
        + (f", column {COLUMNS[combat.column]}" if combat.column != combat.odds else "")
        + f", die {die}"
        + (f"{combat.die_modifier:+d} = {modified} (row {row})" if combat.die_modifier else "")
        + f": {result}."
        + (f" ({notes})" if notes else ""),
        side=combat.side,
        hex=combat.target_hex,
        defender=combat.defender,
        attackers=list(combat.attackers),
        charge=combat.charger,
        attack=combat.attack_strength,
        defence=combat.defence_strength,
        odds=COLUMNS[combat.odds],
        column=COLUMNS[combat.column],
        die=die,
        modifier=combat.die_modifier,
        row=row,
        result=str(result),
        from_hexes=[h for h in attacker_hexes.values() if h],
    )
    apply_defender(field, combat, result.defender, [u for u in combat.attackers if field.exists(u)])
    apply_attacker(field, combat, result.attacker, losses)
    advance_after_combat(
        field, combat.target_hex, combat.defender, combat.melee, combat.charger, advance, attacker_hexes
    )
    field.special.after_combat(field, combat)
