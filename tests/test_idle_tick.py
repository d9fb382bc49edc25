"""An idle pass (``pbem tick`` with nothing due) costs a row per game, not a
ruleset and eight statements (the speed work, docs/performance.md "Start-up").

Each game's clock step and resolution step read its position, found its ruleset
and ran about eight statements (queued files, clock, last activity, pauses,
vacations) twice; the pass also imported the referee's whole stack (the rules,
the ledger, the dice, the mail readers, IMAP, urllib).  Now one read over every
game (pbem/referee/standing.py) tells which games have nothing due, and only a
game with something due goes through the full steps.
"""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest

from pbem import store
from pbem.referee import deadlines, service, standing
from pbem.store.transaction import transaction
from tests.support.desk import new_games, open_desk

ROOT = Path(__file__).resolve().parent.parent

PASS = """
import json, sys
from pbem import store
from pbem.referee import service
db = store.open_database(sys.argv[1])
statements = []
db.connection().set_trace_callback(statements.append)
before = set(sys.modules)
lines = []
service.tick(db, service.Options(), lines.append)
print(json.dumps({"statements": statements, "modules": sorted(set(sys.modules) - before), "lines": lines}))
"""

HEAVY = (
    "pbem.rules",
    "pbem.referee.deadlines",
    "pbem.referee.resolve",
    "pbem.referee.ledger",
    "pbem.referee.verdict",
    "pbem.referee.notices",
    "pbem.referee.mail_room",
    "pbem.dice",
    "pbem.mail.imap",
    "pbem.mail.readers",
    "urllib.request",
)


def _idle_pass(tmp: Path, games: int) -> dict:
    desk = open_desk(tmp)
    try:
        ids = new_games(desk, games)
        deadlines.set_clock(desk.engine, ids[0], {"deadline": "72h", "remind": "12h"})  # a clock, nothing due yet
    finally:
        desk.engine.dispose()
    ran = subprocess.run(
        [sys.executable, "-c", PASS, str(desk.db)], cwd=ROOT, capture_output=True, text=True, check=True
    )
    return json.loads(ran.stdout)


def test_an_idle_pass_reads_a_fixed_number_of_statements_and_imports_no_referee_stack(tmp_path: Path) -> None:
    one, many = _idle_pass(tmp_path / "one", 1), _idle_pass(tmp_path / "many", 6)
    assert len(one["statements"]) == len(many["statements"]) <= 12, many["statements"]
    assert [m for m in many["modules"] if m.startswith(HEAVY)] == []
    assert len(many["lines"]) == 12 and all("has no address" in line for line in many["lines"])


def test_a_game_is_quiet_until_its_reminder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The quiet test agrees with the full steps' timing (the same deadline): the
    full clock step runs for the game from its reminder on."""
    stepped: list[list[str] | None] = []
    monkeypatch.setattr(deadlines, "notice_step", lambda _db, _now, _log, games=None: stepped.append(games) or 0)
    desk = open_desk(tmp_path)
    try:
        [game] = new_games(desk, 1)
        deadlines.set_clock(desk.engine, game, {"deadline": "72h", "remind": "12h"})
        db = store.open_database(desk.db)
        [s] = standing.standings(db)
        with transaction(db, write=False) as tx:
            t = deadlines.timing(tx, game)
        assert t is not None and t.remind_at is not None
        assert s.quiet(t.remind_at - timedelta(seconds=1))
        assert not s.quiet(t.remind_at)
        service.notice_step(db, t.remind_at - timedelta(seconds=1), lambda _l: None, [s])
        assert stepped == []
        service.notice_step(db, t.remind_at, lambda _l: None, [s])
        assert stepped == [[game]]
        db.dispose()
    finally:
        desk.engine.dispose()


DATACLASSES = """
import dataclasses, sys
made = []
real = dataclasses._process_class
def counting(cls, *args, **kwargs):
    made.append(f"{cls.__module__}.{cls.__qualname__}")
    return real(cls, *args, **kwargs)
dataclasses._process_class = counting
import pbem.cli.service, pbem.referee.service
print("\\n".join(made))
"""


def test_a_tick_makes_no_dataclass_of_its_own_at_import() -> None:
    """Making a dataclass runs the code it writes (about 4 M instructions each): the
    pass's own records (its options, its report, a failure, a game's standing and
    clock) are named tuples or a plain class, made without it."""
    result = subprocess.run([sys.executable, "-c", DATACLASSES], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert result.returncode == 0, result.stderr[-2000:]
    made = set(result.stdout.split())
    own = ("pbem.referee.service.", "pbem.referee.standing.", "pbem.store.clock.", "pbem.cli.service.")
    assert [name for name in made if name.startswith(own)] == []
