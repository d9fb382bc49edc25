"""Costs of a submitted file (``pbem ingest --dir``), counted, never timed:

- the verdict reads the game's position as a shared parse: a submit makes no
  ``marshal`` copy of it for a later read (a folder ingest makes none), and the
  parse it keeps is the stored JSON's, unchanged by the orders' validation; a
  resolution in the same process still parses it no second time;
- a time limit is a plain class: no ``contextlib`` generator and its wrapper
  per limit (a turn file is read within two);
- a file with a detached signature, without the BEGIN marker anywhere, is not
  split line by line looking for an inline signature;
- a detached signature is read as bytes from a descriptor, not through a file
  object, with the same text (its line ends as text mode reads them);
- the envelope, the verdict and the Farrapos orders set their fields with one
  ``set_fields`` call, not ``object.__setattr__`` per field.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from pbem import limits
from pbem.mail import folder
from pbem.mail import intake as mail_intake
from pbem.referee import judging, mail_room
from pbem.referee import resolve as resolving
from pbem.rules.farrapos import orders as farrapos_orders
from pbem.store import records
from pbem.turnfiles import envelope
from tests.support.desk import new_games, open_desk, play_resolutions, write_next_turns
from tests.support.position_reads import counted_copies, counted_parses


def test_a_submit_shares_the_position_s_parse_and_leaves_it_as_stored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    desk = open_desk(tmp_path)
    [game] = new_games(desk, 1)
    play_resolutions(desk, game, 4)  # to the middle of a Phase: moves, attacks and new MU to validate
    dumped = counted_copies(monkeypatch)
    for seed in range(1, 4):
        write_next_turns(desk, [game], tmp_path / f"inbox{seed}", seed=seed)
        monkeypatch.setattr(records, "_positions", {})  # as in a fresh process: nothing read yet
        dumped.clear()
        summary = mail_room.run_ingest(desk.engine, directory=tmp_path / f"inbox{seed}")
        assert summary.accepted == 1, summary
        assert dumped == []
        [(text, kept)] = records._positions.items()
        assert isinstance(kept, dict) and kept == json.loads(text)  # validation changed nothing in it
        parsed = counted_parses(monkeypatch)
        assert resolving.process(desk.engine, [game])[0].resolved >= 1
        monkeypatch.setattr(records, "json", json)
        assert parsed == []  # the resolution took the submit's parse


def test_a_time_limit_makes_no_generator(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []

    def profile(frame: Any, event: str, _arg: object) -> None:
        if event == "call":
            calls.append(f"{Path(frame.f_code.co_filename).name}:{frame.f_code.co_name}")

    sys.setprofile(profile)
    try:
        with limits.time_limit(limits.TURN_FILE_PARSE_SECONDS, "the turn file"):
            pass
    finally:
        sys.setprofile(None)
    assert not [c for c in calls if c.startswith("contextlib.py")], calls
    assert len(calls) <= 6, calls  # time_limit, __init__, __enter__, __exit__ and the main thread's ident
    with pytest.raises(limits.TimeLimit, match="reading the orders took over 0.01 s"):
        with limits.time_limit(0.01, "the orders"):
            while True:
                pass


def test_a_file_without_an_inline_signature_is_not_split_line_by_line() -> None:
    data = b"game: g1\nrules: farrapos\n" + b"# a comment\n" * 200 + b"\nmove inf-5 from bage to cacapava\n"
    builtins_called: list[str] = []

    def profile(_frame: Any, event: str, arg: Any) -> None:
        if event == "c_call":
            builtins_called.append(arg.__name__)

    sys.setprofile(profile)
    try:
        message, signature = mail_intake._split_signature(data)
    finally:
        sys.setprofile(None)
    assert (message, signature) == (data, None)
    assert builtins_called == ["setprofile"], builtins_called  # a strip and an encode per line before
    inline = data + b"-----BEGIN SSH SIGNATURE-----\r\nQUJD\n-----END SSH SIGNATURE-----\n"
    assert mail_intake._split_signature(inline) == (
        data,
        "-----BEGIN SSH SIGNATURE-----\nQUJD\n-----END SSH SIGNATURE-----\n",
    )


def test_a_detached_signature_is_read_as_bytes_with_text_mode_s_line_ends(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    raw = b"-----BEGIN SSH SIGNATURE-----\r\nQU\xe9JD\rQUJD\n\r\n-----END SSH SIGNATURE-----\r"
    (tmp_path / "a.txt.sig").write_bytes(raw)
    (tmp_path / "b.sig").write_bytes(raw)
    modes: list[str] = []
    real = open

    def recording(file: Any, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        modes.append(mode)
        return real(file, mode, *args, **kwargs)

    monkeypatch.setattr(folder, "open", recording, raising=False)
    expected = (tmp_path / "a.txt.sig").read_text(encoding="ascii", errors="replace").replace("\r\n", "\n")
    for name in ("a.txt", "b.txt"):
        assert folder._detached_signature(str(tmp_path / name)) == expected
    assert folder._detached_signature(str(tmp_path / "c.txt")) is None
    assert modes == []  # read from a descriptor: no file object at all


def test_the_verdict_s_objects_set_their_fields_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[str] = []
    for module in (envelope, judging):  # a Farrapos order sets its fields in place, without set_fields
        real = module.set_fields

        def counting(instance: Any, _real: Any = real, **values: Any) -> None:
            made.append(type(instance).__name__)
            _real(instance, **values)

        monkeypatch.setattr(module, "set_fields", counting)
    tf = envelope.parse_turn_file(
        b"game: g1\nrules: farrapos\nside: republic\nturn: 3\nstate: " + b"0" * 64 + b"\n\nattack a from b with inf-1\n"
    )
    order = farrapos_orders.parse_order("attack porto-alegre from triunfo with inf-1 rounds 2")
    checked = judging.Checked("g1", "republic", 3, b"", None, tf, (), "label", False)
    assert made == ["TurnFile", "Checked"]  # (tests/test_costs_farrapos_engine.py counts the order's)
    assert not hasattr(farrapos_orders, "set_fields")
    assert (tf.game, tf.turn, tf.body_offset) == ("g1", 3, 6)
    assert str(order) == "attack porto-alegre from triunfo with inf-1 rounds 2"
    assert order == farrapos_orders.parse_order(str(order)) and hash(order) == hash(
        farrapos_orders.parse_order(str(order))
    )
    assert checked.turn_file is tf and checked.others_queued is False
    with pytest.raises(AttributeError):
        tf.game = "other"  # type: ignore[misc]
