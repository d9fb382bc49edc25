"""A folder of turn files (``pbem ingest --dir``, ``tick --dir``): each ``*.txt``
with its detached or inline signature, judged like a message, remembered in the
folder's seen-file."""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path

from pbem import limits
from pbem.mail.intake import Candidate, _split_signature
from pbem.mail.readers import (
    MAX_FILE_BYTES,
    SEEN_FILE_NAME,
    Check,
    IngestError,
    IngestSummary,
    MessageOutcome,
    ProgressSink,
    SeenStore,
    Submit,
    Verdict,
    _judge,
)
from pbem.turnfiles.envelope import sha256_hex


def ingest_dir(
    path: Path | str,
    submit: Submit,
    check: Check,
    *,
    check_only: bool = False,
    seen_file: Path | None = None,
    progress: ProgressSink | None = None,
) -> IngestSummary:
    """Every ``*.txt`` turn file of a directory, in name order, with its detached
    signature ``FILE.sig`` (or ``FILE-without-.txt.sig``) beside it or its inline
    signature.  No answers: the caller reports the summary.

    Like a mailbox, the folder keeps a seen-file (``D/.pbem-ingest-seen``): a file
    submitted before, with the same bytes and the same signature, is ``SKIPPED``
    on the next run instead of being refused again as already queued.  A check
    (``check_only``) changes nothing, so it neither reads nor writes the seen-file."""
    path = Path(path)
    if not path.is_dir():
        raise IngestError(f"no directory at {str(path)!r}")
    # one scan of the folder, names compared as strings: the files and order of ``sorted(path.glob("*.txt"))``;
    # each file's name as ``str(path / base)`` spells it, without a ``Path`` made and printed a file
    files = sorted(e.name for e in os.scandir(path) if e.name.endswith(".txt") and e.is_file())
    prefix = _prefix(path)
    seen = None if check_only else SeenStore(seen_file or path / SEEN_FILE_NAME)
    if progress:
        progress.start(len(files))
    outcomes: list[MessageOutcome] = []
    for base in files:
        name = prefix + base
        source = f"file {name}"
        try:
            raw = limits.read_at_most(name, MAX_FILE_BYTES)
        except limits.TooLarge as exc:
            outcome = MessageOutcome(
                source, Verdict.REFUSED, (f"file is {exc.size} bytes: a turn file is at most 64 KiB",)
            )
        else:
            message, inline = _split_signature(raw.replace(b"\r\n", b"\n"))
            signature = inline if inline is not None else _detached_signature(name)
            raw_sha256 = sha256_hex(raw)  # remembered: the submit hashes the same bytes as its message
            seen_key = (
                raw_sha256
                if inline is not None or signature is None
                else hashlib.sha256(raw + b"\0" + signature.encode()).hexdigest()
            )
            if seen is not None and seen.seen(seen_key, None):
                outcome = MessageOutcome(
                    source, Verdict.SKIPPED, ("already processed (seen before)",), raw_sha256=raw_sha256
                )
            else:
                candidate = Candidate(message, signature, f"file {base}")
                verdict, lines, valid, failed = _judge([candidate], (), check_only, submit, check, source)
                outcome = MessageOutcome(source, verdict, lines, raw_sha256=raw_sha256, valid=valid, raw=raw)
                if seen is not None and not failed:
                    seen.add(seen_key, None)
        outcomes.append(outcome)
        if progress:
            progress.advance(outcome)
    return IngestSummary(tuple(outcomes))


def _prefix(path: Path) -> str:
    """What ``str(path / base)`` puts before a plain file name ``base`` (one with no
    ``/``, as a folder scan gives it): nothing in ``.``, the root itself, else the
    folder and a ``/``."""
    text = str(path)
    return "" if text == "." else text if text.endswith("/") else text + "/"


def _detached_signature(name: str) -> str | None:
    """The text of ``FILE.sig`` beside the file ``name``, else of
    ``FILE-without-.txt.sig``, else None; the second name is made only when the
    first is no file."""
    data = _read_file(name + ".sig")
    if data is None:
        data = _read_file(str(Path(name).with_suffix(".sig")))
        if data is None:
            return None
    text = data.decode("ascii", errors="replace")
    return text.replace("\r\n", "\n").replace("\r", "\n")  # the line ends text mode (``Path.read_text``) reads


def _read_file(name: str) -> bytes | None:
    """The bytes of ``name`` when it is a file (``os.path.isfile``: a regular file,
    through any link), else None; one descriptor opened, stat'ed and read (a
    ``stat`` by name and a buffered file object each cost more than the read)."""
    try:
        fd = os.open(name, os.O_RDONLY)
    except (FileNotFoundError, NotADirectoryError):
        return None
    try:
        status = os.fstat(fd)
        return limits.read_descriptor(fd, status.st_size) if stat.S_ISREG(status.st_mode) else None
    finally:
        os.close(fd)
