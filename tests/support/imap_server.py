"""A throwaway IMAP server (Debian's dovecot) for the tests of IMAP intake.

The server runs from a configuration written into a temporary folder: it
listens on a free loopback port, keeps its state, logs and mail there, and
knows a few users from a password file there (``USERS``, each with password
``secret-USER``).  It offers STARTTLS on its IMAP port and TLS on a second port
(IMAPS), with a self-signed certificate for 127.0.0.1 made for it (``ca_file``:
point ``SSL_CERT_FILE`` at it to trust it).  When the tests run as root, dovecot's own ``dovecot`` and
``dovenull`` users run its processes and own the mail (it refuses to keep mail
as root); otherwise everything runs as the current user.  A refused login is
answered at once (``auth_failure_delay = 0``, where a real server waits two
seconds), and the logins after it are not slowed: a real server doubles a delay
for each failure from the same address, up to 15 seconds, through its
``anvil-auth-penalty`` socket, which this one closes to its auth process
(``mode = 0``, as Dovecot's documentation suggests).  Without dovecot
installed the tests that need it are skipped and say why; `.ci/run` installs
Debian's dovecot-imapd.
"""

from __future__ import annotations

import imaplib
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

USERS = ("referee", "republic", "empire", "stranger")


def password(user: str) -> str:
    return f"secret-{user}"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Dovecot:
    host: str
    port: int
    folder: Path
    tls_port: int = 0
    ca_file: Path | None = None
    """The self-signed certificate the server presents (for ``SSL_CERT_FILE``)."""

    def url(self, user: str, mailbox: str = "INBOX", scheme: str = "imap") -> str:
        port = self.tls_port if scheme == "imaps" else self.port
        return f"{scheme}://{user}@{self.host}:{port}/{mailbox}"

    def client(self, user: str) -> imaplib.IMAP4:
        client = imaplib.IMAP4(self.host, self.port, timeout=10)
        client.login(user, password(user))
        return client

    def deliver(self, user: str, raw: bytes) -> None:
        """Put a message into the user's INBOX (as a mail server's delivery would)."""
        client = self.client(user)
        try:
            status, data = client.append("INBOX", "", imaplib.Time2Internaldate(time.time()), raw)
            assert status == "OK", data
        finally:
            client.logout()

    def fetch_all(self, user: str) -> list[tuple[int, bytes, bool]]:
        """Every message of the user's INBOX: (UID, bytes, seen)."""
        client = self.client(user)
        try:
            client.select("INBOX")
            _s, data = client.uid("SEARCH", "ALL")
            out = []
            for uid in (data[0] or b"").split():
                _s, parts = client.uid("FETCH", uid, "(FLAGS BODY.PEEK[])")
                raw = next(bytes(p[1]) for p in parts if isinstance(p, tuple))
                flags = b"".join(p[0] if isinstance(p, tuple) else p for p in parts)
                out.append((int(uid), raw, b"\\Seen" in flags))
            return out
        finally:
            client.logout()


def self_signed_certificate(folder: Path) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 and its key (made with ``cryptography``):
    the TLS of the test IMAP and SMTP servers."""
    import datetime
    import ipaddress

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = folder / "cert.pem", folder / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    key_path.chmod(0o600)
    return cert_path, key_path


def _config(
    folder: Path, port: int, tls_port: int, login_user: str, internal_user: str, uid: int, gid: int, tls: bool = True
) -> str:
    ssl = f"ssl = yes\nssl_cert = <{folder}/cert.pem\nssl_key = <{folder}/key.pem" if tls else "ssl = no"
    imaps = f"address = 127.0.0.1\n    port = {tls_port}\n    ssl = yes" if tls else "port = 0"
    return f"""
protocols = imap
listen = 127.0.0.1
base_dir = {folder}/run
state_dir = {folder}/state
log_path = {folder}/dovecot.log
{ssl}
disable_plaintext_auth = no
auth_mechanisms = plain login
auth_failure_delay = 0
default_login_user = {login_user}
default_internal_user = {internal_user}
first_valid_uid = 1
mail_location = maildir:~/Maildir
passdb {{
  driver = passwd-file
  args = scheme=PLAIN username_format=%n {folder}/users
}}
userdb {{
  driver = static
  args = uid={uid} gid={gid} home={folder}/home/%n
}}
service imap-login {{
  inet_listener imap {{
    address = 127.0.0.1
    port = {port}
  }}
  inet_listener imaps {{
    {imaps}
  }}
}}
service anvil {{
  chroot =
  unix_listener anvil-auth-penalty {{
    mode = 0
  }}
}}
service imap-login {{
  chroot =
}}
"""


def _binary() -> str | None:
    return shutil.which("dovecot") or next((p for p in ("/usr/sbin/dovecot",) if os.path.exists(p)), None)


@pytest.fixture(scope="session")
def dovecot() -> Iterator[Dovecot]:
    """The server with STARTTLS and IMAPS."""
    yield from _run_dovecot(tls=True)


@pytest.fixture(scope="session")
def dovecot_plain() -> Iterator[Dovecot]:
    """The server without TLS at all (as a local dovecot often is)."""
    yield from _run_dovecot(tls=False)


def _run_dovecot(tls: bool) -> Iterator[Dovecot]:
    binary = _binary()
    if binary is None or not os.path.exists("/usr/lib/dovecot/imap"):
        pytest.skip("no IMAP server here: install Debian's dovecot-imapd (.ci/run does)")
    folder = Path(tempfile.mkdtemp(prefix="pbem-dovecot-"))
    if os.geteuid() == 0:
        try:
            mail = pwd.getpwnam("dovecot")
            pwd.getpwnam("dovenull")
        except KeyError:
            pytest.skip("running as root and dovecot's own users (dovecot, dovenull) are missing")
        login_user, internal_user, uid, gid = "dovenull", "dovecot", mail.pw_uid, mail.pw_gid
    else:
        me = pwd.getpwuid(os.geteuid())
        login_user = internal_user = me.pw_name
        uid, gid = me.pw_uid, me.pw_gid
    (folder / "home").mkdir()
    os.chmod(folder, 0o755)
    if os.geteuid() == 0:
        shutil.chown(folder / "home", uid, gid)
    (folder / "users").write_text("".join(f"{u}:{{PLAIN}}{password(u)}::::::\n" for u in USERS))
    port, tls_port = free_port(), free_port()
    cert, _key = self_signed_certificate(folder)
    conf = folder / "dovecot.conf"
    conf.write_text(_config(folder, port, tls_port, login_user, internal_user, uid, gid, tls))
    proc = subprocess.Popen([binary, "-F", "-c", str(conf)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 15
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    log = (folder / "dovecot.log").read_text() if (folder / "dovecot.log").exists() else ""
                    out = proc.stdout.read().decode() if proc.stdout and proc.poll() is not None else ""
                    pytest.skip(f"dovecot did not start: {out.strip()[-400:]} {log.strip()[-400:]}")
                time.sleep(0.1)
        yield Dovecot("127.0.0.1", port, folder, tls_port if tls else 0, cert if tls else None)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
        shutil.rmtree(folder, ignore_errors=True)
