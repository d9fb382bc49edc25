"""`pbem check FILE --position POSFILE`: a player far from the referee gets the
referee's verdict from nothing but the files mailed with a report."""

from __future__ import annotations

import email
import email.policy
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pbem.cli.application import app
from pbem.turnfiles import keys, sshsig
from tests.conftest import Table
from tests.support.mail_game import game_with_mail

pytestmark = pytest.mark.usefixtures("maps_drawn_once")


def _player(*args: str) -> tuple[int, str, str]:
    """The CLI as a player runs it: no --db, in the player's own folder."""
    result = CliRunner().invoke(app, list(args), catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def _mailed_attachments(t: Table, port: int, handler, folder: Path) -> list[str]:
    r = t.run("send", "mail1", "--turn", "0", "--smtp", f"127.0.0.1:{port}", "--sender", "referee@example.org")
    assert r.exit_code == 0, r.stderr
    mails = [email.message_from_bytes(m, policy=email.policy.default) for m in handler.messages]
    to_republic = next(m for m in mails if m["To"] == "alice@example.org")
    folder.mkdir()
    for part in to_republic.iter_attachments():
        (folder / part.get_filename()).write_bytes(part.get_payload(decode=True))
    return sorted(p.name for p in folder.iterdir())


def _sign(path: Path, key: Path) -> None:
    path.write_bytes(path.read_bytes() + sshsig.sign(path.read_bytes(), keys.load_private_key(key)).encode())


def test_the_mailed_attachments_alone_give_the_referees_verdict(
    table: Table, smtp_server, monkeypatch: pytest.MonkeyPatch
) -> None:
    t = game_with_mail(table)
    handler, port = smtp_server
    player = t.tmp / "player"
    assert _mailed_attachments(t, port, handler, player) == ["mail1-r0.position.json", "turn-mail1-1-republic.txt"]
    template = player / "turn-mail1-1-republic.txt"
    position = json.loads((player / "mail1-r0.position.json").read_text())
    assert position["format"] == "pbem-position/1" and position["turn"] == 1
    assert f"state: {position['state']}" in template.read_text(), "the template's state is the position file's hash"

    filled = t.tmp / "bot.txt"
    assert t.run("orders", "mail1", "--side", "republic", "--bot", "greedy", "-o", str(filled)).exit_code == 0
    orders = filled.read_text().split("\n\n", 1)[1]
    cases = {
        "good.txt": (template.read_text() + orders, "republic"),
        "bad.txt": (template.read_text() + "attack nowhere from bage with inf-1\n", "republic"),
        "wrong-key.txt": (template.read_text() + orders, "empire"),
        "stale.txt": (template.read_text().replace("turn: 1", "turn: 0") + orders, "republic"),
    }
    monkeypatch.delenv("PBEM_DB", raising=False)
    monkeypatch.chdir(player)
    for name, (text, signer) in cases.items():
        path = player / name
        path.write_text(text)
        _sign(path, t.key(signer)[0])
        referee = t.run("check", str(path))
        offline = _player("check", str(path), "--position", "mail1-r0.position.json")
        assert offline == (referee.exit_code, referee.stdout, referee.stderr), name
        assert (offline[0] == 0) == (name == "good.txt"), offline
    assert not (player / "pbem.db").exists() and sorted(p.suffix for p in player.iterdir()).count(".db") == 0


def test_reports_written_by_process_carry_the_position_file_and_the_template(
    new_farrapos, monkeypatch: pytest.MonkeyPatch
) -> None:
    t = new_farrapos("g1")
    folder = t.tmp / "reports"
    r = t.run("process", "g1", "--force-nmr", "--reports", str(folder))
    assert r.exit_code == 0, r.stderr
    written = sorted(p.name for p in (folder / "g1").iterdir())
    assert "g1-r1.position.json" in written
    assert "turn-g1-2-empire.txt" in written, "the side due to move gets its template beside its report"
    template = "turn-g1-2-empire.txt"
    html = (folder / "g1" / "report-k1-empire.html").read_text()
    assert 'download="g1-r1.position.json"' in html and f'download="{template}"' in html
    monkeypatch.delenv("PBEM_DB", raising=False)
    monkeypatch.chdir(folder / "g1")
    code, out, err = _player("check", template, "--position", "g1-r1.position.json")
    assert (code, err) == (0, "")
    assert (
        out == "turn-g1-2-empire.txt: OK: g1, empire, resolution 2 - 1835, turn 2 (Empire); 0 order(s); not signed "
        "(signature not checked)\n"
    )


def test_offline_check_messages(new_farrapos, monkeypatch: pytest.MonkeyPatch) -> None:
    t = new_farrapos("g1")
    folder = t.tmp / "player"
    folder.mkdir()
    turn = folder / "turn.txt"
    assert t.run("orders", "g1", "--side", "republic", "-o", str(turn)).exit_code == 0
    monkeypatch.delenv("PBEM_DB", raising=False)
    monkeypatch.chdir(folder)

    assert _player("check", "turn.txt") == (
        1,
        "",
        "pbem: no referee's database here: a player checks offline with "
        "'pbem check turn.txt --position G-rK.position.json' (the position file attached to the latest report)\n",
    )
    Path("g1-r0.position.json").write_text('{"format": "pbem-archive/1"}')
    assert _player("check", "turn.txt", "--position", "g1-r0.position.json") == (
        1,
        "",
        "pbem: g1-r0.position.json: not a position file (format 'pbem-archive/1', expected 'pbem-position/1'; "
        "it is the G-rK.position.json attached to a report)\n",
    )
    assert _player("check", "turn.txt", "--position", "nowhere.json") == (1, "", "pbem: nowhere.json: no such file\n")


def test_a_changed_position_file_is_refused(table: Table, smtp_server, monkeypatch: pytest.MonkeyPatch) -> None:
    t = game_with_mail(table)
    handler, port = smtp_server
    player = t.tmp / "player"
    _mailed_attachments(t, port, handler, player)
    kept = player / "mail1-r0.position.json"
    data = json.loads(kept.read_text())
    data["position"]["year"] = 1844
    kept.write_text(json.dumps(data))
    monkeypatch.chdir(player)
    code, out, err = _player("check", "turn-mail1-1-republic.txt", "--position", kept.name)
    assert (code, out) == (1, "")
    assert (
        err == f"pbem: mail1-r0.position.json: its position does not hash to its state {data['state']}; the file was "
        "changed after the referee wrote it\n"
    )
