"""The mail-intake corpus: test keys, signed turn files, a fake pipeline that
records its calls, and what ingest must make of each message.

The ``*.eml`` files beside this module are written by ``make_corpus.py``."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from pbem.mail.readers import SubmitOutcome
from pbem.turnfiles.envelope import TurnFileError, parse_turn_file, render_turn_file
from pbem.turnfiles.keys import PublicKey
from pbem.turnfiles.sshsig import SignatureError, sign, verify

HERE = Path(__file__).resolve().parent
GAME = "g1"
STATE = hashlib.sha256(b"position after resolution 3").hexdigest()
TURN = 4

ACCEPT_ORDERS = {
    "republic": "move cav-1 from bage to dom-pedrito\nattack porto-alegre from viamao with inf-1 inf-2\n",
    "empire": "move inf-1 from rio-grande to pelotas\n",
}


def player_key(name: str) -> Ed25519PrivateKey:
    """A fixed Ed25519 key per name (``republic``, ``empire``, ``stranger``)."""
    return Ed25519PrivateKey.from_private_bytes(hashlib.sha256(f"pbem-test-key-{name}".encode()).digest())


PUBLIC = {side: PublicKey.from_crypto(player_key(side)) for side in ("republic", "empire")}


def signed(side: str, body: str, key_side: str | None = None, turn: int = TURN) -> tuple[bytes, str]:
    """(turn file bytes, armored SSHSIG) of ``body`` for ``side``, signed with the
    key of ``key_side`` (default: the side's own)."""
    message = render_turn_file(GAME, "farrapos", side, turn, STATE, body).encode("utf-8")
    return message, sign(message, player_key(key_side or side))


def turn_file(side: str, body: str) -> bytes:
    return signed(side, body)[0]


@dataclass
class FakePipeline:
    """Stands in for the lead's pipeline: checks the envelope, the signature and
    the signer's key, refuses byte-identical resubmissions, queues the latest file
    per (side, turn), and records every call."""

    calls: list[tuple[str, bytes, str | None, str]] = field(default_factory=list)
    queued: dict[tuple[str, int], bytes] = field(default_factory=dict)
    received: set[bytes] = field(default_factory=set)
    explode_on: bytes | None = None

    def submit(self, message: bytes, signature: str | None, source: str) -> SubmitOutcome:
        self.calls.append(("submit", message, signature, source))
        if self.explode_on is not None and self.explode_on in message:
            raise RuntimeError("database is locked")
        return self._judge(message, signature, queue=True)

    def check(self, message: bytes, signature: str | None, source: str) -> SubmitOutcome:
        self.calls.append(("check", message, signature, source))
        return self._judge(message, signature, queue=False)

    def submitted(self) -> list[bytes]:
        return [m for kind, m, _s, _src in self.calls if kind == "submit"]

    def _judge(self, message: bytes, signature: str | None, queue: bool) -> SubmitOutcome:
        try:
            tf = parse_turn_file(message)
        except TurnFileError as exc:
            return SubmitOutcome(False, tuple(str(p) for p in exc.problems))
        if signature is None:
            return SubmitOutcome(False, ("the turn file is not signed",))
        try:
            key = verify(message, signature)
        except SignatureError as exc:
            return SubmitOutcome(False, (f"signature: {exc}",))
        expected = PUBLIC.get(tf.side)
        if expected is None or not key.same_key(expected):
            return SubmitOutcome(
                False, (f"line 3: signed with key {key.fingerprint()}, not the key of side {tf.side!r}",)
            )
        if queue and message in self.received:
            return SubmitOutcome(False, ("duplicate: this turn file was already received",))
        lines = tuple(
            f"line {n}: {line.strip()}"
            for n, line in enumerate(tf.body.split("\n"), start=tf.body_offset + 1)
            if line.strip()
        )
        if queue:
            self.received.add(message)
            self.queued[(tf.side, tf.turn)] = message
        return SubmitOutcome(True, lines)


# name -> (verdict, reply expected (None = no reply), substring of the reply / lines)
EXPECTED: dict[str, tuple[str, str | None, str]] = {
    "01-attachment.eml": ("accepted", "bento@republic.example", "move cav-1 from bage to dom-pedrito"),
    "02-inline.eml": ("accepted", "caxias@empire.example", "move inf-1 from rio-grande to pelotas"),
    "03-quoted-printable.eml": ("accepted", "bento@republic.example", "move cav-1 from bage to sao-gabriel"),
    "04-base64.eml": ("accepted", "caxias@empire.example", "move inf-3 from rio-grande to pelotas"),
    "05-crlf.eml": ("accepted", "bento@republic.example", "move inf-2 from triunfo to taquari"),
    "06-html-only.eml": ("accepted", "caxias@empire.example", "move inf-4 from porto-alegre to viamao"),
    "07-reply-quote-above.eml": ("accepted", "bento@republic.example", "move inf-5 from camaqua to pelotas"),
    "08-reply-quote-below.eml": ("accepted", "bento@republic.example", "move inf-6 from piratini to cangucu"),
    "09-reply-outlook-unquoted.eml": ("accepted", "caxias@empire.example", "move inf-7 from rio-pardo to cachoeira"),
    "10-resent-duplicate.eml": ("refused", "bento@republic.example", "duplicate"),
    "11-redelivered.eml": ("refused", "bento@republic.example", "duplicate"),  # same Message-ID, other bytes: judged
    "12-supersede-a-late.eml": ("accepted", "caxias@empire.example", "move inf-9 from pelotas to camaqua"),
    "12-supersede-b-early.eml": ("accepted", "caxias@empire.example", "move inf-9 from pelotas to rio-grande"),
    "13-wrong-key.eml": ("refused", "bento@republic.example", "not the key of side 'republic'"),
    "14-tampered.eml": ("refused", "bento@republic.example", "does not match"),
    "15-not-orders.eml": ("refused", "bento@republic.example", "no turn file found"),
    "16-garbage.eml": ("refused", None, "no turn file found"),
    "18-check.eml": ("checked", "caxias@empire.example", "move inf-2 from viamao to porto-alegre"),
    "19-vacation-auto-reply.eml": ("refused", None, "no turn file found"),
    "20-no-date.eml": ("accepted", "caxias@empire.example", "move inf-10 from mostardas to viamao"),
}


def corpus_files() -> list[Path]:
    return sorted(HERE.glob("*.eml"))


def oversized_message(size: int = (1 << 20) + 4096) -> bytes:
    """A real-shaped message just over the 1 MiB limit (a photo attached)."""
    import base64

    blob = base64.encodebytes(bytes(range(256)) * (size // 256 * 3 // 4 + 1)).decode()
    return (
        "From: Bento <bento@republic.example>\nTo: referee@pbem.example\nSubject: photos of my setup\n"
        "Date: Fri, 06 Nov 2026 11:00:00 -0300\nMessage-ID: <big-1@republic.example>\nMIME-Version: 1.0\n"
        'Content-Type: multipart/mixed; boundary="bb"\n\n--bb\nContent-Type: text/plain\n\nlook at this\n--bb\n'
        'Content-Type: image/jpeg; name="board.jpg"\nContent-Disposition: attachment; filename="board.jpg"\n'
        "Content-Transfer-Encoding: base64\n\n" + blob + "--bb--\n"
    ).encode()
