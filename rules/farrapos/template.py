"""The order template of the side to move (``Farrapos.order_template``): the
commented hints of its next turn file, sent with every report.

The template is made once a resolution, for one side, and is mostly the side's
stacks: for each, its MU with their factors, the linked cities it may attack or
invade, and where each group of its MU may move (``legal``'s questions, read off
the board's cities as bits: :mod:`pbem.rules.farrapos.board_bits`).  What does not
depend on the position is made once per process: the lines of the order forms,
fitted, and each MU's factors as the template writes them, per face.
"""

from __future__ import annotations

from pbem.rules.base import Position
from pbem.rules.farrapos.board_bits import board_bits
from pbem.rules.farrapos.counters import SIDE_NAMES, CounterSheet
from pbem.rules.farrapos.legal import carry_allowed, held_ports, militia_cities
from pbem.rules.farrapos.orders import FORMS
from pbem.rules.farrapos.position import View, enemy
from pbem.rules.farrapos.sequence import label
from pbem.rules.kept import PerObject
from pbem.rules.template_text import fit_comments


def order_template(position: Position, side: str) -> str:
    view = View(position)
    title = f"# Farrapos - {label(view.phase, view.turn)} - orders of the {SIDE_NAMES.get(side, side)}"
    if view.due_side() != side:
        return title + "\n# It is not your turn: nothing to order.\n"
    out = [title, _template_head()]  # the order forms and their notes, the same in every template, fitted once
    owned = _stack_lines(view, side, out)
    out += _template_tail(view, position, side, owned)
    return fit_comments("\n".join(out) + "\n")


def _stack_lines(view: View, side: str, out: list[str]) -> list[str]:
    """Each of ``side``'s stacks, in board order, its MU and what it may do, appended
    to ``out``; returns the cities ``side`` owns (``legal.placement_cities``).  One
    pass over the position's cities finds the stacks, the cities the enemy holds
    (one mask for every stack's questions) and the side's own."""
    bits = board_bits(view.board)
    owned, stacks, foe = _survey(view, side)
    reduced = view.reduced
    faces = _FACES.get(view.sheet, _new_faces)
    for city, mu, militia in stacks:
        seen = [faces.get((u, u in reduced)) or _face(view.sheet, u, u in reduced, faces) for u in mu]
        factors = ", ".join([words for _, words in seen])
        out.append(f"#   {city}: {factors}" + (f" + {militia} militia" if militia else ""))
        attacks, invasions = bits.linked(city, foe)  # ``legal.linked_targets``
        if attacks:
            out.append(f"#     attack: {' '.join(attacks)}")
        if invasions:
            out.append(f"#     invade: {' '.join(invasions)}")
        # a group moves within its lowest MF: one line per MF, for the MU that have at least it
        mfs = [mf for mf, _ in seen]
        shown = 0
        for mf in sorted(set(mfs)):
            reach = bits.moves(city, mf, foe)  # ``legal.destinations_within``, sorted, as a mask
            if reach and reach != shown:
                group = [u for u, at in zip(mu, mfs) if at >= mf]
                together = "all together, " if len(group) == len(mu) else ""
                out.append(f"#     move {' '.join(group)} ({together}MF {mf}): {' '.join(bits.names(reach))}")
            shown = reach
    return owned


def _survey(view: View, side: str) -> tuple[list[str], list[tuple[str, list[str], int]], int]:
    """In one pass over the position's cities, in board order: the cities ``side``
    owns, its stacks (city, its MU, the Militia there) and the cities the enemy holds
    (``View.controller``: owned, with an MU or Militia) as a mask of the board's bits."""
    cities, counters = view.cities, view.sheet.counters
    bit, foe_side, foe = board_bits(view.board).bit, enemy(side), 0
    owned: list[str] = []
    stacks: list[tuple[str, list[str], int]] = []
    for city in view.board.cities:
        data = cities[city]
        owner, units = data["owner"], data["units"]
        if owner == side:
            owned.append(city)
        if units:
            if owner == foe_side:
                foe |= bit[city]
            mu = [u for u in units if counters[u].side == side]  # the side's MU (``mu_in``)
            if mu:
                stacks.append((city, mu, int(data["militia"])))
        elif owner == foe_side and data["militia"] > 0:
            foe |= bit[city]
    return owned, stacks, foe


_FACES: PerObject[CounterSheet, dict[tuple[str, bool], tuple[int, str]]] = PerObject()
"""Each MU's MF and its words in a template's stack line (``inf-3 2/2/3``), by MU
and face (reduced or not), per counter sheet: filled as met (:func:`_face`), once
per process for the shipped sheet."""


def _new_faces(_sheet: CounterSheet) -> dict[tuple[str, bool], tuple[int, str]]:
    return {}


def _face(
    sheet: CounterSheet, unit: str, face: bool, faces: dict[tuple[str, bool], tuple[int, str]]
) -> tuple[int, str]:
    f = sheet.counters[unit].factors(face)
    made = faces[unit, face] = (f.mf, f"{unit} {f.mf}/{f.af}/{f.df}")
    return made


_HEAD: list[str] = []


def _template_head() -> str:
    """The lines of an order template between its title and the side's MU, fitted
    to the template's width once per process: they name no city, MU or turn."""
    if not _HEAD:
        lines = [
            "# ONE action: one attack, one invade, any number of move lines, or pass (no lines = pass).",
            "# attack/invade: a city directly linked to the origin; move: a city with NO direct link to its origin,",
            "# along path lines within the lowest MF of the MU moving, not through or into a city the enemy holds.",
            "# Order forms:",
            *(f"#   {form}" for form in FORMS),
            "# Your MU (MF/AF/DF), and what they can do:",
        ]
        _HEAD.append(fit_comments("\n".join(lines)))
    return _HEAD[0]


def _template_tail(view: View, position: Position, side: str, owned: list[str]) -> list[str]:
    """An order template's lines after the side's stacks: new MU (placed in a city
    the side ``owned``), Militia, port transport, standing loss orders."""
    out = []
    arrivals = view.arrivals_now(side)
    if arrivals:
        out.append(
            f"# New MU arriving this turn: {' '.join(arrivals)}; place them in: "
            f"{' '.join(owned)}"
            " (or a city this turn's action takes)"
        )
    militia_left = view.militia_available(side)
    if militia_left:
        spots = militia_cities(view, side)
        out.append(
            f"# Militia left: {militia_left}; cities with no MU and no Militia now: "
            f"{' '.join(spots) or 'none'}"
            " (or a city this turn's action empties)"
        )
    if carry_allowed(view, side):
        out.append(f"# Port transport: carry up to 2 MU between {' '.join(held_ports(view, side))}")
    standing = position.get("standing", {}).get(side, {})
    if standing:
        out.append("# Your standing loss orders: " + "; ".join(f"{k}: {' '.join(v)}" for k, v in standing.items()))
    return out
