"""Costs of a Furor Barbarus file at submit that must not come back: each test
counts, never times.

- the table of every scenario's unit names (built once per process) is built
  before the time limit on a turn file's orders is entered, so that the limit
  covers the file's parse alone (under a loaded machine or valgrind the first
  parse of a process went over it);
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from pbem import limits, store
from pbem.referee import intake, lifecycle
from pbem.rules.furor_barbarus import ruleset
from pbem.rules.furor_barbarus.ruleset import FurorBarbarus
from pbem.rules.names import NameTable
from pbem.turnfiles import keys, sshsig


def _vouille(tmp_path: Path) -> tuple[store.Database, dict[str, keys.PrivateKey]]:
    signers, public = {}, {}
    for side in ("franks", "visigoths"):
        private, pub = keys.generate_ed25519(side, tmp_path)
        signers[side] = keys.load_private_key(private)
        public[side] = pub.read_text(encoding="utf-8").strip()
    engine = store.create_database(tmp_path / "referee.db")
    lifecycle.new_game(engine, "g1", "furor-barbarus", "vouille", [], public)
    return engine, signers


def test_the_unit_name_table_is_built_before_the_orders_time_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first parse of a process built the every-scenario name table inside the
    10-second limit on the orders; now the ruleset loads it (``prepare_parsing``)
    before the limit starts."""
    engine, signers = _vouille(tmp_path)
    side = lifecycle.status(engine, "g1").awaiting[0]
    message = lifecycle.next_turn_file(engine, "g1", side, bot="random", seed=1).encode("utf-8")
    built: list[int] = []
    real_names = FurorBarbarus._unit_names

    def counting(self: FurorBarbarus) -> NameTable:
        built.append(1)
        return real_names(self)

    entered: list[tuple[str, int, int]] = []
    real_limit = limits.time_limit

    @contextlib.contextmanager
    def watched(seconds: float, what: str) -> Iterator[None]:
        before = len(built)
        with real_limit(seconds, what):
            yield
        entered.append((what, before, len(built)))

    monkeypatch.setattr(ruleset, "_UNIT_NAMES", {})  # a fresh process: no table yet
    monkeypatch.setattr(FurorBarbarus, "_unit_names", counting)
    monkeypatch.setattr(limits, "time_limit", watched)
    intake.submit(engine, message, sshsig.sign(message, signers[side]))
    assert [(b, a) for what, b, a in entered if what == "the orders"] == [(1, 1)]
    assert len(built) == 1
    engine.dispose()
