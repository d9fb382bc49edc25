"""Legal orders for players and bots: the generator of legal moves and attacks,
the ``random`` and ``greedy`` bots and the commented order template.

Every candidate is checked with the same ``check_move`` / ``declare`` the order
checker uses, on a working copy that applies the moves chosen so far.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from itertools import combinations

from pbem.rules.furor_barbarus.battlefield import Battlefield
from pbem.rules.furor_barbarus.charge import charge_problem
from pbem.rules.furor_barbarus.combat import COLUMNS, declare
from pbem.rules.furor_barbarus.counters import Counter
from pbem.rules.furor_barbarus.hexgrid import hex_distance
from pbem.rules.furor_barbarus.movement import check_move, reachable
from pbem.rules.furor_barbarus.orders import AttackOrder, MoveOrder, PlaceOrder
from pbem.rules.furor_barbarus.sequence import _dry_move
from pbem.rules.furor_barbarus.setup import (
    SetupPart,
    deployment_of,
    placement_problem,
    setup_part,
    setup_steps,
    special_setup_problems,
)
from pbem.rules.furor_barbarus.standing import standing_forms
from pbem.rules.kept import PerObject
from pbem.rules.template_text import fit_comments

MAX_ATTACKERS = 4


def legal_moves(field: Battlefield, side: str) -> list[MoveOrder]:
    """Every unit's every legal destination now (one path each)."""
    out = []
    for uid in field.on_map(side):
        for _h, path in sorted(reachable(field, uid).items()):
            out.append(MoveOrder(uid, path))
    return out


def attack_candidates(field: Battlefield, side: str) -> dict[str, list[str]]:
    """Target hex -> own units that could join an attack on it now."""
    out: dict[str, list[str]] = {}
    mine = [u for u in field.on_map(side) if field.counter(u).is_combat_unit and u not in field.has_attacked]
    for target in {field.hex_of(u) for u in field.on_map() if field.enemies(side, field.side_of(u))}:
        if target is None:
            continue
        principal = field.principal(target)
        if principal is None or principal in field.was_attacked:
            continue
        ok = []
        for u in mine:
            d = hex_distance(field.hex_of(u) or target, target)
            if d == 1 or (field.counter(u).is_missile and d <= field.counter(u).range):
                if not declare(field, side, target, [u], None)[0] or _joins(field, side, target, u):
                    ok.append(u)
        if ok:
            out[target] = ok
    return out


def _joins(field: Battlefield, side: str, target: str, u: str) -> bool:
    """``u`` is legal as part of a bigger attack (e.g. a lone missile unit at 1/1)."""
    problems, _ = declare(field, side, target, [u], None)
    return all("alone" in p for p in problems)


def legal_attacks(field: Battlefield, side: str) -> list[AttackOrder]:
    """Legal attacks now: for each target, every group of up to 4 candidates."""
    out = []
    for target, units in sorted(attack_candidates(field, side).items()):
        for k in range(1, min(len(units), MAX_ATTACKERS) + 1):
            for group in combinations(units, k):
                charger = next((u for u in group if charge_problem(field, u, target) is None), None)
                problems, _ = declare(field, side, target, list(group), charger)
                if not problems:
                    out.append(AttackOrder(target, tuple(group), charger))
    return out


def _commit_attack(field: Battlefield, side: str, order: AttackOrder) -> bool:
    problems, combat = declare(field, side, order.target, list(order.all_attackers), order.charge)
    if problems or combat is None:
        return False
    field.has_attacked.update(combat.attackers + combat.commanders)
    field.was_attacked.update(field.units_in(combat.target_hex))
    return True


def _nearest_enemy(field: Battlefield, side: str, h: str) -> int:
    enemies = [field.hex_of(u) for u in field.on_map() if field.enemies(side, field.side_of(u))]
    return min((hex_distance(h, e) for e in enemies if e), default=0)


def _setup_orders(field: Battlefield, side: str, rng: random.Random) -> list[str]:
    lines = []
    used: set[str] = set()
    part = setup_part(field.position, field.scenario, side) or SetupPart.ALL
    mine = [u for u in field.units if field.counter(u).side == side and part.includes(field.counter(u))]
    for uid in mine:
        d = deployment_of(field.scenario, uid)
        if d is not None and not d.fixed:
            field.place(uid, None)  # type: ignore[arg-type]
    for uid in mine:
        d = deployment_of(field.scenario, uid)
        if d is None or d.fixed:
            continue
        hexes = list(d.hexes)
        rng.shuffle(hexes)
        for h in hexes:
            order = PlaceOrder(uid, h)
            if placement_problem(field, side, order, used) is None:
                field.place(uid, h)
                used.add(uid)
                lines.append(uid)
                break
    special_setup_problems(field, side, {})  # moves a unit a special rule forbids (e.g. a commander)
    return [str(PlaceOrder(uid, field.hex_of(uid) or "")) for uid in lines]


def _fights_hand_to_hand(field: Battlefield, side: str, order: AttackOrder, uid: str) -> bool:
    """Whether ``uid`` attacks hand to hand in ``order`` (only such a unit may be
    named to advance after combat, 9.11)."""
    _, combat = declare(field, side, order.target, list(order.all_attackers), order.charge)
    return combat is not None and uid in combat.melee


def bot_orders(field: Battlefield, side: str, bot: str, rng: random.Random) -> str:
    """A bot's turn file body for ``side`` on ``field`` (a working copy: it is changed)."""
    if field.position["phase"] == "setup":
        return "\n".join(_setup_orders(field, side, rng)) + "\n"
    lines: list[str] = []
    units = sorted(field.on_map(side))
    rng.shuffle(units)
    for uid in units:
        if field.side_of(uid) != side or not field.exists(uid):
            continue
        dests = reachable(field, uid)
        if not dests:
            continue
        if bot == "random":
            if rng.random() < 0.3:
                continue
            h = rng.choice(sorted(dests))
        else:
            here = field.hex_of(uid) or ""
            cur = _nearest_enemy(field, side, here)
            if cur <= 1 and field.counter(uid).is_combat_unit:
                continue
            h = min(sorted(dests), key=lambda x: (_nearest_enemy(field, side, x), rng.random()))
            if _nearest_enemy(field, side, h) >= cur:
                continue
        path = dests[h]
        check = check_move(field, uid, path, side)
        if not check.legal:
            continue
        _dry_move(field, uid, path, check.overruns)
        lines.append(str(MoveOrder(uid, path)))
    while True:
        attacks = legal_attacks(field, side)
        if not attacks:
            break
        if bot == "random":
            if rng.random() < 0.2:
                break
            order = rng.choice(attacks)
        else:

            def odds(a: AttackOrder) -> tuple[int, int]:
                _, c = declare(field, side, a.target, list(a.all_attackers), a.charge)
                return (c.odds if c else -1, -len(a.attackers))

            best = max(attacks, key=odds)
            if odds(best)[0] < COLUMNS.index("3/2"):
                break
            order = best
        if rng.random() < 0.5 and order.attackers and _fights_hand_to_hand(field, side, order, order.attackers[0]):
            order = AttackOrder(order.target, order.attackers, order.charge, (), order.attackers[0])
        if not _commit_attack(field, side, order):
            break
        lines.append(str(order))
    if bot == "greedy" and rng.random() < 0.5:
        lines.append("standing advance yes")
    return "\n".join(lines) + ("\n" if lines else "")


_LINES: PerObject[Mapping[str, Counter], dict[tuple[str, bool], str]] = PerObject(size=16)
"""Each unit's line in a template (strength, MP and range on the face showing), once per
scenario's counters, unit and face in a process (units keep them from one template to
the next), where each template worded every unit again (about ten calls a unit)."""


def _new_lines(_counters: Mapping[str, Counter]) -> dict[tuple[str, bool], str]:
    return {}


def template(field: Battlefield, label: str, side: str) -> str:
    """The commented template of ``side``'s next turn file (``label``: the turn's
    name): every order form the position allows, and every unit that may take
    one, with its strength, in 72 columns."""
    out = [f"# Furor Barbarus, {label}, orders for {side}"]
    if field.position["phase"] == "setup":
        part = setup_part(field.position, field.scenario, side) or SetupPart.ALL
        out += _setup_notes(field, side, part)
        out.append("# place UNIT HEX   (units of a fixed deployment need no line)")
        for d in field.scenario.deployments:
            if d.fixed:
                continue
            mine = [u for u in d.units if field.counter(u).side == side and part.includes(field.counter(u))]
            if mine:
                units = ", ".join(_unit_line(field, u) for u in mine)
                hexes = " ".join(d.hexes[:12]) + (" ..." if len(d.hexes) > 12 else "")
                out.append(f"#   {units} -> {hexes}")
    else:
        out += [
            "# move UNIT HEX HEX ...   (hex by hex; moves first, one unit at a time)",
            "# attack TARGET with UNIT ... [charge UNIT] [losses UNIT,UNIT] [advance UNIT]",
            *(f"# {form}" for form in field.special.special_order_forms()),
            "# your units (strength, movement points, missile range):",
        ]
        entries, lines = field.units, _LINES.get(field.scenario.counters, _new_lines)
        for uid in sorted(field.on_map(side)):
            entry = entries[uid]  # on the map: active, in its hex
            key = (uid, bool(entry["reduced"]))
            line = lines.get(key)
            if line is None:
                line = lines[key] = _unit_line(field, uid, with_id=False)
            out.append(f"#   {uid} at {entry['hex']}: {line}")
    out.append("# standing orders (kept until changed):")
    out.extend(f"#   {form}" for form in standing_forms(field))
    st = field.standing(side)
    now = [f"advance {'yes' if st.get('advance') else 'no'}", f"losses {','.join(st.get('losses', [])) or '(default)'}"]
    now += [
        f"{key} {st[key] if not isinstance(st[key], list) else ','.join(st[key])}"
        for key in st
        if key not in ("advance", "losses")
    ]
    out.append(f"# standing orders now: {', '.join(now)}")
    return fit_comments("\n".join(out) + "\n")


def _unit_line(field: Battlefield, uid: str, with_id: bool = True) -> str:
    c = field.counter(uid)
    kind = c.type.value.replace("_", " ")
    text = f"{kind} {field.strength(uid)}{' (reduced)' if field.is_reduced(uid) else ''}, {c.mp} MP" + (
        f", range {c.range}" if c.range else ""
    )
    return f"{uid} ({text})" if with_id else text


def _setup_notes(field: Battlefield, side: str, part: SetupPart) -> list[str]:
    """What this set-up step is, in the scenario's order (3)."""
    sc = field.scenario
    if len(setup_steps(sc)) == 1:
        return ["# both sides set up now, neither seeing the other's set-up"]
    other = next(s for s in sc.sides if s != side)
    if part is SetupPart.UNITS:
        return [
            f"# you set up first: every unit but your commanders; {other} set up next, seeing yours,",
            "# and you note your commanders' hexes then, secretly, revealed with theirs",
        ]
    if part is SetupPart.COMMANDERS:
        return [f"# note your commanders' hexes: {other} are setting up now; both are revealed together"]
    if sc.setup_first == side:
        return [f"# you set up first; {other} set up next, seeing your set-up"]
    note = f"# {other} have set up (see your report's map); now you"
    if sc.secret_commanders:
        note += f"; {other}' commanders are revealed with yours"
    return [note]
