"""Section 3 and each scenario's set-up: the set-up in the printed order.  One side
sets up first and the other after seeing it; at Campus Mauriacus the commanders are
noted secretly and revealed together."""

from __future__ import annotations

import json
import random

import pytest

from pbem.rules.base import NO_ORDERS
from pbem.rules.dice import ScriptedDice
from pbem.rules.furor_barbarus.ruleset import FurorBarbarus
from pbem.rules.furor_barbarus.setup import SetupPart, setup_steps
from tests.conftest import Table

RULES = FurorBarbarus()
CM = "campus-mauriacus"
FIRST_PLAYER_DICE = [(6, 6, "first player"), (1, 6, "first player")]


@pytest.mark.parametrize(
    ("scenario", "steps"),
    [
        (CM, [[("huns", SetupPart.UNITS)], [("huns", SetupPart.COMMANDERS), ("romans", SetupPart.ALL)]]),
        ("soissons", [[("gallo-romans", SetupPart.ALL)], [("franks", SetupPart.ALL)]]),
        ("tolbiac", [[("franks", SetupPart.ALL)], [("alemanni", SetupPart.ALL)]]),
        ("vouille", [[("franks", SetupPart.ALL), ("visigoths", SetupPart.ALL)]]),
    ],
)
def test_3_set_up_steps_in_the_printed_order(scenario: str, steps: list) -> None:
    """The Huns first at Campus Mauriacus, the Gallo-Romans at Soissons, the Franks
    at Tolbiac; Vouille prints no order: both at once."""
    assert [list(s) for s in setup_steps(RULES.library.scenario(scenario))] == steps
    position = RULES.setup(scenario, [])
    due = []
    while position["phase"] == "setup":
        due.append(RULES.due(position))
        position = RULES.resolve(position, {}, ScriptedDice(FIRST_PLAYER_DICE)).position
    assert due == [tuple(sorted(side for side, _ in step)) for step in steps]
    assert "setup_step" not in position and position["players"]


def test_3_the_second_side_sees_the_first_sides_set_up() -> None:
    position = RULES.setup("soissons", [])
    assert RULES.due(position) == ("gallo-romans",) and RULES.turn_label(position) == "set-up, step 1 of 2"
    orders, _ = RULES.parse_orders("place archers-1 0401\n")
    after = RULES.resolve(position, {"gallo-romans": orders}, ScriptedDice([])).position
    assert RULES.due(after) == ("franks",) and RULES.turn_label(after) == "set-up, step 2 of 2"
    field = RULES.field(after)
    assert field.hex_of("archers-1") == "0401"
    assert all(field.exists(u) for u in field.units if field.counter(u).side == "gallo-romans")
    assert not [u for u in field.on_map("franks")]  # the Franks have placed nothing yet
    template = RULES.order_template(after, "franks")
    assert "gallo-romans have set up" in template and "place UNIT HEX" in template
    # the Gallo-Romans may not change their set-up now: they are not due
    assert "not due" in str(RULES.validate(after, "gallo-romans", orders)[0])


def test_scenario_1_the_huns_place_their_units_then_note_their_commanders_with_the_romans() -> None:
    position = RULES.setup(CM, [])
    assert RULES.due(position) == ("huns",)
    orders, _ = RULES.parse_orders("place attila 1211\nplace hun-1 1211\n")
    problems = RULES.validate(position, "huns", orders)
    assert [(p.line, "noted secretly in the next set-up step" in p.message) for p in problems] == [(1, True)]
    template = RULES.order_template(position, "huns")
    assert "attila" not in template and "hun-1" in template
    after = RULES.resolve(position, {"huns": RULES.parse_orders("place hun-1 1211\n")[0]}, ScriptedDice([])).position
    field = RULES.field(after)
    # nothing of the Hunnic commanders is in the position the Romans set up against
    assert not [u for u in field.on_map() if field.counter(u).is_commander]
    assert all(
        field.exists(u) for u in field.units if field.counter(u).side == "huns" and not field.counter(u).is_commander
    )
    assert RULES.due(after) == ("huns", "romans")
    huns_template = RULES.order_template(after, "huns")
    assert "attila" in huns_template and "hun-1 " not in huns_template
    assert "aetius" in RULES.order_template(after, "romans")
    # in the second step the Huns may note only their commanders
    moved, _ = RULES.parse_orders("place hun-1 1311\nplace attila 1211\n")
    problems = RULES.validate(after, "huns", moved)
    assert [(p.line, "only the commanders are noted now" in p.message) for p in problems] == [(1, True)]
    notes, _ = RULES.parse_orders("place attila 1211\n")
    assert RULES.validate(after, "huns", notes) == []
    final = RULES.resolve(after, {"huns": notes, "romans": NO_ORDERS}, ScriptedDice(FIRST_PLAYER_DICE))
    revealed = [e for e in final.events if e["type"] == "commanders_revealed"]
    assert (
        len(revealed) == 1 and revealed[0]["commanders"]["attila"] == "1211" and "aetius" in revealed[0]["commanders"]
    )
    types = [e["type"] for e in final.events]
    assert types.index("commanders_revealed") < types.index("first_player")
    assert final.position["phase"] == "play" and final.position["units"]["hun-1"]["hex"] == "1211"


def test_3_a_game_created_before_set_up_steps_still_sets_up_in_one_step() -> None:
    """An archive written before set-up steps has one set-up resolution with both files:
    a set-up position without ``setup_step`` keeps that behaviour, so it replays."""
    position = RULES.setup("soissons", [])
    del position["setup_step"]
    assert RULES.due(position) == ("franks", "gallo-romans") and RULES.turn_label(position) == "set-up"
    after = RULES.resolve(position, {}, ScriptedDice([])).position
    assert after["phase"] == "play"


@pytest.mark.parametrize("scenario", [CM, "soissons", "tolbiac", "vouille"])
def test_3_set_up_bots_follow_the_steps(scenario: str) -> None:
    position = RULES.setup(scenario, [])
    rng = random.Random(7)
    while position["phase"] == "setup":
        orders = {}
        for side in RULES.due(position):
            text = RULES.bot_orders(position, side, "random", rng)
            orders[side], problems = RULES.parse_orders(text)
            assert problems == [] and RULES.validate(position, side, orders[side]) == [], (side, text)
        position = RULES.resolve(position, orders, ScriptedDice(FIRST_PLAYER_DICE)).position
    assert position["phase"] == "play"


def test_3_set_up_order_through_the_referee(table: Table) -> None:
    """`pbem new`, `status`, `orders`, `sign`, `submit` and `process` at Campus
    Mauriacus: the Huns alone are awaited first, then the Romans and the Huns; the
    Romans' report of the first step shows no Hunnic commander."""
    t = table
    _, huns = t.key("huns")
    _, romans = t.key("romans")
    r = t.run(
        "new",
        "cm",
        "--rules",
        "furor-barbarus",
        "--scenario",
        CM,
        "--player",
        f"huns={huns}",
        "--player",
        f"romans={romans}",
    )
    assert r.exit_code == 0, r.stderr

    def status() -> dict:
        r = t.run("status", "cm", "--json")
        assert r.exit_code == 0, r.stderr
        return json.loads(r.stdout)

    def send(side: str, k: int) -> None:
        path = t.tmp / f"cm-{k}-{side}.txt"
        r = t.run("orders", "cm", "--side", side, "--bot", "random", "--seed", str(k), "-o", str(path))
        assert r.exit_code == 0, r.stderr
        r = t.run("sign", str(path), "--key", str(t.key(side)[0]))
        assert r.exit_code == 0, r.stderr
        r = t.run("submit", str(path))
        assert r.exit_code == 0, r.stderr

    assert status()["awaiting"] == ["huns"]
    r = t.run("orders", "cm", "--side", "romans", "-o", str(t.tmp / "early.txt"))
    assert r.exit_code == 1 and "awaiting huns" in r.stderr, r.stderr
    r = t.run("orders", "cm", "--side", "huns", "-o", str(t.tmp / "template.txt"))
    assert r.exit_code == 0, r.stderr
    template = (t.tmp / "template.txt").read_text()
    assert "set-up, step 1 of 2" in template and "every unit but your commanders" in template
    send("huns", 1)
    assert t.run("process", "cm").exit_code == 0
    assert status()["awaiting"] == ["huns", "romans"]
    report = t.tmp / "romans-1.txt"
    r = t.run("report", "cm", "--side", "romans", "--format", "text", "-o", str(report))
    assert r.exit_code == 0, r.stderr
    text = report.read_text()
    assert "their commanders are noted secretly" in text
    assert not any(name in text for name in ("attila", "ardaric", "valamir"))
    send("huns", 2)
    send("romans", 2)
    r = t.run("process", "cm")
    assert r.exit_code == 0, r.stderr
    st = status()
    assert st["turn"] == 3 and len(st["awaiting"]) == 1
    r = t.run("audit", "cm")
    assert r.exit_code == 0, r.stderr + r.stdout
