"""Grid tables as data: printed column headings and rows numbered by a die, one
cell per column (the Farrapos Battle Table, the Furor Barbarus CRT).  The shape
checks every house table of this kind shares; each ruleset reads its own cells.

>>> shape = GridShape("CRT", ("1/1", "2/1"), "the printed odds", range(1, 3), "one per die")
>>> grid_cells(shape, {"rows": {"1": ["DR", "D1"]}}, lambda value: value)
Traceback (most recent call last):
...
pbem.rules.base.TableError: row 2 is missing (rows 1-2, one per die)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from pbem.rules.base import TableError
from pbem.rules.frozen import Frozen, setter

Cell = TypeVar("Cell")


class GridShape(Frozen):
    """The shape of a grid table (columns and rows) and the words messages use for it."""

    kind: str  # how messages name the table: "battle table", "CRT"
    columns: tuple[str, ...]
    column_words: str  # what the columns are: "the printed odds"
    rows: range
    row_words: str  # what a row is: "one per die face"

    def __init__(self, kind: str, columns: tuple[str, ...], column_words: str, rows: range, row_words: str) -> None:
        setter(self, "kind", kind)
        setter(self, "columns", columns)
        setter(self, "column_words", column_words)
        setter(self, "rows", rows)
        setter(self, "row_words", row_words)

    @property
    def row_span(self) -> str:
        return f"rows {self.rows[0]}-{self.rows[-1]}, {self.row_words}"


def grid_cells(
    shape: GridShape, data: Mapping[str, Any], read_cell: Callable[[Any], Cell]
) -> dict[int, tuple[Cell, ...]]:
    """The rows of a grid table (``columns`` and ``[rows]``), each cell read by
    ``read_cell(value)``, which raises :class:`TableError` saying what is wrong with
    it: the error raised names the cell first ("row 4, column 3/2: ...", worked out
    only then: a shipped table's 84 cells each formatted its place before).  A wrong
    shape raises :class:`TableError` naming the row or key at fault."""
    unknown = sorted(set(data) - {"columns", "rows"})
    if unknown:
        raise TableError(f"unknown key {unknown[0]!r} (a {shape.kind} has columns and rows)")
    columns = tuple(str(c) for c in data.get("columns", shape.columns))
    if columns != shape.columns:
        raise TableError(f"columns must be {', '.join(shape.columns)} ({shape.column_words}), not {', '.join(columns)}")
    rows = data.get("rows")
    if not isinstance(rows, Mapping):
        raise TableError(f"no [rows] table: {shape.row_span}")
    named = {str(r) for r in shape.rows}
    extra = sorted(str(k) for k in rows if str(k) not in named)
    if extra:
        raise TableError(f"row {extra[0]} is not a row of the {shape.kind} ({shape.row_span})")
    out: dict[int, tuple[Cell, ...]] = {}
    for r in shape.rows:
        row = rows.get(str(r))
        if row is None:
            raise TableError(f"row {r} is missing ({shape.row_span})")
        if not isinstance(row, list) or len(row) != len(shape.columns):
            got = len(row) if isinstance(row, list) else "no list of"
            raise TableError(
                f"row {r} has {got} cells; the {shape.kind} has {len(shape.columns)} columns ({shape.columns[0]} "
                f"to {shape.columns[-1]})"
            )
        try:
            out[r] = tuple(map(read_cell, row))
        except TableError as error:
            raise TableError(f"row {r}, column {shape.columns[_faulty(row, read_cell)]}: {error}") from None
    return out


def _faulty(row: list[Any], read_cell: Callable[[Any], Any]) -> int:
    """The index of the first cell of ``row`` that ``read_cell`` refuses."""
    for i, value in enumerate(row):
        try:
            read_cell(value)
        except TableError:
            return i
    raise AssertionError("no cell refused")
