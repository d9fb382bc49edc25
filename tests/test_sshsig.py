"""Signatures (docs/design.md): SSHSIG exactly as OpenSSH writes it, checked against real ssh-keygen."""

from __future__ import annotations

import hashlib
import struct
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, padding, rsa
from hypothesis import given, settings
from hypothesis import strategies as st

from pbem.turnfiles.keys import PublicKey, generate_ed25519, load_private_key, wire_string
from pbem.turnfiles.sshsig import (
    BEGIN,
    END,
    NAMESPACE,
    SignatureError,
    armor,
    dearmor,
    normalise,
    sign,
    sign_file,
    split_inline,
    verify,
)
from tests.support.ssh_keygen import SSH_KEYGEN, needs_ssh_keygen, run_ssh_keygen, ssh_keygen_verifies

KEY_TYPES = ["ed25519", "rsa", "ecdsa"]
ORDERS = b"# republic, turn 3\nattack porto-alegre from triunfo with inf-1 inf-2\nmove cav-1 to rio-pardo\n"


def ssh_keygen_sign(key: Path, path: Path, namespace: str = NAMESPACE, *options: str) -> str:
    """What `ssh-keygen -Y sign -f KEY -n NAMESPACE FILE` writes to FILE.sig."""
    sig = Path(f"{path}.sig")
    sig.unlink(missing_ok=True)
    run_ssh_keygen("-Y", "sign", "-f", str(key), "-n", namespace, *options, str(path))
    return sig.read_text()


def write_openssh_private_key(key, path: Path) -> Path:
    path.write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.OpenSSH, serialization.NoEncryption())
    )
    path.chmod(0o600)
    return path


@pytest.fixture(scope="module")
def keys(tmp_path_factory) -> dict[tuple[str, str], Path]:
    """Private key files by (origin, type): made by ssh-keygen, and made by pbem/cryptography."""
    directory = tmp_path_factory.mktemp("keys")
    paths = {}
    if SSH_KEYGEN:
        for key_type, extra in (("ed25519", []), ("rsa", ["-b", "2048"]), ("ecdsa", ["-b", "256"])):
            path = directory / f"openssh_{key_type}"
            run_ssh_keygen("-q", "-t", key_type, *extra, "-N", "", "-C", f"player-{key_type}", "-f", str(path))
            paths["ssh-keygen", key_type] = path
    paths["pbem", "ed25519"], _ = generate_ed25519("pbem_ed25519", directory)
    paths["pbem", "rsa"] = write_openssh_private_key(
        rsa.generate_private_key(public_exponent=65537, key_size=2048), directory / "pbem_rsa"
    )
    paths["pbem", "ecdsa"] = write_openssh_private_key(
        ec.generate_private_key(ec.SECP256R1()), directory / "pbem_ecdsa"
    )
    return paths


def public_of(private_path: Path) -> PublicKey:
    return PublicKey.from_crypto(load_private_key(private_path))


ED25519 = ed25519.Ed25519PrivateKey.generate()
OTHER_ED25519 = ed25519.Ed25519PrivateKey.generate()


# --- pbem signs, ssh-keygen verifies -------------------------------------------------


@needs_ssh_keygen
@pytest.mark.parametrize("origin", ["pbem", "ssh-keygen"])
@pytest.mark.parametrize("key_type", KEY_TYPES)
def test_pbem_detached_signature_verifies_with_ssh_keygen(keys, tmp_path, origin, key_type):
    turn = tmp_path / "republic-3.txt"
    turn.write_bytes(ORDERS)
    sig_path = sign_file(turn, keys[origin, key_type])
    assert sig_path == tmp_path / "republic-3.txt.sig"
    public = public_of(keys[origin, key_type])
    assert ssh_keygen_verifies(public, ORDERS, sig_path.read_text(), tmp_path)


@needs_ssh_keygen
@pytest.mark.parametrize("key_type", KEY_TYPES)
def test_ssh_keygen_rejects_a_pbem_signature_over_other_bytes(keys, tmp_path, key_type):
    armored = sign(ORDERS, load_private_key(keys["pbem", key_type]))
    public = public_of(keys["pbem", key_type])
    assert not ssh_keygen_verifies(public, ORDERS + b"move inf-3 to triunfo\n", armored, tmp_path)


@needs_ssh_keygen
def test_pbem_inline_signature_verifies_with_ssh_keygen(keys, tmp_path):
    turn = tmp_path / "turn.txt"
    turn.write_bytes(ORDERS)
    sign_file(turn, keys["pbem", "ed25519"], inline=True)
    message, armored = split_inline(turn.read_bytes())
    assert message == ORDERS
    assert ssh_keygen_verifies(public_of(keys["pbem", "ed25519"]), message, armored, tmp_path)


@needs_ssh_keygen
@pytest.mark.parametrize("curve", [ec.SECP384R1(), ec.SECP521R1()], ids=["nistp384", "nistp521"])
def test_other_ecdsa_curves_verify_with_ssh_keygen(tmp_path, curve):
    key = ec.generate_private_key(curve)
    armored = sign(ORDERS, key)
    assert ssh_keygen_verifies(PublicKey.from_crypto(key), ORDERS, armored, tmp_path)
    assert verify(ORDERS, armored).same_key(PublicKey.from_crypto(key))


# --- ssh-keygen signs, pbem verifies -------------------------------------------------


@needs_ssh_keygen
@pytest.mark.parametrize("origin", ["pbem", "ssh-keygen"])
@pytest.mark.parametrize("key_type", KEY_TYPES)
def test_ssh_keygen_signature_verifies_with_pbem(keys, tmp_path, origin, key_type):
    turn = tmp_path / "empire-3.txt"
    turn.write_bytes(ORDERS)
    armored = ssh_keygen_sign(keys[origin, key_type], turn)
    signer = verify(ORDERS, armored)
    assert signer.same_key(public_of(keys[origin, key_type]))


@needs_ssh_keygen
def test_ssh_keygen_signer_is_the_key_in_its_pub_file(keys, tmp_path):
    turn = tmp_path / "turn.txt"
    turn.write_bytes(ORDERS)
    armored = ssh_keygen_sign(keys["ssh-keygen", "rsa"], turn)
    registered = PublicKey.from_file(Path(f"{keys['ssh-keygen', 'rsa']}.pub"))
    assert verify(ORDERS, armored).same_key(registered)


@needs_ssh_keygen
@pytest.mark.parametrize("key_type", KEY_TYPES)
def test_ssh_keygen_sha256_signature_verifies_with_pbem(keys, tmp_path, key_type):
    turn = tmp_path / "turn.txt"
    turn.write_bytes(ORDERS)
    armored = ssh_keygen_sign(keys["ssh-keygen", key_type], turn, NAMESPACE, "-O", "hashalg=sha256")
    assert verify(ORDERS, armored).same_key(public_of(keys["ssh-keygen", key_type]))


@needs_ssh_keygen
@pytest.mark.parametrize("origin", ["pbem", "ssh-keygen"])
def test_ed25519_signature_is_byte_identical_to_ssh_keygen(keys, tmp_path, origin):
    turn = tmp_path / "turn.txt"
    turn.write_bytes(ORDERS)
    expected = ssh_keygen_sign(keys[origin, "ed25519"], turn)
    assert sign(ORDERS, load_private_key(keys[origin, "ed25519"])) == expected
    assert sign_file(turn, keys[origin, "ed25519"]).read_text() == expected


@needs_ssh_keygen
def test_armor_whose_base64_fills_the_last_line_exactly_matches_ssh_keygen(keys, tmp_path):
    """A 40-character namespace makes the Ed25519 blob's base64 exactly 4 lines of 70."""
    namespace = "n" * 40
    turn = tmp_path / "turn.txt"
    turn.write_bytes(ORDERS)
    expected = ssh_keygen_sign(keys["ssh-keygen", "ed25519"], turn, namespace)
    assert [len(line) for line in expected.splitlines()[1:-1]] == [70] * 4
    assert sign(ORDERS, load_private_key(keys["ssh-keygen", "ed25519"]), namespace) == expected
    verify(ORDERS, expected, namespace)


@needs_ssh_keygen
def test_signature_armor_is_wrapped_as_ssh_keygen_wraps_it(keys, tmp_path):
    turn = tmp_path / "turn.txt"
    turn.write_bytes(ORDERS)
    expected = ssh_keygen_sign(keys["ssh-keygen", "rsa"], turn)
    ours = sign(ORDERS, load_private_key(keys["ssh-keygen", "rsa"]))
    assert [len(line) for line in ours.splitlines()] == [len(line) for line in expected.splitlines()]
    assert ours.endswith(END + "\n") and ours.startswith(BEGIN + "\n")


@needs_ssh_keygen
def test_ssh_keygen_signature_in_another_namespace_is_refused(keys, tmp_path):
    turn = tmp_path / "turn.txt"
    turn.write_bytes(ORDERS)
    armored = ssh_keygen_sign(keys["ssh-keygen", "ed25519"], turn, "git")
    with pytest.raises(SignatureError, match="signature namespace is 'git', expected 'pbem'"):
        verify(ORDERS, armored)


def sshsig_blob(
    key_blob: bytes, algorithm: str, raw: bytes, namespace: str = NAMESPACE, hash_alg: str = "sha512"
) -> bytes:
    """An SSHSIG blob built by hand from the spec, for signatures ssh-keygen does not make."""
    return (
        b"SSHSIG"
        + struct.pack(">I", 1)
        + wire_string(key_blob)
        + wire_string(namespace)
        + wire_string(b"")
        + wire_string(hash_alg)
        + wire_string(wire_string(algorithm) + wire_string(raw))
    )


def signed_data(message: bytes, namespace: str = NAMESPACE) -> bytes:
    digest = hashlib.sha512(message).digest()
    return b"SSHSIG" + wire_string(namespace) + wire_string(b"") + wire_string("sha512") + wire_string(digest)


RSA = rsa.generate_private_key(public_exponent=65537, key_size=2048)


def test_rsa_sha2_256_signature_verifies():
    """OpenSSH signs RSA with rsa-sha2-512, but a verifier must also take rsa-sha2-256."""
    public = PublicKey.from_crypto(RSA)
    raw = RSA.sign(signed_data(ORDERS), padding.PKCS1v15(), hashes.SHA256())
    armored = armor(sshsig_blob(public.blob, "rsa-sha2-256", raw))
    assert verify(ORDERS, armored).same_key(public)
    with pytest.raises(SignatureError, match="does not match"):
        verify(ORDERS + b"\n", armored)


def test_rsa_sha1_signature_is_refused():
    public = PublicKey.from_crypto(RSA)
    raw = RSA.sign(signed_data(ORDERS), padding.PKCS1v15(), hashes.SHA1())
    with pytest.raises(SignatureError, match="unsupported signature algorithm 'ssh-rsa' for a ssh-rsa key"):
        verify(ORDERS, armor(sshsig_blob(public.blob, "ssh-rsa", raw)))


def test_signature_algorithm_of_another_key_type_is_refused():
    public = PublicKey.from_crypto(ED25519)
    raw = ED25519.sign(signed_data(ORDERS))
    with pytest.raises(SignatureError, match="unsupported signature algorithm 'rsa-sha2-512'"):
        verify(ORDERS, armor(sshsig_blob(public.blob, "rsa-sha2-512", raw)))
    assert verify(ORDERS, armor(sshsig_blob(public.blob, "ssh-ed25519", raw))).same_key(public)


# --- detached and inline files ------------------------------------------------------


def test_inline_signature_round_trip(tmp_path):
    turn = tmp_path / "turn.txt"
    turn.write_bytes(ORDERS)
    key = write_openssh_private_key(ED25519, tmp_path / "key")
    assert sign_file(turn, key, inline=True) == turn
    data = turn.read_bytes()
    assert data.startswith(ORDERS + BEGIN.encode())
    message, armored = split_inline(data)
    assert message == ORDERS
    assert verify(message, armored).same_key(PublicKey.from_crypto(ED25519))


def test_inline_signature_after_a_file_without_final_newline(tmp_path):
    turn = tmp_path / "turn.txt"
    turn.write_bytes(ORDERS.rstrip(b"\n"))
    sign_file(turn, write_openssh_private_key(ED25519, tmp_path / "key"), inline=True)
    message, armored = split_inline(turn.read_bytes())
    assert message == ORDERS
    verify(message, armored)


def test_signing_inline_again_replaces_the_old_block(tmp_path):
    turn = tmp_path / "turn.txt"
    turn.write_bytes(ORDERS)
    key = write_openssh_private_key(ED25519, tmp_path / "key")
    sign_file(turn, key, inline=True)
    edited = turn.read_bytes().replace(b"cav-1", b"cav-2")
    turn.write_bytes(edited)
    with pytest.raises(SignatureError, match="does not match"):
        verify(*split_inline(edited))
    sign_file(turn, key, inline=True)
    data = turn.read_bytes()
    assert data.count(BEGIN.encode()) == 1
    message, armored = split_inline(data)
    assert message == ORDERS.replace(b"cav-1", b"cav-2")
    verify(message, armored)


def test_file_without_inline_signature():
    assert split_inline(ORDERS) == (ORDERS, None)
    assert split_inline(ORDERS.replace(b"\n", b"\r\n")) == (ORDERS, None)


def test_begin_marker_inside_a_line_is_not_a_signature():
    data = ORDERS + b"note: " + BEGIN.encode() + b"\n"
    assert split_inline(data) == (data, None)


def test_crlf_file_signed_with_lf_verifies(tmp_path):
    """A mail client may turn LF into CRLF in transit; the signed message is the same."""
    turn = tmp_path / "turn.txt"
    turn.write_bytes(ORDERS)
    sign_file(turn, write_openssh_private_key(ED25519, tmp_path / "key"), inline=True)
    crlf = turn.read_bytes().replace(b"\n", b"\r\n")
    message, armored = split_inline(crlf)
    assert message == ORDERS
    verify(message, armored)


def test_crlf_file_signed_as_is(tmp_path):
    turn = tmp_path / "turn.txt"
    turn.write_bytes(ORDERS.replace(b"\n", b"\r\n"))
    key = write_openssh_private_key(ED25519, tmp_path / "key")
    sign_file(turn, key, inline=True)
    assert turn.read_bytes().startswith(ORDERS.replace(b"\n", b"\r\n"))
    verify(*split_inline(turn.read_bytes()))


def test_detached_signature_of_a_crlf_file_is_over_the_lf_message(tmp_path):
    turn = tmp_path / "turn.txt"
    turn.write_bytes(ORDERS.replace(b"\n", b"\r\n"))
    sig = sign_file(turn, write_openssh_private_key(ED25519, tmp_path / "key"))
    verify(ORDERS, sig.read_text())
    verify(normalise(turn.read_bytes()), sig.read_text())


def test_normalise_turns_only_crlf_into_lf():
    assert normalise(b"a\r\nb\rc\n\r\n") == b"a\nb\rc\n\n"


# --- what a bad signature says -------------------------------------------------------


@pytest.fixture
def signed() -> tuple[bytes, str]:
    return ORDERS, sign(ORDERS, ED25519)


def test_signature_over_other_bytes(signed):
    _, armored = signed
    with pytest.raises(SignatureError, match="signature does not match the file"):
        verify(b"attack rio-pardo\n", armored)


def test_one_byte_changed_in_the_message(signed):
    message, armored = signed
    changed = message.replace(b"inf-2", b"inf-3")
    with pytest.raises(SignatureError, match="signature does not match the file"):
        verify(changed, armored)


def test_one_byte_changed_in_an_inline_file(tmp_path):
    turn = tmp_path / "turn.txt"
    turn.write_bytes(ORDERS)
    sign_file(turn, write_openssh_private_key(ED25519, tmp_path / "key"), inline=True)
    data = bytearray(turn.read_bytes())
    data[10] ^= 0x01
    with pytest.raises(SignatureError, match="does not match"):
        verify(*split_inline(bytes(data)))


def test_key_that_is_not_the_signers(signed):
    message, armored = signed
    signer = verify(message, armored)
    assert signer.same_key(PublicKey.from_crypto(ED25519))
    assert not signer.same_key(PublicKey.from_crypto(OTHER_ED25519))


def test_signature_made_with_another_key_and_swapped_public_key(signed):
    """Putting the registered key's blob into someone else's signature does not verify."""
    message, _ = signed
    forged = dearmor(sign(message, OTHER_ED25519)).replace(
        PublicKey.from_crypto(OTHER_ED25519).blob, PublicKey.from_crypto(ED25519).blob
    )
    with pytest.raises(SignatureError, match="does not match"):
        verify(message, armor(forged))


def test_truncated_armor(signed):
    message, armored = signed
    lines = armored.splitlines()
    with pytest.raises(SignatureError, match="truncated signature"):
        verify(message, "\n".join(lines[:-2]) + "\n")


def test_truncated_blob(signed):
    message, armored = signed
    blob = dearmor(armored)
    with pytest.raises(SignatureError, match="truncated signature"):
        verify(message, armor(blob[:-10]))


def test_garbled_base64(signed):
    message, armored = signed
    lines = armored.splitlines()
    lines[2] = "%%%" + lines[2][3:]
    with pytest.raises(SignatureError, match="garbled signature"):
        verify(message, "\n".join(lines) + "\n")


def test_text_that_is_not_a_signature():
    with pytest.raises(SignatureError, match="not an SSH signature"):
        verify(ORDERS, "hello\n")
    with pytest.raises(SignatureError, match="not an SSH signature"):
        verify(ORDERS, armor(b"NOTSIG" + b"\x00" * 40))


def test_text_after_the_inline_block_is_refused(signed):
    message, armored = signed
    data = message + armored.encode() + b"move inf-9 to porto-alegre\n"
    with pytest.raises(SignatureError, match="not part of the signature"):
        verify(*split_inline(data))


def test_whitespace_after_the_inline_block_is_fine(signed):
    message, armored = signed
    verify(*split_inline(message + armored.encode() + b"\n\n  \n"))


def test_wrong_namespace_on_verify(signed):
    message, armored = signed
    with pytest.raises(SignatureError, match="signature namespace is 'pbem', expected 'git'"):
        verify(message, armored, namespace="git")


def test_unsupported_hash_algorithm():
    with pytest.raises(SignatureError, match="unsupported hash algorithm 'md5'"):
        sign(ORDERS, ED25519, hash_alg="md5")


def test_sha256_message_hash_round_trip():
    armored = sign(ORDERS, ED25519, hash_alg="sha256")
    assert b"sha256" in dearmor(armored)
    verify(ORDERS, armored)


def test_unsupported_key_type_in_signature():
    blob = sshsig_blob(wire_string("ssh-dss") + wire_string(b"\x01"), "ssh-dss", b"\x00" * 40)
    with pytest.raises(SignatureError, match="unsupported key type 'ssh-dss'"):
        verify(ORDERS, armor(blob))


# --- property: any message round-trips; any one changed byte fails ---------------------


@settings(max_examples=60, deadline=None)
@given(message=st.binary(max_size=300), data=st.data())
def test_any_message_round_trips_and_any_single_byte_change_fails(message, data):
    armored = sign(message, ED25519)
    assert verify(message, armored).same_key(PublicKey.from_crypto(ED25519))
    if message:
        index = data.draw(st.integers(0, len(message) - 1), label="index")
        byte = data.draw(st.integers(0, 255).filter(lambda b: b != message[index]), label="byte")
        changed = message[:index] + bytes([byte]) + message[index + 1 :]
        with pytest.raises(SignatureError, match="does not match"):
            verify(changed, armored)


@settings(max_examples=60, deadline=None)
@given(lines=st.lists(st.text(alphabet=st.characters(blacklist_categories=["Cs"]), max_size=40), max_size=8))
def test_any_inline_turn_file_round_trips(lines):
    body = "".join(line.replace("\r", "").replace("\n", "") + "\n" for line in lines).encode("utf-8")
    data = body + sign(body, ED25519).encode("ascii")
    message, armored = split_inline(data.replace(b"\n", b"\r\n"))
    assert message == body
    verify(message, armored)


def test_trailing_spaces_on_armor_lines_are_ignored(signed):
    """Some mail clients pad lines; the base64 and markers are still read."""
    message, armored = signed
    padded = "".join(line + "  \n" for line in armored.splitlines())
    message_again, block = split_inline(message + padded.encode())
    assert message_again == message
    verify(message, block)
