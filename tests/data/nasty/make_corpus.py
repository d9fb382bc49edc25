"""Writes the nasty-input corpus (run once; the files are committed).

``python tests/data/nasty/make_corpus.py`` rewrites ``turnfiles/`` and ``mail/``.
Turn files use ``@GAME@`` and ``@STATE@`` for the game id and the current position
hash; ``turnfiles.toml`` says how the test signs each one and what the refusal says.
"""

from __future__ import annotations

import base64
import random
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric import rsa

HERE = Path(__file__).resolve().parent
HEAD = "game: @GAME@\nrules: farrapos\nside: republic\nturn: 1\nstate: @STATE@\n"
OK = HEAD + "\npass\n"


def write(name: str, data: bytes | str) -> None:
    (HERE / "turnfiles" / name).write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))


def mail(name: str, data: bytes | str) -> None:
    (HERE / "mail" / name).write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))


def turnfiles() -> None:
    rng = random.Random(8)
    write("random-bytes.bin", bytes(rng.randrange(256) for _ in range(4096)))
    write("random-bytes-after-header.txt", HEAD.encode() + b"\n" + bytes(rng.randrange(256) for _ in range(512)))
    write("empty.txt", b"")
    write("only-newlines.txt", b"\n" * 200)
    write("nul-byte.txt", OK.replace("pass", "pa\x00ss"))
    write("latin-1.txt", (HEAD + "\n# a\xe7\xe3o\npass\n").encode("latin-1"))
    write("two-side-lines.txt", HEAD + "side: empire\n\npass\n")
    write("side-twice-case.txt", HEAD + "SIDE: empire\n\npass\n")
    write("crlf-injection.txt", OK.replace("side: republic\n", "side: republic\r\nside: empire\n"))
    write("lone-cr-injection.txt", OK.replace("side: republic\n", "side: republic\rside: empire\n"))
    write("cr-in-orders.txt", OK.replace("pass\n", "pass\rattack porto-alegre from triunfo with inf-1\n"))
    write("bom-before-header-sig-without.txt", "\ufeff" + OK)
    write("bom-inside-header.txt", OK.replace("side: republic", "\ufeffside: empire\nside: republic"))
    write("header-no-blank-line.txt", HEAD + "pass\n")
    write("header-missing-state.txt", HEAD.replace("state: @STATE@\n", "") + "\npass\n")
    write("turn-not-a-number.txt", OK.replace("turn: 1", "turn: 1e3"))
    write("turn-negative.txt", OK.replace("turn: 1", "turn: -1"))
    write("turn-huge.txt", OK.replace("turn: 1", "turn: 99999999999999999999"))
    write("turn-fullwidth-digit.txt", OK.replace("turn: 1", "turn: \uff11"))
    write("turn-stale.txt", OK.replace("turn: 1", "turn: 0"))
    write("turn-future.txt", OK.replace("turn: 1", "turn: 2"))
    write("state-wrong.txt", OK.replace("@STATE@", "0" * 64))
    write("state-uppercase.txt", OK.replace("@STATE@", "@STATE_UPPER@"))
    write("game-path-traversal.txt", OK.replace("@GAME@", "../../../etc/passwd"))
    write("game-zero-width.txt", OK.replace("@GAME@", "@GAME@\u200b"))
    write("side-homoglyph.txt", OK.replace("side: republic", "side: r\u0435public"))  # Cyrillic e
    write("side-rtl-override.txt", OK.replace("side: republic", "side: \u202ecilbuper"))
    write("side-other-player.txt", OK.replace("side: republic", "side: empire"))
    write("rules-other.txt", OK.replace("rules: farrapos", "rules: furor-barbarus"))
    write("unknown-header-key.txt", OK.replace("turn: 1\n", "turn: 1\nx-injected: yes\n"))
    zalgo = "".join(c + "\u0301\u0316\u0337\u0489" * 30 for c in "attack")
    write("deep-unicode-orders.txt", HEAD + "\n" + zalgo + " porto-alegre from triunfo with inf-1\n")
    write("combining-storm.txt", HEAD + "\n" + "e" + "\u0301" * 20000 + "\n")
    write("ansi-escapes.txt", HEAD + "\n\x1b[2J\x1b[31mattack\x1b[0m porto-alegre from triunfo with inf-1\n")
    write("huge-line.txt", HEAD + "\nmove " + "inf-1 " * 9000 + "from triunfo to taquari\n")
    write("many-lines.txt", HEAD + "\n" + "move inf-1 from triunfo to taquari\n" * 1800)
    write("over-64k.txt", HEAD + "\n" + ("# padding " + "x" * 70 + "\n") * 900 + "pass\n")
    write("unknown-units.txt", HEAD + "\nattack porto-alegre from triunfo with inf-99 inf-100\n")
    write("signed-good-orders.txt", OK)  # signed over other bytes, wrong key, truncated...
    write("two-inline-blocks.txt", OK)
    write("begin-without-end.txt", OK + "-----BEGIN SSH SIGNATURE-----\nU1NIU0lH\n")
    write("garbage-armor.txt", OK + "-----BEGIN SSH SIGNATURE-----\n!!!not base64!!!\n-----END SSH SIGNATURE-----\n")
    write(
        "armor-huge-base64.txt",
        OK + "-----BEGIN SSH SIGNATURE-----\n" + ("QUFB" * 19 + "\n") * 600 + "-----END SSH SIGNATURE-----\n",
    )


def boundary_message(headers: str, body: str) -> str:
    return headers.strip("\n").replace("\n", "\r\n") + "\r\n\r\n" + body.replace("\n", "\r\n")


FROM = (
    "From: Republic <republic@example.org>\nTo: referee@example.org\nSubject: orders\nDate: Sun, 29 Nov 2026 "
    "12:00:00 +0000\n"
)


def mails() -> None:
    mail(
        "no-boundary.eml",
        boundary_message(
            FROM + "MIME-Version: 1.0\nContent-Type: multipart/mixed\n",
            "--x\nContent-Type: text/plain\n\nhello\n--x--\n",
        ),
    )
    mail(
        "unterminated-multipart.eml",
        boundary_message(
            FROM + 'MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary="b1"\n',
            "--b1\nContent-Type: text/plain\n\n" + OK + "--b1\nContent-Type: text/plain\n\nrest",
        ),
    )
    mail(
        "bad-base64.eml",
        boundary_message(
            FROM + "MIME-Version: 1.0\nContent-Type: text/plain\nContent-Transfer-Encoding: base64\n",
            "!!!! this is not base64 @@@@\n===\n",
        ),
    )
    mail(
        "unknown-charset.eml",
        boundary_message(FROM + "MIME-Version: 1.0\nContent-Type: text/plain; charset=x-no-such-charset\n", OK),
    )
    mail(
        "unknown-transfer-encoding.eml",
        boundary_message(
            FROM + "MIME-Version: 1.0\nContent-Type: text/plain\nContent-Transfer-Encoding: x-rot13\n", OK
        ),
    )
    mail("nul-in-headers.eml", (FROM.replace("Subject: orders", "Subject: ord\x00ers") + "\n" + OK).encode())
    mail("huge-header-line.eml", boundary_message(FROM + "X-Long: " + "a" * 60_000 + "\n", "hello\n"))
    mail("many-headers.eml", boundary_message(FROM + "".join(f"X-H{i}: v\n" for i in range(4_000)), "hello\n"))
    nested = "".join(f'--n{i}\nContent-Type: multipart/mixed; boundary="n{i + 1}"\n\n' for i in range(400))
    mail(
        "deeply-nested.eml",
        boundary_message(
            FROM + 'MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary="n0"\n',
            nested + "--n400\nContent-Type: text/plain\n\n" + OK,
        ),
    )
    mail(
        "boundary-in-body.eml",
        boundary_message(
            FROM + 'MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary="pass"\n',
            "--pass\nContent-Type: text/plain\n\n" + OK + "--pass--\n",
        ),
    )
    mail(
        "encoded-word-garbage.eml",
        boundary_message(
            FROM.replace("Subject: orders", "Subject: =?utf-8?b?!!!?= =?x-bad?q?=FF=FE?=")
            + "From: =?utf-8?q?=00=00?= <a@b>\n",
            "hello\n",
        ),
    )
    mail(
        "only-sig-attachment.eml",
        boundary_message(
            FROM + 'MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary="s"\n',
            "--s\nContent-Type: application/octet-stream\nContent-Disposition: attachment; "
            'filename="turn.txt.sig"\n\n-----BEGIN SSH SIGNATURE-----\nU1NIU0lH\n-----END SSH '
            "SIGNATURE-----\n--s--\n",
        ),
    )
    mail(
        "html-only-script.eml",
        boundary_message(
            FROM + "MIME-Version: 1.0\nContent-Type: text/html\n",
            "<html><script>" + "<" * 5000 + "</script><body><pre>" + OK + "</pre>" + "<div>" * 3000 + "</body></html>",
        ),
    )
    mail("binary-garbage.eml", bytes(random.Random(9).randrange(256) for _ in range(8192)))
    mail("header-only.eml", FROM)
    mail("unsigned-inline.eml", boundary_message(FROM, OK))
    mail(
        "filename-traversal.eml",
        boundary_message(
            FROM + 'MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary="t"\n',
            '--t\nContent-Type: text/plain\nContent-Disposition: attachment; filename="../../../../tmp/evil.txt"\n\n'
            + OK
            + "--t--\n",
        ),
    )
    b64 = base64.encodebytes(bytes(range(256)) * 8).decode()
    mail(
        "binary-attachment-as-text.eml",
        boundary_message(
            FROM + 'MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary="u"\n',
            "--u\nContent-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: "
            'base64\nContent-Disposition: attachment; filename="turn.txt"\n\n' + b64 + "--u--\n",
        ),
    )


def archive(name: str, data: bytes | str) -> None:
    (HERE / "archives").mkdir(exist_ok=True)
    (HERE / "archives" / name).write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))


GAME = (
    '"game": {"id": "g1", "rules": "farrapos", "scenario": "campaign", "options": [], "created": "2026-12-01T00:00:00"}'
)
DICE = '"dice": {"version": 1, "chain_length": 4096, "anchor": "' + "00" * 32 + '"}'


def archives() -> None:
    """Hostile archives for ``pbem audit --archive`` (hardening: hostile archives); the test
    generates the oversized ones (10^6 resolutions, over 32 MiB) in a temporary folder."""
    archive("deep-nesting.json", "[" * 100_000 + "]" * 100_000)
    archive(
        "deep-nesting-in-events.json",
        '{"format": "pbem-archive/1", '
        + GAME
        + ', "resolutions": [{"k": 1, "events": '
        + "[" * 50_000
        + "]" * 50_000
        + "}]}",
    )
    archive(
        "huge-number.json", '{"format": "pbem-archive/1", ' + GAME + ', "resolutions": [{"k": 1' + "0" * 5000 + "}]}"
    )
    archive(
        "huge-chain-length.json",
        '{"format": "pbem-archive/1", '
        + GAME
        + ', "dice": {"version": 1, "chain_length": 99999999999999999999999, "anchor": "00"}, "players": [], '
        '"resolutions": []}',
    )
    archive("nan.json", '{"format": "pbem-archive/1", ' + GAME + ', "resolutions": [{"k": NaN}]}')
    archive(
        "infinity-k.json",
        '{"format": "pbem-archive/1", '
        + GAME
        + ", "
        + DICE
        + ', "players": [], "initial_state_hash": "", "resolutions": [{"k": 1e999}], "final": {}}',
    )
    archive("not-an-object.json", "[1, 2, 3]")
    archive("wrong-format.json", '{"format": "pbem-archive/2"}')
    archive("truncated.json", '{"format": "pbem-archive/1", ' + GAME + ', "resolutions": [{"k": 1, "reveal": "ab')
    archive(
        "latin-1.json",
        ('{"format": "pbem-archive/1", "game": {"id": "a\u00e7\u00e3o", "note": "' + "\xe7" + '"}}').encode("latin-1")
        + b"\xe7\xff",
    )
    archive(
        "wrong-types.json",
        '{"format": "pbem-archive/1", "game": [], "players": {}, "dice": "x", "resolutions": "many", "final": 3}',
    )
    archive(
        "players-not-objects.json",
        '{"format": "pbem-archive/1", '
        + GAME
        + ', "players": [1, 2], '
        + DICE
        + ', "resolutions": [], "final": {"over": false, "result": null}}',
    )
    archive("empty.json", "")


def weak_rsa_key(bits: int = 768) -> rsa.RSAPrivateKey:
    """An RSA key under OpenSSH's 1024-bit floor (neither ssh-keygen nor
    cryptography will make one): two primes found by Miller-Rabin from a fixed seed."""
    from cryptography.hazmat.primitives.asymmetric import rsa

    rng = random.Random(bits)

    def probable_prime(n: int) -> bool:
        d, s = n - 1, 0
        while d % 2 == 0:
            d, s = d // 2, s + 1
        for a in (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37):
            x = pow(a, d, n)
            if x in (1, n - 1):
                continue
            for _ in range(s - 1):
                x = pow(x, 2, n)
                if x == n - 1:
                    break
            else:
                return False
        return True

    def prime() -> int:
        while True:
            c = rng.getrandbits(bits // 2) | (3 << (bits // 2 - 2)) | 1  # top two bits: p * q has all its bits
            if probable_prime(c) and (c - 1) % 65537:
                return c

    p, q = prime(), prime()
    d = pow(65537, -1, (p - 1) * (q - 1))
    return rsa.RSAPrivateNumbers(
        p, q, d, d % (p - 1), d % (q - 1), pow(q, -1, p), rsa.RSAPublicNumbers(65537, p * q)
    ).private_key()


def keys() -> None:
    from cryptography.hazmat.primitives import serialization

    (HERE / "keys").mkdir(exist_ok=True)
    key = weak_rsa_key()
    (HERE / "keys" / "rsa-768").write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.OpenSSH, serialization.NoEncryption())
    )
    (HERE / "keys" / "rsa-768.pub").write_bytes(
        key.public_key().public_bytes(serialization.Encoding.OpenSSH, serialization.PublicFormat.OpenSSH) + b" weak\n"
    )


if __name__ == "__main__":
    turnfiles()
    mails()
    archives()
    keys()
