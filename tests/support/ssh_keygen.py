"""OpenSSH's own ``ssh-keygen``, run by the signature tests to check pbem against it."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from pbem.turnfiles.keys import PublicKey
from pbem.turnfiles.sshsig import NAMESPACE

SSH_KEYGEN = shutil.which("ssh-keygen")
needs_ssh_keygen = pytest.mark.skipif(SSH_KEYGEN is None, reason="OpenSSH ssh-keygen is not installed")


def run_ssh_keygen(*args: str, stdin: bytes | None = None, check: bool = True) -> subprocess.CompletedProcess[bytes]:
    assert SSH_KEYGEN is not None
    return subprocess.run([SSH_KEYGEN, *args], input=stdin, capture_output=True, check=check)


def ssh_keygen_verifies(public: PublicKey, message: bytes, armored: str, tmp_path: Path) -> bool:
    """`ssh-keygen -Y verify -f allowed_signers -I player -n pbem -s SIG < MESSAGE`."""
    allowed = tmp_path / "allowed_signers"
    allowed.write_text(f"player {public.openssh()}\n")
    sig = tmp_path / "check.sig"
    sig.write_text(armored)
    done = run_ssh_keygen(
        "-Y", "verify", "-f", str(allowed), "-I", "player", "-n", NAMESPACE, "-s", str(sig), stdin=message, check=False
    )
    return done.returncode == 0
