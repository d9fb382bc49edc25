"""Section 4: the sequence of play, by mail.

The set-up comes first (one or two resolutions, section 3: ``setup.py``).  Then one resolution per player phase
pair: the active player's movement (his ``move`` / ``special`` lines in order)
and combat (his ``attack`` lines in order, each resolved and applied before the
next; an attack whose target or attackers are gone is skipped with a reason).
After player 2's pair come phase 5 (victory check) and phase 6 (turn marker).

``walk_orders`` is shared by the checker (``dry``: no dice, 10.1 tests assumed
passed) and the resolver.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pbem.rules.base import OrderLine, Outcome, OutcomeKind
from pbem.rules.furor_barbarus.battlefield import ACTIVE, Battlefield
from pbem.rules.furor_barbarus.combat import Combat, CombatResultsTable, declare, resolve_attack
from pbem.rules.furor_barbarus.movement import apply_move, check_move
from pbem.rules.furor_barbarus.orders import AttackOrder, MoveOrder, PlaceOrder, SpecialOrder, StandingOrder
from pbem.rules.furor_barbarus.victory import check_victory


def normalised_path(field: Battlefield, order: MoveOrder) -> tuple[str, ...]:
    """The path without the start hex, if the order names it first."""
    path = order.path
    if path and path[0] == field.hex_of(order.unit):
        path = path[1:]
    return path


def apply_standing(field: Battlefield, side: str, lines: Sequence[OrderLine]) -> None:
    for ol in lines:
        o = ol.order
        if isinstance(o, StandingOrder):
            st = field.standing(side)
            if o.kind == "advance":
                st["advance"] = o.values[0] == "yes"
            elif o.kind in ("losses", "retreat"):
                st[o.kind] = list(o.values)
            else:
                st[o.kind] = o.values[0]


def walk_orders(
    field: Battlefield, side: str, lines: Sequence[OrderLine], crt: CombatResultsTable, dry: bool
) -> list[tuple[int, str]]:
    """Apply (or, ``dry``, check) a player's phase pair.  Returns ``(line, problem)``;
    when not dry, problems become ``skip`` events instead."""
    problems: list[tuple[int, str]] = []
    attacking = False
    units = field.units

    def refuse(line: int, order: object, message: str) -> None:
        if dry:
            problems.append((line, message))
        else:
            text = str(order)
            field.add_event("skip", f"Order {text!r} is skipped: {message}.", line=line, order=text, reason=message)

    for ol in lines:
        o = ol.order
        if isinstance(o, MoveOrder) and not attacking:  # most lines: looked at first
            uid, path = o
            entry = units.get(uid)
            start = entry["hex"] if entry is not None and entry["status"] == ACTIVE else None  # hex_of
            if path and path[0] == start:  # normalised_path, without a call
                path = path[1:]
            check = check_move(field, uid, path, side)
            if check.problem is not None:
                refuse(ol.line, o, check.problem or "illegal move")
            elif not dry:
                apply_move(field, uid, path, check)
            else:  # the move, without rolling (a unit that may move: active, on the map, check_move)
                # each entry changed is copied first: the check's position shares the entries of the position
                # it checks (ruleset.checked_position), which it must leave as they were
                for _, cmd in check.overruns:
                    units[cmd] = units[cmd].copy()
                    field.take_off(cmd)
                if entry is not None:  # (always: a unit that may move has an entry)
                    units[uid] = entry.copy()
                field.place(uid, path[-1])
                field.moved.add(uid)
                field.paths[uid] = [start or "", *path]
            continue
        if isinstance(o, StandingOrder):
            continue
        if isinstance(o, PlaceOrder):
            refuse(ol.line, o, "units are placed only in the set-up (3)")
            continue
        if isinstance(o, (MoveOrder, SpecialOrder)) and attacking:
            refuse(ol.line, o, "moves come before attacks: movement phase, then combat phase (4)")
            continue
        if isinstance(o, SpecialOrder):
            why = field.special.check_special(field, side, o.words)
            if why:
                refuse(ol.line, o, why)
            elif not dry:
                field.special.apply_special(field, side, o.words)
            continue
        if isinstance(o, AttackOrder):
            attacking = True
            faults, combat = _declared(field, side, o, dry)
            if faults or combat is None:
                refuse(ol.line, o, "; ".join(faults))
                continue
            if dry:
                field.has_attacked.update(combat.attackers + combat.commanders)
                field.was_attacked.update(field.units_in(combat.target_hex))
            else:
                resolve_attack(field, combat, o.losses, o.advance, crt)
    return problems


def _declared(field: Battlefield, side: str, o: AttackOrder, dry: bool) -> tuple[list[str], Combat | None]:
    """An attack order's faults (its attack's, ``declare``, then its 'losses' and
    'advance' words') and its combat; ``dry``: the strengths left out (the check
    never reads them)."""
    found, combat = declare(field, side, o.target, o.all_attackers, o.charge, strengths=not dry)
    faults = found + [f"{u} in 'losses' is not one of the attackers" for u in o.losses if u not in o.all_attackers]
    if o.advance and o.advance not in o.all_attackers:
        faults.append(f"{o.advance} in 'advance' is not one of the attackers")
    elif o.advance and combat is not None and o.advance not in combat.melee:
        faults.append(
            f"{o.advance} fires at range, and only a hand-to-hand attacker advances after combat (9.11); "
            f"the hand-to-hand attackers are: {', '.join(combat.melee) or 'none'}"
        )
    return faults, combat


def play_phase_pair(field: Battlefield, side: str, lines: Sequence[OrderLine], crt: CombatResultsTable) -> None:
    pos: dict[str, Any] = field.position
    if pos["player"] == 1:
        field.add_event("turn", f"Turn {field.turn} begins.", turn=field.turn)
        field.special.start_of_turn(field)
    field.special.start_of_phase(field, side)
    apply_standing(field, side, lines)
    if not lines:
        field.add_event("no_orders", f"{side}: no moves received.", side=side)
    walk_orders(field, side, lines, crt, dry=False)
    if pos["player"] == 1:
        pos["player"] = 2
        return
    field.special.end_of_turn(field)
    last = field.turn >= field.scenario.turns
    outcome = check_victory(field, last)
    if outcome is None and last:
        outcome = Outcome(OutcomeKind.DRAW, None, f"end of turn {field.turn}, the last (3.1)")
    if outcome is not None:
        pos["phase"] = "over"
        pos["outcome"] = outcome.to_json()
        field.add_event(
            "victory",
            f"{outcome.kind.value.replace('_', ' ')}: {outcome.winner or 'nobody'} ({outcome.reason}).",
            **outcome.to_json(),
        )
        return
    pos["turn"] = field.turn + 1
    pos["player"] = 1


def _dry_move(field: Battlefield, uid: str, path: tuple[str, ...], overruns: tuple[tuple[int, str], ...]) -> None:
    """A checked move played without rolling (the bots' walk; ``walk_orders`` writes it out)."""
    start = field.units[uid]["hex"]  # a unit that may move: active, on the map (check_move)
    for _, cmd in overruns:
        field.take_off(cmd)
    field.place(uid, path[-1])
    field.moved.add(uid)
    field.paths[uid] = [start or "", *path]
