"""Writes the nasty-input corpus (run once; the files are committed).

``python tests/data/nasty/make_corpus.py`` rewrites ``turnfiles/`` and ``mail/``.
Turn files use ``@GAME@`` and ``@STATE@`` for the game id and the current position
hash; ``turnfiles.toml`` says how the test signs each one and what the refusal says.
"""

from __future__ import annotations

import base64
import random
from pathlib import Path

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
    write("armor-huge-base64.txt", OK + "-----BEGIN SSH SIGNATURE-----\n" + ("QUFB" * 19 + "\n") * 600 + "-----END SSH SIGNATURE-----\n")


def boundary_message(headers: str, body: str) -> str:
    return headers.strip("\n").replace("\n", "\r\n") + "\r\n\r\n" + body.replace("\n", "\r\n")


FROM = "From: Republic <republic@example.org>\nTo: referee@example.org\nSubject: orders\nDate: Sun, 29 Nov 2026 12:00:00 +0000\n"


def mails() -> None:
    mail("no-boundary.eml", boundary_message(FROM + 'MIME-Version: 1.0\nContent-Type: multipart/mixed\n', "--x\nContent-Type: text/plain\n\nhello\n--x--\n"))
    mail("unterminated-multipart.eml", boundary_message(FROM + 'MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary="b1"\n', "--b1\nContent-Type: text/plain\n\n" + OK + "--b1\nContent-Type: text/plain\n\nrest"))
    mail("bad-base64.eml", boundary_message(FROM + "MIME-Version: 1.0\nContent-Type: text/plain\nContent-Transfer-Encoding: base64\n", "!!!! this is not base64 @@@@\n===\n"))
    mail("unknown-charset.eml", boundary_message(FROM + "MIME-Version: 1.0\nContent-Type: text/plain; charset=x-no-such-charset\n", OK))
    mail("unknown-transfer-encoding.eml", boundary_message(FROM + "MIME-Version: 1.0\nContent-Type: text/plain\nContent-Transfer-Encoding: x-rot13\n", OK))
    mail("nul-in-headers.eml", (FROM.replace("Subject: orders", "Subject: ord\x00ers") + "\n" + OK).encode())
    mail("huge-header-line.eml", boundary_message(FROM + "X-Long: " + "a" * 60_000 + "\n", "hello\n"))
    mail("many-headers.eml", boundary_message(FROM + "".join(f"X-H{i}: v\n" for i in range(4_000)), "hello\n"))
    nested = "".join(f'--n{i}\nContent-Type: multipart/mixed; boundary="n{i + 1}"\n\n' for i in range(400))
    mail("deeply-nested.eml", boundary_message(FROM + 'MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary="n0"\n', nested + "--n400\nContent-Type: text/plain\n\n" + OK))
    mail("boundary-in-body.eml", boundary_message(FROM + 'MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary="pass"\n', "--pass\nContent-Type: text/plain\n\n" + OK + "--pass--\n"))
    mail("encoded-word-garbage.eml", boundary_message(FROM.replace("Subject: orders", "Subject: =?utf-8?b?!!!?= =?x-bad?q?=FF=FE?=") + "From: =?utf-8?q?=00=00?= <a@b>\n", "hello\n"))
    mail("only-sig-attachment.eml", boundary_message(FROM + 'MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary="s"\n', '--s\nContent-Type: application/octet-stream\nContent-Disposition: attachment; filename="turn.txt.sig"\n\n-----BEGIN SSH SIGNATURE-----\nU1NIU0lH\n-----END SSH SIGNATURE-----\n--s--\n'))
    mail("html-only-script.eml", boundary_message(FROM + "MIME-Version: 1.0\nContent-Type: text/html\n", "<html><script>" + "<" * 5000 + "</script><body><pre>" + OK + "</pre>" + "<div>" * 3000 + "</body></html>"))
    mail("binary-garbage.eml", bytes(random.Random(9).randrange(256) for _ in range(8192)))
    mail("header-only.eml", FROM)
    mail("unsigned-inline.eml", boundary_message(FROM, OK))
    mail("filename-traversal.eml", boundary_message(FROM + 'MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary="t"\n', '--t\nContent-Type: text/plain\nContent-Disposition: attachment; filename="../../../../tmp/evil.txt"\n\n' + OK + "--t--\n"))
    b64 = base64.encodebytes(bytes(range(256)) * 8).decode()
    mail("binary-attachment-as-text.eml", boundary_message(FROM + 'MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary="u"\n', '--u\nContent-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: base64\nContent-Disposition: attachment; filename="turn.txt"\n\n' + b64 + "--u--\n"))


if __name__ == "__main__":
    turnfiles()
    mails()
