"""The replaceable tables of Farrapos: the Battle Table and the counter values.

The rulebook prints one row of the Battle Table (die 1) and no counter values; the
rest is designed (``data/battle-table.toml``, ``data/counters.toml``).  A game may
replace what is designed with house tables (``pbem new ... --table NAME=FILE``);
they ride in the position (``rules.base.HOUSE_TABLES``), so the engine reads them
from the position it is given and never from a file while resolving.

>>> shipped_battle_table().index(13, 3)   # AF 13 and die 3 give 6
6
>>> read_battle_table({"rows": {str(die): [0] * 14 for die in DICE}})
Traceback (most recent call last):
...
pbem.rules.base.TableError: row 1, column 4: 0, but the rulebook prints 1 (printed cells cannot be replaced)
"""

from __future__ import annotations

import functools
import marshal
from bisect import bisect_left
from collections.abc import Mapping
from typing import Any

from pbem.rules import data_cache
from pbem.rules.base import HOUSE_TABLES, Position, TableError, TableInfo
from pbem.rules.farrapos.counters import DATA, CounterSheet, Factors, UnitType, load_counters
from pbem.rules.frozen import Frozen, setter
from pbem.rules.grid_table import GridShape, grid_cells

BATTLE_TABLE = "battle-table"
COUNTER_VALUES = "counter-values"
COLUMNS = ("1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11-15", "16-20", "21-25", "+25")
COLUMN_TOPS = (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 15, 20, 25)  # the last column is +25: 26 and more
DICE = range(1, 7)
PRINTED_ROWS = (1,)
FACES = ("full", "reduced")
FACTORS = ("mf", "af", "df")
MAX_VALUE = 99

TABLES = (
    TableInfo(
        BATTLE_TABLE,
        "Battle Table",
        "printed in part: row 1 (die 1) printed; rows 2-6 designed",
        'docs/rules/farrapos.md, "Battles"',
        (
            "Rows by die (1-6), columns by Military Strength Index; a cell is the index (a whole number, 0 or "
            'more; "-" is 0).',
            "Row 1 is printed and cannot be changed; rows 2-6 are designed: replace them with the printed game's.",
        ),
    ),
    TableInfo(
        COUNTER_VALUES,
        "Counter values (MF, AF, DF of each MU type, both faces)",
        "designed",
        'docs/rules/farrapos.md, "Components and counters"',
        (
            "Each MU type (inf, cav, art) with its full and reduced face: mf, af, df (whole numbers 0-99).",
            "The Militia's DF 1 is printed and not part of this table.",
        ),
    ),
)


class BattleTable(Frozen):
    """Rows by die, each a tuple of one index per strength column."""

    rows: tuple[tuple[int, ...], ...]

    def __init__(self, rows: tuple[tuple[int, ...], ...]) -> None:
        setter(self, "rows", rows)

    @staticmethod
    def column(strength: int) -> int:
        """The column (0-based) holding ``strength``: 1..10, 11-15, 16-20, 21-25, +25
        (the first column whose top is at least ``strength``, found by bisection:
        a Python step per column before)."""
        return bisect_left(COLUMN_TOPS, strength)

    def index(self, strength: int, die: int) -> int:
        if die not in DICE:
            raise ValueError(f"a battle die is 1..6, not {die}")
        return self.rows[die - 1][self.column(strength)]

    def to_data(self) -> dict[str, Any]:
        return {"columns": list(COLUMNS), "rows": {str(d): list(self.rows[d - 1]) for d in DICE}}


SHAPE = GridShape("battle table", COLUMNS, "the printed strength columns", DICE, "one per die face")


def _cell(value: Any) -> int:
    if type(value) is int and 0 <= value <= MAX_VALUE:  # a shipped cell: one test, not four
        return value
    if value == "-":
        return 0
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_VALUE:
        raise TableError(f'{value!r} is not an index (a whole number 0-{MAX_VALUE}, or "-")')
    return value


def _battle_rows(data: Mapping[str, Any]) -> tuple[tuple[int, ...], ...]:
    rows = grid_cells(SHAPE, data, _cell)
    return tuple(rows[die] for die in DICE)


@functools.lru_cache(maxsize=1)
def shipped_battle_table() -> BattleTable:
    """``data/battle-table.toml``, read once (immutable data)."""
    return BattleTable(_battle_rows(data_cache.load_toml(DATA / "battle-table.toml")))


def read_battle_table(data: Mapping[str, Any]) -> dict[str, Any]:
    """A house battle table in canonical form; :class:`TableError` names the cell."""
    rows = _battle_rows(data)
    printed = shipped_battle_table().rows
    for die in PRINTED_ROWS:
        for i, (mine, theirs) in enumerate(zip(rows[die - 1], printed[die - 1])):
            if mine != theirs:
                raise TableError(
                    f"row {die}, column {COLUMNS[i]}: {mine}, but the rulebook prints {theirs or '-'} (printed "
                    "cells cannot be replaced)"
                )
    return BattleTable(rows).to_data()


@functools.lru_cache(maxsize=8)
def _battle_table_of(key: bytes) -> BattleTable:
    return BattleTable(_battle_rows(marshal.loads(key)))


def battle_table(position: Position) -> BattleTable:
    """The Battle Table a position plays with: its house table, or the shipped one."""
    house = position.get(HOUSE_TABLES, {}).get(BATTLE_TABLE)
    if house is None:
        return shipped_battle_table()
    return _battle_table_of(marshal.dumps(house))  # the key: the table's bytes (fast, exact)


# --- counter values ----------------------------------------------------------------
def shipped_counter_values() -> dict[str, Any]:
    sheet = load_counters()
    return {
        "types": {
            tid: {face: {f: getattr(getattr(t, face), f) for f in FACTORS} for face in FACES}
            for tid, t in sheet.types.items()
        }
    }


def read_counter_values(data: Mapping[str, Any]) -> dict[str, Any]:
    """House counter values in canonical form; :class:`TableError` names the value."""
    unknown = sorted(set(data) - {"types"})
    if unknown:
        raise TableError(f"unknown key {unknown[0]!r} (counter values are [types.<type>] tables)")
    types = data.get("types")
    if not isinstance(types, Mapping):
        raise TableError("no [types] table: one per MU type (inf, cav, art)")
    shipped = shipped_counter_values()["types"]
    extra = sorted(set(types) - set(shipped))
    if extra:
        raise TableError(f"types.{extra[0]}: not a MU type (types: {', '.join(shipped)})")
    out: dict[str, Any] = {}
    for tid in shipped:
        if tid not in types:
            raise TableError(f"types.{tid} is missing (every MU type: {', '.join(shipped)})")
        faces = types[tid]
        if not isinstance(faces, Mapping):
            raise TableError(f"types.{tid}: not a table of faces (full, reduced)")
        extra_faces = sorted(set(faces) - set(FACES))
        if extra_faces:
            raise TableError(f"types.{tid}.{extra_faces[0]}: not a face (full, reduced)")
        out[tid] = {}
        for face in FACES:
            values = faces.get(face)
            if not isinstance(values, Mapping):
                raise TableError(f"types.{tid}.{face} is missing (mf, af, df of each face)")
            extra_factors = sorted(set(values) - set(FACTORS))
            if extra_factors:
                raise TableError(f"types.{tid}.{face}.{extra_factors[0]}: not a factor (mf, af, df)")
            out[tid][face] = {}
            for f in FACTORS:
                if f not in values:
                    raise TableError(f"types.{tid}.{face}.{f} is missing")
                v = values[f]
                if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= MAX_VALUE:
                    raise TableError(f"types.{tid}.{face}.{f}: {v!r} is not a whole number 0-{MAX_VALUE}")
                out[tid][face][f] = v
    return {"types": out}


@functools.lru_cache(maxsize=8)
def _sheet_of(key: bytes) -> CounterSheet:
    base = load_counters()
    values = marshal.loads(key)["types"]
    types = {
        tid: UnitType(tid, t.name, *(Factors(**values[tid][face]) for face in FACES)) for tid, t in base.types.items()
    }
    counters = {cid: type(c)(c.id, c.side, types[c.type.id], c.setup, c.arrival) for cid, c in base.counters.items()}
    return CounterSheet(types, counters, base.militia_per_side, base.militia_df)


def counter_sheet(position: Position) -> CounterSheet:
    """The counter sheet a position plays with: its house counter values, or the shipped ones."""
    house = position.get(HOUSE_TABLES, {}).get(COUNTER_VALUES)
    if house is None:
        return load_counters()
    return _sheet_of(marshal.dumps(house))


SHIPPED = {BATTLE_TABLE: lambda: shipped_battle_table().to_data(), COUNTER_VALUES: shipped_counter_values}
READERS = {BATTLE_TABLE: read_battle_table, COUNTER_VALUES: read_counter_values}
