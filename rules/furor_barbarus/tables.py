"""The replaceable tables of Furor Barbarus: the CRT and each scenario's counter values.

The rulebook prints CRT rows 1-3 and some strengths; CRT rows 4-6 and every other
counter value are designed (``data/crt.toml``, ``data/scenarios/<id>.toml``, where
a unit's ``printed`` list names the values the rulebook prints).  A game may
replace what is designed with house tables (``pbem new ... --table NAME=FILE``);
they ride in the position (``rules.base.HOUSE_TABLES``) and the engine reads them
from there, never from a file while resolving.

>>> read_crt({"rows": {str(r): ["DR"] * 7 for r in range(1, 7)}})
Traceback (most recent call last):
...
pbem.rules.base.TableError: row 1, column 2/3: DR, but the rulebook prints DT (printed cells cannot be replaced)
"""

from __future__ import annotations

import dataclasses
import functools
import marshal
from collections.abc import Mapping
from typing import Any

from pbem.rules.base import HOUSE_TABLES, Position, TableError, TableInfo
from pbem.rules.furor_barbarus.combat import COLUMNS, CombatResult, CombatResultsTable, CrtError, standard_crt
from pbem.rules.furor_barbarus.counters import Counter
from pbem.rules.furor_barbarus.scenarios import Scenario
from pbem.rules.grid_table import GridShape, grid_cells

CRT = "crt"
COUNTER_VALUES = "counter-values"
ROWS = range(1, 7)
MAX_VALUE = 99


def table_infos(scenario_id: str) -> tuple[TableInfo, ...]:
    printed = [r for r in ROWS if r not in standard_crt().designed_rows]
    return (
        TableInfo(
            CRT,
            "Combat Results Table (9.5, 9.7)",
            f"printed in part: rows {printed[0]}-{printed[-1]} printed; rows "
            f"{standard_crt().designed_rows[0]}-{standard_crt().designed_rows[-1]} designed",
            'docs/rules/furor-barbarus.md, "9. Combat" (the CRT)',
            (
                "Rows by modified die (1-6), columns by odds; a cell is a result: A or D, then 1 or 2 (steps),",
                'T (morale check), R (retreat), e.g. DR, AT, D1R, A1; "-" is no effect.',
                "Rows 1-3 are printed and cannot be changed; rows 4-6 are designed: replace them with the "
                "printed game's.",
            ),
        ),
        TableInfo(
            COUNTER_VALUES,
            f"Counter values of the {scenario_id} armies (strength, reduced, MP, range)",
            "designed (strengths the rulebook prints are not in the table)",
            'docs/rules/furor-barbarus.md, "Counter values" and the scenario\'s order of battle',
            (
                f"Under [units], one line per counter of {scenario_id}: strength (where the rulebook does not "
                "print it),",
                "reduced (two-step units), mp, range (missile units); whole numbers 1-99, reduced no more than "
                "strength.",
            ),
        ),
    )


# --- the CRT ----------------------------------------------------------------------
def shipped_crt() -> dict[str, Any]:
    crt = standard_crt()
    return {"columns": list(COLUMNS), "rows": {str(r): [c.text for c in crt.rows[r]] for r in ROWS}}


SHAPE = GridShape("CRT", COLUMNS, "the printed odds", ROWS, "one per modified die")


def _result(value: Any) -> str:
    if isinstance(value, str):
        try:
            return CombatResult.parse(value).text
        except CrtError:
            pass
    raise TableError(f"{value!r} is not a combat result (e.g. DR, AT, D1R, A1, -)")


def read_crt(data: Mapping[str, Any]) -> dict[str, Any]:
    """A house CRT in canonical form; :class:`TableError` names the cell."""
    rows = grid_cells(SHAPE, data, _result)
    shipped = standard_crt()
    for r in ROWS:
        if r in shipped.designed_rows:
            continue
        for i, (text, printed) in enumerate(zip(rows[r], (c.text for c in shipped.rows[r]))):
            if text != printed:
                raise TableError(
                    f"row {r}, column {COLUMNS[i]}: {text}, but the rulebook prints {printed} (printed cells "
                    "cannot be replaced)"
                )
    return {"columns": list(COLUMNS), "rows": {str(r): list(rows[r]) for r in ROWS}}


@functools.lru_cache(maxsize=8)
def _crt_of(key: bytes) -> CombatResultsTable:
    shipped = standard_crt()
    data = marshal.loads(key)
    return CombatResultsTable.from_dict(
        {
            "columns": data["columns"],
            "rows": data["rows"],
            "designed_rows": list(shipped.designed_rows),
            "below": shipped.below,
            "above": shipped.above,
        }
    )


def crt_of(position: Position, default: CombatResultsTable) -> CombatResultsTable:
    """The CRT a position plays with: its house CRT, or ``default`` (the ruleset's)."""
    house = position.get(HOUSE_TABLES, {}).get(CRT)
    return default if house is None else _crt_of(marshal.dumps(house))


# --- counter values ---------------------------------------------------------------
def _printed(scenario: Scenario) -> dict[str, set[str]]:
    return {str(u["id"]).lower(): set(u.get("printed", ())) for u in scenario.raw.get("unit", [])}


def _fields(counter: Counter, printed: set[str]) -> tuple[str, ...]:
    """The designed values of one counter, in table order."""
    out = [] if "strength" in printed else ["strength"]
    if counter.reduced is not None:
        out.append("reduced")
    out.append("mp")
    if counter.is_missile:
        out.append("range")
    return tuple(f for f in out if f not in printed)


def shipped_counter_values(scenario: Scenario) -> dict[str, Any]:
    printed = _printed(scenario)
    return {
        "scenario": scenario.id,
        "units": {
            uid: {f: getattr(c, f) for f in _fields(c, printed.get(uid, set()))} for uid, c in scenario.counters.items()
        },
    }


def read_counter_values(scenario: Scenario, data: Mapping[str, Any]) -> dict[str, Any]:
    """House counter values of ``scenario`` in canonical form; :class:`TableError`
    names the unit and value."""
    unknown = sorted(set(data) - {"scenario", "units"})
    if unknown:
        raise TableError(f"unknown key {unknown[0]!r} (counter values have a scenario and [units])")
    if data.get("scenario") != scenario.id:
        raise TableError(
            f"scenario: these are counter values of {data.get('scenario')!r}, the game plays {scenario.id!r}"
        )
    units = data.get("units")
    if not isinstance(units, Mapping):
        raise TableError(f"no [units] table: one [units.<id>] per counter of {scenario.id}")
    extra = sorted(set(units) - set(scenario.counters))
    if extra:
        raise TableError(f"units.{extra[0]}: no such unit in {scenario.id}")
    printed = _printed(scenario)
    out: dict[str, dict[str, int]] = {}
    for uid, counter in scenario.counters.items():
        if uid not in units:
            raise TableError(f"units.{uid} is missing (every counter of {scenario.id} is listed)")
        values = units[uid]
        if not isinstance(values, Mapping):
            raise TableError(f"units.{uid}: not a table of values")
        wanted = _fields(counter, printed.get(uid, set()))
        for key in values:
            if key not in wanted:
                why = (
                    "printed by the rulebook"
                    if key in printed.get(uid, set())
                    else f"not a designed value of this counter (its values: {', '.join(wanted)})"
                )
                raise TableError(f"units.{uid}.{key}: {why}; it cannot be replaced")
        row: dict[str, int] = {}
        for key in wanted:
            if key not in values:
                raise TableError(f"units.{uid}.{key} is missing")
            v = values[key]
            if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= MAX_VALUE:
                raise TableError(f"units.{uid}.{key}: {v!r} is not a whole number 1-{MAX_VALUE}")
            row[key] = v
        strength = row.get("strength", counter.strength)
        if row.get("reduced", 0) > strength:
            raise TableError(f"units.{uid}.reduced: {row['reduced']} is more than its strength {strength}")
        out[uid] = row
    return {"scenario": scenario.id, "units": out}


def with_counter_values(scenario: Scenario, position: Position) -> Scenario:
    """``scenario`` with the position's house counter values (unchanged if none)."""
    house = position.get(HOUSE_TABLES, {}).get(COUNTER_VALUES)
    if house is None:
        return scenario
    counters = dict(scenario.counters)
    for uid, values in house["units"].items():
        counters[uid] = counters[uid].changed(**values)
    return dataclasses.replace(scenario, counters=counters)
