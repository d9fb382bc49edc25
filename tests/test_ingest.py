"""Mail intake: a corpus of real-shaped messages written
into a Maildir and an mbox, run through ingest with a fake pipeline that records
its calls.  Every message must end accepted, refused, checked or skipped with the
reply expected, and nothing may be accepted twice."""

from __future__ import annotations

import email
import email.policy
import mailbox
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "data" / "mail"))

from corpus import EXPECTED, FakePipeline, corpus_files, oversized_message, signed

from pbem.mail.folder import ingest_dir
from pbem.mail.intake import read_message
from pbem.mail.readers import SEEN_FILE_NAME, Verdict, ingest_maildir, ingest_mbox

REFEREE = "Referee <referee@pbem.example>"
PLAYERS = ("bento@republic.example", "caxias@empire.example")  # registered: answered even without a turn file
OVERSIZED = "17-oversized.eml"


def corpus() -> list[tuple[str, bytes]]:
    items = [(p.name, p.read_bytes()) for p in corpus_files()]
    items.append((OVERSIZED, oversized_message()))
    return sorted(items)


def write_maildir(root: Path, items: list[tuple[str, bytes]]) -> Path:
    """A Maildir with each message in ``new/`` under a name that keeps file order."""
    path = root / "Maildir"
    mailbox.Maildir(path, create=True)
    for n, (name, raw) in enumerate(items):
        (path / "new" / f"{1700000000 + n}.M{n:06d}P1.test,{name}").write_bytes(raw)
    return path


def write_mbox(root: Path, items: list[tuple[str, bytes]]) -> Path:
    path = root / "inbox.mbox"
    box = mailbox.mbox(path, create=True)
    for _name, raw in items:
        box.add(raw)
    box.flush()
    box.close()
    return path


def by_name(summary, items: list[tuple[str, bytes]]) -> dict[str, object]:
    """Outcomes by corpus file name (an oversized message's outcome keeps only its head)."""

    def norm(raw: bytes) -> bytes:
        return raw.replace(b"\r\n", b"\n").rstrip(b"\n")

    result = {}
    for outcome in summary.outcomes:
        got = norm(outcome.raw)
        name = next((n for n, r in items if norm(r) == got), None) or next(
            (n for n, r in items if len(got) > 1000 and norm(r).startswith(got)), None
        )
        assert name is not None, f"unknown message {outcome.source}"
        result[name] = outcome
    return result


ALL_EXPECTED = {**EXPECTED, OVERSIZED: ("refused", "bento@republic.example", "over the limit")}


@pytest.fixture(scope="module", params=["maildir", "mbox"])
def run(request, tmp_path_factory):
    root = tmp_path_factory.mktemp(request.param)
    items = corpus()
    pipeline = FakePipeline()
    outbox = root / "outbox"
    if request.param == "maildir":
        box = write_maildir(root, items)
        summary = ingest_maildir(box, pipeline.submit, pipeline.check, outbox, REFEREE, players=PLAYERS)
    else:
        box = write_mbox(root, items)
        summary = ingest_mbox(box, pipeline.submit, pipeline.check, outbox, REFEREE, players=PLAYERS)
    return {
        "kind": request.param,
        "box": box,
        "items": items,
        "pipeline": pipeline,
        "summary": summary,
        "outbox": outbox,
        "root": root,
    }


@pytest.mark.parametrize("name", sorted(ALL_EXPECTED))
def test_each_message_ends_with_the_expected_verdict_and_reply(run, name):
    outcomes = by_name(run["summary"], run["items"])
    outcome = outcomes[name]
    verdict, reply_to, needle = ALL_EXPECTED[name]
    assert outcome.verdict is Verdict(verdict), (name, outcome.lines)
    assert any(needle in line for line in outcome.lines), (name, outcome.lines)
    if reply_to is None:
        assert outcome.reply is None
        return
    reply = outcome.reply
    assert reply is not None, name
    assert reply["To"] == reply_to
    assert reply["Auto-Submitted"] == "auto-replied"
    original = email.message_from_bytes(outcome.raw, policy=email.policy.default)
    if original["Message-ID"]:
        assert reply["In-Reply-To"] == original["Message-ID"]
        assert original["Message-ID"] in reply["References"]
    body = reply.get_content()
    assert needle in body
    if verdict == "refused":
        assert "refused" in body and "Problems:" in body
    elif verdict == "accepted":
        assert "accepted" in body and "Orders as understood:" in body


def test_nothing_is_lost_every_message_has_an_outcome_and_its_raw_bytes(run):
    summary = run["summary"]
    assert len(summary.outcomes) == len(run["items"])
    assert set(by_name(summary, run["items"])) == {name for name, _ in run["items"]}
    assert all(o.raw and len(o.raw_sha256) == 64 for o in summary.outcomes)
    oversized = by_name(summary, run["items"])[OVERSIZED]
    assert len(oversized.raw) <= 256 * 1024, "an oversized message is never kept whole in memory"
    assert summary.accepted + summary.refused + summary.checked + summary.skipped == len(run["items"])


def test_replies_are_written_to_the_outbox_maildir(run):
    box = mailbox.Maildir(run["outbox"], create=False)
    written = sorted(email.message_from_bytes(box.get_bytes(k))["In-Reply-To"] or "" for k in box.keys())
    expected = sorted(r["In-Reply-To"] or "" for r in run["summary"].replies)
    assert written == expected
    assert len(written) == sum(1 for v in ALL_EXPECTED.values() if v[1] is not None)


def test_messages_are_processed_in_sending_order_and_the_latest_supersedes(run):
    """12-supersede-a-late comes first in file order but was sent later."""
    pipeline = run["pipeline"]
    submitted = [m.decode() for m in pipeline.submitted()]
    early = next(i for i, m in enumerate(submitted) if "to rio-grande\n" in m and "inf-9" in m)
    late = next(i for i, m in enumerate(submitted) if "inf-9 from pelotas to camaqua" in m)
    assert early < late
    assert "mostardas" in submitted[-1], "a message without a Date comes last"


def test_a_check_message_is_validated_and_answered_but_not_queued(run):
    pipeline = run["pipeline"]
    checks = [m for kind, m, _s, _src in pipeline.calls if kind == "check"]
    assert len(checks) == 1 and b"inf-2 from viamao to porto-alegre" in checks[0]
    assert all(b"viamao to porto-alegre" not in m for m in pipeline.submitted())
    outcome = by_name(run["summary"], run["items"])["18-check.eml"]
    assert outcome.valid
    assert "checked" in outcome.reply["Subject"]


def test_a_mailbox_processed_twice_accepts_nothing_twice(run):
    pipeline = FakePipeline()
    outbox = run["root"] / "outbox-second"
    ingest = ingest_maildir if run["kind"] == "maildir" else ingest_mbox
    again = ingest(run["box"], pipeline.submit, pipeline.check, outbox, REFEREE, players=PLAYERS)
    assert again.accepted == 0
    assert again.skipped == len(run["items"])
    assert pipeline.calls == []
    assert again.replies == ()


def test_without_the_state_file_the_pipeline_still_refuses_duplicates(tmp_path):
    items = [(n, r) for n, r in corpus() if n in ("01-attachment.eml", "02-inline.eml")]
    box = write_maildir(tmp_path, items)
    pipeline = FakePipeline()
    first = ingest_maildir(box, pipeline.submit, pipeline.check, None, REFEREE)
    assert first.accepted == 2
    (box / SEEN_FILE_NAME).unlink()
    second = ingest_maildir(box, pipeline.submit, pipeline.check, None, REFEREE)
    assert second.accepted == 0 and second.refused == 2
    assert all("duplicate" in o.lines[0] for o in second.outcomes)


def test_a_message_whose_submit_fails_is_not_remembered_and_is_retried(tmp_path):
    items = [(n, r) for n, r in corpus() if n in ("02-inline.eml",)]
    box = write_maildir(tmp_path, items)
    broken = FakePipeline(explode_on=b"rio-grande to pelotas")
    first = ingest_maildir(box, broken.submit, broken.check, None, REFEREE)
    assert first.refused == 1 and "retried" in first.outcomes[0].lines[0]
    working = FakePipeline()
    second = ingest_maildir(box, working.submit, working.check, None, REFEREE)
    assert second.accepted == 1


def test_the_mbox_state_file_sits_beside_the_mbox(tmp_path):
    items = [(n, r) for n, r in corpus() if n == "15-not-orders.eml"]
    path = write_mbox(tmp_path, items)
    pipeline = FakePipeline()
    ingest_mbox(path, pipeline.submit, pipeline.check, None, REFEREE)
    assert (tmp_path / "inbox.mbox.pbem-ingest-seen").read_text().count("\n") == 2  # hash and Message-ID


# --- read_message -------------------------------------------------------------------


def test_read_message_oversized_is_refused_without_a_full_parse():
    intake = read_message(oversized_message(), max_bytes=1 << 20)
    assert intake.candidates == ()
    assert "over the limit" in intake.problems[0]
    assert intake.sender == "bento@republic.example" and intake.message_id == "<big-1@republic.example>"


def test_read_message_undoes_format_flowed_soft_breaks():
    message, signature = signed("empire", "move inf-1 from rio-grande to pelotas\n")
    text = (message.decode() + signature).replace("move inf-1 from ", "move inf-1 from \n")
    raw = (
        "From: c@empire.example\nSubject: orders\nContent-Type: text/plain; charset=utf-8; format=flowed\n\n" + text
    ).encode()
    (candidate,) = read_message(raw).candidates
    assert candidate.message == message and candidate.signature == signature


def test_read_message_pairs_a_lone_signature_with_a_lone_turn_file_whatever_their_names():
    message, signature = signed("republic", "move cav-1 from bage to dom-pedrito\n")
    msg = email.message.EmailMessage()
    msg["From"] = "b@republic.example"
    msg["Subject"] = "orders"
    msg.set_content("attached")
    msg.add_attachment(message, maintype="text", subtype="plain", filename="orders.txt")
    msg.add_attachment(signature.encode(), maintype="application", subtype="octet-stream", filename="signature.sig")
    (candidate,) = read_message(msg.as_bytes()).candidates
    assert candidate.message == message and candidate.signature == signature
    assert candidate.where == "attachment orders.txt"


def test_read_message_never_raises_on_garbage():
    for raw in (
        b"",
        b"\x00" * 100,
        b"From: \xff\xfe\n\n\xff",
        b"Content-Type: multipart/mixed; boundary=x\n\n--x\n--x--",
        bytes(range(256)),
    ):
        intake = read_message(raw)
        assert intake.candidates == () and intake.problems


def test_subject_word_check_makes_a_check_only_intake():
    raw = b"From: a@b.example\nSubject: Re: please CHECK my orders\n\nhello\n"
    assert read_message(raw).check_only
    assert not read_message(b"From: a@b.example\nSubject: checkpoint charlie\n\nhello\n").check_only


# --- a directory of turn files ------------------------------------------------------------


def test_ingest_dir_finds_detached_and_inline_signatures_and_refuses_the_rest(tmp_path):
    detached, sig = signed("republic", "move cav-1 from bage to dom-pedrito\n")
    (tmp_path / "a-republic.txt").write_bytes(detached)
    (tmp_path / "a-republic.txt.sig").write_text(sig)
    inline, sig2 = signed("empire", "move inf-1 from rio-grande to pelotas\n")
    (tmp_path / "b-empire.txt").write_bytes(inline.replace(b"\n", b"\r\n") + sig2.encode())
    unsigned, _ = signed("empire", "move inf-2 from viamao to porto-alegre\n")
    (tmp_path / "c-unsigned.txt").write_bytes(unsigned)
    (tmp_path / "d-notes.txt").write_text("shopping list\n")
    pipeline = FakePipeline()
    summary = ingest_dir(tmp_path, pipeline.submit, pipeline.check)
    verdicts = {Path(o.source).name: o.verdict for o in summary.outcomes}
    assert verdicts == {
        "a-republic.txt": Verdict.ACCEPTED,
        "b-empire.txt": Verdict.ACCEPTED,
        "c-unsigned.txt": Verdict.REFUSED,
        "d-notes.txt": Verdict.REFUSED,
    }
    assert [m for m in pipeline.submitted()][:2] == [detached, inline]


# --- progress bar and summary table -------------------------------------------------------


def test_ingest_drives_a_progress_bar_and_its_summary_table_lists_every_message(tmp_path):
    from io import StringIO

    from rich.console import Console

    from pbem.cli.progress import BatchProgress, ingest_table

    items = [(n, r) for n, r in corpus() if n[:2] in ("01", "15")]
    items.append(("01-again", items[0][1]))  # the same bytes again: skipped (the same Message-ID alone is judged)
    box = write_maildir(tmp_path, items)
    console = Console(file=StringIO(), width=200, force_terminal=False)
    pipeline = FakePipeline()
    with BatchProgress("ingest", console=console) as bar:
        summary = ingest_maildir(box, pipeline.submit, pipeline.check, None, REFEREE, progress=bar)
    assert dict(bar.counts) == {"accepted": 1, "skipped": 1, "refused": 1}
    console.print(ingest_table(summary))
    out = console.file.getvalue()
    for outcome in summary.outcomes:
        assert outcome.verdict.value in out
    assert "1 accepted, 1 refused, 1 skipped" in out


def test_read_message_finds_a_turn_file_in_html_pre_and_ignores_a_forward_of_nothing():
    message, signature = signed("empire", "move inf-1 from rio-grande to pelotas\n")
    html = (
        "<html><body><p>My orders:</p><pre>"
        + (message.decode() + signature).replace("&", "&amp;")
        + "</pre></body></html>"
    )
    raw = (
        "From: c@empire.example\nSubject: orders\nMIME-Version: 1.0\nContent-Type: text/html; charset=utf-8\n\n" + html
    ).encode()
    (candidate,) = read_message(raw).candidates
    assert candidate == candidate.__class__(message, signature, "inline HTML body")


def test_read_message_reads_an_attachment_with_its_inline_signature_in_quoted_printable():
    message, signature = signed("republic", "# São Gabriel\nmove cav-1 from bage to sao-gabriel\n")
    msg = email.message.EmailMessage()
    msg["From"] = "b@republic.example"
    msg["Subject"] = "orders"
    msg.set_content("see attachment")
    msg.add_attachment((message.decode() + signature), subtype="plain", filename="turn.txt", cte="quoted-printable")
    (candidate,) = read_message(msg.as_bytes()).candidates
    assert candidate.message == message and candidate.signature == signature


def test_missing_mailboxes_are_named(tmp_path):
    from pbem.mail.readers import IngestError

    pipeline = FakePipeline()
    with pytest.raises(IngestError, match="not a Maildir"):
        ingest_maildir(tmp_path / "nope", pipeline.submit, pipeline.check, None, REFEREE)
    with pytest.raises(IngestError, match="no mbox"):
        ingest_mbox(tmp_path / "nope.mbox", pipeline.submit, pipeline.check, None, REFEREE)


@pytest.mark.parametrize("depth", [60, 3000])
def test_a_deeply_nested_message_without_message_id_is_refused_and_answered(tmp_path, depth):
    head = (
        "From: Bento <bento@republic.example>\nSubject: orders\nDate: Fri, 06 Nov 2026 10:00:00 "
        "-0300\nMIME-Version: 1.0\n"
    )
    parts = [f'Content-Type: multipart/mixed; boundary="n{i}"\n\n--n{i}\n' for i in range(depth)]
    raw = (
        head
        + "".join(parts)
        + "Content-Type: text/plain\n\nhello\n"
        + "".join(f"--n{i}--\n" for i in reversed(range(depth)))
    ).encode()
    box = write_maildir(tmp_path, [("deep.eml", raw)])
    pipeline = FakePipeline()
    summary = ingest_maildir(box, pipeline.submit, pipeline.check, tmp_path / "outbox", REFEREE, players=PLAYERS)
    (outcome,) = summary.outcomes
    assert outcome.verdict is Verdict.REFUSED and outcome.lines
    assert outcome.reply is not None and outcome.reply["To"] == "bento@republic.example"
    again = ingest_maildir(box, pipeline.submit, pipeline.check, tmp_path / "outbox", REFEREE, players=PLAYERS)
    assert [o.verdict for o in again.outcomes] == [Verdict.SKIPPED]


def test_ingest_dir_skips_files_seen_before_until_their_bytes_or_signature_change(tmp_path):
    folder = tmp_path / "drop"
    folder.mkdir()
    detached, sig = signed("republic", "move cav-1 from bage to dom-pedrito\n")
    (folder / "a-republic.txt").write_bytes(detached)
    (folder / "a-republic.txt.sig").write_text(sig)
    pipeline = FakePipeline()
    first = ingest_dir(folder, pipeline.submit, pipeline.check)
    assert [o.verdict for o in first.outcomes] == [Verdict.ACCEPTED]
    assert (folder / SEEN_FILE_NAME).is_file()

    again = ingest_dir(folder, pipeline.submit, pipeline.check)
    assert [o.verdict for o in again.outcomes] == [Verdict.SKIPPED]
    assert len(pipeline.submitted()) == 1

    checked = ingest_dir(folder, pipeline.submit, pipeline.check, check_only=True)  # a check reads no seen-file
    assert [o.verdict for o in checked.outcomes] == [Verdict.CHECKED]

    (folder / "a-republic.txt.sig").write_text(sig + "\n")  # another .sig for the same file: judged again
    resent = ingest_dir(folder, pipeline.submit, pipeline.check)
    assert [o.verdict for o in resent.outcomes] == [Verdict.REFUSED]  # judged again: the same orders are already queued
    assert len(pipeline.submitted()) == 2
