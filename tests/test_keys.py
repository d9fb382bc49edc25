"""Signatures (docs/design.md): OpenSSH keys that `pbem keygen` writes and `ssh-keygen` reads, and back."""

from __future__ import annotations

import base64
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

from pbem.turnfiles.keys import KeyExistsError, KeyFileError, PublicKey, generate_ed25519, load_private_key, wire_string

SSH_KEYGEN = shutil.which("ssh-keygen")
needs_ssh_keygen = pytest.mark.skipif(SSH_KEYGEN is None, reason="OpenSSH ssh-keygen is not installed")


def ssh_keygen(*args: str, stdin: bytes | None = None) -> str:
    done = subprocess.run([SSH_KEYGEN, *args], input=stdin, capture_output=True, check=True)
    return done.stdout.decode()


@pytest.fixture(scope="module")
def openssh_keys(tmp_path_factory) -> dict[str, Path]:
    """Keys made by ssh-keygen itself, one of each supported type."""
    directory = tmp_path_factory.mktemp("openssh-keys")
    paths = {}
    for key_type, extra in (("ed25519", []), ("rsa", ["-b", "2048"]), ("ecdsa", ["-b", "256"])):
        path = directory / f"id_{key_type}"
        ssh_keygen("-q", "-t", key_type, *extra, "-N", "", "-C", f"made-{key_type}", "-f", str(path))
        paths[key_type] = path
    return paths


# --- pbem keygen -------------------------------------------------------------


@needs_ssh_keygen
def test_keygen_private_key_is_read_by_ssh_keygen(tmp_path):
    private, public = generate_ed25519("republic", tmp_path)
    derived = PublicKey.from_openssh(ssh_keygen("-y", "-f", str(private)))
    assert derived.same_key(PublicKey.from_file(public))


def test_keygen_writes_private_key_with_mode_0600(tmp_path):
    private, public = generate_ed25519("empire", tmp_path)
    assert stat.S_IMODE(private.stat().st_mode) == 0o600
    assert private == tmp_path / "empire"
    assert public == tmp_path / "empire.pub"
    assert private.read_text().startswith("-----BEGIN OPENSSH PRIVATE KEY-----\n")


def test_keygen_public_file_is_one_openssh_line_with_the_name_as_comment(tmp_path):
    _, public = generate_ed25519("rome", tmp_path)
    text = public.read_text()
    assert text.count("\n") == 1 and text.endswith("\n")
    key_type, b64, comment = text.split()
    assert (key_type, comment) == ("ssh-ed25519", "rome")
    assert PublicKey.from_openssh(text).openssh() == text.strip()


def test_keygen_public_file_matches_the_private_key(tmp_path):
    private, public = generate_ed25519("tribes", tmp_path)
    assert PublicKey.from_crypto(load_private_key(private)).same_key(PublicKey.from_file(public))


def test_keygen_makes_a_new_key_each_time(tmp_path):
    _, first = generate_ed25519("a", tmp_path)
    _, second = generate_ed25519("b", tmp_path)
    assert not PublicKey.from_file(first).same_key(PublicKey.from_file(second))


@pytest.mark.parametrize("existing", ["empire", "empire.pub"])
def test_keygen_refuses_to_overwrite_a_key_file(tmp_path, existing):
    (tmp_path / existing).write_text("precious\n")
    with pytest.raises(KeyExistsError, match="already exists") as info:
        generate_ed25519("empire", tmp_path)
    assert existing in str(info.value)
    assert (tmp_path / existing).read_text() == "precious\n"
    assert isinstance(info.value, ValueError)


@pytest.mark.parametrize("name", ["", "../evil", "a/b", ".hidden", "with space"])
def test_keygen_rejects_a_name_that_is_not_a_plain_file_name(tmp_path, name):
    with pytest.raises(KeyFileError, match="key name"):
        generate_ed25519(name, tmp_path)


def test_keygen_creates_the_directory(tmp_path):
    private, _ = generate_ed25519("p", tmp_path / "keys" / "deep")
    assert private.exists()


# --- keys made by ssh-keygen ----------------------------------------------------


@needs_ssh_keygen
@pytest.mark.parametrize("key_type", ["ed25519", "rsa", "ecdsa"])
def test_openssh_private_keys_load(openssh_keys, key_type):
    path = openssh_keys[key_type]
    loaded = PublicKey.from_crypto(load_private_key(path))
    assert loaded.same_key(PublicKey.from_file(Path(f"{path}.pub")))


@needs_ssh_keygen
@pytest.mark.parametrize("key_type", ["ed25519", "rsa", "ecdsa"])
def test_fingerprint_is_what_ssh_keygen_prints(openssh_keys, key_type):
    public_path = f"{openssh_keys[key_type]}.pub"
    # "256 SHA256:xxxx comment (ED25519)"
    expected = ssh_keygen("-l", "-E", "sha256", "-f", public_path).split()[1]
    assert PublicKey.from_file(Path(public_path)).fingerprint() == expected


@pytest.fixture
def locked_key(tmp_path) -> Path:
    path = tmp_path / "locked"
    ssh_keygen("-q", "-t", "ed25519", "-N", "sesame", "-f", str(path))
    return path


@needs_ssh_keygen
def test_passphrase_protected_key_without_passphrase_says_so(locked_key):
    with pytest.raises(KeyFileError, match="protected by a passphrase") as info:
        load_private_key(locked_key)
    assert str(locked_key) in str(info.value)


@needs_ssh_keygen
def test_passphrase_protected_key_loads_with_its_passphrase(locked_key):
    pytest.importorskip("bcrypt", reason="cryptography needs bcrypt to decrypt OpenSSH keys")
    with pytest.raises(KeyFileError, match="locked"):
        load_private_key(locked_key, b"wrong")
    key = load_private_key(locked_key, b"sesame")
    assert PublicKey.from_crypto(key).same_key(PublicKey.from_file(Path(f"{locked_key}.pub")))


def test_missing_private_key_file_names_the_path(tmp_path):
    with pytest.raises(KeyFileError, match="nowhere"):
        load_private_key(tmp_path / "nowhere")


def test_private_key_file_that_is_not_a_key(tmp_path):
    path = tmp_path / "orders.txt"
    path.write_text("move inf-1 to porto-alegre\n")
    with pytest.raises(KeyFileError, match="orders.txt"):
        load_private_key(path)


# --- public key lines -----------------------------------------------------------


def test_public_key_line_round_trips(tmp_path):
    _, public = generate_ed25519("side", tmp_path)
    line = public.read_text().strip()
    key = PublicKey.from_openssh(line)
    assert key.openssh() == line
    assert str(key) == line
    assert PublicKey.from_openssh(key.openssh()) == key


def test_public_key_without_comment_prints_no_trailing_space(tmp_path):
    _, public = generate_ed25519("side", tmp_path)
    key_type, b64, _ = public.read_text().split()
    key = PublicKey.from_openssh(f"{key_type} {b64}")
    assert key.comment == ""
    assert key.openssh() == f"{key_type} {b64}"


def test_same_key_ignores_the_comment(tmp_path):
    _, public = generate_ed25519("side", tmp_path)
    key_type, b64, _ = public.read_text().split()
    assert PublicKey.from_openssh(f"{key_type} {b64} alice@home").same_key(
        PublicKey.from_openssh(f"{key_type} {b64} bob@work")
    )


def test_public_key_line_whose_type_does_not_match_its_blob(tmp_path):
    _, public = generate_ed25519("side", tmp_path)
    _, b64, _ = public.read_text().split()
    with pytest.raises(KeyFileError, match="ssh-rsa"):
        PublicKey.from_openssh(f"ssh-rsa {b64}")


@pytest.mark.parametrize(
    "line, message",
    [
        ("", "not an OpenSSH public key"),
        ("ssh-ed25519", "not an OpenSSH public key"),
        ("ssh-ed25519 !!!notbase64", "bad base64"),
        ("ssh-ed25519 AAAA", "malformed"),
    ],
)
def test_bad_public_key_lines(line, message):
    with pytest.raises(KeyFileError, match=message):
        PublicKey.from_openssh(line)


def test_unsupported_public_key_type():
    blob = wire_string("ssh-dss") + wire_string(b"\x01") * 4
    line = f"ssh-dss {base64.b64encode(blob).decode()}"
    with pytest.raises(KeyFileError, match="unsupported key type 'ssh-dss'"):
        PublicKey.from_openssh(line)
