"""Campus Mauriacus, 451: the special rules of scenario 1.

1. Charge: only units with the ``charge`` mark charge.
2. Hand-to-hand penalty: units with the ``no_melee_penalty`` mark have none (the
   rulebook's "11.3" is our 9.3; the core already honours the mark).
3. Feigned flight: ``special feigned-flight UNIT TARGET [HEX HEX]`` at the start of
   the unit's move; the target (an enemy not adjacent to another unit of its own
   side, at most 3 hexes away) rolls 1d6, -1 if it has the mark itself, +1 if it
   is impetuous; lower than its strength (+ a stacked commander's), no effect;
   otherwise it is pulled 2 hexes towards the activated unit (the hexes given in
   the order, else the nearest free ones).
4. Defection of the Alans: each Alan unit lost makes the Roman player roll 1d6 (2d6
   if it was lost at full strength); a result <= the Alan units lost so far removes
   the remaining Alans (removed, they do not count for army morale).
5. Role of the commanders (option ``commanders-role``): a commander affects only
   his own colour band; at his death his camp rolls 1d6: 1-2, his units -1 in
   strength and morale next turn; 6, +1 (Aetius: the Roman units only; Ardaric:
   the Gepids only).
6. Impetuousness (option ``impetuousness``): an impetuous unit not adjacent to an
   enemy unit (any type: commanders count, section 2) that is fired on at range,
   or that wants to move within 2 hexes of an enemy unit, rolls 1d6: on 5-6 it
   advances with all its MP towards the closest enemy, each hex entered nearer to
   it than the last, until the move must stop (the opponent's choice among
   equally close enemies: his standing order ``impetuous-target``, default the
   strongest; among the paths, by default the one ending nearest, then the
   lowest hex ids).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from pbem.rules.furor_barbarus.battlefield import ACTIVE
from pbem.rules.furor_barbarus.counters import Counter, Mark
from pbem.rules.furor_barbarus.hexgrid import hex_distance
from pbem.rules.furor_barbarus.scenario_rules import ScenarioRules
from pbem.rules.furor_barbarus.special_rules import REGISTRY

if TYPE_CHECKING:  # pragma: no cover
    from pbem.rules.furor_barbarus.battlefield import Battlefield
    from pbem.rules.furor_barbarus.combat import Combat

SCENARIO = "campus-mauriacus"
COMMANDERS_ROLE = "commanders-role"
IMPETUOUSNESS = "impetuousness"

FEIGNED_FLIGHT = "feigned-flight"
FEIGNED_FLIGHT_RANGE = 3
FEIGNED_FLIGHT_PULL = 2
ALAN_NAME = "Alans"
ROMANS = "romans"
# the death roll's +1 reaches only these units of Aetius and Ardaric (special rule 5)
DEATH_ROLL_LIMITS = {"aetius": "Romans", "ardaric": "Gepids"}
IMPETUOUS_DISTANCE = 3  # "wants to move less than 3 hexes from an enemy unit"
IMPETUOUS_TARGET = "impetuous-target"  # standing order key: strongest | weakest
FF_USED = "feigned_flight_used"  # memo: units that declared feigned flight this phase
FULL_ALANS = "_full_alans"
# commanders whose set-up companions are one people of their band ("with a Gepid unit")
SETUP_COMPANIONS = {
    "sangiban": "Alans",
    "ardaric": "Gepids",
    "attila": "Huns",
    "valamir": "Ostrogoths",
}  # memo: Alan units at full strength when the current combat began


_ALANS: dict[int, tuple[Mapping[str, Counter], tuple[str, ...]]] = {}


def alan_units(counters: Mapping[str, Counter]) -> tuple[str, ...]:
    """The ids of the Alan counters (``ALAN_NAME``) in id order, found once per counter
    sheet in a process (kept with the sheet itself, so its id is never reused)."""
    found = _ALANS.get(id(counters))
    if found is None or found[0] is not counters:
        if len(_ALANS) >= 16:
            _ALANS.clear()
        found = _ALANS[id(counters)] = (counters, tuple(sorted(u for u, c in counters.items() if c.name == ALAN_NAME)))
    return found[1]


class CampusMauriacusRules(ScenarioRules):
    scenario_id = SCENARIO

    def start_of_phase(self, field: Battlefield, side: str) -> None:
        field.memo.pop(FF_USED, None)

    def setup_problems(self, field: Battlefield, side: str) -> list[tuple[str, str]]:
        return commander_setup_problems(field, side)

    # --- 1. charge ---------------------------------------------------------------
    def can_charge(self, field: Battlefield, uid: str, default: bool) -> bool:
        return Mark.CHARGE in field.counter(uid).marks

    # --- 3. feigned flight ---------------------------------------------------------
    def standing_orders(self) -> dict[str, tuple[str, ...]]:
        return {IMPETUOUS_TARGET: ("strongest", "weakest")}

    def special_order_forms(self) -> tuple[str, ...]:
        return (f"special {FEIGNED_FLIGHT} UNIT TARGET [HEX HEX]",)

    def check_special(self, field: Battlefield, side: str, words: tuple[str, ...]) -> str | None:
        if not words or words[0] != FEIGNED_FLIGHT:
            return f"Campus Mauriacus has no special order {' '.join(words)!r} (special feigned-flight UNIT TARGET)"
        if len(words) not in (3, 5):
            return "feigned flight: special feigned-flight UNIT TARGET [HEX HEX]"
        uid, target = words[1], words[2]
        return feigned_flight_problem(field, side, uid, target, words[3:])

    def apply_special(self, field: Battlefield, side: str, words: tuple[str, ...]) -> None:
        feigned_flight(field, words[1], words[2], tuple(words[3:]))

    # --- 4. defection of the Alans ------------------------------------------------
    def before_combat(self, field: Battlefield, combat: Combat) -> None:
        # the Romans' Alans on the map at full strength, read from the Alans' entries (on_map,
        # counter and is_reduced were three calls for each Roman unit, at every combat; then a
        # generator over every unit of the battle, at every combat)
        units = field.units
        full = []
        for u in alan_units(field.scenario.counters):
            s = units.get(u)
            if s is not None and s["status"] == ACTIVE and s["hex"] is not None and s["side"] == ROMANS:
                if not s["reduced"]:
                    full.append(u)
        field.memo[FULL_ALANS] = full

    def after_combat(self, field: Battlefield, combat: Combat) -> None:
        field.memo.pop(FULL_ALANS, None)
        if IMPETUOUSNESS in field.options:
            impetuous_after_fire(field, combat)

    def on_elimination(self, field: Battlefield, uid: str, cause: str) -> None:
        c = field.counter(uid)
        if c.name == ALAN_NAME and c.side == ROMANS:
            alans_defection_roll(field, uid)
        elif c.is_commander and COMMANDERS_ROLE in field.options:
            commander_death_roll(field, uid)

    # --- 5. role of the commanders ------------------------------------------------------
    def commander_affects(self, field: Battlefield, commander: str, uid: str) -> bool:
        if COMMANDERS_ROLE not in field.options:
            return True
        return field.counter(uid).band == field.counter(commander).band

    def strength_modifier(self, field: Battlefield, uid: str, role: str) -> int:
        return _floor_at_one(field, uid, commander_effect(field, uid))

    def morale_modifier(self, field: Battlefield, uid: str) -> int:
        return _floor_at_one(field, uid, commander_effect(field, uid))

    # --- 6. impetuousness ---------------------------------------------------------------
    def before_move(self, field: Battlefield, uid: str, path: tuple[str, ...]) -> tuple[str, ...]:
        if IMPETUOUSNESS not in field.options or not is_impetuous_and_free(field, uid):
            return path
        enemies = enemy_units(field, uid)
        if not any(hex_distance(h, field.hex_of(e)) < IMPETUOUS_DISTANCE for h in path for e in enemies):
            return path
        rush = impetuous_roll(field, uid, "wants to move near the enemy")
        return rush if rush is not None else path


# ----------------------------------------------------------------------------------
# set-up: each commander stands with one of his troops
# ----------------------------------------------------------------------------------
def commander_companions(field: Battlefield, commander: str) -> list[str]:
    """The units the rulebook sets a commander with: Aetius "with a red unit",
    Sangiban "with an Alan unit", Theodoric "with a Visigothic unit from the right
    wing", Ardaric "with a Gepid unit", Attila "with a Hunnic unit", Valamir "with
    an Ostrogothic unit": the units of his set-up hexes with his band and, where the
    rulebook names a people, that people."""
    from pbem.rules.furor_barbarus.setup import deployment_of

    mine = deployment_of(field.scenario, commander)
    hexes = set(mine.hexes) if mine else set()
    band = field.counter(commander).band
    people = SETUP_COMPANIONS.get(commander)
    out = []
    for d in field.scenario.deployments:
        if commander in d.units or not set(d.hexes) <= hexes:
            continue
        out += [
            u
            for u in d.units
            if field.counter(u).band == band
            and field.counter(u).is_combat_unit
            and (people is None or field.counter(u).name == people)
        ]
    return out


def commander_setup_problems(field: Battlefield, side: str) -> list[tuple[str, str]]:
    """Set-up check (hook ``setup_problems``): every commander of ``side`` stands
    with one of his companions.  Returns ``(commander, reason)`` for each one
    that does not; changes nothing (the core refuses the ``place`` line, or moves
    a commander placed by default)."""
    problems = []
    for uid, c in field.scenario.counters.items():
        if c.side != side or not c.is_commander or not field.exists(uid):
            continue
        companions = commander_companions(field, uid)
        here = field.hex_of(uid)
        if not companions or any(field.hex_of(u) == here for u in companions):
            continue
        problems.append(
            (
                uid,
                f"{c.name} ({uid}) must be set up with one of {', '.join(companions)}, "
                f"not in {here} (Campus Mauriacus set-up)",
            )
        )
    return problems


# ----------------------------------------------------------------------------------
# 3. feigned flight
# ----------------------------------------------------------------------------------
def feigned_flight_problem(
    field: Battlefield, side: str, uid: str, target: str, hexes: tuple[str, ...] = ()
) -> str | None:
    """Why ``uid`` may not use feigned flight on ``target`` now (None: it may)."""
    if uid not in field.units or not field.exists(uid):
        return f"feigned flight: no unit {uid!r} on the map"
    if field.side_of(uid) != side:
        return f"feigned flight: {uid} is not a unit of {side}"
    if Mark.FEIGNED_FLIGHT not in field.counter(uid).marks:
        return f"feigned flight: {uid} has no feigned flight mark (special rule 3)"
    if uid in field.moved:
        return f"feigned flight: {uid} has already moved; it is declared at the beginning of its move (special rule 3)"
    if uid in field.memo.get(FF_USED, []):
        return f"feigned flight: {uid} has already declared it this phase"
    if target not in field.units or not field.exists(target):
        return f"feigned flight: no unit {target!r} on the map"
    if not field.enemies(side, field.side_of(target)) or not field.counter(target).is_combat_unit:
        return f"feigned flight: {target} is not an enemy combat unit"
    d = hex_distance(field.hex_of(uid), field.hex_of(target))
    if d > FEIGNED_FLIGHT_RANGE:
        return f"feigned flight: {target} is {d} hexes from {uid}, more than {FEIGNED_FLIGHT_RANGE} (special rule 3)"
    neighbours = companions_of(field, target)
    if neighbours:
        return f"feigned flight: {target} is adjacent to {neighbours[0]}, another unit of its army (special rule 3)"
    if hexes:
        problem = pull_path_problem(field, uid, target, hexes)
        if problem:
            return f"feigned flight: {problem}"
    return None


def companions_of(field: Battlefield, target: str) -> list[str]:
    """Units of the target's own side in the six hexes around it."""
    h = field.hex_of(target)
    assert h is not None  # the target is on the map (feigned_flight_problem checks it first)
    side = field.side_of(target)
    return [u for n in field.game_map.neighbours(h) for u in field.units_in(n) if field.side_of(u) == side]


def _free_for(field: Battlefield, target: str, frm: str, to: str) -> bool:
    gm = field.game_map
    return gm.on_map(to) and not field.units_in(to) and not gm.river_between(frm, to)


def pull_path_problem(field: Battlefield, uid: str, target: str, hexes: tuple[str, ...]) -> str | None:
    here = field.hex_of(target)
    goal = field.hex_of(uid)
    for h in hexes:
        if h not in field.game_map.neighbours(here) or not _free_for(field, target, here, h):  # type: ignore[arg-type]
            return f"{h} is not a free hex next to {here}"
        if hex_distance(h, goal) >= hex_distance(here, goal):
            return f"{h} is not nearer to {uid} than {here}: the target comes towards the activated unit"
        here = h
    return None


def pull_path(field: Battlefield, uid: str, target: str) -> tuple[str, ...]:
    """The target's 2 hexes towards ``uid``: each step the free neighbour nearest
    to it (ties: the lowest hex id); shorter if the way is blocked."""
    here = field.hex_of(target)
    assert here is not None  # the target is on the map (feigned_flight_problem checks it first)
    goal = field.hex_of(uid)
    out: list[str] = []
    for _ in range(FEIGNED_FLIGHT_PULL):
        options = [
            n
            for n in field.game_map.neighbours(here)
            if _free_for(field, target, here, n) and hex_distance(n, goal) < hex_distance(here, goal)
        ]
        if not options:
            break
        here = min(options, key=lambda n: (hex_distance(n, goal), n))
        out.append(here)
    return tuple(out)


def feigned_flight(field: Battlefield, uid: str, target: str, hexes: tuple[str, ...] = ()) -> bool:
    """Special rule 3; True if the target was drawn out."""
    field.memo.setdefault(FF_USED, []).append(uid)
    tc = field.counter(target)
    modifier = (-1 if Mark.FEIGNED_FLIGHT in tc.marks else 0) + (1 if Mark.IMPETUOUS in tc.marks else 0)
    commander = field.commander_in(field.hex_of(target))  # type: ignore[arg-type]
    # optional rule 5: he adds nothing to another band's unit (but still goes with it)
    helps = commander is not None and field.special.commander_affects(field, commander, target)
    steadiness = field.strength(target) + (field.strength(commander) if helps and commander else 0)
    die = field.dice.roll(6, f"feigned flight of {uid} against {target} (special rule 3)")
    total = die + modifier
    if total < steadiness:
        field.add_event(
            "feigned_flight",
            f"{field.counter(uid).name} ({uid}) feigns flight before {tc.name} ({target}): "
            f"rolls {die}{modifier:+d} = {total} against {steadiness}, the {tc.name} hold.",
            unit=uid,
            target=target,
            die=die,
            modifier=modifier,
            against=steadiness,
            drawn=False,
        )
        return False
    path = hexes or pull_path(field, uid, target)
    start = field.hex_of(target)
    for h in path:
        for u in [target] + ([commander] if commander else []):
            field.place(u, h)
    field.add_event(
        "feigned_flight",
        f"{field.counter(uid).name} ({uid}) feigns flight before {tc.name} ({target}): "
        f"rolls {die}{modifier:+d} = {total} against {steadiness}; {target} is drawn "
        f"{' '.join([start, *path]) if path else 'but cannot move'}.",  # type: ignore[list-item]
        unit=uid,
        target=target,
        die=die,
        modifier=modifier,
        against=steadiness,
        drawn=True,
        path=[start, *path],
    )
    return True


# ----------------------------------------------------------------------------------
# 4. defection of the Alans
# ----------------------------------------------------------------------------------
def alans_defection_roll(field: Battlefield, uid: str) -> None:
    lost = sum(1 for u, s in field.units.items() if field.counter(u).name == ALAN_NAME and s["status"] == "eliminated")
    full = uid in field.memo.get(FULL_ALANS, [])
    dice = 2 if full else 1
    rolls = [
        field.dice.roll(6, f"defection of the Alans after the loss of {uid} (special rule 4)") for _ in range(dice)
    ]
    total = sum(rolls)
    remaining = [u for u in field.on_map(ROMANS) if field.counter(u).name == ALAN_NAME]
    defect = total <= lost
    field.add_event(
        "alans_defection",
        f"The Alans have lost {lost} unit(s); the Roman player rolls "
        f"{'+'.join(map(str, rolls))} = {total}: "
        + ("the remaining Alans leave the battle." if defect and remaining else "the Alans stay."),
        unit=uid,
        lost=lost,
        dice=rolls,
        total=total,
        defect=defect,
    )
    if defect:
        for u in remaining:
            field.remove(u, "the Alans defect (special rule 4)")


# ----------------------------------------------------------------------------------
# 5. role of the commanders
# ----------------------------------------------------------------------------------
def commander_death_roll(field: Battlefield, commander: str) -> None:
    cc = field.counter(commander)
    die = field.dice.roll(6, f"death of {cc.name} (special rule 5)")
    value = -1 if die <= 2 else 1 if die == 6 else 0
    units = [u for u, c in field.scenario.counters.items() if c.commander == commander and u != commander]
    if value > 0 and commander in DEATH_ROLL_LIMITS:
        units = [u for u in units if field.counter(u).name == DEATH_ROLL_LIMITS[commander]]
    turn = field.turn + 1
    if value:
        field.memo.setdefault("commander_effects", []).append(
            {"commander": commander, "turn": turn, "value": value, "units": sorted(units)}
        )
    band = "the " + DEATH_ROLL_LIMITS[commander] + " of his band" if commander in DEATH_ROLL_LIMITS else "his units"
    text = {
        -1: f"his units fight and test morale at -1 on turn {turn}",
        0: "no effect",
        1: f"{band} fight and test morale at +1 on turn {turn}",
    }[value]
    field.add_event(
        "commander_death",
        f"{cc.name} is dead; his camp rolls {die}: {text} (special rule 5).",
        unit=commander,
        die=die,
        value=value,
        turn=turn,
        units=sorted(units),
    )


def commander_effect(field: Battlefield, uid: str) -> int:
    return sum(
        e["value"] for e in field.memo.get("commander_effects", []) if e["turn"] == field.turn and uid in e["units"]
    )


def _floor_at_one(field: Battlefield, uid: str, modifier: int) -> int:
    """A -1 never takes a unit below strength/morale 1."""
    if modifier < 0:
        return max(modifier, 1 - field.strength(uid))
    return modifier


# ----------------------------------------------------------------------------------
# 6. impetuousness
# ----------------------------------------------------------------------------------
def enemy_units(field: Battlefield, uid: str) -> list[str]:
    """Every enemy unit on the map: special rule 6 says "enemy unit", and section 2
    counts commanders and baggage among the six types of unit."""
    side = field.side_of(uid)
    return [u for u in field.on_map() if field.enemies(side, field.side_of(u))]


def is_impetuous_and_free(field: Battlefield, uid: str) -> bool:
    """An impetuous unit "not adjacent to an enemy unit" (of any type, commanders included)."""
    return field.exists(uid) and Mark.IMPETUOUS in field.counter(uid).marks and not field.adjacent_enemies(uid)


def closest_enemy(field: Battlefield, uid: str) -> str | None:
    """The closest enemy unit; among equally close ones, the opponent's
    choice: his standing order ``impetuous-target weakest``, else the strongest
    (then the lowest hex id)."""
    here = field.hex_of(uid)
    enemies = enemy_units(field, uid)
    if not enemies or here is None:
        return None
    opponent = next((s for s in field.scenario.sides if s != field.side_of(uid)), "")
    weakest = _standing(field, opponent, IMPETUOUS_TARGET) == "weakest"
    sign = 1 if weakest else -1
    return min(
        enemies,
        key=lambda e: (
            hex_distance(here, field.hex_of(e)),
            sign * field.strength(e),
            field.hex_of(e),
        ),
    )


def _standing(field: Battlefield, side: str, key: str) -> Any:
    orders = field.position.get("standing", {}).get(side, {})
    return orders.get(key)


def impetuous_paths(field: Battlefield, uid: str, target: str) -> list[tuple[str, ...]]:
    """Every move "toward the closest enemy" (special rule 6): each hex entered is
    nearer to ``target`` than the hex left, and the move goes on while it can, so it
    ends only where the rules end any move (entering an enemy ZOC, the one-hex
    minimum move), when the MP run out, or when no nearer hex can be entered (and
    ended in, or passed through to a hex where the move can end).  Empty: no nearer
    hex can be entered at all."""
    from pbem.rules.furor_barbarus.movement import check_move

    goal = field.hex_of(target)
    side = field.side_of(uid)
    assert goal is not None

    def ends(path: tuple[str, ...], here: str) -> list[tuple[str, ...]]:
        check = check_move(field, uid, path, side, final=False) if path else None
        if check is not None and not check.legal:
            return []
        out: list[tuple[str, ...]] = []
        if check is None or not check.stops:
            for n in field.game_map.neighbours(here):
                if hex_distance(n, goal) < hex_distance(here, goal):
                    out += ends(path + (n,), n)
        if not out and path and check_move(field, uid, path, side).legal:
            out = [path]
        return out

    here = field.hex_of(uid)
    assert here is not None
    return ends((), here)


def impetuous_path(field: Battlefield, uid: str, target: str) -> tuple[str, ...]:
    """The rush the opponent chooses by default among :func:`impetuous_paths`:
    the one ending nearest to ``target``, then the one entering the lowest hex ids
    (compared hex by hex)."""
    goal = field.hex_of(target)
    paths = impetuous_paths(field, uid, target)
    if not paths:
        return ()
    return min(paths, key=lambda p: (hex_distance(p[-1], goal), p))


def impetuous_roll(field: Battlefield, uid: str, why: str) -> tuple[str, ...] | None:
    """Roll for an impetuous unit; on 5-6 the path of its rush (possibly empty)."""
    c = field.counter(uid)
    die = field.dice.roll(6, f"impetuousness of {uid}: {why} (special rule 6)")
    if die < 5:
        field.add_event(
            "impetuous",
            f"{c.name} ({uid}) {why}: rolls {die}, keeps its head (special rule 6).",
            unit=uid,
            die=die,
            rushes=False,
        )
        return None
    target = closest_enemy(field, uid)
    path = impetuous_path(field, uid, target) if target else ()
    field.add_event(
        "impetuous",
        f"{c.name} ({uid}) {why}: rolls {die} and rushes towards {target} (special rule 6).",
        unit=uid,
        die=die,
        rushes=True,
        target=target,
        path=list(path),
    )
    return path


def impetuous_after_fire(field: Battlefield, combat: Combat) -> None:
    """An impetuous unit fired on from a distance (and still free) rolls."""
    defender = getattr(combat, "defender", None)
    if not defender or not getattr(combat, "ranged", False) or not is_impetuous_and_free(field, defender):
        return
    path = impetuous_roll(field, defender, "suffers fire from a distance")
    if not path:
        return
    start = field.hex_of(defender)
    for h in path:
        field.place(defender, h)
    field.add_event(
        "move",
        f"{field.counter(defender).name} ({defender}) moves {' '.join([start, *path])}.",  # type: ignore[list-item]
        unit=defender,
        side=field.side_of(defender),
        path=[start, *path],
    )


REGISTRY[SCENARIO] = CampusMauriacusRules
