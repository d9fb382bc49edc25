"""Hand-made report data for the report, e-mail and browser tests."""

from __future__ import annotations

import hashlib

from pbem.reports import render as report
from pbem.reports.render import ProblemLine, ReportData, RollLine
from pbem.rules import find_ruleset
from pbem.rules.base import ScoreLine

EVIL = "<script>alert(1)</script>"


SMALL_SVG = (
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 200 120">'
    '<rect x="0" y="0" width="200" height="120" fill="#eef"/>'
    '<circle cx="50" cy="60" r="12" fill="#1f5fa8"/><text x="50" y="90" font-size="10">Porto Alegre &lt;4 VP&gt;</text>'
    '<line x1="50" y1="60" x2="150" y2="60" stroke="#333"/>'
    '<circle cx="150" cy="60" r="12" fill="#b3261e"/><text x="150" y="90" font-size="10">Triunfo</text>'
    "</svg>"
)


def chain(k: int, n: int = 16) -> tuple[str, str, str]:
    """(reveal_k, reveal_(k-1), anchor) of a real little hash chain of length n."""
    values = [hashlib.sha256(b"seed").digest()]
    for _ in range(n):
        values.append(hashlib.sha256(values[-1]).digest())
    return values[n - k].hex(), values[n - k + 1].hex(), values[n].hex()


def report_data(
    side: str | None = "republic",
    k: int = 3,
    *,
    side_name: str = "republic",
    unit_name: str = "inf-1",
    email: str = "rep@example.org",
    map_svg: str = SMALL_SVG,
    awaiting: tuple[str, ...] = ("empire", "republic"),
    over: bool = False,
    rules_id: str = "farrapos",
    game_id: str = "g1",
) -> ReportData:
    reveal, previous, anchor = chain(k) if k else (None, None, chain(1)[2])
    return ReportData(
        game_id=game_id,
        rules_id=rules_id,
        rules_title="Farrapos",
        scenario_title="The Ragamuffin War, 1835-1845",
        scenario_id="campaign",
        options=(),
        k=k,
        next_k=k + 1,
        label="1836, turn 3 (Republic)",
        next_label="1837, turn 3",
        awaiting=awaiting,
        side=side if side != "republic" else side_name,
        sides=((side_name, email), ("empire", "emp@example.org")),
        score=(ScoreLine(side_name, 9, "9 VP"), ScoreLine("empire", 7, "7 VP")),
        over=over,
        result={"kind": "win", "winner": side_name, "reason": "24 VP"} if over else None,
        result_text=find_ruleset("farrapos").outcome_text({"kind": "win", "winner": side_name, "reason": "24 VP"})
        if over
        else "",
        events=(
            {"type": "move", "text": f"{unit_name} moves from Triunfo to Porto Alegre."},
            {
                "type": "battle",
                "text": f"Battle of Porto Alegre: {side_name} attacks with {unit_name}, AF 13 against DF 10.",
                "attacker": side_name,
                "units": [unit_name, "cav-2"],
                "losses": {"empire": 2},
                "roll_indices": [0, 1],
            },
        ),
        rolls=(
            RollLine(0, 6, 3, f"battle of Porto Alegre, attacker {unit_name}"),
            RollLine(1, 6, 5, "battle of Porto Alegre, defender"),
        )
        if k
        else (),
        reveal=reveal,
        anchor=anchor,
        chain_length=16,
        previous_reveal=previous if k else None,
        state_hash="ab" * 32,
        previous_state_hash="cd" * 32 if k else None,
        map_svg=map_svg,
        problems=(ProblemLine(side_name, f"line 7: attack x with {unit_name}", f"{unit_name} is not linked to x"),),
        next_turn_file=(
            f"game: {game_id}\nrules: {rules_id}\nside: {side_name}\nturn: {k + 1}\nstate: {'ab' * 32}\n\n"
            f"# move UNIT from PLACE to PLACE   e.g. move {unit_name} from triunfo to taquari\n"
        )
        if (side and not over)
        else None,
        history=tuple((i, f"turn {i}", "ef" * 32) for i in range(1, k)),
    )


def svg_elements(html: str) -> list[str]:
    """Every outermost ``<svg>...</svg>`` element of a page."""
    import re

    found, depth, start = [], 0, 0
    for m in re.finditer(r"<svg\b|</svg>", html):
        if m.group() == "<svg":
            if depth == 0:
                start = m.start()
            depth += 1
        else:
            depth -= 1
            if depth == 0:
                found.append(html[start : m.end()])
    return found


def assert_svg_parses_with_viewbox(svg: str) -> None:
    import xml.etree.ElementTree as ET

    root = ET.fromstring(svg)
    assert root.tag == "{http://www.w3.org/2000/svg}svg", root.tag
    view_box = root.get("viewBox")
    assert view_box and len(view_box.split()) == 4, view_box


def real_ruleset_report(rules_id: str, side: str | None = None) -> ReportData:
    """Report data around a real ruleset's opening position and its map (skips the
    test when that ruleset cannot draw yet)."""
    import pytest

    from pbem.turnfiles.canonical import position_hash

    try:
        from pbem.rules import find_ruleset

        ruleset = find_ruleset(rules_id)
        position = ruleset.setup(None, ())
        svg = ruleset.map_svg(position, (), side)
        sides = ruleset.sides(None)
        score = tuple(ruleset.score(position))
        label = ruleset.turn_label(position)
        due = tuple(ruleset.due(position))
        template = ruleset.order_template(position, side or sides[0])
        scenario = ruleset.scenario(None)
    except (ImportError, NotImplementedError) as exc:
        pytest.skip(f"{rules_id} cannot draw its map yet: {exc}")
    data = report_data(side=None, k=0, map_svg=svg, rules_id=rules_id)
    from dataclasses import replace

    return replace(
        data,
        rules_title=ruleset.title,
        scenario_id=scenario.id,
        scenario_title=scenario.title,
        label=label,
        next_label=label,
        awaiting=due,
        side=side,
        sides=tuple((s, f"{s}@example.org") for s in sides),
        score=score,
        events=(),
        problems=(),
        state_hash=position_hash(position),
        next_turn_file=(
            f"game: g1\nrules: {rules_id}\nside: {side}\nturn: 1\nstate: {position_hash(position)}\n\n" + template
        )
        if side
        else None,
    )


def played_report(rules_id: str, resolutions: int = 4, side: str | None = None, seed: int = 1) -> ReportData:
    """A report after ``resolutions`` bot-played resolutions of a real ruleset, with
    its real events, dice and map (skips when the ruleset is not ready)."""
    import random
    from dataclasses import replace

    import pytest

    from pbem.dice import DiceStream
    from pbem.turnfiles.canonical import position_hash

    try:
        from pbem.rules import find_ruleset

        ruleset = find_ruleset(rules_id)
        position = ruleset.setup(None, ())
        events: list = []
        rolls: list = []
        previous_hash = position_hash(position)
        for k in range(1, resolutions + 1):
            due = ruleset.due(position)
            if not due:
                break
            orders = {
                s: ruleset.parse_orders(ruleset.bot_orders(position, s, "random", random.Random(seed * 100 + k)))[0]
                for s in due
            }
            dice = DiceStream(hashlib.sha256(f"test-{seed}-{k}".encode()).digest())
            previous_hash = position_hash(position)
            result = ruleset.resolve(position, orders, dice)
            position, events, rolls = result.position, result.events, dice.rolls
        svg = ruleset.map_svg(position, events, side)
        scenario = ruleset.scenario(None)
    except (ImportError, NotImplementedError) as exc:
        pytest.skip(f"{rules_id} cannot play yet: {exc}")
    base = report_data(side=None, k=resolutions, map_svg=svg, rules_id=rules_id)
    outcome = ruleset.outcome(position)
    return replace(
        base,
        rules_title=ruleset.title,
        scenario_id=scenario.id,
        scenario_title=scenario.title,
        label=ruleset.turn_label(position),
        next_label=ruleset.turn_label(position),
        awaiting=tuple(ruleset.due(position)),
        side=side,
        sides=tuple((s, f"{s}@example.org") for s in ruleset.sides(None)),
        score=tuple(ruleset.score(position)),
        over=outcome is not None,
        result=outcome.to_json() if outcome else None,
        events=tuple(events),
        rolls=tuple(RollLine(r.index, r.sides, r.value, r.purpose) for r in rolls),
        problems=(),
        state_hash=position_hash(position),
        previous_state_hash=previous_hash,
        next_turn_file=None,
        history=(),
    )


def a_report() -> report.ReportData:

    return report_data(side="republic", k=3)
