"""House tables for the tests: one written as the TOML ``pbem new --table`` takes,
and a Farrapos Battle Table that differs from the shipped one in every designed row."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from pbem.rules import find_ruleset
from pbem.store import house_tables
from tests.conftest import Table

FARRAPOS = find_ruleset("farrapos")


def write_table(
    t: Table, ruleset_id: str, name: str, data: dict[str, Any], scenario: str | None = None, file: str | None = None
) -> Path:
    path = t.tmp / (file or f"{name}.toml")
    path.write_text(house_tables.to_toml(find_ruleset(ruleset_id), name, data, scenario), encoding="utf-8")
    return path


def every_die_reads_the_printed_row() -> dict[str, Any]:
    """A house Battle Table that differs from the shipped one in every designed
    row: each die reads the printed die-1 row (so 1D6 never adds anything)."""
    data = copy.deepcopy(FARRAPOS.shipped_table("battle-table"))
    for die in range(2, 7):
        data["rows"][str(die)] = list(data["rows"]["1"])
    return data
