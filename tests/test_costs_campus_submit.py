"""Costs of a submitted Campus Mauriacus file that must not come back (each test
counts, never times):

- the Furor Barbarus unit-name table knows every id written as it folds from the
  start (``NameTable``'s own memory); a subclass of its own had emptied that memory,
  so each unit a process met first was looked up and folded again;
- a move of a unit a process meets first, named by its id, is read by the line loop
  alone (``orders.know_ids``), not through ``Order.parse`` and ``_parse_move``;
- the play phase's check shares the position's unit entries it does not change: the
  dry walk copies the entry of a unit it moves or takes off first, where the check
  copied all 44 entries of a Campus Mauriacus position;
- a header as pbem writes one is read by one regular expression, without a step a
  line, and a body with no comment and no trailing blank is kept as it is, without a
  split, a strip and a join of each line;
- a file's orders are split into lines only when a problem is to be quoted;
- a folder's file is hashed once for the folder and the submit (its SHA-256 is
  remembered with the very bytes object it is of), not twice;
- the outcome values made for each file (``MessageOutcome``, ``SubmitOutcome``,
  ``Candidate``) and an attack order set their fields in one ``__dict__`` update,
  not each through ``object.__setattr__`` as a frozen dataclass's own ``__init__``;
- the scenario, its map and the unit-name table a file's check asks for are kept
  by the library's extra folders, without hashing a ``Path`` (a Python call each);
- a file's order lines and its orders are made without their Python ``__init__``;
- the ruleset made for each game shares the shipped data's library (a frozen
  value), without a generator and a dataclass ``__init__`` each;
- the lines a file's accepted orders are quoted in are made by a list, each
  order's ``str`` called as such, without a generator and ``format`` an order;
- a folder's files are named by strings, without a ``Path`` made, printed and
  asked its name for each file;
- the verdict's own imports (``split_signature``, ``check_signature``, ``submit``,
  the seen-file's ``add``) call no ``_handle_fromlist`` (``from package import x``).
"""

from __future__ import annotations

import copy
import dataclasses
import hashlib
import inspect
import sys
import types
from pathlib import Path
from typing import Any

import pytest

from pbem import store
from pbem.mail import folder
from pbem.mail.intake import Candidate
from pbem.mail.readers import MessageOutcome, SeenStore, SubmitOutcome, Verdict
from pbem.referee import intake, judging, mail_room
from pbem.rules import find_ruleset, names
from pbem.rules.base import OrderLine, Orders
from pbem.rules.furor_barbarus import orders as furor_orders
from pbem.rules.furor_barbarus import ruleset, scenarios
from pbem.rules.furor_barbarus.orders import AttackOrder
from pbem.turnfiles import envelope
from tests.support.calls import c_calls, counted_calls, opcodes, python_calls
from tests.support.furor_turns import bot_turns


def test_the_unit_name_table_knows_every_id_from_the_start(monkeypatch: pytest.MonkeyPatch) -> None:
    rules = find_ruleset("furor-barbarus")
    table = rules._unit_names()  # a table of its own, no name looked up in it yet
    ids = sorted({uid for sid in rules.library.scenario_ids() for uid in rules.library.scenario(sid).counters})
    assert len(ids) >= 100
    folds = counted_calls(monkeypatch, names, "folded")
    assert [table.find(uid) for uid in ids] == [(uid,) for uid in ids]
    assert folds == []  # one an id before, at each id's first look-up in a process


def test_a_move_of_a_unit_met_first_is_read_by_the_line_loop_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    rules = find_ruleset("furor-barbarus")
    table = rules._unit_names()  # a table of its own: none of its units named in a move yet
    ids = table.own_ids()
    assert len(ids) >= 90
    text = "".join(f"move {uid} 0606 0706\n" for uid in ids)
    slow = counted_calls(monkeypatch, furor_orders, "_parse_move")
    parsed, problems = furor_orders.parse_lines(text, table)
    assert problems == [] and [ol.order.unit for ol in parsed] == list(ids)  # type: ignore[union-attr]
    assert slow == []  # one a unit before: its name settled twice and its id matched


@pytest.mark.parametrize("scenario", ["campus-mauriacus", "vouille", "tolbiac", "soissons"])
def test_the_check_shares_the_unit_entries_it_does_not_change(monkeypatch: pytest.MonkeyPatch, scenario: str) -> None:
    rules = find_ruleset("furor-barbarus")
    walked: list[Any] = []
    real = ruleset.walk_orders

    def walk(field: Any, *args: Any, **kwargs: Any) -> Any:
        walked.append(field)
        return real(field, *args, **kwargs)

    monkeypatch.setattr(ruleset, "walk_orders", walk)
    moves = 0
    for position, side, orders in bot_turns(scenario, 6):
        before = copy.deepcopy(position)
        problems = rules.validate(position, side, orders)
        assert position == before  # the checked position is left as it was
        assert problems == rules.validate(copy.deepcopy(position), side, orders)
        field = walked[0]  # the first check's, on ``position`` itself
        walked.clear()
        units = position["units"]
        shared = [u for u in units if field.units[u] is units[u]]
        changed = [u for u in units if field.units[u] != units[u]]
        assert len(shared) >= len(units) - len(field.moved) - len(changed) > 0  # none shared before
        assert not set(shared) & field.moved
        moves += len(field.moved)
        for uid in field.moved:  # each unit moved stands where its path ends, in the hex index too
            assert field.units[uid]["hex"] == field.paths[uid][-1]
        kept = field._where
        if kept is not None:
            field._where = None
            assert {h: sorted(us) for h, us in kept.items()} == {h: sorted(us) for h, us in field._index().items()}
    assert moves > 20


def _written() -> tuple[bytes, str]:
    """A Campus Mauriacus turn file of the huns as pbem writes one, and its body."""
    _position, _side, orders = bot_turns("campus-mauriacus", 1)[0]
    body = "\n".join(ol.text for ol in orders) + "\n"
    assert len(orders) >= 10
    return envelope.render_turn_file("g1", "furor-barbarus", "huns", 7, "ab" * 32, body).encode(), body


def test_a_header_as_pbem_writes_it_is_read_without_a_step_a_line() -> None:
    data, body = _written()
    steps = opcodes(lambda: envelope.parse_turn_file(data))
    assert steps < 200  # some 890 Python steps before (a loop over the header lines, a blanking step a line)
    tf = envelope.parse_turn_file(data)
    assert (tf.game, tf.rules, tf.side, tf.turn, tf.state, tf.body, tf.body_offset) == (
        "g1",
        "furor-barbarus",
        "huns",
        7,
        "ab" * 32,
        body,
        6,
    )


@pytest.mark.parametrize(
    "header",
    [
        "game: g1\nrules: furor-barbarus\nside: huns\nturn: 7\nstate: {h}\n",
        "game:g1  \nrules:  furor-barbarus\t\nside: huns \nturn:7\nstate:{h}\n",
        "game: g1\nrules: furor-barbarus\nside: huns\nturn: 007\nstate: {h}\n",
        "game: \nrules: furor-barbarus\nside: huns\nturn: 7\nstate: {h}\n",
    ],
)
@pytest.mark.parametrize(
    "body",
    [
        "move attila 0606 0706\nattack 0901 with hun-8\n",
        "move attila 0606 0706   # a comment\n\n# more\n",
        "move attila 0606 0706 \nattack 0901 with hun-8",
        "move attila 0606 0706\t\n",
        "move attila 0606\x1c\nx\x0b\n",
        "move attila 0606\x0c",
        "move Ætius 0606\u2003\n",
        "move attila 0606\x85\n",
        "",
    ],
)
def test_a_written_header_and_its_body_read_as_the_line_by_line_parse_reads_them(header: str, body: str) -> None:
    head = header.format(h="0123456789abcdef" * 4)
    tf = envelope.parse_turn_file((head + "\n" + body).encode())
    # the same file with a comment line in its header: read line by line, one line further down
    other = envelope.parse_turn_file(("# a comment\n" + head + "\n" + body).encode())
    assert (tf.game, tf.rules, tf.side, tf.turn, tf.state, tf.body, tf.body_offset + 1) == (
        other.game,
        other.rules,
        other.side,
        other.turn,
        other.state,
        other.body,
        other.body_offset,
    )
    assert tf.body == "\n".join(line.split("#", 1)[0].rstrip() for line in body.split("\n"))


def test_a_body_with_nothing_to_blank_is_not_split() -> None:
    _data, body = _written()
    kept, splits = c_calls(lambda: envelope.strip_comments(body), "split")
    assert kept is body
    assert splits == 0  # one for the body and one a line before


def test_a_file_s_orders_are_split_into_lines_only_for_a_problem() -> None:
    rules = find_ruleset("furor-barbarus")
    position, side, orders = bot_turns("campus-mauriacus", 1)[0]
    body = "\n".join(ol.text for ol in orders) + "\n"
    tf = envelope.parse_turn_file(envelope.render_turn_file("g1", "furor-barbarus", side, 7, "ab" * 32, body).encode())
    (_, problems), with_check = c_calls(lambda: judging.orders_of(rules, position, tf), "split")
    _, parse = c_calls(lambda: rules.parse_orders(tf.body), "split")
    assert problems == []
    assert with_check == parse  # one more before: the body's lines, for quoting no problem


@pytest.mark.parametrize(
    ("cls", "args"),
    [
        (MessageOutcome, ("file x", Verdict.ACCEPTED, ("a",))),
        (SubmitOutcome, (True, ("a",))),
        (Candidate, (b"x", None, "file x")),
        (AttackOrder, ("0901", ("hun-8",))),
    ],
)
def test_a_file_s_values_set_their_fields_at_once(cls: Any, args: tuple[Any, ...]) -> None:
    value = cls(*args)
    assert cls.__init__.__code__.co_filename != "<string>"  # the dataclass's own: a setattr a field
    assert list(value.__dict__) == [f.name for f in dataclasses.fields(cls)]
    assert value == cls(*args) and hash(value) == hash(cls(*args))
    assert dataclasses.replace(value) == value
    # the hand-written ``__init__`` takes the dataclass's fields, in order, with the same defaults
    parameters = list(inspect.signature(cls.__init__).parameters.values())[1:]
    assert [p.name for p in parameters] == [f.name for f in dataclasses.fields(cls)]
    for p, f in zip(parameters, dataclasses.fields(cls)):
        assert p.default == (inspect.Parameter.empty if f.default is dataclasses.MISSING else f.default), f.name
    with pytest.raises(dataclasses.FrozenInstanceError):
        value.x = 1


def test_a_folder_s_file_is_hashed_once_for_the_folder_and_the_submit() -> None:
    data, _body = _written()
    assert folder.sha256_hex is envelope.sha256_hex is intake.sha256_hex
    first, hashed = c_calls(lambda: folder.sha256_hex(data), "openssl_sha256")
    again, rehashed = c_calls(lambda: intake.sha256_hex(data), "openssl_sha256")
    assert first == again == hashlib.sha256(data).hexdigest()
    assert (hashed, rehashed) == (1, 0)  # the submit hashed the file's bytes again before
    same_bytes = bytes(bytearray(data))
    assert same_bytes is not data
    assert c_calls(lambda: envelope.sha256_hex(same_bytes), "openssl_sha256") == (first, 1)  # another object: hashed
    other = data + b"\n"
    assert envelope.sha256_hex(other) == hashlib.sha256(other).hexdigest()


def test_a_check_finds_its_scenario_map_and_names_without_hashing_a_path() -> None:
    rules = find_ruleset("furor-barbarus")
    position, side, orders = bot_turns("campus-mauriacus", 1)[0]
    rules.validate(position, side, orders)  # everything loaded once in this process
    library = scenarios.DataLibrary()
    scenario = library.scenario("campus-mauriacus")
    _, called = python_calls(
        lambda: (
            rules.unit_names,
            library.scenario("campus-mauriacus"),
            library.game_map(scenario.map_id),
            rules.field(position, copy=False),
        )
    )
    assert "__hash__" not in called  # Path.__hash__ some nine times a file before
    assert library.scenario("campus-mauriacus") is scenarios._load_scenario_cached(
        scenarios._located(library.folders, "scenarios", "campus-mauriacus"), *scenario.map_size
    )
    assert library.game_map(scenario.map_id) is scenarios._load_map_cached(
        scenarios._located(library.folders, "maps", scenario.map_id)
    )


def _imports_from(work: Any) -> list[str]:
    """The files whose code called ``_handle_fromlist`` (a ``from package import x``
    run inside a function) while ``work()`` ran."""
    callers: list[str] = []

    def profile(frame: Any, event: str, _arg: Any) -> None:
        if event == "call" and frame.f_code.co_name == "_handle_fromlist":
            callers.append(Path(frame.f_back.f_code.co_filename).name)

    sys.setprofile(profile)
    try:
        work()
    finally:
        sys.setprofile(None)
    return callers


def test_the_verdict_s_own_imports_call_no_handle_fromlist(tmp_path: Path) -> None:
    data, _body = _written()
    tf = envelope.parse_turn_file(data)
    engine = store.create_database(tmp_path / "referee.db")
    seen = SeenStore(tmp_path / "seen")

    def work() -> None:
        judging.split_signature(data, None)
        judging.check_signature(tf, data, None, {}, False)
        seen.add("ab" * 32, None)
        with pytest.raises(judging.Refused):
            intake.submit(engine, data, "not a signature")

    work()  # everything imported once
    callers = _imports_from(work)
    engine.dispose()
    assert not {"judging.py", "intake.py", "readers.py"} & set(callers), callers  # four before


def test_a_file_s_order_lines_are_made_without_a_python_init(monkeypatch: pytest.MonkeyPatch) -> None:
    rules = find_ruleset("furor-barbarus")
    _data, body = _written()
    text = body + "attack 0901 with hun-8\nstanding advance yes\n"
    table = rules.unit_names
    lines = counted_calls(monkeypatch, OrderLine, "__init__")
    made_orders = counted_calls(monkeypatch, Orders, "__init__")
    orders, problems = furor_orders.parse_lines(text, table)
    assert problems == [] and len(orders) >= 12
    assert lines == made_orders == []  # one an order line and one for the orders before
    monkeypatch.undo()
    made = Orders(tuple(OrderLine(ol.line, ol.text, ol.order) for ol in orders))
    assert orders == made and hash(orders) == hash(made) and repr(orders) == repr(made)
    assert [ol.__dict__ for ol in orders] == [ol.__dict__ for ol in made] and orders.__dict__ == made.__dict__


def test_a_ruleset_made_for_a_game_shares_the_shipped_library(tmp_path: Path) -> None:
    ruleset.FurorBarbarus()
    made, called = python_calls(ruleset.FurorBarbarus)
    assert called == ["__init__"]  # and a generator and the library's dataclass ``__init__`` before
    assert made.library is ruleset.FurorBarbarus().library == scenarios.DataLibrary()
    assert ruleset.FurorBarbarus([tmp_path]).library == scenarios.DataLibrary((tmp_path,))


class _Shown:
    """An order that counts the ``format`` calls made of it."""

    formats: list[str] = []

    def __str__(self) -> str:
        return "move hun-8 0606 0706"

    def __format__(self, spec: str) -> str:
        self.formats.append(spec)
        return format(str(self), spec)


def test_a_file_s_accepted_orders_are_quoted_without_a_generator_or_format() -> None:
    _position, side, orders = bot_turns("campus-mauriacus", 1)[0]
    shown = [OrderLine(ol.line, ol.text, _Shown()) for ol in orders]
    tf = types.SimpleNamespace(body_offset=6)
    checked: Any = types.SimpleNamespace(game_id="g1", side=side, turn=7, label="turn 3", turn_file=tf, orders=orders)
    lines, called = python_calls(lambda: mail_room._understood(checked))
    assert lines[1:] == tuple(f"line {ol.line + 6}: {ol.order!s}" for ol in orders)
    assert "<genexpr>" not in called  # one a line before
    checked.orders = Orders(tuple(shown))
    assert mail_room._understood(checked)[1:] == tuple(f"line {ol.line + 6}: move hun-8 0606 0706" for ol in shown)
    assert _Shown.formats == []  # one an order before


@pytest.mark.parametrize("where", [".", "/", "//", "turns", "turns/", "./turns", "a//b/./c", "/tmp/x"])
def test_a_folder_s_file_names_are_spelt_as_its_paths(where: str) -> None:
    for base in ("g0-huns.txt", "a b.txt", "..txt", "é.txt"):
        assert folder._prefix(Path(where)) + base == str(Path(where) / base)


def test_a_folder_s_files_are_named_without_a_path_each(tmp_path: Path) -> None:
    for n in range(4):
        (tmp_path / f"g{n}.txt").write_bytes(b"not a turn file %d\n" % n)
        (tmp_path / f"g{n}.txt.sig").write_bytes(b"not a signature\n")  # signed as ``pbem sign`` writes it

    def refuse(data: bytes, signature: str | None, source: str) -> SubmitOutcome:
        return SubmitOutcome(False, (source,))

    summary, called = python_calls(lambda: folder.ingest_dir(tmp_path, refuse, refuse))
    assert [o.source for o in summary.outcomes] == [f"file {tmp_path / f'g{n}.txt'}" for n in range(4)]
    assert [o.lines for o in summary.outcomes] == [
        (f"file {tmp_path / f'g{n}.txt'} (file g{n}.txt)",) for n in range(4)
    ]
    assert called.count("_make_child") <= 1, called  # the seen-file's; and a file's each before
