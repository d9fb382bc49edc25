"""The map SVG: standalone, with viewBox, terrain, hexsides, counters, moves and combats; text escaped."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from tests.support.furor_barbarus_test_map import RULES, dice, position


def test_svg_is_standalone_and_draws_the_last_resolution() -> None:
    pos = position(
        {
            "provence": "0708",
            "austrasie": "0807",
            "bourgogne": "0707",
            "bowmen": "0607",
            "aquitaine": "0711",
            "lothaire": "0711",
            "baggage-c": "0708",
        }
    )
    orders, _ = RULES.parse_orders(
        "move aquitaine 0710 0709\nattack provence with austrasie bourgogne bowmen charge aquitaine\n"
    )
    res = RULES.resolve(pos, {"lothaire": orders}, dice(4))
    svg = RULES.map_svg(res.position, res.events)
    root = ET.fromstring(svg)
    assert root.tag.endswith("svg") and root.get("viewBox")
    assert 'class="stream"' in svg and 'class="ford"' in svg and 'class="river"' in svg
    assert 'class="move"' in svg and 'class="combat"' in svg
    assert "Fontenoy" in svg and svg.count('class="counter"') >= 6


def test_svg_escapes_text() -> None:
    pos = position({"neustrie": "0404"})
    svg = RULES.map_svg(pos, [{"type": "combat", "hex": "0404", "text": "<script>&", "result": "<b>", "odds": "1/1"}])
    ET.fromstring(svg)
    assert "<script>" not in svg and "&lt;b&gt;" in svg
