"""The map SVG: every city, link, owner, stack and the VP/phase track; it renders."""

import xml.etree.ElementTree as ET

import cairosvg

from pbem.rules import find_ruleset
from pbem.rules.dice import ScriptedDice
from pbem.rules.farrapos.board import load_board

RULES = find_ruleset("farrapos")
NS = "{http://www.w3.org/2000/svg}"


def _svg(position, events=()):
    text = RULES.map_svg(position, events)
    return text, ET.fromstring(text)


def test_map_svg_is_standalone_with_a_viewbox_and_renders():
    text, root = _svg(RULES.setup(None, []))
    assert root.tag == NS + "svg" and root.get("viewBox")
    png = cairosvg.svg2png(bytestring=text.encode("utf-8"))
    assert png.startswith(b"\x89PNG")


def test_map_svg_draws_every_city_and_link_with_its_owner():
    board = load_board()
    text, root = _svg(RULES.setup(None, []))
    titles = {t.text for t in root.iter(NS + "title")}
    assert {c.name for c in board.cities.values()} <= titles
    lines = [e for e in root.iter(NS + "line")]
    assert len(lines) >= len(board.links)
    groups = {g.get("id"): g for g in root.iter(NS + "g") if (g.get("id") or "").startswith("city-")}
    assert len(groups) == len(board.cities)
    circle = groups["city-porto-alegre"].find(NS + "circle")
    assert circle.get("stroke") == "#1f4e9c"  # the Empire's colour
    assert groups["city-bage"].find(NS + "circle").get("stroke") == "#b8202a"


def test_map_svg_lists_each_counter_of_every_stack_and_the_tracks():
    text, root = _svg(RULES.setup(None, []))
    texts = " ".join(t.text or "" for t in root.iter(NS + "text"))
    for unit in ("inf-1", "art-1", "cav-1", "inf-25", "art-6"):
        assert f"{unit} " in texts
    assert "art-1 Art full MF1 AF5 DF2" in texts
    assert "Phase track" in texts and "VP track" in texts and "Turn track" in texts
    assert "1835" in texts and "1845" in texts
    assert "Republic 5 VP" in texts and "Empire 7 VP" in texts


def test_map_svg_escapes_text_and_draws_the_last_battle():
    position = RULES.setup(None, [])
    orders, _ = RULES.parse_orders("attack porto-alegre from triunfo with inf-1 inf-2 art-1 cav-1 rounds 1")
    resolution = RULES.resolve(position, {"republic": orders}, ScriptedDice([(3, 6, None), (5, 6, None)]))
    text, root = _svg(resolution.position, resolution.events)
    assert "Sant&apos;Ana" in text or "Sant'Ana" in text  # an apostrophe survives as XML
    assert "inf-1 Inf" in text
    assert any(e.get("stroke") == "#e07000" for e in root.iter(NS + "line"))
    assert "<script" not in text
