"""Hostile input: turn files and mail built to break the referee.

Every case goes through the real path (``pipeline.submit``, the ``pbem submit``
command, ``mail_intake`` + ``ingest``) and must end in a clear refusal: exit
status 1, one short line per problem on stderr (each starting ``pbem:``), no
traceback, no terminal control characters, and the database unchanged apart
from the recorded refusal.

Two sources of cases: the corpus in ``tests/data/nasty/`` (``turnfiles.toml``
says how each file is signed and what its refusal must say; ``mail/*.eml`` is
broken MIME), and hypothesis, which writes random bytes, mutates a good signed
file byte by byte, writes random order lines under a valid signature, and
damages signatures.
"""

from __future__ import annotations

import dataclasses
import mailbox
import os
import sqlite3
import subprocess
import sys
import tomllib
import unicodedata
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from sqlalchemy import Engine
from typer.testing import CliRunner

from pbem import store
from pbem.cli.application import app
from pbem.mail import intake as mail_intake
from pbem.referee import intake as submitting
from pbem.referee import lifecycle, verdict
from pbem.turnfiles import keys, sshsig

NASTY = Path(__file__).resolve().parent / "data" / "nasty"
CASES = tomllib.loads((NASTY / "turnfiles.toml").read_text(encoding="utf-8"))["case"]
MAX_PROBLEM_CHARS = 1000
"""A refusal line longer than this is not "clear" (it quotes too much input)."""
MAX_PROBLEMS = 100
"""More lines than this is a flood, not an answer."""
BIDI_CONTROLS = {chr(c) for c in (*range(0x202A, 0x202F), *range(0x2066, 0x206A))}
FUZZ = settings(
    max_examples=int(os.environ.get("PBEM_FUZZ_EXAMPLES", "25")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@dataclass
class Referee:
    tmp: Path
    db: Path
    engine: Engine
    signers: dict[str, keys.PrivateKey]
    game: str
    state: str

    def snapshot(self) -> list[str]:
        """Every row but the refusals (which a refused submission adds) and the
        mail ledger (a judged message's record and its reply in the outbox)."""
        con = sqlite3.connect(self.db)
        try:
            kept = (
                'INSERT INTO "refusal"',
                'INSERT INTO "intake"',
                'INSERT INTO "intake_part"',
                'INSERT INTO "outbox"',
            )
            return [line for line in con.iterdump() if not line.startswith(kept)]
        finally:
            con.close()

    def refusals(self) -> int:
        con = sqlite3.connect(self.db)
        try:
            return con.execute("SELECT COUNT(*) FROM refusal").fetchone()[0]
        finally:
            con.close()

    def fill(self, data: bytes) -> bytes:
        return (
            data.replace(b"@GAME@", self.game.encode())
            .replace(b"@STATE_UPPER@", self.state.upper().encode())
            .replace(b"@STATE@", self.state.encode())
        )

    def good_file(self) -> bytes:
        return lifecycle.next_turn_file(self.engine, self.game, "republic", bot="random", seed=1).encode("utf-8")


@pytest.fixture(scope="module")
def referee(tmp_path_factory: pytest.TempPathFactory) -> Referee:
    tmp = tmp_path_factory.mktemp("hostile")
    signers, public = {}, {}
    for side in ("republic", "empire"):
        private, pub = keys.generate_ed25519(side, tmp / "keys")
        signers[side] = keys.load_private_key(private)
        public[side] = pub.read_text(encoding="utf-8").strip()
    db = tmp / "referee.db"
    engine = store.open_engine(db)
    game = lifecycle.new_game(engine, "g1", "farrapos", None, [], public)
    yield Referee(tmp, db, engine, signers, game.id, game.state_hash)
    engine.dispose()


def prepare(ref: Referee, case: dict) -> tuple[bytes, str | None]:
    """The bytes a player sends and the detached signature (None: inline or none)."""
    data = ref.fill((NASTY / "turnfiles" / case["file"]).read_bytes())
    message = data.replace(b"\r\n", b"\n")
    republic = ref.signers["republic"]
    mode = case["signature"]
    if mode == "none":
        return data, None
    if mode == "detached":
        return data, sshsig.sign(message, republic)
    if mode == "inline":
        return data + sshsig.sign(message, republic).encode(), None
    if mode == "other-bytes":
        return data, sshsig.sign(message.replace(b"pass", b"pass\n# another file"), republic)
    if mode == "truncated":
        armored = sshsig.sign(message, republic)
        return data, armored[: len(armored) // 2]
    if mode == "wrong-key":
        return data, sshsig.sign(message, ref.signers["empire"])
    if mode == "wrong-namespace":
        return data, sshsig.sign(message, republic, namespace="git")
    if mode == "bom-stripped":
        return data, sshsig.sign(message.removeprefix("\ufeff".encode()), republic)
    if mode == "two-inline":
        first = data + sshsig.sign(message, republic).encode()
        return first + sshsig.sign(first, republic).encode(), None
    raise AssertionError(f"unknown signature mode {mode!r} in turnfiles.toml")


def assert_clear(problems: list[str], *, short: bool = True) -> None:
    """One readable line per problem."""
    assert problems, "a refusal must say why"
    for line in problems:
        assert line.strip(), "an empty problem line"
        assert "\n" not in line and "\r" not in line, f"a problem spans lines: {line[:200]!r}"
        assert "Traceback" not in line
        bad = [c for c in line if unicodedata.category(c) == "Cc" or c in BIDI_CONTROLS]
        assert not bad, f"control characters {bad!r} in {line[:200]!r}"
    if short:
        assert len(problems) <= MAX_PROBLEMS, f"{len(problems)} problem lines"
        longest = max(problems, key=len)
        assert len(longest) <= MAX_PROBLEM_CHARS, f"a problem line of {len(longest)} characters: {longest[:120]!r}..."


def refused(ref: Referee, data: bytes, signature: str | None, *, short: bool = True) -> list[str]:
    """Submit through the library; it must be refused, recorded, and change nothing else."""
    before, count = ref.snapshot(), ref.refusals()
    with pytest.raises(verdict.Refused) as caught:
        submitting.submit(ref.engine, data, signature, source="hostile")
    assert ref.snapshot() == before, "a refused submission changed the database"
    assert ref.refusals() == count + 1, "the refusal was not recorded"
    assert_clear(caught.value.problems, short=short)
    return caught.value.problems


def case_id(case: dict) -> str:
    return f"{case['file']}-{case['signature']}"


def corpus_params() -> list:
    return [pytest.param(case, id=case_id(case)) for case in CASES]


# ------------------------------------------------------------------ the corpus


@pytest.mark.parametrize("case", [pytest.param(c, id=case_id(c)) for c in CASES])
def test_nasty_turn_file_is_refused_with_its_reason(referee: Referee, case: dict) -> None:
    """Turn file, "Turn file" and "Signatures" contracts: each nasty file is
    refused, the refusal says why, and only the refusal is stored."""
    data, signature = prepare(referee, case)
    problems = refused(referee, data, signature, short=False)
    assert any(case["expect"] in p for p in problems), (
        f"expected {case['expect']!r} in {[p[:150] for p in problems[:5]]}"
    )


@pytest.mark.parametrize("case", corpus_params())
def test_nasty_turn_file_refusal_is_short(referee: Referee, case: dict) -> None:
    """At most MAX_PROBLEMS lines of at most MAX_PROBLEM_CHARS characters."""
    data, signature = prepare(referee, case)
    refused(referee, data, signature, short=True)


@pytest.mark.parametrize("case", [pytest.param(c, id=case_id(c)) for c in CASES])
def test_nasty_turn_file_through_pbem_submit(referee: Referee, case: dict, tmp_path: Path) -> None:
    """CLI contract: exit 1, every stderr line ``pbem: ...``, no traceback, nothing
    stored but the refusal."""
    data, signature = prepare(referee, case)
    path = tmp_path / "turn.txt"
    path.write_bytes(data)
    if signature is not None:
        path.with_name("turn.txt.sig").write_text(signature, encoding="utf-8")
    before, count = referee.snapshot(), referee.refusals()
    result = CliRunner().invoke(app, ["--db", str(referee.db), "submit", str(path)], catch_exceptions=False)
    assert result.exit_code == 1, (result.exit_code, result.stdout, result.stderr[:500])
    lines = result.stderr.splitlines()
    assert lines and all(line.startswith("pbem: ") for line in lines), result.stderr[:500]
    assert_clear([line.removeprefix("pbem: ") for line in lines], short=False)
    assert result.stdout == ""
    assert referee.snapshot() == before
    assert referee.refusals() in (count, count + 1)  # refused before reading (size) or recorded


@pytest.mark.parametrize("name", ["random-bytes.bin", "ansi-escapes.txt", "crlf-injection.txt"])
def test_nasty_turn_file_in_a_real_process(referee: Referee, name: str, tmp_path: Path) -> None:
    """The same through a real ``python -m pbem`` process: the real stderr."""
    case = next(c for c in CASES if c["file"] == name)
    data, signature = prepare(referee, case)
    path = tmp_path / "turn.txt"
    path.write_bytes(data)
    if signature is not None:
        path.with_name("turn.txt.sig").write_text(signature, encoding="utf-8")
    r = subprocess.run(
        [sys.executable, "-m", "pbem", "--db", str(referee.db), "submit", str(path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 1, r.stderr
    assert "Traceback" not in r.stderr
    assert r.stderr.startswith("pbem: ") and case["expect"] in r.stderr


def test_check_of_a_nasty_file_stores_nothing(referee: Referee, tmp_path: Path) -> None:
    """``pbem check`` refuses the same way and stores not even a refusal."""
    case = next(c for c in CASES if c["file"] == "two-side-lines.txt")
    data, signature = prepare(referee, case)
    path = tmp_path / "turn.txt"
    path.write_bytes(data)
    before, count = referee.snapshot(), referee.refusals()
    result = CliRunner().invoke(app, ["--db", str(referee.db), "check", str(path)], catch_exceptions=False)
    assert result.exit_code == 1
    assert "given twice" in result.stderr
    assert (referee.snapshot(), referee.refusals()) == (before, count)


# ------------------------------------------------------------------ hypothesis


@FUZZ
@given(data=st.binary(max_size=4096), signed=st.booleans())
def test_random_bytes_are_refused(referee: Referee, data: bytes, signed: bool) -> None:
    """Random bytes, unsigned or with a valid republic signature over them."""
    signature = sshsig.sign(data.replace(b"\r\n", b"\n"), referee.signers["republic"]) if signed else None
    refused(referee, data, signature)


@st.composite
def mutations(draw: st.DrawFn, original: bytes) -> bytes:
    """A good turn file with a few bytes or strings inserted, replaced or deleted."""
    data = bytearray(original)
    tricks = st.sampled_from(
        [
            b"\r",
            b"\r\n",
            b"\n",
            b"\x00",
            "\ufeff".encode(),
            b"side: empire\n",
            b"\n\n",
            b":",
            b"#",
            "\u202e".encode(),
            b"\xff",
            b"turn: 2\n",
        ]
    )
    for _ in range(draw(st.integers(1, 4))):
        where = draw(st.integers(0, len(data)))
        kind = draw(st.sampled_from(["insert", "replace", "delete", "trick"]))
        if kind == "insert":
            data[where:where] = draw(st.binary(min_size=1, max_size=8))
        elif kind == "replace" and where < len(data):
            data[where] = draw(st.integers(0, 255))
        elif kind == "delete":
            del data[where : where + draw(st.integers(1, 8))]
        else:
            data[where:where] = draw(tricks)
    return bytes(data)


@FUZZ
@given(data=st.data())
def test_a_mutated_signed_file_is_refused(referee: Referee, data: st.DataObject) -> None:
    """Any change to a signed file (but CRLF -> LF, which the contract allows) breaks
    it: the header, the UTF-8 or the signature refuses it."""
    original = referee.good_file()
    signature = sshsig.sign(original, referee.signers["republic"])
    mutated = data.draw(mutations(original))
    assume(mutated.replace(b"\r\n", b"\n") != original)
    inline = data.draw(st.booleans())
    if inline:
        refused(referee, mutated + signature.encode(), None)
    else:
        refused(referee, mutated, signature)


ORDER_TEXT = st.text(
    alphabet=st.one_of(
        st.characters(codec="utf-8", exclude_categories=("Cs",)),
        st.sampled_from(list("attack invade move pass from to with inf-1 cav-2 porto-alegre triunfo #\n\t ")),
    ),
    max_size=400,
)


@FUZZ
@given(body=ORDER_TEXT)
def test_random_orders_under_a_valid_signature(referee: Referee, body: str) -> None:
    """A valid envelope and signature around random order lines: either queued, or
    refused cleanly with the database unchanged; never a crash."""
    head = referee.good_file().split(b"\n\n", 1)[0] + b"\n\n"
    message = head + body.encode("utf-8")
    signature = sshsig.sign(message.replace(b"\r\n", b"\n"), referee.signers["republic"])
    before, count = referee.snapshot(), referee.refusals()
    try:
        submitting.submit(referee.engine, message, signature, source="hypothesis")
    except verdict.Refused as exc:
        assert_clear(exc.problems)
        assert referee.snapshot() == before
        assert referee.refusals() == count + 1


@FUZZ
@given(data=st.data())
def test_a_damaged_signature_is_refused(referee: Referee, data: st.DataObject) -> None:
    """The armored signature truncated, a character changed, or lines dropped."""
    message = referee.good_file()
    armored = sshsig.sign(message, referee.signers["republic"])
    how = data.draw(st.sampled_from(["truncate", "flip", "drop-line", "garbage"]))
    if how == "truncate":
        damaged = armored[: data.draw(st.integers(0, len(armored) - 40))]
    elif how == "flip":
        at = data.draw(st.integers(len(sshsig.BEGIN) + 1, len(armored) - len(sshsig.END) - 3))
        assume(armored[at] not in "\n=")
        damaged = armored[:at] + ("A" if armored[at] != "A" else "B") + armored[at + 1 :]
    elif how == "drop-line":
        lines = armored.splitlines(keepends=True)
        drop = data.draw(st.integers(0, len(lines) - 1))
        damaged = "".join(lines[:drop] + lines[drop + 1 :])
    else:
        damaged = data.draw(st.text(max_size=600))
    assume(damaged.strip() != armored.strip())
    problems = refused(referee, message, damaged)
    assert any("signature" in p for p in problems), problems


# ------------------------------------------------------------------ mail


def mail_corpus() -> list[Path]:
    return sorted((NASTY / "mail").glob("*.eml"))


def submit_candidates(ref: Referee, raw: bytes) -> list[str]:
    """What ``pbem ingest`` does with one message: every turn file found in it
    goes to ``pipeline.submit``.  Returns the problem lines."""
    intake = mail_intake.read_message(raw)
    problems = list(intake.problems)
    for candidate in intake.candidates:
        problems.extend(refused(ref, candidate.message, candidate.signature))
    return problems


@pytest.mark.parametrize("path", mail_corpus(), ids=lambda p: p.name)
def test_broken_mail_is_refused_cleanly(referee: Referee, path: Path) -> None:
    """Broken MIME: the reader never raises, and nothing in the message is queued."""
    raw = referee.fill(path.read_bytes())
    before = referee.snapshot()
    problems = submit_candidates(referee, raw)
    assert problems, "a refused message must say why"
    assert referee.snapshot() == before


@FUZZ
@given(raw=st.binary(max_size=8192))
def test_random_bytes_as_mail(referee: Referee, raw: bytes) -> None:
    before = referee.snapshot()
    submit_candidates(referee, raw)
    assert referee.snapshot() == before


@st.composite
def broken_mime(draw: st.DrawFn) -> bytes:
    """A multipart message with random boundaries, nesting, encodings and cuts."""
    boundary = draw(st.sampled_from(["b", "pass", "", "--", "b b", "é", "x" * 80]))
    encoding = draw(st.sampled_from(["base64", "quoted-printable", "8bit", "x-bogus", "7bit"]))
    charset = draw(st.sampled_from(["utf-8", "x-unknown", "utf-16", "latin-1", ""]))
    body = draw(st.binary(max_size=600))
    parts = [
        f"--{boundary}\r\nContent-Type: text/plain; charset={charset}\r\nContent-Transfer-Encoding: "
        f"{encoding}\r\n\r\n".encode()
        + body
        for _ in range(draw(st.integers(0, 4)))
    ]
    depth = draw(st.integers(0, 60))
    nest = "".join(
        f'--n{i}\r\nContent-Type: multipart/mixed; boundary="n{i + 1}"\r\n\r\n' for i in range(depth)
    ).encode()
    head = (
        "From: a@example.org\r\nTo: referee@example.org\r\nSubject: orders\r\nMIME-Version: 1.0\r\n"
        f'Content-Type: multipart/mixed; boundary="{boundary}"\r\n\r\n'
    ).encode()
    raw = head + nest + b"\r\n".join(parts) + (f"\r\n--{boundary}--\r\n".encode() if draw(st.booleans()) else b"")
    cut = draw(st.integers(0, len(raw)))
    return raw[:cut] if draw(st.booleans()) else raw


@FUZZ
@given(raw=broken_mime())
def test_broken_mime_never_crashes(referee: Referee, raw: bytes) -> None:
    before = referee.snapshot()
    submit_candidates(referee, raw)
    assert referee.snapshot() == before


def ingest_callables(ref: Referee, ingest):  # type: ignore[no-untyped-def]
    """The two callables ``pbem.mail.readers`` takes, over ``pipeline.submit`` / ``check``."""

    def submit(data: bytes, signature: str | None, source: str):  # type: ignore[no-untyped-def]
        try:
            c = submitting.submit(ref.engine, data, signature, source=source).checked
            return ingest.SubmitOutcome(True, (f"queued {c.game_id} {c.side} turn {c.turn}",))
        except verdict.Refused as exc:
            return ingest.SubmitOutcome(False, tuple(exc.problems))

    def check(data: bytes, signature: str | None, source: str):  # type: ignore[no-untyped-def]
        try:
            verdict.check(ref.engine, data, signature)
            return ingest.SubmitOutcome(True, ("ok",))
        except verdict.Refused as exc:
            return ingest.SubmitOutcome(False, tuple(exc.problems))

    return submit, check


@pytest.mark.parametrize("path", mail_corpus(), ids=lambda p: p.name)
def test_ingest_refuses_a_broken_message(referee: Referee, path: Path, tmp_path: Path) -> None:
    """Each broken message in a Maildir through ``pbem.mail.readers``: it ends refused
    with its reasons, nothing is queued, nothing raises; the next run skips it."""
    ingest = pytest.importorskip("pbem.mail.readers")
    submit, check = ingest_callables(referee, ingest)
    box = mailbox.Maildir(tmp_path / "inbox", create=True)
    box.add(referee.fill(path.read_bytes()))
    before = referee.snapshot()
    summary = ingest.ingest_maildir(tmp_path / "inbox", submit, check, tmp_path / "outbox", "referee@example.org")
    [outcome] = summary.outcomes
    assert outcome.verdict is ingest.Verdict.REFUSED, outcome
    assert outcome.lines, "refused without a reason"
    assert "Traceback" not in "\n".join(outcome.lines)
    assert referee.snapshot() == before
    again = ingest.ingest_maildir(tmp_path / "inbox", submit, check, tmp_path / "outbox", "referee@example.org")
    assert [o.verdict for o in again.outcomes] == [ingest.Verdict.SKIPPED]


def ingest_corpus_by_cli(ref: Referee, tmp_path: Path):  # type: ignore[no-untyped-def]
    box = mailbox.Maildir(tmp_path / "inbox", create=True)
    for path in mail_corpus():
        box.add(ref.fill(path.read_bytes()))
    before, count = ref.snapshot(), ref.refusals()
    result = CliRunner().invoke(
        app, ["--db", str(ref.db), "ingest", "--maildir", str(tmp_path / "inbox"), "-q"], catch_exceptions=False
    )
    return result, before, count


def test_pbem_ingest_of_the_broken_mail(referee: Referee, tmp_path: Path) -> None:
    """``pbem ingest --maildir`` over the whole mail corpus: every message is
    refused and recorded with a reason, no traceback, nothing queued."""
    result, before, count = ingest_corpus_by_cli(referee, tmp_path)
    assert "Traceback" not in result.stdout + result.stderr
    refused_lines = [line for line in result.stdout.splitlines() if line.startswith("refused: ")]
    assert len(refused_lines) == len(mail_corpus()), result.stdout
    assert referee.snapshot() == before
    assert referee.refusals() == count + len(mail_corpus())


def test_pbem_ingest_exits_1_when_it_refused_everything(referee: Referee, tmp_path: Path) -> None:
    """Every hostile case ends in "a clear refusal, exit 1".  (A batch in
    which something was accepted still exits 0: tests/test_mail_loop.py.)  On a
    database of its own: the referee remembers every message it has judged, in
    any mailbox, and skips it the next time."""
    fresh = tmp_path / "fresh.db"
    source, copy = sqlite3.connect(referee.db), sqlite3.connect(fresh)
    source.backup(copy)
    source.close()
    for table in ("intake", "intake_part", "outbox", "refusal"):
        copy.execute(f'DELETE FROM "{table}"')
    copy.commit()
    copy.close()
    result, _before, _count = ingest_corpus_by_cli(dataclasses.replace(referee, db=fresh), tmp_path)
    assert result.exit_code == 1
