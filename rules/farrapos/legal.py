"""Legality: the one source of what a side may order now.

``validate`` (the referee's check), the bots and the order template all use these
helpers.  Rulebook, "1ST TURN - PHASE 1": a) attack a directly linked city the enemy
holds; b) invade a directly linked city the enemy does not hold (nobody's, or
one's own, to reinforce it); c) move "into a
city that has no direct link" with the city of origin, along path lines within each
MU's MF; d) take no action.  A turn is ONE of these actions (any number of ``move``
lines make one action c), plus the steps that are not actions:
placing new MU, deploying Militia, standing loss orders and (advanced rule) carrying
up to 2 MU between held ports.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

from pbem.rules.base import IllegalOrderError, Orders, Problem
from pbem.rules.farrapos.counters import SIDE_NAMES
from pbem.rules.farrapos.orders import (
    ACTIONS,
    MILITIA,
    Attack,
    Carry,
    DeployMilitia,
    Invade,
    Move,
    Pass,
    Place,
    StandingLosses,
)
from pbem.rules.farrapos.position import Position, View, enemy, sort_units
from pbem.rules.suggest import did_you_mean

CARRY_LIMIT = 2


def _list(items: Sequence[str]) -> str:
    return ", ".join(items) if items else "none"


# --- what may act, and where -----------------------------------------------------
def mu_in(view: View, side: str, city: str) -> list[str]:
    return view.mu_of(side, city)


def attack_targets(view: View, side: str, origin: str) -> list[str]:
    """Cities held by the enemy with a path line to ``origin`` (a city where
    ``side`` has MU)."""
    if not mu_in(view, side, origin):
        return []
    foe, holder = enemy(side), view.holder_lookup()  # looked up once, not per neighbour
    return [n for n in view.board.adjacency[origin] if holder(n) == foe]


def invasion_targets(view: View, side: str, origin: str) -> list[str]:
    """Cities with a path line to ``origin`` that the enemy does not hold: nobody's
    cities, and the side's own held cities ("any city that has a direct link with
    his cities and NOT under control of the Empire": entering one's own
    neighbouring city is how a stack reinforces it)."""
    if not mu_in(view, side, origin):
        return []
    foe, holder = enemy(side), view.holder_lookup()
    return [n for n in view.board.adjacency[origin] if holder(n) != foe]


def linked_targets(view: View, side: str, origin: str) -> tuple[list[str], list[str]]:
    """:func:`attack_targets` and :func:`invasion_targets` of ``origin``, a city where
    ``side`` has MU (the caller knows it), in one pass over its path lines: an order
    template lists both for each of the side's stacks (three looks at the stack's MU
    and two at its neighbours' holders before)."""
    foe, holders = enemy(side), view.holders
    attacks: list[str] = []
    invasions: list[str] = []
    for n in view.board.adjacency[origin]:
        (attacks if holders[n] == foe else invasions).append(n)
    return attacks, invasions


def move_destinations(view: View, side: str, origin: str, units: Sequence[str]) -> list[str]:
    """Cities the MU in ``units`` (all in ``origin``) reach together by action c):
    along path lines within the lowest MF among them, passing only through cities
    the enemy does not hold, and ending in a city the enemy does not hold that has
    NO direct link (path line) with ``origin`` ("Move his troops into a city that
    has no direct link with one of his cities"; entering a directly linked city is
    a) attack or b) invade).  So a move is at least 2 path lines long, and a group
    with an MF 1 MU (artillery) has no move.

    >>> from pbem.rules.farrapos.setup import opening_position
    >>> view = View(opening_position("campaign", ()))
    >>> # MF 2; piratini, cacapava, dom-pedrito are linked
    >>> sorted(move_destinations(view, "republic", "bage", ["inf-5"]))
    ['cachoeira', 'cangucu', 'encruzilhada', 'jaguarao', 'livramento', 'pelotas', 'sao-gabriel']
    >>> move_destinations(view, "republic", "pelotas", ["inf-3", "art-2"])  # MF 1: only linked cities in reach
    []
    """
    if not units:
        return []
    return destinations_within(view, side, origin, min(view.factors(u).mf for u in units))


def destinations_within(view: View, side: str, origin: str, mf: int) -> list[str]:
    """:func:`move_destinations` of MU whose lowest MF is ``mf`` (an order template
    knows it for each group it lists: it asks once per MF among a stack's MU)."""
    foe = enemy(side)
    linked = view.board.adjacency[origin]
    holders = view.holders
    return [c for c, d in view.reach(side, origin, mf).items() if 0 < d <= mf and c not in linked and holders[c] != foe]


def linked_entry(view: View, side: str, origin: str, target: str) -> str:
    """What entering ``target``, directly linked to ``origin``, is instead of a
    move: the action to order, or why no action enters it."""
    if view.controller(target) == enemy(side):
        return f"that is an attack (a): attack {target} from {origin} with"
    return f"that is an invasion (b): invade {target} from {origin} with"


def held_ports(view: View, side: str) -> list[str]:
    return [c for c in view.board.ports if view.controller(c) == side]


def carry_allowed(view: View, side: str) -> bool:
    return "port-transport" in view.options and len(held_ports(view, side)) >= 2


def placement_cities(view: View, side: str) -> list[str]:
    """ "In any city of his possession": cities the side owns (held or empty)."""
    return view.owned_cities(side)


def militia_cities(view: View, side: str) -> list[str]:
    """Cities of the side's possession with no MU and no Militia yet (one Militia
    holds a city; docs/rules/farrapos.md, "Militia")."""
    return [c for c in view.owned_cities(side) if militia_may_deploy(view, side, c)]


def militia_may_deploy(view: View, side: str, city: str) -> bool:
    """Whether ``city`` is one of :func:`militia_cities` (without listing them all)."""
    entry = view.cities[city]
    return entry["owner"] == side and not entry["units"] and not view.militia_in(city)


def battle_may_leave(view: View, side: str, attack: Attack) -> tuple[list[str], list[str]]:
    """What a battle may give that no order before it does, so that orders that
    depend on its outcome are checked for what they can be: the cities new MU may
    set up in (the target, if taken) and the cities a Militia may deploy in (the
    origin, when every MU there attacks and all of them may move in or fall; the
    target, when taken with ``occupy none``).  Resolution then deals with what
    they are (``arrival`` with ``default``, ``militia_not_deployed``)."""
    placements = [attack.target]
    militia: list[str] = []
    if set(mu_in(view, side, attack.origin)) <= set(attack.units) and not view.militia_in(attack.origin):
        militia.append(attack.origin)
    if attack.occupy == ():
        militia.append(attack.target)
    return placements, militia


def legal_actions(
    position: Position, side: str, exclude: Sequence[str] = ()
) -> Iterator[Attack | Invade | Move | Pass]:
    """Every one-line action ``side`` may order now, in a canonical form: ``pass``;
    each attack and invasion with the whole stack of its city and with each MU
    alone; each move of a whole stack and of each MU alone to every city it
    reaches with no direct link to its origin.  (Any other group of MU from the
    same city is legal too wherever its whole stack is.)  MU in ``exclude`` are
    left out (they already have an order).
    Each order yielded passes ``validate_orders`` on its own.

    >>> from pbem.rules.farrapos.setup import opening_position
    >>> actions = list(legal_actions(opening_position("campaign", ()), "republic"))
    >>> str(actions[0]), sum(isinstance(a, Attack) for a in actions)
    ('pass', 10)
    """
    view = View(position)
    if view.due_side() != side:
        return
    yield Pass()
    for origin in view.board.cities:
        stack = [u for u in mu_in(view, side, origin) if u not in exclude]
        if not stack:
            continue
        groups = [tuple(stack)] + ([(u,) for u in stack] if len(stack) > 1 else [])
        for target in attack_targets(view, side, origin):
            for group in groups:
                yield Attack(target, origin, group)
        for target in invasion_targets(view, side, origin):
            for group in groups:
                yield Invade(target, origin, group)
        for group in groups:
            for destination in sorted(move_destinations(view, side, origin, group)):
                yield Move(group, origin, destination)


# --- names: every city and MU an order names exists (suggestions: only legal ones) ---
def _unknown(kind: str, name: str, legal_what: str, legal: Sequence[str]) -> IllegalOrderError:
    return IllegalOrderError(f"unknown {kind} {name!r}; {legal_what}: {_list(list(legal))}{did_you_mean(name, legal)}")


def _city_known(view: View, city: str, legal_what: str, legal: Callable[[], Sequence[str]]) -> None:
    """``legal`` lists the names to suggest: worked out only for an unknown city."""
    if city not in view.board.cities:
        raise _unknown("city", city, legal_what, legal())


def _units_known(view: View, side: str, units: Sequence[str], origin: str) -> None:
    here = mu_in(view, side, origin) if origin in view.board.cities else []
    for unit in units:
        if unit == MILITIA:
            raise IllegalOrderError(
                f"Militia have no MF: a Militia counter stays in the city it was deployed in and only defends it; "
                f"the {SIDE_NAMES[side]} MU in {origin} are: {_list(here)}"
            )
        if unit not in view.sheet.counters:
            raise _unknown("MU", unit, f"the {SIDE_NAMES[side]} MU in {origin} are", here)


def check_names(view: View, side: str, order: object) -> None:
    """Raise :class:`IllegalOrderError` for the first city or MU of ``order`` that is
    no city or MU of the game, suggesting only names legal at that place."""
    name = SIDE_NAMES[side]
    if isinstance(order, (Attack, Invade, Move)):
        if MILITIA in order.units:
            _units_known(view, side, order.units, order.origin if order.origin in view.board.cities else "")
        _city_known(view, order.origin, f"the {name} has MU in", lambda: view.cities_with_mu(side))
        if not mu_in(view, side, order.origin):
            origins = view.cities_with_mu(side)
            raise IllegalOrderError(
                f"the {name} has no MU in {order.origin}; it has MU in: "
                f"{_list(origins)}{did_you_mean(order.origin, origins)}"
            )
        _units_known(view, side, order.units, order.origin)
        if isinstance(order, Attack):
            _city_known(
                view,
                order.target,
                f"from {order.origin} the {name} can attack",
                lambda: attack_targets(view, side, order.origin),
            )
            for unit in (*order.losses, *(order.occupy or ())):
                if unit not in view.sheet.counters:
                    raise _unknown("MU", unit, "the attackers are", order.units)
        elif isinstance(order, Invade):
            _city_known(
                view,
                order.target,
                f"from {order.origin} the {name} can invade",
                lambda: invasion_targets(view, side, order.origin),
            )
        else:
            reach = lambda: sorted(move_destinations(view, side, order.origin, order.units))  # noqa: E731
            _city_known(view, order.destination, f"from {order.origin} {_list(list(order.units))} can move to", reach)
    elif isinstance(order, Carry):
        ports = lambda: held_ports(view, side)  # noqa: E731
        _city_known(view, order.origin, f"the port cities the {name} holds are", ports)
        _city_known(view, order.destination, f"the port cities the {name} holds are", ports)
        _units_known(view, side, order.units, order.origin)
    elif isinstance(order, Place):
        for unit in order.units:
            if unit not in view.sheet.counters:  # the MU arriving now are worked out for the refusal only
                raise _unknown("MU", unit, "the MU arriving this turn are", view.arrivals_now(side))
        _city_known(view, order.city, "new MU may set up in", lambda: placement_cities(view, side))
    elif isinstance(order, DeployMilitia):
        _city_known(view, order.city, "a Militia may deploy in", lambda: militia_cities(view, side))
    elif isinstance(order, StandingLosses):
        for unit in order.losses:
            if unit != MILITIA and unit not in view.sheet.counters:
                own = [u for city in view.board.cities for u in mu_in(view, side, city)] + [MILITIA]
                raise _unknown("MU", unit, f"the {name} MU on the board (and militia) are", own)
        if order.city is not None:
            held = view.held_cities(side)
            _city_known(view, order.city, f"the {name} holds", lambda: held)
            if order.city not in held:
                raise IllegalOrderError(
                    f"the {name} does not hold {order.city}, so it has no defence there to order; "
                    f"the {name} holds: {_list(held)}{did_you_mean(order.city, held)}"
                )


# --- checking a whole turn file ----------------------------------------------------
def _check_units(view: View, side: str, units: Sequence[str], origin: str, used: set[str], what: str) -> None:
    here = mu_in(view, side, origin)
    for unit in units:
        if view.side_of(unit) != side:
            raise IllegalOrderError(f"{unit} is not a {SIDE_NAMES[side]} MU")
        if unit not in here:
            raise IllegalOrderError(f"{unit} is not in {origin}; the {SIDE_NAMES[side]} MU there are: {_list(here)}")
        if unit in used:
            raise IllegalOrderError(f"{unit} already has an order this turn ({what} needs MU with no other action)")
    if len(set(units)) != len(units):
        raise IllegalOrderError(f"a MU is listed twice in {_list(list(units))}")


def _require_mu_in(view: View, side: str, origin: str) -> None:
    """An attack or invasion starts from a city where the side has MU."""
    if not mu_in(view, side, origin):
        raise IllegalOrderError(
            f"the {SIDE_NAMES[side]} has no MU in {origin}; it has MU in: {_list(view.cities_with_mu(side))}"
        )


def check_attack(view: View, side: str, order: Attack, used: set[str]) -> None:
    _require_mu_in(view, side, order.origin)
    targets = attack_targets(view, side, order.origin)
    if order.target not in targets:
        why = (
            f"{order.target} is not linked to {order.origin}"
            if not view.board.linked(order.origin, order.target)
            else f"{order.target} is not held by the {SIDE_NAMES[enemy(side)]}"
        )
        raise IllegalOrderError(f"{why}; from {order.origin} you can attack: {_list(targets)}")
    _check_units(view, side, order.units, order.origin, used, "an attack")
    for unit in order.losses:
        if unit not in order.units:
            raise IllegalOrderError(
                f"losses name {unit}, which is not attacking; the attackers are {_list(order.units)}"
            )
    for unit in order.occupy or ():
        if unit not in order.units:
            raise IllegalOrderError(
                f"occupy names {unit}, which is not attacking; the attackers are {_list(order.units)}"
            )


def check_invade(view: View, side: str, order: Invade, used: set[str]) -> None:
    _require_mu_in(view, side, order.origin)
    targets = invasion_targets(view, side, order.origin)
    if order.target not in targets:
        if not view.board.linked(order.origin, order.target):
            why = f"{order.target} is not linked to {order.origin}"
        else:
            why = f"{order.target} is held by the {SIDE_NAMES[enemy(side)]} (attack it instead)"
        raise IllegalOrderError(f"{why}; from {order.origin} you can invade: {_list(targets)}")
    _check_units(view, side, order.units, order.origin, used, "an invasion")


def reaches(view: View, side: str, origin: str, units: Sequence[str], destination: str) -> bool:
    """Whether ``destination`` is one of :func:`move_destinations` (without listing
    them all: only a refusal names them)."""
    if not units:
        return False
    mf = min(view.factors(u).mf for u in units)
    return (
        0 < view.steps_to(side, origin, destination, mf)
        and not view.board.linked(origin, destination)
        and view.controller(destination) != enemy(side)
    )


def check_move(view: View, side: str, order: Move, used: set[str]) -> None:
    _check_units(view, side, order.units, order.origin, used, "a move")
    if reaches(view, side, order.origin, order.units, order.destination):
        return
    reachable = move_destinations(view, side, order.origin, order.units)
    if view.board.linked(order.origin, order.destination):
        instead = linked_entry(view, side, order.origin, order.destination)
        if instead.endswith(" with"):
            instead += f" {' '.join(order.units)}"
        raise IllegalOrderError(
            f"{order.destination} is directly linked to {order.origin}: {instead} "
            f"(a move, c, ends only in a city with no direct link to its origin; "
            f"from {order.origin} {_list(list(order.units))} can move to: {_list(sorted(reachable))})"
        )
    if order.destination not in reachable:
        mf = min(view.factors(u).mf for u in order.units)
        why = ""
        if mf < 2:
            slow = [u for u in order.units if view.factors(u).mf == mf]
            why = (
                f" (a move, c, ends in a city with no direct link to its origin, so it is at least 2 path lines long; "
                f"{_list(slow)} with MF {mf} {'enters' if len(slow) == 1 else 'enter'} a linked city only by an "
                "attack, a, or an invasion, b)"
            )
        raise IllegalOrderError(
            f"{_list(list(order.units))} cannot reach {order.destination} from {order.origin} within MF {mf} "
            f"by path lines the {SIDE_NAMES[enemy(side)]} does not hold; they can reach: "
            f"{_list(sorted(reachable))}{why}"
        )


def check_carry(view: View, side: str, order: Carry, carried: list[str]) -> None:
    if "port-transport" not in view.options:
        raise IllegalOrderError("carry is the advanced rule port-transport, which this game does not use")
    ports = held_ports(view, side)
    if len(ports) < 2:
        raise IllegalOrderError(
            f"carrying needs at least 2 held port cities; the {SIDE_NAMES[side]} holds: {_list(ports)}"
        )
    for port in (order.origin, order.destination):
        if port not in ports:
            raise IllegalOrderError(
                f"{port} is not a port city the {SIDE_NAMES[side]} holds; those are: {_list(ports)}"
            )
    if order.origin == order.destination:
        raise IllegalOrderError("a carry goes from one port to another")
    _check_units(view, side, order.units, order.origin, set(carried), "a carry")
    if len(carried) + len(order.units) > CARRY_LIMIT:
        raise IllegalOrderError(f"at most {CARRY_LIMIT} MU are carried per turn")


def apply_movement(work: Position, units: Sequence[str], origin: str, destination: str, side: str) -> None:
    """Move MU on a working position; the destination becomes the side's.  The two cities'
    entries are replaced by changed copies (a working copy shares the position's)."""
    cities = work["cities"]
    cities[origin], cities[destination] = cities[origin].copy(), cities[destination].copy()
    cities[origin]["units"] = [u for u in cities[origin]["units"] if u not in units]
    cities[destination]["units"] = sort_units([*cities[destination]["units"], *units])
    cities[destination]["owner"] = side


class _Draft:
    """The position after the carries and moves checked so far, with one View of it
    per change (not one per line and per check).  Only what a move changes is
    copied: the two cities' entries (``apply_movement`` replaces their values) in
    a copy of the map of cities; every other value is the position's own (a
    ``working_copy`` copied every city, a third of checking a move)."""

    def __init__(self, position: Position, side: str, start: View):
        self.position = position
        self.side = side
        self.work = position
        self.now = start

    def move(self, units: Sequence[str], origin: str, destination: str) -> None:
        if self.work is self.position:
            self.work = {**self.position, "cities": dict(self.position["cities"])}
        apply_movement(self.work, units, origin, destination, self.side)  # copies the two entries it changes
        self.now = View(self.work)


def validate_orders(position: Position, side: str, orders: Orders) -> list[Problem]:
    """Every problem with ``side``'s orders in ``position`` (empty: legal)."""
    start = View(position)
    due = start.due_side()
    if due != side:
        now = "the game is over" if due is None else f"it is the {SIDE_NAMES[due]}'s turn"
        return [Problem(0, f"the {SIDE_NAMES.get(side, side)} has no turn now: {now}")]
    problems: list[Problem] = []
    draft = _Draft(position, side, start)
    _check_carries(draft, orders, problems)
    battle_places, battle_militia = _check_actions(draft, orders, problems)
    _check_after_action(start, draft.now, side, orders, battle_places, battle_militia, problems)
    return problems


def _check_carries(draft: _Draft, orders: Orders, problems: list[Problem]) -> None:
    """Port transport (advanced rule): carry lines first, since the carry happens before the action."""
    side = draft.side
    carried: list[str] = []
    for line in orders:
        if isinstance(line.order, Carry):
            try:
                check_names(draft.now, side, line.order)
                check_carry(draft.now, side, line.order, carried)
            except IllegalOrderError as err:
                problems.append(Problem(line.line, str(err)))
                continue
            carried.extend(line.order.units)
            draft.move(line.order.units, line.order.origin, line.order.destination)


def _check_actions(draft: _Draft, orders: Orders, problems: list[Problem]) -> tuple[list[str], list[str]]:
    """The turn's one action ("Actions"): one attack, one invade, move lines, or pass.
    Returns the cities the attack's battle may give and where it may leave room for a Militia."""
    side = draft.side
    action_kind: tuple[type, str] | None = None
    used: set[str] = set()
    battle_places: list[str] = []
    battle_militia: list[str] = []
    for line in orders:
        order = line.order
        if not isinstance(order, ACTIONS):
            continue
        kind = type(order)
        if action_kind is not None and (kind is not action_kind[0] or kind is not Move):
            word = {Attack: "attack", Invade: "invade", Move: "move", Pass: "pass"}[action_kind[0]]
            problems.append(
                Problem(
                    line.line,
                    f"a turn is one action (one attack, one invade, move lines, or pass) "
                    f"and {action_kind[1]!r} above already gives this turn's action ({word!r})",
                )
            )
            continue
        action_kind = action_kind or (kind, line.text)
        try:
            check_names(draft.now, side, order)
            if isinstance(order, Attack):
                check_attack(draft.now, side, order, used)
            elif isinstance(order, Invade):
                check_invade(draft.now, side, order, used)
            elif isinstance(order, Move):
                check_move(draft.now, side, order, used)
        except IllegalOrderError as err:
            problems.append(Problem(line.line, str(err)))
            continue
        if isinstance(order, Attack):
            battle_places, battle_militia = battle_may_leave(draft.now, side, order)
        if isinstance(order, (Invade, Move)):
            draft.move(order.units, order.origin, order.target if isinstance(order, Invade) else order.destination)
        if isinstance(order, (Attack, Invade, Move)):
            used.update(order.units)
    return battle_places, battle_militia


def _check_after_action(
    start: View,
    after: View,
    side: str,
    orders: Orders,
    battle_places: list[str],
    battle_militia: list[str],
    problems: list[Problem],
) -> None:
    """The steps after the action: new MU set up ("Setup of new units if any"),
    Militia deployed, standing loss orders.  Where a step may go is asked of its
    one city; the list of every such city is made only for a refusal (it was made
    for every turn that placed a MU, a pass over the board and more)."""
    # what each kind of step needs is worked out only for a turn that orders one
    arrivals: list[str] = []
    if any(isinstance(line.order, Place) for line in orders):
        arrivals = start.arrivals_now(side)
    placed: set[str] = set()
    militia_left = 0
    if any(isinstance(line.order, DeployMilitia) for line in orders):
        militia_left = start.militia_available(side)
    deployed: set[str] = set()
    for line in orders:
        order = line.order
        if isinstance(order, (Place, DeployMilitia, StandingLosses)):
            try:
                check_names(start, side, order)
            except IllegalOrderError as err:
                problems.append(Problem(line.line, str(err)))
                continue
        if isinstance(order, Place):
            problem = _place_problem(after, side, order, arrivals, placed, battle_places)
            if problem:
                problems.append(Problem(line.line, problem))
        elif isinstance(order, DeployMilitia):
            if militia_left < 1:
                problems.append(Problem(line.line, f"the {SIDE_NAMES[side]} has no Militia counter left to deploy"))
            elif order.city in deployed:
                problems.append(
                    Problem(
                        line.line, f"a Militia is already deployed in {order.city} this turn; one Militia holds a city"
                    )
                )
            elif not _militia_allowed(start, after, side, order.city, battle_militia):
                allowed = [c for c in after.board.cities if _militia_allowed(start, after, side, c, battle_militia)]
                problems.append(
                    Problem(
                        line.line,
                        "a Militia deploys in a city of one's possession with no MU and no Militia; for the "
                        f"{SIDE_NAMES[side]} "
                        f"after this turn's action those are (or may be, after the battle): {_list(allowed)}",
                    )
                )
            else:
                militia_left -= 1
                deployed.add(order.city)
        elif isinstance(order, StandingLosses):
            for unit in order.losses:
                if unit != MILITIA and start.side_of(unit) != side:
                    problems.append(Problem(line.line, f"{unit} is not a {SIDE_NAMES[side]} MU"))
                    break


def _militia_allowed(start: View, after: View, side: str, city: str, battle_militia: list[str]) -> bool:
    """Whether a Militia may deploy in ``city`` after this turn's action: a city of
    the side's possession before and after it, with no MU and no Militia, or one
    the battle may leave so."""
    return (militia_may_deploy(after, side, city) and start.owner(city) == side) or city in battle_militia


def _may_place(after: View, side: str, city: str, battle_places: list[str]) -> bool:
    """Whether new MU may set up in ``city`` after this turn's action: a city of the
    side's possession, or one its battle may give."""
    return after.owner(city) == side or city in battle_places


def _place_problem(
    after: View, side: str, order: Place, arrivals: list[str], placed: set[str], battle_places: list[str]
) -> str | None:
    """What is wrong with a ``place`` line ("Setup of new units if any"); notes its units in ``placed``."""
    problem = None
    for unit in order.units:
        if unit not in arrivals:
            problem = f"{unit} does not arrive now; the MU arriving this turn are: {_list(arrivals)}"
        elif unit in placed:
            problem = f"{unit} is placed twice"
        placed.add(unit)
    if problem is None and not _may_place(after, side, order.city, battle_places):
        owned = [c for c in after.board.cities if _may_place(after, side, c, battle_places)]
        problem = (
            f"{order.city} is not in the {SIDE_NAMES[side]}'s possession after this turn's action; "
            f"new MU may set up in: {_list(owned)}"
        )
    return problem
