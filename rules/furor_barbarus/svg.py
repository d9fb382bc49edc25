"""The map as a standalone SVG, drawn to be read at 100% on a 1280 px screen.

Board: terrain, rivers and streams, hex ids (left out where a counter covers the
hex: the roster below gives every unit's hex), hex names.  Counters: the side's
colour (a white face with a coloured border once reduced), a short id (unique in
the scenario; the roster gives the full id), a NATO-style type symbol and the
factors strength-MP(-range).  A commander or a baggage stacked on a combat unit is
a tab above its counter.  This resolution: moves as arrows in the side's colour
(retreats dashed, advances dotted), every combat as a red hex outline with a
numbered badge, listed below the map with its odds, die and result.  Then a
legend and the roster.  The root element names the board group and the area of
this resolution's action (``rules.mapdraw``), which reports show enlarged first.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

from pbem.rules.base import Event
from pbem.rules.furor_barbarus import svg_counters
from pbem.rules.furor_barbarus.battlefield import Battlefield
from pbem.rules.furor_barbarus.counters import Counter
from pbem.rules.furor_barbarus.svg_board import board_of
from pbem.rules.furor_barbarus.svg_legend import legend
from pbem.rules.furor_barbarus.svg_shapes import (
    COUNTER_H,
    COUNTER_W,
    SIDE_COLOURS,
    SIZE,
    TAB_H,
    TOP,
    H,
    _marker,
    _t,
    _text,
    centre,
    corners,
    short_ids,
    tenths,
)
from pbem.rules.kept import PerObject
from pbem.rules.mapdraw import (
    Mark,
    focus_attrs,
    focus_box,
    pieces_label_marks,
    text_width,
    wrap,
)

_SHEETS: PerObject[Mapping[str, Counter], dict[str, tuple[str, str]]] = PerObject(size=16)
"""Each printed counter's factors on its full and its reduced face, by unit, once per
counter sheet (a scenario's printed counters, loaded once per process) and unit."""


def _new_sheet(_counters: Mapping[str, Counter]) -> dict[str, tuple[str, str]]:
    """A counter sheet's table of factors, filled unit by unit as they are drawn."""
    return {}


def _factors_on_each_face(c: Counter) -> tuple[str, str]:
    """The factors a counter prints (strength-MP(-range)), full face then reduced."""
    tail = f"-{c.mp}" + (f"-{c.range}" if c.range else "")
    return f"{c.value(False)}{tail}", f"{c.value(True)}{tail}"


_DASHES = {"move": "", "retreat": ' stroke-dasharray="7,4"', "advance": ' stroke-dasharray="2,3"'}
"""The line of each kind of move the map draws (a move's solid, a retreat's dashed, an advance's dotted)."""


class _Drawing:
    def __init__(self, field: Battlefield, events: Sequence[Event]) -> None:
        self.field = field
        self.events = list(events)
        self.gm = field.game_map
        self.short = short_ids(sorted(field.units))
        self.colours = {s: SIDE_COLOURS.get(info.colour, "#555") for s, info in field.scenario.side_info.items()}
        self._combats: list[tuple[int, Event]] | None = None
        self.attacking = self.attackers()
        self.printed = field.scenario.counters  # each unit's printed values (``field.counter``)
        self.sheet = _SHEETS.get(self.printed, _new_sheet)  # each unit's factors on both faces (``faces``)
        self.label_marks: list[Mark] = []  # the counters' labels, measured as they are drawn
        # each side's roster rows (hex, unit, its state, its factors), gathered by the counters' pass
        self.rows: dict[str, list[tuple[str, str, dict[str, Any], str]]] | None = None
        self.moved: set[str] = set()  # the hexes of every move's, retreat's and advance's path (``movements``)

    def colour(self, uid: str) -> str:
        return self.colours.get(self.field.side_of(uid), "#555")

    def strength(self, uid: str) -> int:
        """The printed strength on the face showing (``field.strength``, from the printed values)."""
        return self.printed[uid].value(bool(self.field.units[uid]["reduced"]))

    def factors(self, uid: str) -> str:
        """The factors a unit's counter prints (strength-MP(-range)) on the face showing."""
        return self.faces(uid)[bool(self.field.units[uid]["reduced"])]

    def faces(self, uid: str) -> tuple[str, str]:
        """The factors a unit's counter prints on its full and its reduced face, written
        once per counter sheet and unit in a process (``_SHEETS``), where each map wrote
        every unit's again; the counters' pass reads the sheet itself."""
        found = self.sheet.get(uid)
        if found is None:
            found = self.sheet[uid] = _factors_on_each_face(self.printed[uid])
        return found

    # --- the board ---------------------------------------------------------------
    def board(self, occupied: set[str], marks: list[Mark]) -> list[str]:
        """The map's terrain, then each hex's id and name where no counter covers
        them (``svg_board``); their labels' marks go to ``marks``."""
        return board_of(self.gm).draw(occupied, marks)

    # --- this resolution ---------------------------------------------------------
    def movements(self) -> list[str]:
        out = ['<g class="moves">']
        colours = self.colours
        for e in self.events:
            kind = e.get("type")
            # None: not a move, retreat or advance (a kind of the table, written as it is)
            dash = _DASHES.get(kind) if isinstance(kind, str) else None
            if dash is None:
                continue
            path = e.get("path") or []
            if type(path) is not list or not all(path):  # a path as the engine writes it is used as it is
                path = [h for h in path if h]
            self.moved.update(path)
            if len(path) < 2:
                continue
            colour = colours.get(str(e.get("side") or ""), None) or (
                self.colour(e["unit"]) if e.get("unit") in self.field.units else "#222"
            )
            sx, sy, _ = _point(path[0])
            out.append(f'<circle cx="{sx}" cy="{sy}" r="5" fill="{colour}" opacity="0.7"/>')
            # each hex's centre, then the arrow's end short of the last hex's counter (each written once per process)
            points = " ".join([*[_point(h)[2] for h in path[:-1]], _arrow_end(path[-2], path[-1])])
            out.append(
                f'<polyline points="{points}" fill="none" stroke="{colour}" '
                f'stroke-width="3" stroke-linejoin="round"{dash} marker-end="url(#{_marker(colour)})" opacity="0.75" '
                f'class="{kind}"><title>{_t(e.get("text", ""))}</title></polyline>'
            )
        out.append("</g>")
        return out

    def combats(self) -> list[tuple[int, Event]]:
        """This resolution's combats, numbered: found once per map (the board, its badges,
        the attackers and the panel below each read them)."""
        if self._combats is None:
            self._combats = self._numbered_combats()
        return self._combats

    def _numbered_combats(self) -> list[tuple[int, Event]]:
        return [
            (i, e)
            for i, e in enumerate(
                (e for e in self.events if e.get("type") == "combat" and e.get("hex") and not e.get("cancelled")),
                start=1,
            )
        ]

    def combat_hexes(self) -> list[str]:
        """Each combat's hex outlined in red, under the counters (it never crosses a label)."""
        out = ['<g class="combat-hexes">']
        for _n, e in self.combats():
            cx, cy = centre(e["hex"])
            out.append(
                f'<polygon class="combat" points="{corners(cx, cy, SIZE - 2)}" fill="#d00000" fill-opacity="0.12" '
                f'stroke="#d00000" stroke-width="4"><title>{_t(e.get("text", ""))}</title></polygon>'
            )
        out.append("</g>")
        return out

    def combat_marks(self) -> list[str]:
        """The attack arrows and the numbered badges, over the counters."""
        out = ['<g class="combats">']
        for _n, e in self.combats():
            cx, cy = centre(e["hex"])
            for fh in e.get("from_hexes") or []:
                fx, fy = centre(fh)
                dist = math.hypot(cx - fx, cy - fy)
                if dist < H * 1.5:
                    continue  # next to its target: the attacker's red border says it (no room for an arrow)
                a, b = (COUNTER_W / 2 + 4) / dist, 1 - (COUNTER_W / 2 + 8) / dist
                out.append(
                    f'<line x1="{fx + (cx - fx) * a:.1f}" y1="{fy + (cy - fy) * a:.1f}" '
                    f'x2="{fx + (cx - fx) * b:.1f}" y2="{fy + (cy - fy) * b:.1f}" stroke="#d00000" '
                    f'stroke-width="3" stroke-dasharray="5,3" marker-end="url(#fb-attack)"/>'
                )
        for n, e in self.combats():
            cx, cy = centre(e["hex"])
            bx, by = cx + SIZE - 3, cy + 4
            out.append(
                f'<g class="combat-badge"><title>{_t(e.get("text", ""))}</title>'
                f'<circle cx="{tenths(bx)}" cy="{tenths(by)}" r="8" fill="#d00000" stroke="#fff" stroke-width="1.2"/>'
                + _text(bx, by + 3.5, str(n), 10, "middle", "#fff", "bold", cls="badge")
                + "</g>"
            )
        out.append("</g>")
        return out

    # --- counters ----------------------------------------------------------------
    def attackers(self) -> set[str]:
        return {a for _, e in self.combats() for a in e.get("attackers") or []}

    def counter(self, uid: str, x: float, y: float) -> str:
        c = self.printed[uid]
        state = self.field.units[uid]  # an active unit on the map (drawn from the hex index)
        markup, *marks = svg_counters.counter(
            uid,
            c.name,
            c.type._value_,  # the enum's value (``.value`` is a slow descriptor)
            self.factors(uid),
            bool(state["reduced"]),
            state["hex"],
            x,
            y,
            self.colours.get(str(state["side"]), "#555"),
            self.short[uid],
            uid in self.attacking,
        )
        self.label_marks += marks
        return markup

    def tab(self, uid: str, x: float, y: float) -> str:
        c = self.printed[uid]
        state = self.field.units[uid]
        markup, label = svg_counters.tab(
            uid,
            c.name,
            c.type._value_,
            self.factors(uid),
            state["hex"],
            x,
            y,
            self.colours.get(str(state["side"]), "#555"),
            self._tab_words(uid),
        )
        self.label_marks.append(label)
        return markup

    def _tab_words(self, uid: str) -> str:
        for words in (
            f"{self.short[uid]} {self.factors(uid)}",
            f"{self.short[uid]} {self.strength(uid)}",
            self.short[uid],
        ):
            if text_width(words, 7.5, bold=True) <= COUNTER_W - 3:
                return words
        return self.short[uid]

    def counters(self) -> list[str]:
        """Each hex's counter (and its tabs), in the order of the hexes; the same pass
        gathers each side's rows of the roster below the board (``rows``), in that
        order, a hex's units by id, with the factors it printed."""
        out = ['<g class="counters">']
        where, printed = self.field.occupied(), self.printed  # the hex index: the units on the map
        states, colours, short, attacking = self.field.units, self.colours, self.short, self.attacking
        marks, sheet = self.label_marks, self.sheet  # the counters' labels' marks, in the order they are drawn
        rows: dict[str, list[tuple[str, str, dict[str, Any], str]]] = {s: [] for s in self.colours}
        for h in sorted(where):
            units = where[h]  # read, never changed
            cx, cy = centre(h)
            if len(units) == 1:  # most hexes: its one unit is the counter, whatever its type (self.counter, inline)
                uid = units[0]
                c, state = printed[uid], states[uid]
                reduced = bool(state["reduced"])
                factors = (sheet.get(uid) or self.faces(uid))[reduced]  # self.factors, inline
                side = state["side"]
                markup, id_mark, factors_mark = svg_counters.counter(
                    uid,
                    c.name,
                    c.type._value_,
                    factors,
                    reduced,
                    state["hex"],
                    cx - COUNTER_W / 2,
                    cy - COUNTER_H / 2 + 1,
                    colours.get(str(side), "#555"),
                    short[uid],
                    uid in attacking,
                )
                out.append(markup)
                marks.append(id_mark)
                marks.append(factors_mark)
                side_rows = rows.get(side)
                if side_rows is not None:
                    side_rows.append((h, uid, state, factors))
                continue
            main = next((u for u in units if printed[u].is_combat_unit), None)
            extras = sorted(u for u in units if u != main)
            if main is None:
                main, extras = extras[0], extras[1:]
            y = cy - COUNTER_H / 2 + (TAB_H / 2 if extras else 0) + 1
            out.append(self.counter(main, cx - COUNTER_W / 2, y))
            for i, u in enumerate(extras[:2]):
                out.append(self.tab(u, cx - COUNTER_W / 2, y - TAB_H * (i + 1) - 0.5))
            for u in sorted(units):
                state = states[u]
                side_rows = rows.get(state["side"])
                if side_rows is not None:
                    side_rows.append((h, u, state, self.factors(u)))
        out.append("</g>")
        self.rows = rows
        return out

    def roster_rows(self) -> dict[str, list[tuple[str, str, dict[str, Any], str]]]:
        """Each side's roster rows as :meth:`counters` gathers them, for a roster drawn
        without the counters."""
        where, states, sheet = self.field.occupied(), self.field.units, self.sheet
        rows: dict[str, list[tuple[str, str, dict[str, Any], str]]] = {s: [] for s in self.colours}
        for h in sorted(where):
            here = where[h]
            for u in here if len(here) == 1 else sorted(here):
                state = states[u]
                side_rows = rows.get(state["side"])
                if side_rows is not None:  # self.factors, inline
                    side_rows.append((h, u, state, (sheet.get(u) or self.faces(u))[bool(state["reduced"])]))
        return rows


@lru_cache(maxsize=4096)
def _point(h: str) -> tuple[str, str, str]:
    """The centre of hex ``h`` as written: x, y and the point ``x,y`` of a move's line
    (once per hex in a process: a move's line wrote each of its hexes' numbers)."""
    x, y = centre(h)
    tx, ty = tenths(x), tenths(y)  # each written once (the point wrote both again)
    return tx, ty, f"{tx},{ty}"


@lru_cache(maxsize=4096)
def _arrow_end(a: str, b: str) -> str:
    """The point where the arrow of a move from hex ``a`` into hex ``b`` ends, short of
    ``b``'s counter, as written (once per pair of hexes in a process)."""
    (ax, ay), (bx, by) = centre(a), centre(b)
    d = math.hypot(bx - ax, by - ay) or 1
    stop = min(COUNTER_H / 2 + 6, d * 0.6)
    return f"{tenths(bx - (bx - ax) / d * stop)},{tenths(by - (by - ay) / d * stop)}"


def render(field: Battlefield, events: Sequence[Event] = ()) -> str:
    d = _Drawing(field, events)
    gm = field.game_map
    width = round(SIZE * (1.5 * gm.columns + 0.5) + 2)
    board_h = TOP + H * (gm.rows + 0.5) + 2
    occupied = {h for h in field.occupied() if h}  # the hexes of the units on the map
    body: list[str] = []
    body.append(
        _text(
            8,
            27,
            (
                f"{field.scenario.title}"
                if field.scenario.title.startswith(gm.title.split(" (")[0])
                else f"{gm.title}: {field.scenario.title}"
            )
            + f", turn {field.turn}",
            18,
            weight="bold",
            cls="title",
        )
    )
    body.append('<g id="fb-board">')
    labels: list[Mark] = []  # the board's labels, measured once per map in a process
    body += d.board(occupied, labels)
    marks = d.combat_marks()
    body += d.combat_hexes()  # the combats' hexes and the moves hold no label
    body += d.movements()
    body += d.counters()  # whose labels are measured as they are drawn
    body += marks
    body.append("</g>")
    labels += pieces_label_marks(marks) + d.label_marks  # each combat's badge measured once per process
    y, panel = _panels(d, width, board_h + 14)
    body += panel
    height = round(y + 10)
    action, why = _action(d, occupied)
    whole = (0.0, TOP - 2, float(width), board_h - TOP + 2)
    # the core kept whole: a combat's hex and its badge (SIZE + 5 from the hex's centre)
    focus = focus_box(
        action, whole, SIZE * 1.4, (SIZE * 1.5 * 5, H * 4), labels, (0.0, 0.0, float(width), height), SIZE * 1.25
    )
    head = (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="{width}" height="{height}" '
        f'font-family="DejaVu Sans, Liberation Sans, Arial, sans-serif" {focus_attrs("fb-board", focus, why)}>'
        f"<title>{_t(gm.title)}: {_t(field.scenario.title)}</title>"
        "<defs>"
        + "".join(
            f'<marker id="{_marker(c)}" viewBox="0 0 10 10" refX="5" refY="5" markerWidth="3.2" markerHeight="3.2" '
            f'orient="auto" markerUnits="strokeWidth"><path d="M0,0 L10,5 L0,10 z" fill="{c}"/></marker>'
            for c in sorted({*d.colours.values(), "#555555", "#222"})
        )
        + '<marker id="fb-attack" viewBox="0 0 10 10" refX="6" refY="5" markerWidth="3" markerHeight="3" orient="auto" '
        'markerUnits="strokeWidth"><path d="M0,0 L10,5 L0,10 z" fill="#d00000"/></marker></defs>'
        f'<rect x="0" y="0" width="{width}" height="{height}" fill="#fbfaf4"/>'
    )
    return "\n".join([head, *body, "</svg>"])


def _action(d: _Drawing, occupied: set[str]) -> tuple[list[tuple[float, float]], str]:
    """The area of this resolution's action (every combat's hexes, every move's,
    retreat's and advance's path: each hex once, as the drawing met them) and why; in
    a quiet resolution (or the set-up) the front, where the armies touch, else every
    unit.  Drawn after :meth:`_Drawing.movements`, which gathers the moves' hexes."""
    hexes = set(d.moved)
    for _n, e in d.combats():
        hexes.add(e["hex"])
        hexes.update(e.get("from_hexes") or ())
    if hexes:  # only the area's edges matter: each hex's centre once, in any order
        return [centre(h) for h in hexes], "this resolution's action"
    field = d.field
    gm = field.game_map
    front = [
        centre(h)
        for h in sorted(occupied)
        if any(
            field.side_of(u) != field.side_of(v)
            for u in field.units_in(h)
            for n in gm.neighbours(h)
            for v in field.units_in(n)
        )
    ]
    return (front, "the front") if front else ([centre(h) for h in sorted(occupied)], "the armies")


def _panels(d: _Drawing, width: int, y: float) -> tuple[float, list[str]]:
    """Below the board: this resolution's combats, the legend, the armies and the roster."""
    out: list[str] = []
    y = _combats_panel(d, width, y, out)
    y = _legend_panel(d, width, y, out)
    y = _armies_panel(d, width, y, out)
    return y, out


def _combats_panel(d: _Drawing, width: int, y: float, out: list[str]) -> float:
    """This resolution's combats (section 9), numbered as on the board; appends to ``out``."""
    combats = d.combats()
    if combats:
        out.append(_text(10, y + 14, "Combats this resolution", 14, weight="bold"))
        y += 32
        for n, e in combats:
            out.append(
                f'<circle cx="18" cy="{tenths(y - 4)}" r="8" fill="#d00000"/>'
                + _text(18, y - 0.5, str(n), 10, "middle", "#fff", "bold", cls="badge")
            )
            attackers = ", ".join(d.short.get(a, a) for a in e.get("attackers") or [])
            defender = d.short.get(str(e.get("defender")), str(e.get("defender")))
            line = (
                f"{e['hex']}: {attackers} ({e.get('attack')}) against {defender} ({e.get('defence')}), "
                f"odds {e.get('odds')}"
                + (f", column {e.get('column')}" if e.get("column") != e.get("odds") else "")
                + f", die {e.get('die')}"
                + (f"{int(e.get('modifier') or 0):+d}" if e.get("modifier") else "")
                + f": {e.get('result')}"
            )
            for part in wrap(line, 12, width - 42):
                out.append(_text(32, y, part, 12))
                y += 16
            y += 3
        y += 6
    return y


def _legend_panel(d: _Drawing, width: int, y: float, out: list[str]) -> float:
    """The legend: unit types (section 2), a counter, the arrows and the terrain; appends to ``out``."""
    y, drawn = legend(board_of(d.gm), width, y, next(iter(d.colours.values()), "#555"))
    out += drawn
    return y


def _roster_line(
    x: float, y: float, h: str, uid: str, short: str, factors: str, reduced: bool, name: str, fill: str
) -> str:
    """A unit's line of the roster at (x, y), in hex ``h``: its words and look put
    together once per unit's state and column in a process, its place (its row and
    its hex, which change from one map to the next) written into them."""
    before_y, before_hex, after_hex = _roster_words(x, uid, short, factors, reduced, name, fill)
    return f"{before_y}{tenths(y)}{before_hex}{_t(h)}{after_hex}"


@lru_cache(maxsize=4096)
def _roster_words(
    x: float, uid: str, short: str, factors: str, reduced: bool, name: str, fill: str
) -> tuple[str, str, str]:
    """A roster line's markup (``_text`` at (x, 0.5) with a mark where its hex goes),
    cut where its y and its hex go (escaping works character by character, so the
    hex's text escaped on its own is what the whole line's escape gives it)."""
    words = f"  {short}" + (f" = {uid}" if short != uid else "") + f"  {factors}" + (" reduced" if reduced else "")
    before_y, after_y = _text(x, 0.5, f"\x00{words}  {name}", 11, fill=fill, cls="roster").split(' y="0.5"', 1)
    before_hex, after_hex = after_y.split("\x00", 1)
    return before_y + ' y="', '"' + before_hex, after_hex


def _armies_panel(d: _Drawing, width: int, y: float, out: list[str]) -> float:
    """The armies (army morale loss / threshold, section 10) and the roster; appends to ``out``."""
    field = d.field
    out.append(_text(10, y, "Armies (army morale loss / threshold) and every unit on the map", 14, weight="bold"))
    y += 20
    for s, info in field.scenario.side_info.items():
        out.append(
            f'<rect x="10" y="{tenths(y - 11)}" width="14" height="14" fill="{d.colours[s]}"/>'
            + _text(
                30, y, f"{info.name} ({s}): {field.losses(s)} / {info.threshold}", 12, fill=d.colours[s], weight="bold"
            )
        )
        y += 18
    y += 6
    col_w = 400.0
    cols = max(1, int((width - 10) // col_w))
    printed, short, colours = d.printed, d.short, d.colours
    by_side = d.rows if d.rows is not None else d.roster_rows()
    count = sum(map(len, by_side.values()))
    per_col = math.ceil(count / cols) if count else 0
    i = 0
    for s, rows in by_side.items():
        fill = colours.get(s, "#222")
        for h, u, state, factors in rows:
            col, row = divmod(i, per_col)
            i += 1
            # _roster_line, without a call of its own a line
            before_y, before_hex, after_hex = _roster_words(
                10 + col * col_w, u, short[u], factors, bool(state["reduced"]), printed[u].name, fill
            )
            out.append(f"{before_y}{tenths(y + row * 16)}{before_hex}{_t(h)}{after_hex}")
    y += per_col * 16
    return y
