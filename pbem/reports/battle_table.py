"""Battles as tables: the rounds of one battle (Farrapos ``battle_round`` events of
one city, in a row) or one combat (Furor Barbarus ``combat``) become a table with
one row per round, its columns read from the event's recorded fields; the
key/value detail of each round stays available, folded away.

A :class:`Block` is either one event (``kind`` ``event``, its ``event``) or a
table (``kind`` ``table``: ``title``, ``columns``, ``rows``, each a :class:`Row`
of ``cells`` and its ``event``), where an event is the report's
:class:`EventLine`.  They are objects, not dicts: a template reads ``b.kind`` as an
attribute first, and a dict's miss costs an exception per lookup.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pbem.reports.wrap import indent, wrap_indent

Cell = Callable[[Mapping[str, Any]], str]


def _get(key: str) -> Cell:
    return lambda e: "" if e.get(key) in (None, "") else str(e.get(key))


def _losses(e: Mapping[str, Any]) -> str:
    parts = []
    for r in e.get("losses") or []:
        if isinstance(r, Mapping):
            what = "eliminated" if r.get("result") == "eliminated" else "reduced"
            parts.append(f"{r.get('side', '')} {r.get('counter', '')} {what}".strip())
    return "; ".join(parts) or "-"


def _winner(e: Mapping[str, Any]) -> str:
    w = e.get("winner")
    return "tie" if w == "tie" else str(w or "-")


def _farrapos_af(e: Mapping[str, Any]) -> str:
    return f"AF {e.get('attack_strength')}"


def _farrapos_df(e: Mapping[str, Any]) -> str:
    extra = "" if e.get("siege") or not e.get("extra_defence") else f" +{e.get('extra_defence')} VP"
    return f"DF {e.get('defence_strength')}{extra}"


def _fb_die(e: Mapping[str, Any]) -> str:
    mod = int(e.get("modifier") or 0)
    return f"{e.get('die')}{mod:+d} = {int(e.get('die') or 0) + mod}" if mod else str(e.get("die"))


def html_text(text: str) -> str:
    """``text`` as the HTML events part writes it: escaped as Jinja's autoescape escapes
    it (markupsafe's ``escape``), as a plain string, most texts (nothing to escape) as
    they are.  The part writes these without autoescape, where ``escape`` was two Python
    calls a value and the ``Markup`` it made."""
    if "&" in text or "<" in text or ">" in text or '"' in text or "'" in text:
        from markupsafe import escape

        return str(escape(text))
    return text


def _escapes_nothing(text: str) -> bool:
    """Whether :func:`html_text` gives ``text`` back as it is (nothing in it to escape):
    asked once of an event's or a row's texts joined (a character to escape is one
    character, so the joined text holds one exactly when one of the texts does), where
    each text was a call of its own."""
    return not ("&" in text or "<" in text or ">" in text or '"' in text or "'" in text)


class EventLine:
    """One event as a report shows it: its type and text, its details (every
    field the ruleset recorded, for fighting events), its dice, and the event as
    stored (``raw``); ``label`` is its type as the reports name it (``battle round``),
    worked out here once for both pages' parts (each had a ``replace`` filter call);
    ``html_label``, ``html_text`` and ``html_details`` as the HTML part writes them
    (:func:`html_text`).  (Plain slotted classes here, not dataclasses: a dataclass compiles its methods
    from source when its module is imported.)"""

    __slots__ = (
        "type",
        "label",
        "text",
        "details",
        "rolls",
        "battle",
        "raw",
        "html_label",
        "html_text",
        "html_details",
    )

    def __init__(
        self,
        type: str,
        text: str,
        details: list[tuple[str, str]],
        rolls: list[Any],
        battle: bool,
        raw: Mapping[str, Any],
    ) -> None:
        self.type = type
        self.label = type.replace("_", " ")
        self.text = text
        self.details = details
        self.rolls = rolls
        self.battle = battle
        self.raw = raw
        # as the HTML events part writes them (html_text), escaped once here
        if _escapes_nothing(self.label + text):  # most events: one check for both
            self.html_label, self.html_text = self.label, text
        else:
            self.html_label, self.html_text = html_text(self.label), html_text(text)
        self.html_details = (
            details
            if not details or _escapes_nothing("".join(map("".join, details)))
            else [(html_text(k), html_text(v)) for k, v in details]
        )


class Row:
    """One round of a battle table: its cells and its event."""

    __slots__ = ("cells", "event", "html_cells")

    def __init__(self, cells: list[str], event: EventLine) -> None:
        self.cells = cells
        self.event = event
        # as the HTML events part writes them
        self.html_cells = cells if _escapes_nothing("".join(cells)) else [html_text(c) for c in cells]


class Block:
    """One event (``kind`` ``event``) or one battle's rounds as a table (``table``)."""

    __slots__ = ("kind", "event", "title", "columns", "rows", "html_title", "html_columns")

    def __init__(
        self, kind: str, event: EventLine | None = None, title: str = "", columns: list[str] | None = None
    ) -> None:
        self.kind = kind
        self.event = event
        self.title = title
        self.columns: list[str] = columns if columns is not None else []
        self.rows: list[Row] = []
        # as the HTML events part writes them (html_text)
        if not (title or self.columns) or _escapes_nothing(title + "".join(self.columns)):  # an event's: neither
            self.html_title, self.html_columns = title, self.columns
        else:
            self.html_title = html_text(title) if title else title
            self.html_columns = [html_text(c) for c in self.columns] if self.columns else self.columns


# event type -> (how rounds group, title, columns)
TABLES: dict[
    str, tuple[Callable[[Mapping[str, Any]], object], Callable[[Mapping[str, Any]], str], list[tuple[str, Cell]]]
] = {
    "battle_round": (
        lambda e: ("battle", e.get("city"), e.get("origin")),
        lambda e: (
            f"Battle of {e.get('city')}: {e.get('attacker')} attacks from {e.get('origin')}, {e.get('defender')} "
            "defends"
        ),
        [
            ("round", _get("round")),
            ("attacker", _farrapos_af),
            ("die", _get("attacker_die")),
            ("index", _get("attacker_index")),
            ("defender", _farrapos_df),
            ("die", _get("defender_die")),
            ("index", _get("defender_index")),
            ("round won by", _winner),
            ("losses", _losses),
        ],
    ),
    "combat": (
        lambda e: ("combat", id(e)),
        lambda e: f"Combat at {e.get('hex')}",
        [
            ("attackers", lambda e: f"{', '.join(e.get('attackers') or [])} ({e.get('attack')})"),
            ("defender", lambda e: f"{e.get('defender')} ({e.get('defence')})"),
            ("odds", _get("odds")),
            ("column", _get("column")),
            ("die", _fb_die),
            ("row", _get("row")),
            ("result", _get("result")),
        ],
    ),
}


def _tabular(raw: Mapping[str, Any]) -> bool:
    kind = str(raw.get("type", ""))
    if kind not in TABLES or raw.get("cancelled"):
        return False
    return kind != "combat" or raw.get("die") is not None


def battle_blocks(events: Sequence[EventLine]) -> list[Block]:
    """The report's events as blocks, consecutive rounds of one battle folded into
    one table (see the module docstring)."""
    blocks: list[Block] = []
    current_key: object = None
    for e in events:
        raw = e.raw
        if not _tabular(raw):
            blocks.append(Block("event", e))
            current_key = None
            continue
        group, title, columns = TABLES[str(raw["type"])]
        key = group(raw)
        if key != current_key or not blocks or blocks[-1].kind != "table":
            blocks.append(Block("table", title=title(raw), columns=[c for c, _ in columns]))
            current_key = key
        blocks[-1].rows.append(Row([cell(raw) for _, cell in columns], e))
    return blocks


class TextBlock:
    """One block as the text events part writes it, worked out once per resolution
    (:func:`text_blocks`): its ``kind``, its ``heading`` (numbered; an event's line
    wrapped and indented as ``wrap_indent(72, 4)`` does it), a table's rounds as
    indented text, an event's dice in one line."""

    __slots__ = ("kind", "heading", "table", "dice")

    def __init__(self, kind: str, heading: str, table: str = "", dice: str = "") -> None:
        self.kind = kind
        self.heading = heading
        self.table = table
        self.dice = dice


def text_blocks(blocks: Sequence[Block], environment: Any) -> list[TextBlock]:
    """``blocks`` as the text events part writes them (``report_parts.txt.j2``): each
    value put together here as the part's filters made it (``format``, ``wrap_indent``,
    ``text_table`` then ``indent``, each die as ``die_name``), where the part called a
    filter or two and read some ten attributes through Jinja's ``getattr`` a block."""
    out: list[TextBlock] = []
    die_name = environment.filters["die_name"]
    for n, b in enumerate(blocks, 1):
        if b.kind == "table":
            out.append(TextBlock("table", f"{n}. {b.title}", indent(text_table(b.columns, b.rows), 4, True)))
            continue
        e = b.event
        assert e is not None  # an event block holds its event
        heading = wrap_indent(environment, f"{n}. [{e.label}] {e.text}", 72, 4)
        dice = "; ".join([f"{die_name(r.sides)}={r.value} ({r.purpose})" for r in e.rolls]) if e.rolls else ""
        out.append(TextBlock("event", heading, dice=dice))
    return out


def text_table(columns: Sequence[str], rows: Sequence[Row], width: int = 68) -> str:
    """The rounds as a plain-text table (columns padded to their widest cell); when
    that is wider than ``width``, the last column goes on a line of its own under
    each row."""
    cells = [list(columns)] + [[str(c) for c in r.cells] for r in rows]
    widths = [max(map(len, column)) for column in zip(*cells)]  # each column's widest cell (a row has one a column)
    split = sum(widths) + 2 * (len(widths) - 1) > width and len(columns) > 1
    shown = widths[:-1] if split else widths
    lines = []
    for n, line in enumerate(cells):
        lines.append("  ".join(map(str.ljust, line, shown)).rstrip())
        if n == 0:
            lines.append("  ".join(["-" * w for w in shown]))
        elif split and line[-1] not in ("", "-"):
            lines.append(f"     {columns[-1]}: {line[-1]}")
    return "\n".join(lines)
