"""Statements a Farrapos resolution ran for nothing (the ``process --all`` budget of
``bench/budgets.py``): each test counts what a resolution runs, never time, and
fails on the referee before this work.

- an import statement in a function runs at each call: the look-up of the module,
  and for ``from PACKAGE import NAME`` importlib's own Python (``_handle_fromlist``).
  The ruleset imported the turn's resolution at each resolution (on first use, as
  a check resolves nothing: it is now imported once and kept), and the webhooks'
  notice imported the store before finding the game had no webhook (now only when
  it has one);
- a submission status's stored name (``SubmissionStatus.QUEUED.name``) is a Python
  property of the enum, read three times a resolution: read once, at import;
- each statement on SQLite made a cursor of its own (``Connection.execute``, and a
  weak reference to it in the connection): a transaction's statements, its
  ``BEGIN`` included, now run through one cursor;
- the resolution's row, which has a timestamp, had its values converted by a
  generator (a step a value), and the new position's members but the cities were
  gathered by a comprehension (a step a member): both in C now, or in a plain loop
  from the timestamp on;
- a transaction on an SQLite file ran in a context manager within
  ``transaction``'s own: now in ``transaction``'s generator alone.
"""

from __future__ import annotations

import dis
import sqlite3
import sys
from pathlib import Path
from typing import Any

from pbem import store
from pbem.referee import resolve
from tests.support.desk import new_games, open_desk, play_resolutions, queue_next_turns

_IMPORT_NAME = dis.opmap["IMPORT_NAME"]


def _fourth_resolution_due(tmp_path: Path) -> tuple[store.Database, str]:
    """A Farrapos game played to its third resolution, its fourth's files queued, on a
    database opened as ``pbem`` opens it."""
    desk = open_desk(tmp_path)
    [game] = new_games(desk, 1)
    play_resolutions(desk, game, 3)
    queue_next_turns(desk, [game], seed=3)
    desk.engine.dispose()
    return store.open_database(desk.db), game


def _traced_resolution(tmp_path: Path) -> tuple[list[str], list[str]]:
    """The import statements a Farrapos resolution runs (its fourth, on a database
    opened as ``pbem`` opens it) and the enum properties it reads."""
    db, game = _fourth_resolution_due(tmp_path)
    imports: list[str] = []
    enum_reads: list[str] = []

    def tracer(frame: Any, event: str, _arg: Any) -> Any:
        code = frame.f_code
        if event == "call":
            if code.co_name == "__get__" and code.co_filename.endswith("enum.py"):
                enum_reads.append(f"{frame.f_back.f_code.co_filename}:{frame.f_back.f_lineno}")
            frame.f_trace_opcodes = True
        elif event == "opcode" and code.co_code[frame.f_lasti] == _IMPORT_NAME:
            imports.append(f"{code.co_filename}:{frame.f_lineno}")
        return tracer

    sys.settrace(tracer)
    try:
        [outcome] = resolve.process(db, [game])
    finally:
        sys.settrace(None)
        db.dispose()
    assert outcome.resolved == 4
    return imports, enum_reads


def test_a_farrapos_resolution_runs_no_import_statement_and_reads_no_enum_property(tmp_path: Path) -> None:
    imports, enum_reads = _traced_resolution(tmp_path)
    assert imports == []  # before: the ruleset's import of the turn, the notices' import of the store
    assert enum_reads == []  # before: three, the queued and resolved statuses' names


def _profiled_resolution(tmp_path: Path) -> tuple[list[str], int, int]:
    """The Python functions a Farrapos resolution calls (``file:name``), its calls of
    ``sqlite3.Connection.execute`` and the cursors it makes."""
    db, game = _fourth_resolution_due(tmp_path)
    called: list[str] = []
    connection_executes: list[None] = []
    cursors: list[None] = []

    def profile(frame: Any, event: str, arg: Any) -> None:
        if event == "call":
            called.append(f"{Path(frame.f_code.co_filename).name}:{frame.f_code.co_name}")
        elif event == "c_call" and isinstance(getattr(arg, "__self__", None), sqlite3.Connection):
            if arg.__name__ in ("execute", "executemany"):
                connection_executes.append(None)
            elif arg.__name__ == "cursor":
                cursors.append(None)

    sys.setprofile(profile)
    try:
        [outcome] = resolve.process(db, [game])
    finally:
        sys.setprofile(None)
        db.dispose()
    assert outcome.resolved == 4
    return called, len(connection_executes), len(cursors)


def test_a_resolution_runs_its_statements_through_one_cursor_and_converts_its_values_without_generators(
    tmp_path: Path,
) -> None:
    called, connection_executes, cursors = _profiled_resolution(tmp_path)
    assert connection_executes == 0  # before: every statement, some eight a resolution
    assert cursors == 2  # one a transaction: the look at the game named, and the resolution
    assert called.count("transaction.py:<genexpr>") == 0  # before: a step per value of the resolution's row
    assert called.count("canonical.py:<dictcomp>") == 0  # before: a step per member of the new position


def test_a_transaction_on_an_sqlite_file_is_one_context_manager(tmp_path: Path) -> None:
    called, _, _ = _profiled_resolution(tmp_path)
    assert called.count("contextlib.py:__enter__") == called.count("contextlib.py:__exit__") == 2  # before: four
