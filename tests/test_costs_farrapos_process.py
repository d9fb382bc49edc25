"""What a Farrapos resolution of ``pbem process`` makes around the engine (the
``process --all`` budget of ``bench/budgets.py``): each test counts calls or the
objects made, never time, and fails on the referee before this work.

- a name table answers an id written as it folds (``porto-alegre``, ``inf-5``: the
  names a turn file writes) from the start, without a fold and a look-up at the
  name's first use in the process, and gives the same answer;
- a Farrapos order's MU are read without a call to ``_unit`` and a generator step
  per MU;
- an outcome of ``process`` sets its nine fields in place, where a frozen
  dataclass called ``object.__setattr__`` for each;
- the text of a timestamp equal to the last one written to SQLite is the text
  kept, not written again (a batch writes ``utcnow``'s, to the second);
- a resolution with no side missing writes its list of missing sides without a
  ``json.dumps`` call, and reads the fault hook's variable from the environment
  at no resolution (once per process).
"""

from __future__ import annotations

import dis
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest

from pbem.rules import names
from pbem.rules.farrapos import orders
from pbem.rules.farrapos.board import load_board
from pbem.rules.farrapos.counters import load_counters
from pbem.store import transaction
from tests.support.calls import counted_calls


def test_an_id_written_as_it_folds_is_answered_without_a_fold(monkeypatch: pytest.MonkeyPatch) -> None:
    entries = [(cid, [city.name]) for cid, city in load_board().cities.items()]
    entries += [(cid, []) for cid in load_counters().counters]
    entries += [("Odd_Id", [])]  # an id that does not fold to itself: found as before
    table = names.NameTable(entries)
    before = names.NameTable(entries)
    before._found.clear()  # as every table began: nothing answered yet
    folds = counted_calls(monkeypatch, names, "folded")
    for cid, _ in entries[:-1]:
        assert table.lookup(cid) == cid
    assert folds == []
    assert table.lookup("Odd_Id") == "Odd_Id" and len(folds) == 1
    monkeypatch.undo()
    typed = [cid for cid, _ in entries] + ["Porto Alegre", "BAGÉ", "santo", "nowhere", "inf_5", "INF-5"]
    for word in typed:
        try:
            found = table.lookup(word)
        except Exception as exc:  # an ambiguous name: refused alike
            with pytest.raises(type(exc), match=str(exc)):
                before.lookup(word)
        else:
            assert found == before.lookup(word), word


def test_an_orders_mu_are_read_without_a_call_per_mu(monkeypatch: pytest.MonkeyPatch) -> None:
    line = "invade cangucu from pelotas with art-2 inf-3 inf-4 inf-7"
    expected = orders.parse_order(line)
    units = counted_calls(monkeypatch, orders, "_unit")
    assert orders.parse_order(line) == expected
    assert expected.units == ("art-2", "inf-3", "inf-4", "inf-7")
    assert orders.parse_order("losses militia inf-3 INF_4").losses == ("militia", "inf-3", "inf-4")  # type: ignore[attr-defined]
    assert units == []


def test_an_outcome_sets_its_fields_without_a_call_per_field() -> None:
    from pbem.referee.resolve import ProcessOutcome

    # the calls its __init__ makes: a frozen dataclass's called ``object.__setattr__`` once a field
    calls = [i for i in dis.get_instructions(ProcessOutcome.__init__) if i.opname.startswith("CALL")]
    assert calls == [], calls
    made = ProcessOutcome("g1", 3, "1838, turn 1 (Republic)", nmr=("empire",), over=True, bot=("empire",))
    assert (made.game_id, made.resolved, made.label, made.awaiting, made.nmr) == (
        "g1",
        3,
        "1838, turn 1 (Republic)",
        (),
        ("empire",),
    )
    assert (made.over, made.note, made.problems, made.bot) == (True, "", (), ("empire",))
    assert made == ProcessOutcome("g1", 3, "1838, turn 1 (Republic)", (), ("empire",), True, "", (), ("empire",))
    assert hash(made) == hash(
        ProcessOutcome("g1", 3, "1838, turn 1 (Republic)", nmr=("empire",), over=True, bot=("empire",))
    )
    with pytest.raises(AttributeError):
        made.note = "x"  # type: ignore[misc]


def _written(value: datetime) -> str:
    """The text as it was written field by field."""
    return (
        f"{value.year:04d}-{value.month:02d}-{value.day:02d} "
        f"{value.hour:02d}:{value.minute:02d}:{value.second:02d}.{value.microsecond:06d}"
    )


def test_the_text_of_the_same_timestamp_is_kept() -> None:
    now = datetime(2026, 12, 3, 9, 41, 7, tzinfo=UTC)
    first = transaction.sqlite_datetime(now)
    again = transaction.sqlite_datetime(now.replace())  # another object, the same time
    assert first == again == "2026-12-03 09:41:07.000000"
    assert again is first  # the kept text, not a new one
    # the same instant elsewhere, or no zone, has other fields: written afresh, as before
    east = now.astimezone(timezone(timedelta(hours=3)))
    naive = datetime(2026, 12, 3, 9, 41, 7)
    for value in (east, naive, now, naive, datetime(5, 1, 2, 3, 4, 5, 6), now + timedelta(microseconds=1)):
        assert transaction.sqlite_datetime(value) == _written(value)


class _Looked(dict):  # type: ignore[type-arg]
    """The environment, noting each name looked up."""

    def __init__(self, real: Any) -> None:
        super().__init__(real)
        self.looked: list[str] = []

    def get(self, key: Any, default: Any = None) -> Any:
        self.looked.append(key)
        return super().get(key, default)

    def __getitem__(self, key: Any) -> Any:
        self.looked.append(key)
        return super().__getitem__(key)

    def __contains__(self, key: object) -> bool:
        self.looked.append(str(key))
        return super().__contains__(key)


def test_a_resolution_makes_no_json_for_no_side_missing_nor_reads_the_fault_hook(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    import json
    import os
    from types import SimpleNamespace

    from pbem.referee import resolve
    from pbem.store.transaction import transaction as in_transaction
    from tests.support.desk import new_games, open_desk, play_resolutions, queue_next_turns

    desk = open_desk(tmp_path)
    [game] = new_games(desk, 1)
    play_resolutions(desk, game, 2)
    queue_next_turns(desk, [game], seed=2)
    dumped: list[Any] = []
    counting = SimpleNamespace(dumps=lambda obj, **kw: dumped.append(obj) or json.dumps(obj, **kw))
    monkeypatch.setattr(resolve, "json", counting)
    environ = _Looked(os.environ)
    monkeypatch.setattr(os, "environ", environ)
    [made] = resolve.process(desk.engine, [game])
    monkeypatch.undo()
    assert made.resolved == 3 and made.nmr == ()
    assert dumped == [] and resolve.FAULT_ENV not in environ.looked, (dumped, environ.looked)
    with in_transaction(desk.engine, write=False) as tx:
        row = tx.one("SELECT nmr FROM resolution WHERE game_id = :game AND k = 3", {"game": game})
    assert row is not None and row[0] == json.dumps([]) == "[]"
