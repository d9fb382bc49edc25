"""Keys anyone can sign for (pbem.turnfiles.weak_keys): an Ed25519 public key of small
order is refused when a player registers it, and a file signed under one is refused."""

from __future__ import annotations

import hashlib
import sqlite3

import pytest
from cryptography.hazmat.primitives.asymmetric import ed25519

from pbem.turnfiles import weak_keys
from pbem.turnfiles.keys import ED25519, KeyFileError, PublicKey, wire_string
from tests.conftest import Table
from tests.support import forged
from tests.support.cli_steps import assert_refused, write_orders

# The eight points whose order divides 8, as every Ed25519 library's blocklist of
# small-order keys lists them: the neutral point, (0, -1), (±i, 0) and four of order 8.
SMALL_ORDER = [
    "0100000000000000000000000000000000000000000000000000000000000000",
    "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
    "0000000000000000000000000000000000000000000000000000000000000000",
    "0000000000000000000000000000000000000000000000000000000000000080",
    "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a",
    "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa",
    "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05",
    "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85",
]
IDENTITY = bytes.fromhex(SMALL_ORDER[0])


def _line(point: bytes) -> str:
    return PublicKey(ED25519, wire_string(ED25519) + wire_string(point), "weak").openssh()


@pytest.mark.parametrize("point", SMALL_ORDER)
def test_every_key_of_small_order_is_forgeable(point: str) -> None:
    assert weak_keys.forgeable(ed25519.Ed25519PublicKey.from_public_bytes(bytes.fromhex(point)))


def test_a_key_made_from_a_private_key_is_not() -> None:
    for _ in range(20):
        point = ed25519.Ed25519PrivateKey.generate().public_key().public_bytes_raw()
        assert not weak_keys.forgeable(ed25519.Ed25519PublicKey.from_public_bytes(point))


def test_the_forged_data_makes_k_a_multiple_of_eight() -> None:
    data = weak_keys.forged_data(IDENTITY)
    k = int.from_bytes(hashlib.sha512(weak_keys.BASE_POINT + IDENTITY + data).digest(), "little")
    assert k % weak_keys.GROUP_ORDER % 8 == 0 and k % weak_keys.GROUP_ORDER != 0


def test_registrable_refuses_a_small_order_key_and_takes_a_good_one() -> None:
    with pytest.raises(KeyFileError, match="anyone can sign for this key"):
        weak_keys.registrable(_line(IDENTITY))
    good = PublicKey.from_crypto(ed25519.Ed25519PrivateKey.generate())
    assert weak_keys.registrable(good.openssh()) == good


def test_pbem_new_refuses_a_key_anyone_can_sign_for(table: Table) -> None:
    weak = table.tmp / "weak.pub"
    weak.write_text(_line(bytes.fromhex(SMALL_ORDER[4])) + "\n")
    _, empire = table.key("empire")
    r = table.run("new", "g1", "--rules", "farrapos", "--player", f"republic={weak}", "--player", f"empire={empire}")
    assert r.exit_code == 1
    assert "public key for republic: anyone can sign for this key (an Ed25519 point of small order)" in r.stderr
    assert not table.db.exists() or table.count("game") == 0


def test_pbem_player_refuses_a_new_key_anyone_can_sign_for(new_farrapos) -> None:
    t = new_farrapos("g1")
    before = t.dump()
    weak = t.tmp / "weak.pub"
    weak.write_text(_line(IDENTITY) + "\n")
    r = t.run("player", "g1", "empire", "--key", str(weak))
    assert r.exit_code == 1 and "--key: anyone can sign for this key" in r.stderr
    assert t.dump() == before


def test_a_file_forged_under_a_key_registered_before_is_refused(new_farrapos) -> None:
    """A game whose side holds such a key (registered before the rule): a file anyone
    could have signed is refused, and the refusal recorded."""
    t = new_farrapos("g1")
    con = sqlite3.connect(t.db)
    with con:
        con.execute("UPDATE player SET public_key = ? WHERE side = 'republic'", (_line(IDENTITY),))
    con.close()
    path = write_orders(t, "g1", "republic", "t1.txt")
    path.write_bytes(forged.forgeable_turn(path.read_bytes(), IDENTITY))
    path.with_name(path.name + ".sig").write_text(forged.armored(IDENTITY, weak_keys.FORGED))
    assert_refused(t, path, "signed by a key anyone can sign for")
