"""The board as a standalone SVG: cities at their real latitude/longitude
(equirectangular, scaled to the box), path lines, owners, VP values, colour
groups, port marks, every stack listed counter by counter, the VP track and the
Phase/Turn track, and the last resolution's moves and battles as arrows.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from pbem.rules.base import Event
from pbem.rules.farrapos.board import Board, load_board
from pbem.rules.farrapos.counters import FIRST_PHASE, LAST_PHASE, SIDE_NAMES, CounterSheet
from pbem.rules.farrapos.position import Position, View
from pbem.rules.farrapos.sequence import label
from pbem.rules.farrapos.svg_focus import focus
from pbem.rules.farrapos.svg_layout import BADGE_SIZE, MAP_H, MAP_W, MAP_X0, MAP_Y0, NAME_SIZE, Placement, _layout
from pbem.rules.kept import PerObject
from pbem.rules.mapdraw import LABEL_MARGIN, Mark, escape, focus_attrs, mark, quoteattr, text_width

# Portrait: the board takes the whole width (so it stays legible on a phone),
# the tracks and the stacks follow below it.
WIDTH, HEIGHT = 960, 1500
PANEL_Y0 = MAP_Y0 + MAP_H + 10
COLUMN_W = 460
SIDE_COLOURS = {"empire": "#1f4e9c", "republic": "#b8202a", None: "#777777"}
TYPE_NAMES = {"inf": "Inf", "cav": "Cav", "art": "Art"}


_COORDS: dict[float, str] = {}


def _coord(v: float) -> str:
    """``f"{v}"``, each float written once per process (formatting a float is some
    1,500 instructions, and the maps of a batch draw their badges, arrows and rings
    at the same few places); an int, and zero (0.0 and -0.0 are one key and
    written apart), each time."""
    if type(v) is not float or not v:
        return f"{v}"
    found = _COORDS.get(v)
    if found is None:
        if len(_COORDS) > 65536:
            _COORDS.clear()
        found = _COORDS[v] = f"{v}"
    return found


def _text(
    x: float | str,
    y: float | str,
    body: str,
    size: int = 12,
    anchor: str = "start",
    weight: str = "normal",
    fill: str = "#222",
) -> str:
    return (
        f'<text x="{x}" y="{y}" font-size="{size}" text-anchor="{anchor}" font-weight="{weight}" '
        f'fill={quoteattr(fill)} font-family="sans-serif">{escape(body)}</text>'
    )


def _counter_label(view: View, unit: str) -> str:
    c = view.sheet.counters[unit]
    f = view.factors(unit)
    face = "reduced" if unit in view.reduced else "full"
    return f"{unit} {TYPE_NAMES.get(c.type.id, c.type.id)} {face} MF{f.mf} AF{f.af} DF{f.df}"


def _arrow(p: tuple[float, float], q: tuple[float, float], colour: str, dashed: bool) -> str:
    """From the edge of one city's circle to the edge of the other's (drawn over
    the circles, so that the arrow between two close cities still shows)."""
    dash = ' stroke-dasharray="6 4"' if dashed else ""
    d = math.dist(p, q) or 1.0
    cut = min(15.0, d / 2 - 2)
    ux, uy = (q[0] - p[0]) / d, (q[1] - p[1]) / d
    p, q = (
        (round(p[0] + ux * cut, 1), round(p[1] + uy * cut, 1)),
        (round(q[0] - ux * cut, 1), round(q[1] - uy * cut, 1)),
    )
    return (
        f'<line x1="{_coord(p[0])}" y1="{_coord(p[1])}" x2="{_coord(q[0])}" y2="{_coord(q[1])}" '
        f'stroke={quoteattr(colour)} stroke-width="3"{dash} marker-end="url(#arrow)" opacity="0.8"/>'
    )


@dataclass(frozen=True)
class _Drawing:
    """What the map of one board draws the same in every position, worked out once
    per board: the board and its path lines, each city's mark and name label in
    each of their looks (owner, held or not), the tracks and the key.  A render
    only looks each city up and draws what moves (since the speed work)."""

    at: dict[str, tuple[float, float]]
    labels: Placement
    top: str  # from the board's group to the opening of the cities' group
    marks: dict[str, dict[tuple[str | None, bool], str]]  # city -> (owner, occupied) -> its mark
    names: dict[str, dict[tuple[str | None, bool], str]]  # city -> (owner, with an MU badge) -> leader line and name
    mark_labels: dict[str, Mark]  # city -> the label mark of its VP, whoever holds it
    name_labels: dict[str, tuple[Mark, Mark]]  # city -> the label mark of its name, without and with a badge
    badges: dict[str, tuple[float, float]]  # city -> where its MU badge is drawn
    badge_heads: dict[tuple[str, str | None], str]  # (city, holder) -> its MU badge's <text ...>: filled as met
    badge_texts: dict[tuple[str, str | None, int, int], tuple[str, Mark]]  # (city, holder, MU, Militia) -> its
    # badge's text and label mark: filled as met (:func:`_badge`)
    phases: dict[int, tuple[str, str]]  # phase -> its cell of the track, (not current, current)
    turns: dict[int, tuple[str, str]]
    track_texts: dict[tuple[float, int, int], str]  # (x, phase, turn) -> the tracks to the VP boxes: filled as met
    vp_texts: dict[tuple[Any, ...], str]  # (x, Empire VP, Republic VP, their types) -> the VP markers and score
    vp_track: str
    vp_track_y: float
    key: str  # colour groups, ports, this resolution's symbols, and the Stacks heading
    stacks_y: float
    cities_drawn: tuple[tuple[str, int, dict[Any, str], dict[Any, str], tuple[Mark, Mark]], ...]  # board order: each
    # city, the place of its name among the labels, its looks in ``marks`` and ``names`` and its ``name_labels``


PHASE_TRACK_Y = PANEL_Y0 + 24
TURN_TRACK_Y = PHASE_TRACK_Y + 50
VP_TRACK_Y = TURN_TRACK_Y + 50
SCORE_Y = VP_TRACK_Y + 70


def _drawing(board: Board) -> _Drawing:
    at, labels = _layout(board)
    top = [
        '<g id="farrapos-board">',
        f'<rect x="{MAP_X0}" y="{MAP_Y0}" width="{MAP_W}" height="{MAP_H}" fill="#f6f1e3"/>',
        '<g class="links">',
    ]
    for a, b in board.links:
        (x1, y1), (x2, y2) = at[a], at[b]
        top.append(f'<line x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" stroke="#8a7b5a" stroke-width="2"/>')
    top += ["</g>", '<g class="cities">']
    marks, mark_labels = _city_marks(board, at)
    names, name_labels, badges = _city_names(board, at, labels)
    px = MAP_X0 + 20
    phases, turns, vp_track, y = _track_boxes(px)
    key, stacks_y = _key(board, px, SCORE_Y + 22)
    return _Drawing(
        at,
        labels,
        "\n".join(top),
        marks,
        names,
        mark_labels,
        name_labels,
        badges,
        {},  # badge_heads: filled as met
        {},  # badge_texts: filled as met
        phases,
        turns,
        {},  # track_texts: filled as met
        {},  # vp_texts: filled as met
        "\n".join(vp_track),
        y,
        key,
        stacks_y,
        tuple((c, list(labels).index(c), marks[c], names[c], name_labels[c]) for c in board.cities),
    )


def _label_mark(x: float, y: float, body: str, size: int, bold: bool) -> Mark:
    """The mark of a label drawn centred on ``x`` with its baseline at ``y``: what
    ``mapdraw.label_marks`` reads back from its ``<text>``, worked out from the
    numbers it is drawn with (a city's VP and name are the same box whoever holds
    it: only their colours change)."""
    w = text_width(body, size, bold)
    return mark((x - w / 2, y - 0.96 * size, w, 1.22 * size))


def _city_marks(
    board: Board, at: dict[str, tuple[float, float]]
) -> tuple[dict[str, dict[tuple[str | None, bool], str]], dict[str, Mark]]:
    """Each city's circle, port mark and VP, drawn once for every holder and
    whether it is occupied; and the label mark of each city's VP."""
    marks: dict[str, dict[tuple[str | None, bool], str]] = {}
    labels: dict[str, Mark] = {}
    for cid, city in board.cities.items():
        x, y = at[cid]
        fill = board.colours[city.colour].fill
        tail = (
            [f'<rect x="{x + 8}" y="{y + 5}" width="7" height="7" fill="#0b5394"><title>port</title></rect>']
            if city.port
            else []
        ) + [
            _text(x, y + 5, str(city.vp), 13, "middle", "bold"),
            "</g>",
        ]
        marks[cid] = {
            (owner, occupied): "\n".join(
                [
                    f'<g class="city" id={quoteattr("city-" + cid)}><title>{escape(city.name)}</title>'
                    f'<circle cx="{x}" cy="{y}" r="12" fill={quoteattr(fill)} stroke={quoteattr(stroke)} '
                    f'stroke-width="{4 if occupied else 2}"/>',
                    *tail,
                ]
            )
            for owner, stroke in SIDE_COLOURS.items()
            for occupied in (False, True)
        }
        labels[cid] = _label_mark(x, y + 5, str(city.vp), 13, True)
    return marks, labels


def _city_names(
    board: Board, at: dict[str, tuple[float, float]], labels: Placement
) -> tuple[dict[str, dict[tuple[str | None, bool], str]], dict[str, tuple[Mark, Mark]], dict[str, tuple[float, float]]]:
    """Each city's name (with its leader line) for every holder and whether a
    stack badge sits below it, with the label mark of each; and where each badge goes."""
    names: dict[str, dict[tuple[str | None, bool], str]] = {}
    name_marks: dict[str, tuple[Mark, Mark]] = {}
    badges: dict[str, tuple[float, float]] = {}
    for cid, ((bx, by, bw, bh), leader) in labels.items():
        city = board.cities[cid]
        lead = (
            [
                f'<line x1="{leader[0]}" y1="{leader[1]}" x2="{leader[2]}" y2="{leader[3]}" stroke="#777" '
                'stroke-width="1"/>'
            ]
            if leader
            else []
        )
        cx = round(bx + bw / 2, 1)
        above = by + bh / 2 < at[cid][1]  # a label above its city keeps its name next to it
        baseline = {
            badge: round(by + (0 if badge or not above else BADGE_SIZE * 1.22) + NAME_SIZE * 0.95, 1)
            for badge in (False, True)
        }
        names[cid] = {
            (owner, badge): "\n".join(
                [*lead, _text(cx, baseline[badge], city.name, NAME_SIZE, "middle", fill=stroke if owner else "#444")]
            )
            for owner, stroke in SIDE_COLOURS.items()
            for badge in (False, True)
        }
        name_marks[cid] = (
            _label_mark(cx, baseline[False], city.name, NAME_SIZE, False),
            _label_mark(cx, baseline[True], city.name, NAME_SIZE, False),
        )
        badges[cid] = (cx, round(by + NAME_SIZE * 1.22 + BADGE_SIZE * 0.95, 1))
    return names, name_marks, badges


def _track_boxes(px: int) -> tuple[dict[int, tuple[str, str]], dict[int, tuple[str, str]], list[str], float]:
    """The phase, turn and VP tracks (each box plain and current); the VP track's top."""
    phases = {}
    for i, phase in enumerate(range(FIRST_PHASE, LAST_PHASE + 1)):
        cx, y = px + i * 43, PHASE_TRACK_Y + 8
        plain, lit = (
            f'<rect x="{cx}" y="{y}" width="40" height="20" fill="{"#ffd966" if current else "#eee"}" stroke="#888"/>\n'
            + _text(cx + 20, y + 14, str(phase), 10, "middle", "bold" if current else "normal")
            for current in (False, True)
        )
        phases[phase] = plain, lit
    turns = {}
    for turn in range(1, 5):
        cx, y = px + (turn - 1) * 110, TURN_TRACK_Y + 8
        who = SIDE_NAMES["republic" if turn % 2 else "empire"]
        plain, lit = (
            f'<rect x="{cx}" y="{y}" width="104" height="20" fill="{"#ffd966" if current else "#eee"}" '
            'stroke="#888"/>\n' + _text(cx + 52, y + 14, f"{turn} {who}", 10, "middle", "bold" if current else "normal")
            for current in (False, True)
        )
        turns[turn] = plain, lit
    y = VP_TRACK_Y + 8
    vp_track = []
    for vp in range(0, 31):
        col, row = vp % 16, vp // 16
        cx, cy = px + col * 29, y + row * 24
        vp_track.append(f'<rect x="{cx}" y="{cy}" width="27" height="22" fill="#eee" stroke="#aaa"/>')
        vp_track.append(_text(cx + 13, cy + 9, str(vp), 8, "middle", fill="#777"))
    return phases, turns, vp_track, y


def _key(board: Board, px: int, y: float) -> tuple[str, float]:
    """The colour groups, the port mark, the symbols of this resolution and the
    Stacks heading; and where the stacks begin."""
    out = [_text(px, y, "Colour groups (bonus)", 13, weight="bold")]
    for i, g in enumerate(board.colours.values()):
        cx, cy = px + (i % 2) * 240, y + 8 + (i // 2) * 18
        out.append(f'<rect x="{cx}" y="{cy}" width="14" height="12" fill={quoteattr(g.fill)} stroke="#888"/>')
        out.append(_text(cx + 18, cy + 10, f"{g.name} +{g.bonus}", 11))
    y += 8 + ((len(board.colours) + 1) // 2) * 18 + 6
    out.append(f'<rect x="{px}" y="{y - 9}" width="7" height="7" fill="#0b5394"/>')
    out.append(_text(px + 12, y, f"port city (all ports +{board.port_bonus})", 11))
    y += 22
    out.append(_text(px, y, "This resolution", 13, weight="bold"))
    y += 18

    def sample(colour: str, dashed: bool, ring: bool = False) -> str:
        dash = ' stroke-dasharray="6 4"' if dashed else ""
        shape = (
            f'<line x1="{px}" y1="{y - 4}" x2="{px + 40}" y2="{y - 4}" stroke={quoteattr(colour)} '
            f'stroke-width="3"{dash} '
            f'marker-end="url(#arrow)" opacity="0.8"/>'
        )
        if ring:
            shape += f'<circle cx="{px + 60}" cy="{y - 4}" r="10" fill="none" stroke="#e07000" stroke-width="3"/>'
        return shape

    legend = [
        (sample(SIDE_COLOURS["republic"], False), "move or invasion (the side's colour)"),
        (sample(SIDE_COLOURS["empire"], True), "carried by sea"),
        (sample("#e07000", True, ring=True), "attack; ring: the battle (its rounds are in the report)"),
    ]
    x = 0.0
    for shape, words in legend:
        out.append(f'<g transform="translate({x:.1f},0)">{shape}</g>')
        out.append(_text(round(px + x + 78, 1), y, words, 11))
        x += 78 + text_width(words, 11) + 16
        if x > WIDTH - 360:
            x, y = 0.0, y + 22
    y += 28
    out.append(_text(px, y, "Stacks", 14, weight="bold"))
    return "\n".join(out), y + 18


@lru_cache(maxsize=1)
def _shipped_drawing() -> _Drawing:
    """The drawing of the shipped board (``load_board``), worked out once: it
    depends on the board only, and placing the labels is the map's main cost."""
    return _drawing(load_board())


def render(position: Position, events: Sequence[Event] = (), side: str | None = None) -> str:
    view = View(position)
    board = view.board
    drawing = _shipped_drawing() if board is load_board() else _drawing(board)
    out: list[str] = [
        "",  # the root element, once the height and the close-up are known
        '<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="6" markerHeight="6" '
        'orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" fill="#333"/></marker></defs>',
        "",  # the background, sized with the root
        _text(
            MAP_X0,
            30,
            f"Farrapos - {label(view.phase, view.turn)}" + (" - game over" if position.get("outcome") else ""),
            20,
            weight="bold",
        ),
        drawing.top,
    ]
    labels: list[Mark] = []
    marks: list[Mark] = []
    stacks: list[_Stack] = []
    out += _board_layers(view, drawing, events, labels, marks, stacks)
    # --- panel below the board: tracks and stacks --------------------------------
    px = MAP_X0 + 20
    panel_at = len(out)
    out.append("")  # the panel's background, sized once the stacks are listed
    out += _tracks(view, drawing, px)
    out.append(drawing.key)
    y = _stacks(view, drawing, px, out, stacks)
    if position.get("outcome"):
        o = position["outcome"]
        y += 20
        out.append(
            _text(px, y, f"Result: {o.get('kind')} {o.get('winner') or ''} - {o.get('reason')}", 16, weight="bold")
        )
    height = y + 24
    out[panel_at] = (
        f'<rect x="{px - 10}" y="{PANEL_Y0}" width="{WIDTH - px}" height="{height - PANEL_Y0 - 8}" '
        'fill="#fffdf6" stroke="#c9bb95"/>'
    )
    box, why = focus(view, drawing.at, events, labels + marks, (0, 0, WIDTH, height))
    out[0] = (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {height}" width="{WIDTH}" height="{height}" '
        f"{focus_attrs('farrapos-board', box, why)}>"
    )
    out[2] = f'<rect x="0" y="0" width="{WIDTH}" height="{height}" fill="#f6f1e3"/>'
    out.append("</svg>")
    return "\n".join(out)


def _board_layers(
    view: View,
    drawing: _Drawing,
    events: Sequence[Event],
    labels: list[Mark],
    marks: list[Mark],
    stacks: list[_Stack],
) -> list[str]:
    """On the board: each city's owner and occupation, this resolution's moves and
    battles ("Actions", "Battles"), the city labels with their VP.  The label mark
    of each city's VP and name (worked out once per board) goes to ``labels``, and
    the mark of each MU badge's label (``mapdraw.mark``) to ``marks``: the arrows
    and rings hold none; each city with MU or Militia to ``stacks``, in board order."""
    at = drawing.at
    cities = view.position["cities"]
    out: list[str] = []
    labels += drawing.mark_labels.values()  # each city's VP label, in board order, as the marks below
    named: list[Any] = [None] * len(drawing.labels)  # each city's name (and badge), in the labels' order
    named_marks = named.copy()
    badges = named.copy()
    kept = drawing.badge_texts
    for cid, slot, looks, names, name_labels in drawing.cities_drawn:  # board order, each city's entry read once
        city = cities[cid]
        owner, mu, militia = city["owner"], len(city["units"]), int(city["militia"])
        out.append(looks[owner, mu > 0 or militia > 0])
        held = bool(mu or militia)
        named[slot] = names[owner, held]
        named_marks[slot] = name_labels[held]
        if held:  # the MU badge below the name
            text, badges[slot] = kept.get((cid, owner, mu, militia)) or _badge(drawing, cid, owner, mu, militia)
            named[slot] += "\n" + text
            stacks.append((cid, owner, city["units"], militia))
    out.append("</g>")
    out.append('<g class="events">')
    for event in events:
        if event.get("type") in ("move", "invade", "carry") and event.get("from") in at and event.get("to") in at:
            out.append(
                _arrow(
                    at[event["from"]],
                    at[event["to"]],
                    SIDE_COLOURS.get(event.get("side"), "#333"),
                    event["type"] == "carry",
                )
            )
        elif event.get("type") == "battle" and event.get("origin") in at and event.get("city") in at:
            out.append(_arrow(at[event["origin"]], at[event["city"]], "#e07000", True))
            x, y = at[event["city"]]
            out.append(
                f'<circle cx="{_coord(x)}" cy="{_coord(y)}" r="17" fill="none" stroke="#e07000" stroke-width="3"/>'
            )
    out.append("</g>")
    out.append('<g class="city-labels">')
    out += named
    labels += named_marks
    marks += filter(None, badges)
    out.append("</g></g>")
    return out


def _badge(drawing: _Drawing, cid: str, owner: str | None, mu: int, militia: int) -> tuple[str, Mark]:
    """An MU badge's text below city ``cid`` in ``owner``'s colour and the mark of its
    label's box, as ``label_boxes`` reads it from the markup, kept in the drawing's
    ``badge_texts``: its
    ``<text>`` put together from the city's opening of it for the holder, made once
    per board, city and holder (its place written and its colour quoted once, not
    at each count new to the process)."""
    badge, w = _BADGE_WORDS.get((mu, militia)) or _badge_words(mu, militia)
    cx, y = drawing.badges[cid]
    head = drawing.badge_heads.get((cid, owner))
    if head is None:  # _text(x, y, "", BADGE_SIZE, "middle", "bold", the holder's colour) without its end
        head = _text(_coord(cx), _coord(y), "", BADGE_SIZE, "middle", "bold", fill=SIDE_COLOURS[owner])[:-7]
        drawing.badge_heads[cid, owner] = head
    kept = drawing.badge_texts
    if len(kept) > 4096:
        kept.clear()
    lx, ly = cx - w / 2, y - 0.96 * BADGE_SIZE  # _label_mark(cx, y, badge, BADGE_SIZE, True), its steps inline
    made = kept[cid, owner, mu, militia] = (
        head + badge + "</text>",
        (lx - LABEL_MARGIN, ly - LABEL_MARGIN, lx + w + LABEL_MARGIN, ly + 1.22 * BADGE_SIZE + LABEL_MARGIN),
    )
    return made


_BADGE_WORDS: dict[tuple[int, int], tuple[str, float]] = {}
"""Each badge's words and their width, by MU and Militia: filled as met (:func:`_badge_words`)."""


def _badge_words(mu: int, militia: int) -> tuple[str, float]:
    """The words of a badge of ``mu`` MU and ``militia`` Militia and their width (``text_width``),
    kept in ``_BADGE_WORDS``."""
    words = f"{mu} MU +{militia} Mil" if mu and militia else f"{mu} MU" if mu else f"{militia} Mil"
    if len(_BADGE_WORDS) > 1024:
        _BADGE_WORDS.clear()
    made = _BADGE_WORDS[mu, militia] = (words, text_width(words, BADGE_SIZE, True))
    return made


def _tracks(view: View, drawing: _Drawing, px: float) -> list[str]:
    """The Phase, Turn and VP tracks ("Components"), with both sides' VP: the
    tracks with the current phase and turn lit, and the VP markers with the score,
    each put together once per drawing and what it shows (the maps of a batch of
    games show the same few phases, turns and scores)."""
    phase, turn = view.phase, view.turn
    tracks = drawing.track_texts.get((px, phase, turn)) or _track_text(drawing, px, phase, turn)
    empire, republic = view.position["vp"]["empire"], view.position["vp"]["republic"]
    score = (px, empire, republic, type(empire), type(republic))  # a score as it is written: 1, 1.0 and True apart
    return [tracks, drawing.vp_texts.get(score) or _vp_text(drawing, score)]


def _track_text(drawing: _Drawing, px: float, phase: int, turn: int) -> str:
    """The Phase and Turn tracks, ``phase`` and ``turn`` lit, and the VP track's boxes,
    kept in the drawing's ``track_texts``."""
    out: list[str] = []
    out.append(_text(px, PHASE_TRACK_Y, "Phase track", 13, weight="bold"))
    out += [cell[p == phase] for p, cell in drawing.phases.items()]
    out.append(_text(px, TURN_TRACK_Y, "Turn track", 13, weight="bold"))
    out += [cell[t == turn] for t, cell in drawing.turns.items()]
    out.append(_text(px, VP_TRACK_Y, "VP track", 13, weight="bold"))
    out.append(drawing.vp_track)
    if len(drawing.track_texts) > 1024:
        drawing.track_texts.clear()
    text = drawing.track_texts[px, phase, turn] = "\n".join(out)
    return text


def _vp_text(drawing: _Drawing, score: tuple[Any, ...]) -> str:
    """Both sides' markers on the VP track and the score line below it, kept in the
    drawing's ``vp_texts`` by ``score`` (x, each side's VP and their types)."""
    px, empire, republic = score[:3]
    out: list[str] = []
    for n, (s, vp) in enumerate((("empire", empire), ("republic", republic))):
        value = int(vp)
        slot = min(value, 30)
        cx, cy = px + (slot % 16) * 29, drawing.vp_track_y + (slot // 16) * 24
        out.append(
            f'<circle cx="{cx + 7 + n * 13}" cy="{cy + 16}" r="5" fill="{SIDE_COLOURS[s]}">'
            f"<title>{escape(SIDE_NAMES[s])} {value} VP</title></circle>"
        )
    out.append(
        _text(px, SCORE_Y, f"Republic {republic} VP   Empire {empire} VP   (24 wins before 1845)", 12, weight="bold")
    )
    if len(drawing.vp_texts) > 1024:
        drawing.vp_texts.clear()
    text = drawing.vp_texts[score] = "\n".join(out)
    return text


_Stack = tuple[str, "str | None", list[str], int]
"""A city with MU or Militia, as the board's layers read it: its id, holder, MU and Militia count."""


def _stacks(view: View, drawing: _Drawing, px: float, out: list[str], stacks: list[_Stack]) -> float:
    """Every occupied city's MU and Militia (``stacks``, in board order), in two
    columns; appends to ``out``, returns the y below the longer column."""
    board = view.board
    labels, reduced = _LABELS.get(view.sheet, _new_table), view.reduced
    headings = _HEADINGS.get(board, _new_table)
    column_y = [drawing.stacks_y, drawing.stacks_y]  # two columns, each stack goes to the shorter one
    for cid, owner, mu, militia in stacks:
        col = 0 if column_y[0] <= column_y[1] else 1
        cx, cy = px + col * COLUMN_W, column_y[col]
        heading = headings.get((cid, owner)) or _heading(board, cid, owner, headings)
        out.append(f'<text x="{cx}" y="{cy}"{heading}')  # _text(cx, cy, name (side), 13, bold, the side's colour)
        cy += 16
        opening = f'<text x="{cx + 10}" y="'  # each line: _text(x, cy, line, 12), put together here
        for u in mu:
            line = labels.get((u, u in reduced)) or _unit_label(view, u, labels)
            out.append(f"{opening}{cy}{_LINE_REST}{line}</text>")
            cy += 15
        if militia:
            out.append(f"{opening}{cy}{_LINE_REST}{escape(f'{militia} Militia DF{view.sheet.militia_df}')}</text>")
            cy += 15
        column_y[col] = cy + 6
    return max(column_y)


_LINE_REST = '" font-size="12" text-anchor="start" font-weight="normal" fill="#222" font-family="sans-serif">'
"""What follows the ``y`` of a stack's line (``_text(x, y, line, 12)``) up to its words."""

_HEADINGS: PerObject[Board, dict[tuple[str, str | None], str]] = PerObject()
"""Each stack's heading in the stacks (its city and holder) after its ``x`` and
``y``, by city and holder, per board: filled as met (:func:`_heading`), once per
process for the shipped board."""


def _heading(board: Board, cid: str, owner: str | None, headings: dict[tuple[str, str | None], str]) -> str:
    """``_text(x, y, "City (holder)", 13, bold, the holder's colour)`` after its ``x`` and ``y``."""
    body = f"{board.name(cid)} ({SIDE_NAMES.get(owner or '', 'nobody')})"
    whole = _text(0, 0, body, 13, "start", "bold", SIDE_COLOURS[owner])
    heading = headings[cid, owner] = whole[len('<text x="0" y="0"') :]
    return heading


_LABELS: PerObject[CounterSheet, dict[tuple[str, bool], str]] = PerObject()
"""Each MU's line in the stacks, escaped, by MU and face (reduced or not), per
counter sheet: filled as met (:func:`_unit_label`), once per process for the
shipped sheet."""


def _new_table(_kept_for: object) -> dict[Any, str]:
    return {}


def _unit_label(view: View, unit: str, labels: dict[tuple[str, bool], str]) -> str:
    """The line of ``unit`` in the stacks, escaped, kept in ``labels`` (its sheet's)."""
    label = labels[unit, unit in view.reduced] = escape(_counter_label(view, unit))
    return label
