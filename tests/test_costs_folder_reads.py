"""Costs of a folder's turn file before and around its verdict, counted, never
timed:

- each turn file is opened once and read from its descriptor (no ``stat`` by
  name, no file object); a file over the limit is refused by its size without
  being read; a ``.sig`` that is no regular file is no signature;
- an Ed25519 signer's key is read from its blob's one fixed beginning and
  length, not field by field (``WireReader``), and refuses the same blobs;
- the signer's ``PublicKey`` and the ``Submitted`` of an accepted file set
  their fields at once, not through ``object.__setattr__`` per field;
- an SSHSIG blob's strings are read without a call per string.
"""

from __future__ import annotations

import os
import struct
import sys
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric import ed25519

from pbem import limits
from pbem.mail import folder
from pbem.referee import intake, mail_room
from pbem.turnfiles import keys, sshsig
from tests.support.desk import new_games, open_desk, play_resolutions, signed_next_turns


def _calls(monkeypatch: pytest.MonkeyPatch, module: Any, name: str, seen: list[str], suffix: str = "") -> None:
    """Note each call of ``module.name`` (whose first argument, if ``suffix``, ends with it)."""
    real = getattr(module, name)

    def counting(*args: Any, **kwargs: Any) -> Any:
        if not suffix or str(args[0]).endswith(suffix):
            seen.append(name)
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, counting)


def test_a_folder_s_file_is_opened_once_and_read_from_its_descriptor(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    desk = open_desk(tmp_path)
    [game] = new_games(desk, 1)
    play_resolutions(desk, game, 2)
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    [(_game, message, signature)] = signed_next_turns(desk, [game], seed=1)
    (inbox / "turn.txt").write_bytes(message)
    (inbox / "turn.txt.sig").write_text(signature, encoding="ascii")
    seen: list[str] = []
    for suffix in (".txt", ".sig"):
        for name in ("open", "stat", "lstat"):
            _calls(monkeypatch, folder.os, name, seen, suffix)
    monkeypatch.setattr(folder, "open", lambda *a, **k: pytest.fail("a file object"), raising=False)
    summary = mail_room.run_ingest(desk.engine, directory=inbox)
    assert summary.accepted == 1, summary
    assert seen == ["open", "open"]  # the turn file, then its .sig: each stat'ed from its descriptor


def test_a_large_file_is_refused_by_its_size_unread(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    big = tmp_path / "big.txt"
    big.write_bytes(b"x" * 1000)
    reads: list[str] = []
    _calls(monkeypatch, limits.os, "read", reads)
    with pytest.raises(limits.TooLarge) as refused:
        limits.read_at_most(str(big), 999)
    assert refused.value.size == 1000 and reads == []
    assert limits.read_at_most(str(big), 1000) == b"x" * 1000 and reads == ["read", "read"]  # its bytes, then its end
    monkeypatch.setattr(folder, "MAX_FILE_BYTES", 999)
    summary = folder.ingest_dir(tmp_path, lambda *a: pytest.fail("judged"), lambda *a: pytest.fail("checked"))
    assert [o.lines for o in summary.outcomes] == [("file is 1000 bytes: a turn file is at most 64 KiB",)]


def test_a_sig_that_is_no_file_is_no_signature(tmp_path: Path) -> None:
    (tmp_path / "a.txt.sig").mkdir()
    assert folder._detached_signature(str(tmp_path / "a.txt")) is None
    (tmp_path / "a.sig").write_bytes(b"-----BEGIN SSH SIGNATURE-----\n")
    assert folder._detached_signature(str(tmp_path / "a.txt")) == "-----BEGIN SSH SIGNATURE-----\n"
    assert folder._detached_signature(str(tmp_path / "b" / "c.txt")) is None


def test_an_ed25519_blob_is_read_at_once_and_refused_as_before(monkeypatch: pytest.MonkeyPatch) -> None:
    point = ed25519.Ed25519PrivateKey.generate().public_key().public_bytes_raw()
    blob = keys.wire_string("ssh-ed25519") + keys.wire_string(point)
    monkeypatch.setattr(keys, "WireReader", lambda data: pytest.fail("read field by field"))
    assert keys.ed25519_point(blob) == point
    for bad in (
        blob + b"\0",  # bytes after the point
        blob[:-1],
        keys.wire_string("ssh-ed25519") + keys.wire_string(point[:31]) + b"\0",  # a 31-byte point
        keys.wire_string("ssh-ed25518") + keys.wire_string(point),
        struct.pack(">I", 12) + b"ssh-ed25519" + keys.wire_string(point),
        b"",
    ):
        assert keys.ed25519_point(bad) is None, bad


def _generated_inits(make: Any) -> int:
    """How many generated ``__init__`` (a dataclass's, compiled from ``<string>``,
    which sets each field through ``object.__setattr__``) ``make()`` runs."""
    calls = 0

    def profile(frame: Any, event: str, _arg: Any) -> None:
        nonlocal calls
        if event == "call" and frame.f_code.co_filename == "<string>" and frame.f_code.co_name == "__init__":
            calls += 1

    sys.setprofile(profile)
    try:
        make()
    finally:
        sys.setprofile(None)
    return calls


def test_a_key_and_a_submitted_file_set_their_fields_at_once() -> None:
    blob = keys.wire_string("ssh-ed25519") + keys.wire_string(os.urandom(32))
    assert _generated_inits(lambda: keys.PublicKey("ssh-ed25519", blob)) == 0
    assert _generated_inits(lambda: intake.Submitted(None, 0)) == 0  # type: ignore[arg-type]
    key = keys.PublicKey("ssh-ed25519", blob)
    assert key.comment == "" and key == keys.PublicKey("ssh-ed25519", blob, "")
    assert hash(key) == hash(keys.PublicKey("ssh-ed25519", blob)) and key != keys.PublicKey("ssh-ed25519", blob, "x")
    assert repr(key).startswith("PublicKey(key_type='ssh-ed25519', blob=")
    with pytest.raises(AttributeError):
        key.comment = "x"  # type: ignore[misc]
    submitted = intake.Submitted(None, 2)  # type: ignore[arg-type]
    assert (submitted.superseded, submitted.granted) == (2, None)


def test_an_sshsig_blob_s_strings_are_read_without_a_call_each(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sshsig, "_uint32", lambda data, at: pytest.fail("a call per string"))
    data = b"".join(keys.wire_string(part) for part in (b"a", b"", b"xyz"))
    assert sshsig._strings(data, 0, 3) == ([b"a", b"", b"xyz"], len(data))
    for cut in range(1, len(data)):
        with pytest.raises(EOFError):
            sshsig._strings(data[:cut], 0, 3)
