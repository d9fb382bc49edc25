"""The player's side: every message a player meets, as sqlite-utils
tests it: the real CLI on a real SQLite file, the exit status and the exact text.

Each message names its line in the whole file, quotes it, says what is wrong and
what would be accepted; suggestions tolerate case, spaces, underscores and
accents, and offer only what is legal there.
"""

from __future__ import annotations

import email
import email.policy
import json
import mailbox
import sqlite3
from email.message import EmailMessage
from pathlib import Path

import pytest

from pbem.turnfiles import keys, sshsig
from tests.conftest import Table
from tests.support.furor_barbarus_test_map import RULES as FONTENOY
from tests.support.furor_barbarus_test_map import position as fontenoy

HEADER_LINES = 6  # game, rules, side, turn, state, blank: the first order is line 7


@pytest.fixture
def desk(table: Table) -> Table:
    """Two games: Farrapos g1 (republic to move) and Furor Barbarus cm
    (Campus Mauriacus, set-up)."""
    _, a = table.key("alice")
    _, b = table.key("bob")
    for args in (
        ["g1", "--rules", "farrapos", "--player", f"republic={a}", "--player", f"empire={b}"],
        [
            "cm",
            "--rules",
            "furor-barbarus",
            "--scenario",
            "campus-mauriacus",
            "--player",
            f"romans={a}",
            "--player",
            f"huns={b}",
        ],
    ):
        r = table.run("new", *args)
        assert r.exit_code == 0, r.stderr
    return table


def turn_file(t: Table, game: str, side: str, body: str) -> Path:
    """The header ``pbem orders`` writes, then ``body`` from line 7."""
    path = t.tmp / f"{game}-{side}.txt"
    assert t.run("orders", game, "--side", side, "-o", str(path)).exit_code == 0
    header = path.read_text().split("\n")[:HEADER_LINES]
    path.write_text("\n".join(header) + "\n" + body + "\n")
    return path


def check(t: Table, game: str, side: str, body: str) -> tuple[int, str]:
    r = t.run("check", str(turn_file(t, game, side, body)))
    return r.exit_code, r.stderr


# ----------------------------------------------------------------- Farrapos

FARRAPOS = [
    pytest.param(
        "pass\nmove inf-5 from bage to cangucu",
        "pbem: line 8: 'move inf-5 from bage to cangucu': a turn is one action (one attack, one invade, move lines, "
        "or pass) and 'pass' above already gives this turn's action ('pass')",
        id="a second action names the first by its text, on the right line",
    ),
    pytest.param(
        "move cav-9 from bage to sao-gabriel",
        "pbem: line 7: 'move cav-9 from bage to sao-gabriel': unknown MU 'cav-9'; the Republic MU in bage are: "
        "cav-3, cav-4, inf-5, inf-6 (did you mean cav-4, cav-3?)",
        id="unknown MU: suggestions only from the MU in that city",
    ),
    pytest.param(
        "attack porto alegre from triunfo with inf-1",
        "",  # the name as the map prints it is the city (rules/names.py)
        id="a city typed with a space",
    ),
    pytest.param(
        "attack Porto_Alegre from triunfo with inf-1",
        "",
        id="a city typed with capitals and an underscore",
    ),
    pytest.param(
        "attack porto-alegre from triunfo with inf-1\ninvade Rio Pardo from triunfo with inf-2",
        "pbem: line 8: 'invade Rio Pardo from triunfo with inf-2': a turn is one action (one attack, one invade, "
        "move lines, or pass) and 'attack porto-alegre from triunfo with inf-1' above already gives this turn's "
        "action ('attack')",
        id="the one-action rule comes before the name",
    ),
    pytest.param(
        "place pelotas inf-7",
        "pbem: line 7: 'place pelotas inf-7': the MU come first, then the city: 'place inf-7 pelotas'; the form "
        "is: place MU... CITY",
        id="place with the city first",
    ),
    pytest.param(
        "attack porto-alegre from triunfo with inf-1 rounds",
        "pbem: line 7: 'attack porto-alegre from triunfo with inf-1 rounds': 'rounds' needs a number of 1 or "
        "more after it (e.g. 'rounds 2')",
        id="rounds without its number",
    ),
    pytest.param(
        "invade rio-pardo from triunfo with militia",
        "pbem: line 7: 'invade rio-pardo from triunfo with militia': Militia have no MF: a Militia counter stays "
        "in the "
        "city it was deployed in and only defends it; the Republic MU in triunfo are: art-1, cav-1, inf-1, inf-2",
        id="militia in an invasion",
    ),
    pytest.param(
        "move art-1 from triunfo to cachoeira",
        "pbem: line 7: 'move art-1 from triunfo to cachoeira': art-1 cannot reach cachoeira from triunfo within "
        "MF 1 by "
        "path lines the Empire does not hold; they can reach: none (a move, c, ends in a city with no direct "
        "link to its "
        "origin, so it is at least 2 path lines long; art-1 with MF 1 enters a linked city only by an attack, a, "
        "or an invasion, b)",
        id="an artillery move says why nothing is in reach",
    ),
    pytest.param(
        "defend rio-grande losses inf-3",
        "pbem: line 7: 'defend rio-grande losses inf-3': the Republic does not hold rio-grande, so it has no "
        "defence there "
        "to order; the Republic holds: triunfo, pelotas, bage",
        id="a standing loss order for a city the side does not hold",
    ),
    pytest.param(
        "militia pelotás",
        "pbem: line 7: 'militia pelotás': a Militia deploys in a city of one's possession with no MU and no Militia; "
        "for the Republic after this turn's action those are (or may be, after the battle): none",
        id="an accent is folded: the city is pelotas, where no Militia may deploy",
    ),
]


@pytest.mark.parametrize("body,message", FARRAPOS)
def test_farrapos_messages(desk: Table, body: str, message: str) -> None:
    assert check(desk, "g1", "republic", body) == ((1, message + "\n") if message else (0, ""))


# ------------------------------------------------------------ Furor Barbarus

FUROR_SETUP = [
    pytest.param(
        "place aetuis 1705",
        "pbem: line 7: 'place aetuis 1705': unknown unit 'aetuis'; the units you place are: aetius, burgundians, "
        "franks, "
        "armoricans, saxons, roman-1, roman-2, roman-3, sangiban, alan-1, alan-2, alan-3, theodoric, visigoth-1, "
        "visigoth-2, "
        "visigoth-3, visigoth-4, visigoth-5, visigoth-6, visigoth-7, visigoth-8, visigoth-9, visigoth-10 (did "
        "you mean aetius?)",
        id="a misspelt unit",
    ),
    pytest.param(
        "standing advanc yes",
        "pbem: line 7: 'standing advanc yes': unknown standing order 'advanc'; the standing orders are: advance, "
        "losses, "
        "retreat, impetuous-target (did you mean advance?)",
        id="an unknown standing key",
    ),
    pytest.param(
        "standing breton-evasion no",
        "pbem: line 7: 'standing breton-evasion no': unknown standing order 'breton-evasion'; the standing orders are: "
        "advance, losses, retreat, impetuous-target",
        id="another scenario's standing key",
    ),
    pytest.param(
        "standing impetuous-target Weak",
        "pbem: line 7: 'standing impetuous-target Weak': 'standing impetuous-target' takes strongest or weakest, "
        "not 'weak' "
        "(did you mean weakest?)",
        id="a standing value the key does not take",
    ),
    pytest.param(
        "standing advance maybe",
        "pbem: line 7: 'standing advance maybe': 'standing advance' takes yes or no, not 'maybe'",
        id="standing advance is yes or no",
    ),
]


def huns_set_up(t: Table) -> None:
    """Campus Mauriacus sets up in steps: the Huns first (a bot's set-up), then the Romans."""
    path = t.tmp / "huns-setup.txt"
    assert t.run("orders", "cm", "--side", "huns", "--bot", "random", "-o", str(path)).exit_code == 0
    assert t.run("sign", str(path), "--key", str(t.key("bob")[0])).exit_code == 0
    assert t.run("submit", str(path)).exit_code == 0
    assert t.run("process", "cm").exit_code == 0


@pytest.mark.parametrize("body,message", FUROR_SETUP)
def test_furor_barbarus_messages(desk: Table, body: str, message: str) -> None:
    huns_set_up(desk)
    assert check(desk, "cm", "romans", body) == (1, message + "\n")


def test_a_standing_value_of_vouille_is_yes_no_or_off_map(desk: Table) -> None:
    _, a = desk.key("alice")
    _, b = desk.key("bob")
    assert (
        desk.run(
            "new",
            "v1",
            "--rules",
            "furor-barbarus",
            "--scenario",
            "vouille",
            "--player",
            f"franks={a}",
            "--player",
            f"visigoths={b}",
        ).exit_code
        == 0
    )
    assert check(desk, "v1", "franks", "standing breton-evasion maybe") == (
        1,
        "pbem: line 7: 'standing breton-evasion maybe': 'standing breton-evasion' takes yes or no or off-map, "
        "not 'maybe'\n",
    )
    assert check(desk, "v1", "franks", "standing breton-evasion no")[0] == 0
    assert check(desk, "v1", "franks", "standing breton-evasion off-map")[0] == 0


def test_advance_names_a_hand_to_hand_attacker_not_one_firing_at_range() -> None:
    pos = fontenoy({"neustrie": "0404", "bowmen": "0402", "bourgogne": "0403"})
    orders, _ = FONTENOY.parse_orders("attack neustrie with bourgogne bowmen advance bowmen")
    assert [(p.line, p.message) for p in FONTENOY.validate(pos, "lothaire", orders)] == [
        (
            1,
            "bowmen fires at range, and only a hand-to-hand attacker advances after combat (9.11); the "
            "hand-to-hand attackers are: bourgogne",
        ),
    ]
    orders, _ = FONTENOY.parse_orders("attack neustrie with bourgogne bowmen advance bourgogne")
    assert FONTENOY.validate(pos, "lothaire", orders) == []


# ------------------------------------------------------------- pbem new

NEW = [
    pytest.param(
        ["--rules", "furor-barbarus", "--scenario", "campus-mauriacu"],
        "pbem: unknown scenario 'campus-mauriacu' for furor-barbarus (scenarios: campus-mauriacus, soissons, "
        "tolbiac, vouille) "
        "(did you mean campus-mauriacus?)",
        id="unknown scenario: no path, the scenarios listed",
    ),
    pytest.param(
        ["--rules", "furor-barbarus"],
        "pbem: furor-barbarus has 4 scenarios: choose one with --scenario (campus-mauriacus, soissons, tolbiac, "
        "vouille)",
        id="no --scenario where there are several",
    ),
    pytest.param(
        ["--rules", "Furor Barbarus"],
        "pbem: unknown rules 'Furor Barbarus' (rules: farrapos, furor-barbarus) (did you mean furor-barbarus?)",
        id="unknown rules",
    ),
    pytest.param(
        ["--rules", "farrapos", "--option", "Siege"],
        "pbem: unknown option 'Siege' for farrapos (options: port-transport, siege) (did you mean siege?)",
        id="unknown option",
    ),
]


@pytest.mark.parametrize("args,message", NEW)
def test_new_messages(table: Table, args: list[str], message: str) -> None:
    _, a = table.key("alice")
    r = (
        table.run("new", "x", *args, "--player", f"romans={a}", "--player", f"huns={a}")
        if "farrapos" not in args
        else table.run("new", "x", *args, "--player", f"republic={a}", "--player", f"empire={a}")
    )
    assert (r.exit_code, r.stderr) == (1, message + "\n")
    assert not table.db.exists() or table.count("game") == 0


# ------------------------------------------------------------------- keys


def test_a_public_key_given_to_sign_is_named_as_such(desk: Table) -> None:
    _, public = desk.key("alice")
    path = turn_file(desk, "g1", "republic", "pass")
    r = desk.run("sign", str(path), "--key", str(public))
    assert (r.exit_code, r.stderr) == (
        1,
        f"pbem: key file '{public}' is a public key, not a private one: sign with your private key file "
        f"'{str(public)[:-4]}' (the same name without .pub)\n",
    )


def test_a_private_key_given_as_a_player_key_is_named_as_such(table: Table) -> None:
    private, public = table.key("alice")
    r = table.run("new", "g1", "--rules", "farrapos", "--player", f"republic={private}", "--player", f"empire={public}")
    assert (r.exit_code, r.stderr) == (
        1,
        "pbem: public key for republic: this is a private key, not a public one: give its .pub file "
        "(and keep the private key to yourself)\n",
    )


# --------------------------------------------------------- signatures


def test_a_rewrapped_inline_signed_file_is_named_as_rewrapped(desk: Table) -> None:
    """The template pasted into a mail, signed, then wrapped by the mail client."""
    path = desk.tmp / "turn.txt"
    assert desk.run("orders", "g1", "--side", "republic", "-o", str(path)).exit_code == 0
    long_comment = "# " + "a comment a player wrote, long enough for a mail client to wrap it " * 2
    path.write_text(path.read_text() + long_comment + "\npass\n")
    assert desk.run("sign", str(path), "--key", str(desk.key("alice")[0]), "--inline").exit_code == 0
    signed = path.read_text()
    cut = signed.index(long_comment) + 72
    cut = signed.rindex(" ", 0, cut)
    path.write_text(signed[:cut] + "\n" + signed[cut + 1 :])  # the client breaks the line at a space
    wrapped_line = signed[:cut].count("\n") + 2
    r = desk.run("submit", str(path))
    assert (r.exit_code, r.stderr) == (
        1,
        f"pbem: signature refused: signature does not match the file, and the file looks re-wrapped by a mail client "
        f"(line {wrapped_line} continues the line before it); send the turn file as an attachment with its .sig, "
        f"or sign it again and paste it with no line over 72 columns\n",
    )


# ------------------------------------------------------------ templates


@pytest.mark.parametrize("game,side", [("g1", "republic"), ("cm", "romans"), ("cm", "huns")])
def test_templates_fit_in_72_columns(desk: Table, game: str, side: str) -> None:
    if side == "romans":
        huns_set_up(desk)
    r = desk.run("orders", game, "--side", side)
    assert r.exit_code == 0
    assert max(len(line) for line in r.stdout.splitlines()) <= 72


def test_furor_barbarus_set_up_template_gives_strengths_and_every_standing_order(desk: Table) -> None:
    huns_set_up(desk)
    text = desk.run("orders", "cm", "--side", "romans").stdout
    assert (
        "#   burgundians (infantry 3, 4 MP), franks (infantry 3, 4 MP),\n#     armoricans (infantry 3, 4 MP), "
        "saxons (infantry 2, 4 MP) -> 1705\n" in text
    )
    for form in (
        "standing advance yes|no",
        "standing losses UNIT,UNIT,...",
        "standing retreat HEX,HEX,...",
        "standing impetuous-target strongest|weakest",
    ):
        assert f"#   {form}\n" in text


def test_furor_barbarus_play_template_lists_the_special_orders(desk: Table) -> None:
    signer = {"romans": "alice", "huns": "bob"}
    for _ in range(4):  # the set-up steps, each side's bot in turn
        status = json.loads(desk.run("status", "cm", "--json").stdout)
        if "set-up" not in status["label"]:
            break
        for side in status["awaiting"]:
            path = desk.tmp / f"{side}-{status['turn']}.txt"
            assert desk.run("orders", "cm", "--side", side, "--bot", "random", "-o", str(path)).exit_code == 0
            assert desk.run("sign", str(path), "--key", str(desk.key(signer[side])[0])).exit_code == 0
            assert desk.run("submit", str(path)).exit_code == 0
        assert desk.run("process", "cm").exit_code == 0
    due = json.loads(desk.run("status", "cm", "--json").stdout)["awaiting"][0]
    text = desk.run("orders", "cm", "--side", due).stdout
    assert "# special feigned-flight UNIT TARGET [HEX HEX]\n" in text
    assert "#   standing impetuous-target strongest|weakest\n" in text


# -------------------------------------------------- unknown games, process


@pytest.mark.parametrize(
    "args",
    [
        ["status", "nosuch"],
        ["orders", "nosuch", "--side", "republic"],
        ["dice", "nosuch"],
        ["export", "nosuch", "-o", "x.json"],
        ["audit", "nosuch"],
        ["rollback", "nosuch", "--to", "0"],
        ["report", "nosuch", "-o", "x.html"],
        ["process", "nosuch"],
        ["process", "g1", "nosuch"],
    ],
)
def test_an_unknown_game_is_named_with_the_games_there(desk: Table, args: list[str]) -> None:
    before = desk.dump()
    r = desk.run(*args)
    assert (r.exit_code, r.stdout, r.stderr) == (1, "", "pbem: no game 'nosuch' (games: cm, g1)\n")
    assert desk.dump() == before


def test_process_counts_finished_games_apart(desk: Table) -> None:
    con = sqlite3.connect(desk.db)
    with con:
        con.execute(
            "UPDATE game SET over = 1, result = ? WHERE id = 'cm'",
            (
                json.dumps(
                    {
                        "kind": "major_victory",
                        "winner": "romans",
                        "reason": "Huns' losses 37 against a threshold of 29 (rule 10)",
                    }
                ),
            ),
        )
    con.close()
    r = desk.run("process", "--all")
    assert (r.exit_code, r.stdout) == (0, "g1: awaiting republic\n0 resolution(s) made, 1 game(s) waiting\n")
    r = desk.run("process", "cm", "g1")
    assert (r.exit_code, r.stdout) == (
        0,
        "cm: game over\ng1: awaiting republic\n0 resolution(s) made, 1 game(s) waiting, 1 game(s) over\n",
    )


# ---------------------------------------------------- outcomes and scores


def test_outcome_and_score_in_plain_words(desk: Table) -> None:
    r = desk.run("status", "cm")
    assert r.stdout.splitlines()[1:3] == [
        "  huns: losses 0 against a threshold of 29",
        "  romans: losses 0 against a threshold of 30",
    ]
    report = desk.tmp / "r.txt"
    assert desk.run("report", "cm", "--side", "romans", "--format", "text", "-o", str(report)).exit_code == 0
    assert "\nSCORE (losses (lower is better))\n" in report.read_text()
    con = sqlite3.connect(desk.db)
    with con:
        con.execute(
            "UPDATE game SET over = 1, result = ? WHERE id = 'cm'",
            (
                json.dumps(
                    {
                        "kind": "major_victory",
                        "winner": "romans",
                        "reason": "Huns' losses 37 against a threshold of 29 (rule 10)",
                    }
                ),
            ),
        )
    con.close()
    r = desk.run("status", "cm")
    assert (
        r.stdout.splitlines()[-1]
        == "  game over: Romans win a major victory: Huns' losses 37 against a threshold of 29 (rule 10)"
    )
    assert (
        json.loads(desk.run("status", "cm", "--json").stdout)["outcome"]
        == "Romans win a major victory: Huns' losses 37 against a threshold of 29 (rule 10)"
    )


def test_a_major_victory_is_written_in_plain_words() -> None:
    from pbem.rules.furor_barbarus.victory import core_outcome
    from tests.support.furor_barbarus_test_map import battlefield

    outcome = core_outcome(battlefield({}, losses={"charles": 10, "lothaire": 3}), last_turn=False)
    assert outcome is not None
    assert (
        FONTENOY.outcome_text(outcome)
        == "Lothaire win a major victory: Charles' losses 10 against a threshold of 10 (rule 10)"
    )


# ------------------------------------------------------------- receipts


def test_a_receipt_gives_the_order_count_once(desk: Table) -> None:
    path = turn_file(desk, "g1", "republic", "pass")
    signed = path.read_bytes() + sshsig.sign(path.read_bytes(), keys.load_private_key(desk.key("alice")[0])).encode()
    mail = EmailMessage()
    mail["From"], mail["To"], mail["Subject"], mail["Message-ID"] = (
        "alice@example.org",
        "referee@example.org",
        "orders",
        "<o1@example.org>",
    )
    mail.set_content(signed.decode())
    mailbox.Maildir(desk.tmp / "inbox", create=True).add(mail.as_bytes())
    r = desk.run("ingest", "--maildir", str(desk.tmp / "inbox"), "--outbox", str(desk.tmp / "outbox"), "-q")
    assert r.exit_code == 0, r.stderr
    (answer,) = [
        email.message_from_bytes(m.as_bytes(), policy=email.policy.default)
        for m in mailbox.Maildir(desk.tmp / "outbox").values()
    ]
    body = answer.get_content()
    assert (
        "Orders as understood:\n  g1, republic, resolution 1 - 1835, turn 1 (Republic): 1 order\n  line 7: pass\n"
        in body
    )
    assert body.count("as understood") == 1


def test_a_file_that_is_no_key_at_all_is_named_without_library_advice(desk: Table) -> None:
    path = turn_file(desk, "g1", "republic", "pass")
    notakey = desk.tmp / "notakey"
    notakey.write_text("hello\n")
    r = desk.run("sign", str(path), "--key", str(notakey))
    assert (r.exit_code, r.stderr) == (
        1,
        f"pbem: cannot load private key '{notakey}': it is not an OpenSSH or PEM private key file\n",
    )


@pytest.mark.parametrize(
    "game,side,body,message",
    [
        (
            "g1",
            "republic",
            "atack porto-alegre from triunfo with inf-1",
            "pbem: line 7: 'atack porto-alegre from triunfo with inf-1' is not an order (did you mean attack?); "
            "the orders are: "
            "attack CITY from CITY with MU... [until-won | rounds N | stop-after N] [losses MU...] [occupy "
            "MU...|all|none]; "
            "invade CITY from CITY with MU...; move MU... from CITY to CITY; pass; carry MU... from PORT to PORT; "
            "place MU... CITY; militia CITY; losses MU|militia ...; defend CITY losses MU|militia ...",
        ),
        (
            "cm",
            "romans",
            "Plase aetius 1705",
            "pbem: line 7: 'Plase aetius 1705': unknown order 'Plase' (orders: place, move, attack, standing, "
            "special) (did you mean place?)",
        ),
        ("cm", "romans", "place aetius", "pbem: line 7: 'place aetius': expected 'place UNIT HEX'"),
    ],
)
def test_syntax_errors_quote_the_line_first_in_both_rulesets(
    desk: Table, game: str, side: str, body: str, message: str
) -> None:
    if game == "cm":
        huns_set_up(desk)
    assert check(desk, game, side, body) == (1, message + "\n")
