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
  property of the enum, read three times a resolution: read once, at import.
"""

from __future__ import annotations

import dis
import sys
from pathlib import Path
from typing import Any

from pbem import store
from pbem.referee import resolve
from tests.support.desk import new_games, open_desk, play_resolutions, queue_next_turns

_IMPORT_NAME = dis.opmap["IMPORT_NAME"]


def _traced_resolution(tmp_path: Path) -> tuple[list[str], list[str]]:
    """The import statements a Farrapos resolution runs (its fourth, on a database
    opened as ``pbem`` opens it) and the enum properties it reads."""
    desk = open_desk(tmp_path)
    [game] = new_games(desk, 1)
    play_resolutions(desk, game, 3)
    queue_next_turns(desk, [game], seed=3)
    desk.engine.dispose()
    db = store.open_database(desk.db)
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
