"""Hardening, third round: each test is named after the defect it pins down, and
goes through the real path (the CLI, a real SQLite file, a real SMTP server)."""

from __future__ import annotations

import email
import email.policy
import mailbox
import marshal
import os
import pickle
import re
import time
from email.message import EmailMessage
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pbem.turnfiles import keys, sshsig
from tests.conftest import Table

SENDER = "referee@example.org"


def _game(table: Table, game: str = "g1") -> Table:
    _, rep = table.key("republic")
    _, emp = table.key("empire")
    r = table.run(
        "new", game, "--rules", "farrapos",
        "--player", f"republic={rep}", "--player", f"empire={emp}",
        "--email", "republic=alice@example.org", "--email", "empire=bob@example.org",
    )  # fmt: skip
    assert r.exit_code == 0, r.stderr
    return table


def _signed_orders(table: Table, game: str = "g1", side: str = "republic") -> bytes:
    orders = table.tmp / f"{game}-{side}.txt"
    assert table.run("orders", game, "--side", side, "-o", str(orders)).exit_code == 0
    private, _ = table.key(side)
    data = orders.read_bytes()
    return data + sshsig.sign(data, keys.load_private_key(private)).encode()


def _one_clean_line(stderr: str) -> None:
    assert "Traceback" not in stderr
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert lines and all(line.startswith("pbem: ") for line in lines), stderr


def _mail(sender: str, body: str, message_id: str, subject: str = "my orders", **headers: str) -> EmailMessage:
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = SENDER
    msg["Subject"] = subject
    msg["Message-ID"] = message_id
    msg["Date"] = email.utils.formatdate(time.time())
    for name, value in headers.items():
        msg[name.replace("_", "-")] = value
    msg.set_content(body)
    return msg


def _ingest(t: Table, *raw: bytes) -> tuple[int, list[EmailMessage]]:
    """Put ``raw`` messages in a Maildir, ingest it; the exit code and the answers."""
    inbox = mailbox.Maildir(t.tmp / "inbox", create=True)
    for message in raw:
        inbox.add(message)
    outbox = t.tmp / "outbox"
    r = t.run("ingest", "--maildir", str(t.tmp / "inbox"), "--outbox", str(outbox), "--sender", SENDER, "-q")
    assert "Traceback" not in r.stderr, r.stderr
    answers = [
        email.message_from_bytes(m.as_bytes(), policy=email.policy.default)  # type: ignore[arg-type]
        for m in mailbox.Maildir(outbox).values()
    ]
    return r.exit_code, answers  # type: ignore[return-value]


# --- a non-ASCII character inside a signature block ----------------------------


def _non_ascii_in_block(signed: bytes, char: str = "\u00e9") -> bytes:
    text = signed.decode()
    at = text.index(sshsig.BEGIN) + len(sshsig.BEGIN) + 5
    return (text[:at] + char + text[at + 1 :]).encode()


def test_non_ascii_in_signature_block_is_a_signature_error() -> None:
    block = sshsig.armor(b"SSHSIG" + b"\0" * 40)
    first = block.splitlines()[1]
    broken = block.replace(first, "ab\u00e9" + first[3:], 1)
    with pytest.raises(sshsig.SignatureError, match="not a base64 character"):
        sshsig.dearmor(broken)
    with pytest.raises(sshsig.SignatureError, match="not a base64 character"):
        sshsig.dearmor(broken.encode("utf-8"))


def test_non_ascii_in_signature_block_submit_and_check_refuse(table: Table) -> None:
    t = _game(table)
    path = t.tmp / "t.txt"
    path.write_bytes(_non_ascii_in_block(_signed_orders(t)))
    before = t.count("refusal")
    for command in ("check", "submit"):
        r = t.run(command, str(path))
        assert r.exit_code == 1
        _one_clean_line(r.stderr)
        assert "signature" in r.stderr and "base64" in r.stderr
    assert t.count("refusal") == before + 1  # submit records it; check stores nothing


def test_non_ascii_in_signature_block_by_mail_utf7_is_answered(table: Table) -> None:
    t = _game(table)
    signed = _signed_orders(t).decode()
    block = signed.split(sshsig.BEGIN)[1]
    if "+" not in block:  # the block must hold a '+': UTF-7 reads it as the start of a shifted run
        lines = block.split("\n")
        lines[1] = "+" + lines[1][1:]
        signed = signed.replace(block, "\n".join(lines), 1)
    raw = _mail("alice@example.org", signed, "<utf7@example.org>").as_bytes()
    raw = raw.replace(b"charset=", b"charset=utf-7; x-was=", 1)
    assert b"charset=utf-7" in raw
    _, answers = _ingest(t, raw)
    assert t.count("refusal") == 1
    assert len(answers) == 1 and answers[0]["To"] == "alice@example.org"


# --- the template cache ---------------------------------------------------------


def _render_a_report(t: Table) -> None:
    out = t.tmp / "r.html"
    r = t.run_subprocess("report", "g1", "--turn", "0", "--side", "republic", "--format", "html", "-o", str(out))
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr


def _cache_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir() if p.is_file())


@pytest.fixture
def own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv("PBEM_CACHE_DIR", str(folder))
    return folder


def test_template_cache_corrupt_body_is_compiled_afresh(table: Table, own_cache: Path) -> None:
    t = _game(table)
    _render_a_report(t)
    files = _cache_files(own_cache)
    assert files
    from jinja2.bccache import bc_magic

    for f in files:  # keep Jinja's header (magic + checksum), break the marshalled body
        data = f.read_bytes()
        checksum = pickle.loads(data[len(bc_magic) :])
        f.write_bytes(bc_magic + pickle.dumps(checksum, 2) + b"\xff\x00 garbage that is no code")
    _render_a_report(t)
    for f in _cache_files(own_cache):  # each bad file was replaced by a good one
        assert b"garbage that is no code" not in f.read_bytes()


def test_template_cache_truncated_header_is_compiled_afresh(table: Table, own_cache: Path) -> None:
    t = _game(table)
    _render_a_report(t)
    from jinja2.bccache import bc_magic

    for f in _cache_files(own_cache):  # a valid magic then a broken pickle: UnpicklingError in Jinja
        f.write_bytes(bc_magic + b"\x80\x05garbage")
    _render_a_report(t)
    for f in _cache_files(own_cache):
        assert not f.read_bytes().endswith(b"garbage")


def _plant_code(files: list[Path], marker: Path) -> None:
    from jinja2.bccache import bc_magic

    code = compile(f"open({str(marker)!r}, 'w').write('ran')", "<planted>", "exec")
    for f in files:
        data = f.read_bytes()
        checksum = pickle.loads(data[len(bc_magic) :])
        f.write_bytes(bc_magic + pickle.dumps(checksum, 2) + marshal.dumps(code))


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="chown needs root")
def test_template_cache_file_of_another_user_is_not_run(table: Table, own_cache: Path) -> None:
    t = _game(table)
    _render_a_report(t)
    files = _cache_files(own_cache)
    marker = t.tmp / "planted-code-ran"
    _plant_code(files, marker)
    for f in files:
        os.chown(f, 65534, 65534)
    _render_a_report(t)
    assert not marker.exists()


def test_template_cache_file_others_may_write_is_not_run(table: Table, own_cache: Path) -> None:
    t = _game(table)
    _render_a_report(t)
    files = _cache_files(own_cache)
    marker = t.tmp / "planted-code-ran"
    _plant_code(files, marker)
    for f in files:
        os.chmod(f, 0o666)
    _render_a_report(t)
    assert not marker.exists()


# --- writes through symbolic links ----------------------------------------------

VICTIM_TEXT = "precious: the referee's own file\n"


def _victim(t: Table, name: str) -> Path:
    victim = t.tmp / "victims" / name
    victim.parent.mkdir(exist_ok=True)
    victim.write_text(VICTIM_TEXT)
    return victim


def _refused_link(r: object, victim: Path) -> None:
    assert r.exit_code == 1, (r.stdout, r.stderr)  # type: ignore[attr-defined]
    _one_clean_line(r.stderr)  # type: ignore[attr-defined]
    assert "symbolic link" in r.stderr  # type: ignore[attr-defined]
    assert victim.read_text() == VICTIM_TEXT


def test_site_writes_through_planted_links_refused(table: Table) -> None:
    t = _game(table)
    site_args = ("site", "g1", "--site-url", "https://example.org/g1/")
    reference = t.tmp / "reference"
    assert t.run(*site_args, "-o", str(reference)).exit_code == 0
    names = sorted(p.name for p in reference.iterdir())
    assert {"index.html", "audit.html", "dice.json", "g1.json"} <= set(names) and len(names) >= 9
    folder = t.tmp / "site"
    folder.mkdir()
    victims = {name: _victim(t, name) for name in [*names, "g1.json.tmp"]}
    for name, victim in victims.items():
        (folder / name).symlink_to(victim)
    refused: list[str] = []
    for _ in range(len(victims) + 1):
        r = t.run(*site_args, "-o", str(folder))
        if r.exit_code == 0:
            break
        assert r.exit_code == 1 and "symbolic link" in r.stderr and "Traceback" not in r.stderr, r.stderr
        name = next(n for n in names if f"{folder / n}" in r.stderr)
        refused.append(name)
        (folder / name).unlink()  # that link is refused; on to the next
    assert sorted(refused) == names  # every file the site writes refused its link
    for victim in victims.values():
        assert victim.read_text() == VICTIM_TEXT
    assert (folder / "g1.json.tmp").is_symlink()  # the archive's temporary file has a fresh name
    assert not any(p.name.endswith(".tmp") and not p.is_symlink() for p in folder.iterdir())


def test_other_writers_refuse_planted_links(table: Table) -> None:
    t = _game(table)
    out = t.tmp / "out"
    out.mkdir()

    def planted(name: str) -> tuple[Path, Path]:
        victim = _victim(t, name)
        link = out / name
        link.symlink_to(victim)
        return link, victim

    link, victim = planted("report.html")
    _refused_link(t.run("report", "g1", "--side", "republic", "-o", str(link)), victim)
    link, victim = planted("game.json")
    _refused_link(t.run("export", "g1", "-o", str(link)), victim)
    link, victim = planted("orders.txt")
    _refused_link(t.run("orders", "g1", "--side", "republic", "-o", str(link)), victim)
    # pbem sign: the detached .sig beside the file, and the file itself with --inline
    turn = out / "turn.txt"
    assert t.run("orders", "g1", "--side", "republic", "-o", str(turn)).exit_code == 0
    key, _ = t.key("republic")
    link, victim = planted("turn.txt.sig")
    _refused_link(t.run("sign", str(turn), "--key", str(key)), victim)
    inline_victim = _victim(t, "inline.txt")
    inline_victim.write_text(turn.read_text())
    (out / "inline.txt").symlink_to(inline_victim)
    r = t.run("sign", str(out / "inline.txt"), "--key", str(key), "--inline")
    assert r.exit_code == 1 and "symbolic link" in r.stderr, r.stderr
    assert inline_victim.read_text() == turn.read_text()
    # the seen-file of a folder of turn files (ingest --dir)
    link, victim = planted(".pbem-ingest-seen")
    (out / "t.txt").write_bytes(_signed_orders(t))
    r = t.run("ingest", "--dir", str(out))
    assert "Traceback" not in r.stderr and victim.read_text() == VICTIM_TEXT, r.stderr
    # pbem keygen: a dangling link (or one to a file) in the new key's place
    for name in ("k1", "k2.pub"):
        link, victim = planted(name)
    dangling = out / "k3"
    dangling.symlink_to(t.tmp / "victims" / "not-yet")
    for name in ("k1", "k2", "k3"):
        r = t.run("keygen", name, "--dir", str(out))
        assert r.exit_code == 1 and "Traceback" not in r.stderr
    assert not (t.tmp / "victims" / "not-yet").exists()
    assert (t.tmp / "victims" / "k1").read_text() == VICTIM_TEXT


# --- overlapping tick passes ----------------------------------------------------


class SlowCollector:
    """An SMTP server's delivery that takes a little while per message, so two
    passes overlap, and keeps every Message-ID it accepts."""

    def __init__(self) -> None:
        self.message_ids: list[str] = []

    async def handle_DATA(self, server, session, envelope):  # type: ignore[no-untyped-def]
        import asyncio

        await asyncio.sleep(0.02)
        msg = email.message_from_bytes(envelope.original_content or envelope.content)
        self.message_ids.append(str(msg["Message-ID"]))
        return "250 OK"


ROWS = 40


def _queue_rows(db: str) -> set[str]:
    from pbem import store
    from pbem.mail import outbox
    from pbem.store.transaction import transaction

    engine = store.open_engine(db, create=False)
    ids = set()
    try:
        with transaction(engine) as tx:
            for i in range(ROWS):
                message_id = outbox.new_message_id("receipt", None)
                body = _mail("x@example.org", f"note {i}\n", message_id, subject=f"note {i}").as_bytes()
                assert outbox.queue(tx, "receipt", [f"p{i}@example.org"], f"note {i}", message_id, f"t-{i}", body)
                ids.add(message_id)
    finally:
        engine.dispose()
    return ids


def _two_ticks_at_once(db: str, cwd: Path, port: int) -> None:
    import subprocess
    import sys

    command = [sys.executable, "-m", "pbem", "--db", db, "tick", "--smtp", f"127.0.0.1:{port}", "--sender", SENDER]
    passes = [subprocess.Popen(command, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE) for _ in range(2)]
    for p in passes:
        _out, err = p.communicate(timeout=120)
        assert p.returncode == 0, err.decode()


def _overlapping_ticks_send_each_row_once(db: str, cwd: Path) -> None:
    from aiosmtpd.controller import Controller

    from tests.support.imap_server import free_port

    queued = _queue_rows(db)
    handler = SlowCollector()
    port = free_port()
    controller = Controller(handler, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        _two_ticks_at_once(db, cwd, port)
    finally:
        controller.stop()
    ours = [m for m in handler.message_ids if m in queued]
    assert sorted(ours) == sorted(queued)  # every row delivered, none twice
    from pbem import store
    from pbem.mail import outbox

    engine = store.open_engine(db, create=False)
    try:
        rows = outbox.rows(engine)
    finally:
        engine.dispose()
    assert all(r.state == outbox.SENT and r.attempts == 1 for r in rows if r.message_id in queued)


def test_overlapping_ticks_send_each_message_once_sqlite(table: Table) -> None:
    t = _game(table)
    _overlapping_ticks_send_each_row_once(str(t.db), t.tmp)


@pytest.mark.postgres
def test_overlapping_ticks_send_each_message_once_postgres(postgres_url: str, tmp_path: Path) -> None:
    t = Table(tmp_path, tmp_path / "unused.db")
    _, rep = t.key("republic")
    _, emp = t.key("empire")
    r = t.run_subprocess(
        "--db", postgres_url, "new", "g1", "--rules", "farrapos", "--player", f"republic={rep}",
        "--player", f"empire={emp}", "--email", "republic=alice@example.org", "--email", "empire=bob@example.org",
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    _overlapping_ticks_send_each_row_once(postgres_url, tmp_path)


def test_a_lapsed_claim_is_taken_again_and_a_live_one_is_not(table: Table) -> None:
    from datetime import timedelta

    from pbem import store
    from pbem.mail import outbox

    t = _game(table)
    engine = store.open_engine(str(t.db), create=False)
    try:
        row = outbox.rows(engine, outbox.PENDING)[0]
        now = store.utcnow()
        assert outbox.claim(engine, row, "dead-holder", now)
        assert not outbox.claim(engine, row, "second", now + timedelta(seconds=5))  # a live claim holds
        later = now + outbox.CLAIM_LEASE + timedelta(seconds=1)
        assert outbox.claim(engine, row, "second", later)  # the dead holder's claim lapsed
        assert not outbox.claim(engine, row, "third", later + timedelta(seconds=5))
    finally:
        engine.dispose()


# --- hostile position files and house tables ---------------------------------------


def _position_and_turn(t: Table) -> tuple[dict, Path]:
    import json

    folder = t.tmp / "reports"
    assert t.run("process", "g1", "--force-nmr", "--reports", str(folder)).exit_code == 0
    position = json.loads((folder / "g1" / "g1-r1.position.json").read_text())
    return position, folder / "g1" / "turn-g1-2-empire.txt"


def _forged(doc_: dict, **changes: object) -> str:
    """A position file with ``changes`` made, its state forged to match its position."""
    import json

    from pbem.turnfiles.canonical import position_hash

    doc = {**doc_, **changes}
    if isinstance(doc.get("position"), dict):
        try:
            doc["state"] = position_hash(doc["position"])
        except (UnicodeEncodeError, ValueError, RecursionError):
            pass
    return json.dumps(doc, ensure_ascii=True)


def _hostile_positions(position: dict) -> dict[str, str]:
    good = _forged(position)
    deep = "[" * 100_000 + "]" * 100_000
    inner = position["position"]
    return {
        "deep nesting": good.replace('"label":', f'"x": {deep}, "label":', 1),
        "deep nesting in the position": _forged(position, position={**inner, "x": 0}).replace(
            '"x": 0', f'"x": {deep}', 1
        ),
        "Infinity": good.replace('"resolution": 1', '"resolution": Infinity', 1),
        "-Infinity": good.replace('"resolution": 1', '"resolution": -Infinity', 1),
        "1e400": good.replace('"resolution": 1', '"resolution": 1e400', 1),
        "5,000-digit integer": good.replace('"resolution": 1', '"resolution": ' + "9" * 5000, 1),
        "lone surrogate": good.replace('"label": "', '"label": "\\ud800', 1),
        "lone surrogate in the position": _forged(position, position={**inner, "x": "\ud800"}),
        "players not objects": _forged(position, players=["republic", "empire"]),
        "turn a string": _forged(position, turn="two"),
        "position broken, state forged to match": _forged(position, position={"units": 5, "due": None}),
    }


def test_check_position_survives_hostile_position_files(table: Table, monkeypatch: pytest.MonkeyPatch) -> None:
    t = _game(table)
    position, turn = _position_and_turn(t)
    monkeypatch.delenv("PBEM_DB", raising=False)
    cases = _hostile_positions(position)
    assert len(cases) == 11
    for kind, text in cases.items():
        path = t.tmp / "hostile.position.json"
        path.write_text(text, encoding="utf-8")
        r = t.run_subprocess("check", str(turn), "--position", str(path))
        assert r.returncode == 1, (kind, r.stdout, r.stderr)
        assert "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1, (kind, r.stderr)
        assert r.stderr.startswith("pbem: "), (kind, r.stderr)


def test_check_position_names_the_broken_field(table: Table) -> None:
    t = _game(table)
    position, turn = _position_and_turn(t)
    path = t.tmp / "p.json"
    for changes, field in (
        ({"players": [{"side": 1, "public_key": "x"}]}, "players[0].side"),
        ({"over": "no"}, "'over'"),
        ({"options": [1]}, "options[0]"),
        ({"turn": True}, "'turn'"),
    ):
        path.write_text(_forged(position, **changes))
        r = t.run("check", str(turn), "--position", str(path))
        assert r.exit_code == 1 and field in r.stderr, r.stderr


def _sparse(path: Path, size: int) -> Path:
    with open(path, "wb") as f:
        f.truncate(size)  # a sparse file: no disk spent
    return path


def test_check_position_refuses_a_huge_file_before_reading_it(table: Table) -> None:
    t = _game(table)
    _, turn = _position_and_turn(t)
    big = _sparse(t.tmp / "big.position.json", 1024**3)
    r = t.run_subprocess("check", str(turn), "--position", str(big))
    assert r.returncode == 1 and "over the 4 MiB limit" in r.stderr and "Traceback" not in r.stderr, r.stderr


def test_read_at_most_never_reads_past_its_limit(tmp_path: Path) -> None:
    from pbem import limits

    with pytest.raises(limits.TooLarge):
        limits.read_at_most(_sparse(tmp_path / "big", 1024**3), 4096)
    with pytest.raises(limits.TooLarge):  # a device whose size says 0 but never ends
        limits.read_at_most("/dev/zero", 4096)
    assert limits.read_at_most(_sparse(tmp_path / "small", 10), 4096) == b"\0" * 10


def _new_with_table(t: Table, table_file: Path, game: str = "g2") -> object:
    _, rep = t.key("republic")
    _, emp = t.key("empire")
    return t.run_subprocess(
        "new", game, "--rules", "farrapos", "--player", f"republic={rep}", "--player", f"empire={emp}",
        "--table", f"{_a_table_name(t)}={table_file}",
    )  # fmt: skip


def _a_table_name(t: Table) -> str:
    r = t.run("tables", "farrapos")
    assert r.exit_code == 0, r.stderr
    return next(line.split()[0] for line in r.stdout.splitlines() if line.strip() and not line.startswith(" "))


def test_new_table_survives_deep_toml_and_huge_files(table: Table) -> None:
    t = _game(table)
    games_before = t.dump(skip=())
    deep = t.tmp / "deep.toml"
    deep.write_text("x = " + "[" * 100_000 + "]" * 100_000 + "\n")
    inline = t.tmp / "inline.toml"
    inline.write_text("x = " + "{a = " * 5_000 + "1" + "}" * 5_000 + "\n")
    big = _sparse(t.tmp / "big.toml", 1024**3)
    for path in (deep, inline, big):
        r = _new_with_table(t, path)
        assert r.returncode == 1, r.stderr  # type: ignore[attr-defined]
        stderr = str(r.stderr)  # type: ignore[attr-defined]
        assert "Traceback" not in stderr and len(stderr.strip().splitlines()) == 1, stderr
    assert "64 KiB" in r.stderr  # type: ignore[attr-defined]
    assert t.dump(skip=()) == games_before


# --- replies steered to a third party ------------------------------------------------

SPAM_SUBJECT = "BUY CHEAP WATCHES http://watches.example"


def test_replies_cannot_be_steered_to_a_third_party(table: Table) -> None:
    t = _game(table)
    forged_reply_to = _mail(
        "alice@example.org", "game: g1\nside: republic\n\nbuy now\n", "<forged-1@example.net>",
        subject=SPAM_SUBJECT, Reply_To="victim@stranger.example",
    )  # fmt: skip
    forged_from = _mail(
        "victim2@stranger.example", "game: g1\nside: empire\n\nbuy now\n", "<forged-2@example.net>",
        subject=SPAM_SUBJECT,
    )  # fmt: skip
    unknown_game = _mail(
        "victim3@stranger.example", "game: nosuch\nside: republic\n\nhello\n", "<forged-3@example.net>",
        subject=SPAM_SUBJECT, Return_Path="<bounces@sender.example>",
    )  # fmt: skip
    _, answers = _ingest(t, forged_reply_to.as_bytes(), forged_from.as_bytes(), unknown_game.as_bytes())
    to = sorted(str(a["To"]) for a in answers)
    assert to == ["alice@example.org", "bob@example.org", "bounces@sender.example"]
    assert not any("stranger.example" in str(a["To"]) for a in answers)
    subjects = {str(a["To"]): str(a["Subject"]) for a in answers}
    assert subjects["alice@example.org"] == "[pbem g1] turn file refused"
    assert subjects["bob@example.org"] == "[pbem g1] turn file refused"
    assert subjects["bounces@sender.example"] == "[pbem] message not understood"
    for a in answers:
        assert "WATCHES" not in a.as_string()
    assert t.count("refusal") == 3  # every message still kept with its reason


# --- a reused Message-ID ---------------------------------------------------------------


def test_reused_message_id_with_other_bytes_is_judged(table: Table) -> None:
    t = _game(table)
    decoy = _mail("mallory@example.net", "hello\n", "<alice-next@example.org>", subject="decoy")
    _ingest(t, decoy.as_bytes())
    orders = _mail("alice@example.org", _signed_orders(t).decode(), "<alice-next@example.org>")
    _, answers = _ingest(t, orders.as_bytes())
    assert t.count("submission") == 1  # the player's orders did not vanish
    receipts = [a for a in answers if a["Subject"] == "[pbem g1] turn file accepted"]
    assert len(receipts) == 1 and "alice@example.org" in str(receipts[0]["To"])


# --- a mail of many MIME parts -----------------------------------------------------


def test_many_mime_parts_parsed_once_and_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    import email.parser

    from pbem.mail import intake as mail_intake
    from pbem.mail import readers

    msg = EmailMessage()
    msg["From"] = "alice@example.org"
    msg["Subject"] = "parts"
    msg["Message-ID"] = "<parts@example.org>"
    msg.set_content("nothing here\n")
    for i in range(1500):
        msg.add_attachment(b"x", maintype="application", subtype="octet-stream", filename=f"p{i}.bin")
    raw = msg.as_bytes()
    parses: list[int] = []
    real = email.parser.BytesParser.parsebytes

    def counting(self, text, headersonly=False):  # type: ignore[no-untyped-def]
        if not headersonly:
            parses.append(len(text))
        return real(self, text, headersonly)

    monkeypatch.setattr(email.parser.BytesParser, "parsebytes", counting)
    import tempfile

    folder = Path(tempfile.mkdtemp())
    box = mailbox.Maildir(folder / "box", create=True)
    box.add(raw)

    def refuse(*_args: object) -> readers.SubmitOutcome:
        return readers.SubmitOutcome(False, ("x",))

    summary = readers.ingest_maildir(folder / "box", refuse, refuse, None, SENDER)
    (outcome,) = summary.outcomes
    assert any(f"over {mail_intake.MAX_PARTS} MIME parts" in line for line in outcome.lines)
    assert len([n for n in parses if n >= len(raw) - 10]) == 1  # the whole message parsed once


# --- a turn file written before a rollback ----------------------------------------------


def _awaiting(t: Table) -> list[str]:
    import json

    r = t.run("status", "g1", "--json")
    assert r.exit_code == 0, r.stderr
    return json.loads(r.stdout)["awaiting"]


def _sign_file(t: Table, path: Path, side: str) -> None:
    key, _ = t.key(side)
    assert t.run("sign", str(path), "--key", str(key)).exit_code == 0


def test_turn_file_written_before_a_rollback_says_so(table: Table) -> None:
    t = _game(table)
    for _ in range(2):
        assert t.run("process", "g1", "--force-nmr").exit_code == 0
    side = _awaiting(t)[0]
    stale = t.tmp / "stale.txt"
    assert t.run("orders", "g1", "--side", side, "-o", str(stale)).exit_code == 0  # for resolution 3
    _sign_file(t, stale, side)
    assert t.run("rollback", "g1", "--to", "1").exit_code == 0  # resolution 3 is awaited again, after 1's position
    r = t.run("submit", str(stale))
    assert r.exit_code == 1
    _one_clean_line(r.stderr)
    assert "set aside by the rollback of" in r.stderr and "to resolution 1" in r.stderr, r.stderr
    assert "write against the latest report" in r.stderr


# --- damaged archives given to pbem audit --archive --------------------------------------

PYTHON_WORDS = re.compile(r"TypeError|KeyError|AttributeError|IndexError|NoneType|object is not|\{'|Traceback")


@pytest.fixture(scope="module")
def played_archive(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """A real archive: a game of four resolutions with bots' signed orders."""
    import json

    folder = tmp_path_factory.mktemp("archive")
    t = _game(Table(folder, folder / "referee.db"))
    for n in range(4):
        for side in _awaiting(t):
            path = folder / f"t{n}-{side}.txt"
            assert (
                t.run("orders", "g1", "--side", side, "--bot", "random", "--seed", str(n), "-o", str(path)).exit_code
                == 0
            )
            _sign_file(t, path, side)
            assert t.run("submit", str(path)).exit_code == 0, path
        assert t.run("process", "g1").exit_code == 0
    assert t.run("rollback", "g1", "--to", "3").exit_code == 0
    assert t.run("process", "g1", "--force-nmr").exit_code == 0
    out = folder / "g1.json"
    assert t.run("export", "g1", "-o", str(out)).exit_code == 0
    archive = json.loads(out.read_text())
    assert archive["resolutions"] and archive["set_aside"]
    assert any(r["submissions"] for r in archive["resolutions"])
    return archive


def _paths(value: object, path: tuple = ()) -> list[tuple]:
    """Every path into a JSON document, (key or index, ...), but inside events and
    positions (their insides are compared whole, not read field by field)."""
    out = [path] if path else []
    if path and path[-1] in ("events", "tables", "result"):
        return out
    if isinstance(value, dict):
        for key, inner in value.items():
            out.extend(_paths(inner, (*path, key)))
    elif isinstance(value, list):
        for i, inner in enumerate(value[:3]):
            out.extend(_paths(inner, (*path, i)))
    return out


def _audit_archive_file(tmp: Path, archive: object) -> tuple[int, str]:
    import json

    from typer.testing import CliRunner

    from pbem.cli.application import app

    path = tmp / "damaged.json"
    path.write_text(json.dumps(archive))
    result = CliRunner().invoke(app, ["audit", "--archive", str(path)], catch_exceptions=False)
    return result.exit_code, result.stderr


def test_damaged_archive_names_the_broken_field(played_archive: dict, tmp_path: Path) -> None:
    import copy

    archive = copy.deepcopy(played_archive)
    roll_at = next(i for i, r in enumerate(archive["resolutions"]) if r["rolls"])
    archive["resolutions"][roll_at]["rolls"][0]["sides"] = None
    code, err = _audit_archive_file(tmp_path, archive)
    assert code == 1
    field = f"archive.resolutions[{roll_at}].rolls[0].sides"
    assert err == f"pbem: audit failed: archive is malformed: {field}: expected an integer, found null\n"
    archive = copy.deepcopy(played_archive)
    archive["set_aside"] = None
    code, err = _audit_archive_file(tmp_path, archive)
    assert (code, err) == (
        1,
        "pbem: audit failed: archive is malformed: archive.set_aside: expected a list, found null\n",
    )


MUTATIONS = ("delete", None, "text", 1.5, -1, [], {}, True, [None], {"k": None})


@settings(max_examples=int(os.environ.get("PBEM_FUZZ_EXAMPLES", "40")), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])  # fmt: skip
@given(data=st.data())
def test_fuzzed_archive_fields_end_in_one_line(played_archive: dict, tmp_path: Path, data: st.DataObject) -> None:
    path = data.draw(st.sampled_from(_paths(played_archive)), label="path")
    mutation = data.draw(st.sampled_from(MUTATIONS), label="mutation")
    _audit_says_one_line(tmp_path, _mutated(played_archive, path, mutation))


def _mutated(archive: dict, path: tuple, mutation: object) -> dict:
    """A copy of ``archive`` with the field at ``path`` deleted or replaced."""
    import copy

    archive = copy.deepcopy(archive)
    parent = archive
    for step in path[:-1]:
        parent = parent[step]
    if mutation == "delete":
        del parent[path[-1]]
    else:
        parent[path[-1]] = copy.deepcopy(mutation)
    return archive


def _audit_says_one_line(tmp_path: Path, archive: dict) -> None:
    """The audit passes, or fails in one line of its own words."""
    code, err = _audit_archive_file(tmp_path, archive)
    assert code in (0, 1), err
    assert not PYTHON_WORDS.search(err), err
    if code == 1:
        lines = err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("pbem: "), err


def test_mail_of_25000_parts_is_refused_before_parsing(monkeypatch: pytest.MonkeyPatch) -> None:
    import email.parser

    from pbem.mail import intake as mail_intake

    parts = "".join("--b\r\nContent-Type: text/plain\r\n\r\nx\r\n" for _ in range(25_000))
    raw = (
        "From: a@example.org\r\nSubject: parts\r\nMessage-ID: <p@example.org>\r\nMIME-Version: 1.0\r\n"
        f"Content-Type: multipart/mixed; boundary=b\r\n\r\n{parts}--b--\r\n"
    ).encode()
    whole: list[int] = []
    real = email.parser.BytesParser.parsebytes

    def counting(self, text, headersonly=False):  # type: ignore[no-untyped-def]
        if not headersonly:
            whole.append(len(text))
        return real(self, text, headersonly)

    monkeypatch.setattr(email.parser.BytesParser, "parsebytes", counting)
    read = mail_intake.read_message(raw)
    assert not whole  # never parsed whole
    assert read.problems and "over 1000 MIME parts: not read" in read.problems[0]
    assert read.sender == "a@example.org" and read.message_id == "<p@example.org>"


@pytest.mark.parametrize(
    ("path", "mutation"),
    [
        (("format",), {"k": None}),
        (("final", "result"), {"k": None}),
        (("set_aside", 0, "resolutions", 0, "label"), "delete"),
        (("set_aside", 0, "resolutions", 0, "label"), {"k": None}),
    ],
)
def test_archive_fields_the_fuzz_found_end_in_one_line(
    played_archive: dict, tmp_path: Path, path: tuple, mutation: object
) -> None:
    """The cases the fuzzing above once found: a value read from the archive is
    shown as JSON (never Python's notation), and a set-aside resolution's label is
    checked or done without."""
    _audit_says_one_line(tmp_path, _mutated(played_archive, path, mutation))


def test_a_claim_of_an_ended_process_on_this_host_is_taken_at_once(table: Table) -> None:
    """A ``serve`` killed between claim and mark: started again on the same host, it
    finds the holder's process gone and sends the row without waiting out the lease."""
    import socket
    import subprocess
    import sys
    from datetime import timedelta

    from pbem import store
    from pbem.mail import outbox

    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    gone = f"{socket.gethostname()[:40]}:{int(done.stdout)}:0badc0de"
    live = f"{socket.gethostname()[:40]}:{os.getppid()}:0badc0de"
    elsewhere = f"another-host:{int(done.stdout)}:0badc0de"
    assert outbox.ended(gone) and not outbox.ended(live) and not outbox.ended(elsewhere)
    assert not outbox.ended(outbox.holder_id()) and not outbox.ended("no holder")
    t = _game(table)
    engine = store.open_engine(str(t.db), create=False)
    try:
        rows = outbox.rows(engine, outbox.PENDING)
        now = store.utcnow()
        for row, holder in zip(rows, (gone, live, elsewhere)):
            assert outbox.claim(engine, row, holder, now)
        soon = now + timedelta(seconds=5)
        taken = [outbox.claim(engine, row, "restarted", soon) for row in rows[:3]]
        assert taken == [True, False, False]
    finally:
        engine.dispose()
