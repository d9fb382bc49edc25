"""People joining and leaving a long game, through the CLI on a real SQLite file
and a real SMTP server (aiosmtpd): civil disorder played by the greedy bot and
audited, a side handed to a new player with a welcome, the old key refused, and
observers sent the public reports."""

from __future__ import annotations

import json
from email.message import EmailMessage

import pytest

from pbem.turnfiles import keys, sshsig
from tests.conftest import Table
from tests.support.mailkit import SmtpServer
from tests.support.referee_game import EMP, REFEREE, REP, game, outbox, rows

pytestmark = pytest.mark.usefixtures("maps_drawn_once")

NEW = "newcomer@example.org"
WATCHER = "carol@example.org"


def _parts(msg: EmailMessage) -> dict[str, str]:
    """Each part's content type (or attachment name) and its text."""
    out = {}
    for part in msg.walk():
        if part.is_multipart():
            continue
        name = part.get_filename() or part.get_content_type()
        payload = part.get_content()
        out[name] = payload.decode("utf-8", "replace") if isinstance(payload, bytes) else payload
    return out


def _sign(table: Table, path: str, who: str) -> None:
    private, _ = table.key(who)
    assert table.run("sign", path, "--key", str(private)).exit_code == 0


def test_a_side_missing_its_deadlines_is_played_by_the_greedy_bot_audited_until_handed_over(
    table: Table,
    smtp: SmtpServer,
) -> None:
    game(table, "g1", "--civil-disorder", "2")
    for _ in range(3):  # republic misses 1 and 3, empire misses 2: republic reaches 2 at resolution 3
        assert table.run("process", "g1", "--force-nmr").exit_code == 0
    assert rows(table, "SELECT side, from_k, until_k FROM civil_disorder") == [("republic", 3, None)]
    assert [r[0] for r in rows(table, "SELECT k FROM bot_turn WHERE side = 'republic'")] == [3]
    status = json.loads(table.run("status", "g1", "--json").stdout)
    assert status["civil_disorder"] == {"republic": 3}
    report = table.run("report", "g1", "--side", "empire", "--format", "text", "-o", str(table.tmp / "r3.txt"))
    assert report.exit_code == 0, report.stderr
    assert (
        "republic is in civil disorder since resolution 3: its orders are written by the greedy bot"
        in (table.tmp / "r3.txt").read_text()
    )

    # the archive records the bot's orders; the audit regenerates them; a changed order is caught
    assert table.run("export", "g1", "-o", str(table.tmp / "a.json")).exit_code == 0
    archive = json.loads((table.tmp / "a.json").read_text())
    entry = archive["resolutions"][2]["civil_disorder"][0]
    assert (
        entry["side"] == "republic"
        and entry["bot"] == "greedy"
        and entry["bot_seed"] == "pbem-civil-disorder/g1/3/republic"
    )
    assert archive["allowances"] == {"civil_disorder": 2}
    audit = table.run("audit", "--archive", str(table.tmp / "a.json"))
    assert audit.exit_code == 0, audit.stderr
    assert "civil disorder:       republic from resolution 3 (still)" in audit.stdout
    entry["orders"] = "# nothing\n"
    (table.tmp / "bad.json").write_text(json.dumps(archive))
    bad = table.run("audit", "--archive", str(table.tmp / "bad.json"))
    assert bad.exit_code == 1 and "greedy bot writes other orders than the archive's" in bad.stderr

    # a new player takes the side over: civil disorder ends, the welcome is mailed
    _, old_pub = table.key("republic")
    _, new_pub = table.key("newcomer")
    r = table.run("player", "g1", "republic", "--key", str(new_pub), "--email", NEW)
    assert r.exit_code == 0, r.stderr
    assert "civil disorder ends" in r.stdout
    assert rows(table, "SELECT until_k, ended_by FROM civil_disorder") == [(4, "player")]
    assert table.run("tick", "--smtp", smtp.address, "--sender", REFEREE).exit_code == 0
    welcome = [m for m in smtp.handler.parsed() if "welcome" in str(m["Subject"])]
    assert len(welcome) == 1 and welcome[0]["To"] == NEW
    parts = _parts(welcome[0])
    assert "you now play the republic side" in parts["text/plain"] and "How to play" in parts["text/plain"]
    assert 'id="welcome"' in parts["text/html"] and "resolution 3" in parts["text/html"]
    assert "g1-r3.position.json" in parts

    # the old key is refused, naming it; the new one is accepted (republic is due at 5)
    assert table.run("process", "g1", "--force-nmr").exit_code == 0
    turn = table.tmp / "t.txt"
    assert table.run("orders", "g1", "--side", "republic", "-o", str(turn)).exit_code == 0
    old_private, _ = table.key("republic")
    (table.tmp / "t.txt.sig").write_text(sshsig.sign(turn.read_bytes(), keys.load_private_key(old_private)))
    refused = table.run("submit", str(turn))
    assert refused.exit_code == 1
    assert "signed by the previous republic key" in refused.stderr and "replaced on 20" in refused.stderr
    _sign(table, str(turn), "newcomer")
    accepted = table.run("submit", str(turn))
    assert accepted.exit_code == 0, accepted.stderr
    assert table.run("audit", "g1").exit_code == 0


def test_a_signed_file_from_the_side_ends_civil_disorder(table: Table) -> None:
    game(table, "g1", "--civil-disorder", "1")
    assert table.run("process", "g1", "--force-nmr").exit_code == 0  # republic: bot from resolution 1
    assert rows(table, "SELECT side, from_k FROM civil_disorder") == [("republic", 1)]
    assert table.run("process", "g1", "--force-nmr").exit_code == 0  # empire, likewise
    turn = table.tmp / "t.txt"
    assert table.run("orders", "g1", "--side", "republic", "-o", str(turn)).exit_code == 0
    _sign(table, str(turn), "republic")
    assert table.run("submit", str(turn)).exit_code == 0
    out = table.run("process", "g1")
    assert out.exit_code == 0 and "civil disorder" not in out.stdout
    assert rows(table, "SELECT side, until_k, ended_by FROM civil_disorder ORDER BY id") == [
        ("republic", 3, "file"),
        ("empire", None, None),
    ]
    assert table.run("audit", "g1").exit_code == 0


def test_civil_disorder_settings_are_checked(table: Table) -> None:
    game(table, "g1")
    before = table.dump()
    bad = table.run("game", "set", "g1", "civil-disorder=often")
    assert bad.exit_code == 1 and bad.stderr.strip().startswith("pbem: civil-disorder is a number")
    assert table.dump() == before
    ok = table.run("game", "set", "g1", "civil-disorder=3")
    assert ok.exit_code == 0 and "after 3 missed deadline(s)" in ok.stdout
    assert rows(table, "SELECT civil_disorder FROM game_allowance") == [(3,)]


def test_observers_get_public_reports_and_never_submit(table: Table, smtp: SmtpServer) -> None:
    _, huns = table.key("huns")
    _, romans = table.key("romans")
    made = table.run(
        "new", "cm", "--rules", "furor-barbarus", "--scenario", "campus-mauriacus",
        "--player", f"huns={huns}", "--player", f"romans={romans}",
        "--email", f"huns={REP}", "--email", f"romans={EMP}",
    )  # fmt: skip
    assert made.exit_code == 0, made.stderr
    before = table.dump()
    for bad, why in ((["add", "cm", "not an address"], "observer address"), (["add", "cm", REP], "huns player")):
        r = table.run("observer", *bad)
        assert r.exit_code == 1 and why in r.stderr, r.stderr
    assert table.dump() == before
    assert table.run("observer", "add", "cm", WATCHER).exit_code == 0
    assert table.run("observer", "add", "cm", WATCHER).exit_code == 1
    assert WATCHER in table.run("observer", "list", "cm").stdout

    # resolution 1: the Huns set up their units; then a file of their secret commanders is refused
    turn = table.tmp / "h1.txt"
    assert table.run("orders", "cm", "--side", "huns", "-o", str(turn)).exit_code == 0
    _sign(table, str(turn), "huns")
    assert table.run("submit", str(turn)).exit_code == 0
    assert table.run("process", "cm").exit_code == 0
    secret = table.tmp / "h2.txt"
    assert table.run("orders", "cm", "--side", "huns", "-o", str(secret)).exit_code == 0
    with secret.open("a") as f:
        f.write("place attila 9999\n")
    _sign(table, str(secret), "huns")
    assert table.run("submit", str(secret)).exit_code == 1
    referee_view = table.tmp / "referee.txt"
    assert table.run("report", "cm", "--turn", "1", "--format", "text", "-o", str(referee_view)).exit_code == 0
    assert "9999" in referee_view.read_text(), "the referee's view shows the Huns' refused file"

    # an observer's file is a stranger's: refused
    _, stranger = table.key("carol")
    stranger_turn = table.tmp / "c.txt"
    assert table.run("orders", "cm", "--side", "romans", "-o", str(stranger_turn)).exit_code == 0
    _sign(table, str(stranger_turn), "carol")
    r = table.run("submit", str(stranger_turn))
    assert r.exit_code == 1 and "unknown key" in r.stderr

    assert table.run("tick", "--smtp", smtp.address, "--sender", REFEREE).exit_code == 0
    watched = [m for m in smtp.handler.parsed() if m["To"] == WATCHER]
    assert [str(m["Subject"]) for m in watched] == ["[pbem cm] resolution 1 - set-up, step 1 of 2: report (observer)"]
    parts = _parts(watched[0])
    assert "Report for an observer" in parts["text/plain"]
    assert "9999" not in parts["text/plain"] and "9999" not in parts["text/html"]
    assert "PROBLEMS WITH THE ORDERS" not in parts["text/plain"]
    status = json.loads(table.run("status", "cm", "--json").stdout)
    assert status["observers"] == 1
    assert [o["kind"] for o in outbox(table) if o["to"] == WATCHER] == ["observer"]

    assert table.run("observer", "remove", "cm", WATCHER).exit_code == 0
    assert table.run("export", "cm", "-o", str(table.tmp / "cm.json")).exit_code == 0
    archived = json.loads((table.tmp / "cm.json").read_text())["observers"]
    assert len(archived) == 1 and archived[0]["from_k"] == 1 and archived[0]["until_k"] == 2
    assert WATCHER not in (table.tmp / "cm.json").read_text()
