"""Resource limits: a 100 MB turn file or message, or a zip bomb
attachment, is refused without reading it all into memory.

Memory is measured, not time: in-process with ``tracemalloc`` (its peak counts
every bytes object Python makes, so reading 100 MB shows as 100 MB), and for
real ``pbem`` processes with the child's own peak RSS (VmHWM).  The big
files are sparse, so they cost no disk.
"""

from __future__ import annotations

import gzip
import io
import mailbox
import sqlite3
import tracemalloc
import zipfile
from collections.abc import Callable
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest

from pbem import store
from pbem.mail import folder as folder_intake
from pbem.mail import intake as mail_intake
from pbem.referee import intake as submitting
from pbem.referee import lifecycle, verdict
from pbem.turnfiles import keys
from tests.support.peak_rss import PEAK_RSS

ROOT = Path(__file__).resolve().parent.parent
BIG = 100 * 1024 * 1024
MiB = 1024 * 1024
HEADER = (
    b"From: republic@example.org\r\nTo: referee@example.org\r\nSubject: orders\r\nMessage-ID: <big@example.org>\r\n\r\n"
)


def sparse_file(path: Path, size: int = BIG, head: bytes = b"") -> Path:
    with open(path, "wb") as f:
        f.write(head)
        f.truncate(size)
    return path


def peak_traced(call: Callable[[], Any]) -> tuple[Any, int]:
    """(result, peak bytes allocated by Python while ``call`` ran)."""
    tracemalloc.start()
    try:
        result = call()
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def run_measured(args: list[str], cwd: Path) -> tuple[int, str, int]:
    """Run ``python -m pbem ARGS``; (exit status, stderr, peak RSS in bytes)."""
    return PEAK_RSS.run_pbem(args, cwd, cwd, timeout=300)


@pytest.fixture(scope="module")
def referee(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Any]:
    tmp = tmp_path_factory.mktemp("limits")
    public = {}
    for side in ("republic", "empire"):
        _private, pub = keys.generate_ed25519(side, tmp / "keys")
        public[side] = pub.read_text(encoding="utf-8").strip()
    db = tmp / "referee.db"
    engine = store.open_engine(db)
    lifecycle.new_game(engine, "g1", "farrapos", None, [], public)
    yield db, engine
    engine.dispose()


# ------------------------------------------------------------ turn files (CLI)


@pytest.mark.parametrize("command", ["submit", "check"])
def test_a_100_mb_turn_file_is_refused_unread(referee: tuple[Path, Any], tmp_path: Path, command: str) -> None:
    """``pbem submit`` / ``check`` look at the size before reading: the process's
    peak memory is that of refusing a small file, not 100 MB more."""
    db, _engine = referee
    small = tmp_path / "small.txt"
    small.write_bytes(b"not a turn file\n")
    big = sparse_file(tmp_path / "big.txt", head=b"game: g1\n")
    code, err, rss_small = run_measured(["--db", str(db), command, str(small)], tmp_path)
    assert code == 1, err
    code, err, rss_big = run_measured(["--db", str(db), command, str(big)], tmp_path)
    assert code == 1, err
    assert "Traceback" not in err
    assert err.startswith("pbem: ") and "limit" in err, err
    assert rss_big < rss_small + 30 * MiB, (
        f"peak RSS {rss_big // MiB} MiB refusing 100 MB, {rss_small // MiB} MiB refusing a small file"
    )


def test_an_oversized_turn_file_is_not_kept_whole(referee: tuple[Path, Any]) -> None:
    """A library caller handing ``pipeline.submit`` 10 MB gets a refusal, and the
    refusal record keeps at most a turn file's worth (plus a margin) of it."""
    db, engine = referee
    data = b"game: g1\n" + b"x" * (10 * MiB)
    with pytest.raises(verdict.Refused) as caught:
        submitting.submit(engine, data, None)
    assert any("limit" in p for p in caught.value.problems)
    con = sqlite3.connect(db)
    try:
        stored = con.execute("SELECT length(data) FROM refusal ORDER BY id DESC LIMIT 1").fetchone()[0]
    finally:
        con.close()
    assert stored <= 256 * 1024, f"the refusal record keeps all {stored} bytes"


# ------------------------------------------------------------ mail


def test_a_100_mb_message_is_refused_by_the_reader(referee: tuple[Path, Any]) -> None:
    """``mail_intake.read_message`` on a 100 MB message reads its header only."""
    raw = HEADER + b"x" * BIG
    intake, peak = peak_traced(lambda: mail_intake.read_message(raw))
    assert not intake.candidates
    assert any("over the limit" in p for p in intake.problems), intake.problems
    assert intake.sender == "republic@example.org"
    assert peak < 5 * MiB, f"reading the header of a 100 MB message allocated {peak // MiB} MiB"


def zip_bomb(size: int = BIG) -> bytes:
    """A zip of one ``turn.txt`` that inflates to ``size`` bytes (about 100 KiB packed)."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        with z.open("turn.txt", "w", force_zip64=True) as f:
            chunk = b"game: g1\n" + b"\n" * (MiB - 9)
            for _ in range(size // MiB):
                f.write(chunk)
    return out.getvalue()


def gzip_bomb(size: int = BIG) -> bytes:
    out = io.BytesIO()
    with gzip.GzipFile(fileobj=out, mode="wb", compresslevel=9) as f:
        block = b"\n" * MiB
        for _ in range(size // MiB):
            f.write(block)
    return out.getvalue()


@pytest.fixture(scope="module")
def bombs() -> dict[str, bytes]:
    return {"zip": zip_bomb(), "gzip": gzip_bomb()}


def bomb_message(kind: str, payload: bytes) -> bytes:
    msg = EmailMessage()
    msg["From"] = "republic@example.org"
    msg["To"] = "referee@example.org"
    msg["Subject"] = "my orders"
    msg["Message-ID"] = f"<bomb-{kind}@example.org>"
    msg.set_content("orders attached\n")
    if kind == "zip":
        msg.add_attachment(payload, maintype="application", subtype="zip", filename="turn.zip")
    elif kind == "gzip":
        msg.add_attachment(payload, maintype="application", subtype="gzip", filename="turn.txt.gz")
    else:  # a gzip stream that claims to be the turn file itself
        msg.add_attachment(payload, maintype="text", subtype="plain", filename="turn.txt")
    return msg.as_bytes()


@pytest.mark.parametrize("kind", ["zip", "gzip", "gzip-as-text"])
def test_a_compressed_bomb_attachment_is_not_inflated(bombs: dict[str, bytes], kind: str) -> None:
    """A zip or gzip attachment that would inflate to 100 MB is refused; it is
    never inflated (the peak allocation stays near the message's own size)."""
    raw = bomb_message(kind, bombs[kind.split("-")[0]])
    assert len(raw) < mail_intake.MAX_MESSAGE_BYTES, "the bomb must fit in a message the reader accepts"
    intake, peak = peak_traced(lambda: mail_intake.read_message(raw))
    assert not intake.candidates
    assert intake.problems
    assert peak < 20 * MiB, f"reading a {len(raw) // 1024} KiB message allocated {peak // MiB} MiB"


def _ingest() -> Any:
    return pytest.importorskip("pbem.mail.readers")


def callables(engine: Any, ingest: Any) -> tuple[Callable, Callable]:
    def submit(data: bytes, signature: str | None, source: str) -> Any:
        try:
            submitting.submit(engine, data, signature, source=source)
            return ingest.SubmitOutcome(True, ("queued",))
        except verdict.Refused as exc:
            return ingest.SubmitOutcome(False, tuple(exc.problems))

    def check(data: bytes, signature: str | None, source: str) -> Any:
        return ingest.SubmitOutcome(False, ("not used",))

    return submit, check


def test_ingest_dir_refuses_a_100_mb_file_unread(referee: tuple[Path, Any], tmp_path: Path) -> None:
    ingest = _ingest()
    _db, engine = referee
    folder = tmp_path / "turns"
    folder.mkdir()
    sparse_file(folder / "big.txt", head=b"game: g1\n")
    submit, check = callables(engine, ingest)
    summary, peak = peak_traced(lambda: folder_intake.ingest_dir(folder, submit, check))
    [outcome] = summary.outcomes
    assert outcome.verdict is ingest.Verdict.REFUSED
    assert any("64 KiB" in line for line in outcome.lines), outcome.lines
    assert peak < 5 * MiB, f"refusing a 100 MB file allocated {peak // MiB} MiB"


def test_ingest_maildir_refuses_a_100_mb_message_unread(referee: tuple[Path, Any], tmp_path: Path) -> None:
    ingest = _ingest()
    _db, engine = referee
    box = mailbox.Maildir(tmp_path / "inbox", create=True)
    key = box.add(HEADER + b"small\r\n")
    sparse_file(tmp_path / "inbox" / "new" / f"{key}.big", head=HEADER.replace(b"<big@", b"<big2@"))
    submit, check = callables(engine, ingest)
    summary, peak = peak_traced(
        lambda: ingest.ingest_maildir(tmp_path / "inbox", submit, check, None, "referee@example.org")
    )
    assert len(summary.outcomes) == 2
    assert all(o.verdict is ingest.Verdict.REFUSED for o in summary.outcomes)
    assert any("over the limit" in line for o in summary.outcomes for line in o.lines)
    assert peak < 20 * MiB, f"refusing a 100 MB message allocated {peak // MiB} MiB"


@pytest.mark.parametrize(
    "size", [pytest.param(30 * MiB, id="30-mb"), pytest.param(BIG, id="100-mb", marks=pytest.mark.slow)]
)
def test_ingest_mbox_refuses_a_big_message_unread(referee: tuple[Path, Any], tmp_path: Path, size: int) -> None:
    """A 30 MB message (100 MB in the slow run; base64-like lines, as mail has)
    between two small ones: an mbox is read line by line to find where each message
    ends (the standard library's ``mailbox``), so the bigger one only takes longer;
    either is far over the peak allowed, had the message been kept whole."""
    ingest = _ingest()
    _db, engine = referee
    path = tmp_path / "inbox.mbox"
    line = b"QUFB" * 19 + b"\n"
    with open(path, "wb") as f:
        f.write(b"From republic@example.org Sun Nov 29 12:00:00 2026\n" + HEADER.replace(b"\r\n", b"\n"))
        block = line * (MiB // len(line))
        for _ in range(size // len(block)):
            f.write(block)
        f.write(b"\nFrom empire@example.org Sun Nov 29 12:01:00 2026\nFrom: empire@example.org\nSubject: hi\n\nsmall\n")
    submit, check = callables(engine, ingest)
    summary, peak = peak_traced(lambda: ingest.ingest_mbox(path, submit, check, None, "referee@example.org"))
    assert len(summary.outcomes) == 2
    assert all(o.verdict is ingest.Verdict.REFUSED for o in summary.outcomes)
    assert any("over the limit" in line for o in summary.outcomes for line in o.lines)
    assert peak < 20 * MiB, f"refusing a {size // MiB} MB message allocated {peak // MiB} MiB"


@pytest.mark.slow
def test_ingest_of_a_zip_bomb_maildir_through_the_cli(
    referee: tuple[Path, Any], tmp_path: Path, bombs: dict[str, bytes]
) -> None:
    """``pbem ingest --maildir`` on the bombs: exit 0 or 1, no traceback, peak RSS far
    below what inflating would take."""
    db, _engine = referee
    box = mailbox.Maildir(tmp_path / "inbox", create=True)
    for kind in ("zip", "gzip", "gzip-as-text"):
        box.add(bomb_message(kind, bombs[kind.split("-")[0]]))
    code, err, rss = run_measured(["--db", str(db), "ingest", "--maildir", str(tmp_path / "inbox")], tmp_path)
    assert code in (0, 1), err
    assert "Traceback" not in err
    assert rss < 250 * MiB, f"peak RSS {rss // MiB} MiB"
