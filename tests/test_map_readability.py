"""Maps players can read, measured in headless Chromium.

Every shipped map (Farrapos, and each Furor Barbarus scenario), at the start and
late in a bot-vs-bot game, is drawn at its own size; the browser measures the box
of every ``<text>`` (``getBoundingClientRect``) and of every counter (a Furor
Barbarus counter's box, a Farrapos city's circle).  Any two labels that overlap,
or a label over a counter it does not belong to, fail the test, naming both.
A label cut by the map's edge fails too.  The pure checks (sizes, short ids, the
legend) run without a browser."""

from __future__ import annotations

import html as htmlmod
import json
import re
from pathlib import Path

import pytest

from pbem.rules import find_ruleset
from pbem.rules.furor_barbarus.svg import short_ids
from pbem.rules.mapdraw import crop, focus_of
from tests.support.map_positions import SHIPPED, Drawn, every_map, late

MEASURE = """<script>
window.addEventListener("load", function () {
  var out = [];
  var maps = document.querySelectorAll("div.map");
  for (var m = 0; m < maps.length; m++) {
    var svg = maps[m].querySelector("svg");
    var texts = [], boxes = [];
    var ts = svg.querySelectorAll("text");
    for (var i = 0; i < ts.length; i++) {
      var r = ts[i].getBoundingClientRect();
      if (!ts[i].textContent.trim() || r.width === 0) continue;
      var owner = ts[i].closest("g.counter, g.city");
      texts.push({t: ts[i].textContent, x: r.left, y: r.top, w: r.width, h: r.height, o: owner ? owner.id : ""});
    }
    var cs = svg.querySelectorAll("g.counter > rect.counter-box, g.city > circle");
    for (var j = 0; j < cs.length; j++) {
      var b = cs[j].getBoundingClientRect();
      boxes.push({x: b.left, y: b.top, w: b.width, h: b.height, o: cs[j].closest("g.counter, g.city").id});
    }
    var frame = svg.getBoundingClientRect();
    out.push({name: maps[m].id, width: frame.width, \
frame: {x: frame.left, y: frame.top, w: frame.width, h: frame.height}, texts: texts, counters: boxes});
  }
  var pre = document.createElement("pre");
  pre.id = "measured";
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
});
</script>"""

# Glyph boxes include the font's line gap: two labels whose boxes share less than
# this (in px, both ways) do not touch on screen.
TOLERANCE = 1.0


def _overlap(a: dict, b: dict) -> bool:
    return (
        min(a["x"] + a["w"], b["x"] + b["w"]) - max(a["x"], b["x"]) > TOLERANCE
        and min(a["y"] + a["h"], b["y"] + b["h"]) - max(a["y"], b["y"]) > TOLERANCE
    )


def overlaps(measured: dict) -> list[str]:
    """Every label/label and label/counter overlap of one measured map, and every
    label cut by the map's edge."""
    found = []
    texts = measured["texts"]
    f = measured["frame"]
    for a in texts:
        if (
            a["x"] < f["x"] - TOLERANCE
            or a["x"] + a["w"] > f["x"] + f["w"] + TOLERANCE
            or a["y"] + a["h"] > f["y"] + f["h"] + TOLERANCE
        ):
            found.append(f"label {a['t']!r} runs off the map")
    for i, a in enumerate(texts):
        for b in texts[i + 1 :]:
            if _overlap(a, b):
                found.append(f"label {a['t']!r} overlaps label {b['t']!r}")
        for c in measured["counters"]:
            if c["o"] != a["o"] and _overlap(a, c):
                found.append(f"label {a['t']!r} overlaps the counter {c['o']!r}")
    return found


def map_page(drawn: list[Drawn]) -> str:
    parts = []
    for d in drawn:
        svg = find_ruleset(d.rules_id).map_svg(d.position, d.events, None)
        parts.append(f'<div class="map" id="{htmlmod.escape(d.name)}">{svg}</div>')
    return (
        "<!DOCTYPE html><html><head><meta charset='utf-8'>"
        + MEASURE
        + "</head><body style='margin:0'>"
        + "".join(parts)
        + "</body></html>"
    )


def measure(tmp_path: Path, page: str) -> list[dict]:
    from tests.support.browser import run_chromium

    path = tmp_path / "maps.html"
    path.write_text(page, encoding="utf-8")
    result = run_chromium(tmp_path, path.as_uri(), (1600, 1200), "--dump-dom", "--virtual-time-budget=5000")
    assert result.returncode == 0, result.stderr[-2000:]
    m = re.search(r'<pre id="measured">(.*?)</pre>', result.stdout, re.S)
    assert m, f"the maps did not finish loading in Chromium:\n{result.stderr[-2000:]}"
    return json.loads(htmlmod.unescape(m.group(1)))


@pytest.mark.browser
def test_no_label_overlaps_another_or_a_counter_on_any_shipped_map(tmp_path):
    drawn = every_map()
    assert len(drawn) == 2 * len(SHIPPED)
    assert all(d.events for d in drawn if d.name.endswith("-late")), (
        "every late position shows its last resolution's action"
    )
    measured = measure(tmp_path, map_page(drawn))
    assert [m["name"] for m in measured] == [d.name for d in drawn]
    problems = {}
    for m in measured:
        assert len(m["texts"]) > 20, m["name"]
        found = overlaps(m)
        if found:
            problems[m["name"]] = found[:8] + ([f"... {len(found) - 8} more"] if len(found) > 8 else [])
    assert problems == {}


@pytest.mark.browser
def test_the_overlap_check_catches_a_label_over_a_counter_and_over_another_label(tmp_path):
    d = late("furor-barbarus", "vouille")
    svg = find_ruleset(d.rules_id).map_svg(d.position, d.events, None)
    m = re.search(r'<rect class="counter-box" x="([\d.]+)" y="([\d.]+)"', svg)
    assert m
    x, y = float(m.group(1)), float(m.group(2))
    bad = svg.replace(
        "</svg>",
        f'<text x="{x + 2}" y="{y + 20}" font-size="12">stray label</text>'
        f'<text x="{x + 6}" y="{y + 22}" font-size="12">another</text></svg>',
    )
    page = map_page([]).replace("</body>", f'<div class="map" id="bad">{bad}</div></body>')
    (measured,) = measure(tmp_path, page)
    found = overlaps(measured)
    assert any("'stray label' overlaps the counter" in f for f in found), found
    assert any("'stray label' overlaps label 'another'" in f for f in found), found
    off = svg.replace("</svg>", '<text x="-30" y="60" font-size="12">off the edge</text></svg>')
    page = map_page([]).replace("</body>", f'<div class="map" id="off">{off}</div></body>')
    (measured,) = measure(tmp_path, page)
    assert "label 'off the edge' runs off the map" in overlaps(measured)


# --- without a browser ---------------------------------------------------------------------


def test_furor_barbarus_short_ids_are_unique_in_every_scenario_and_short():
    for rules_id, scenario in SHIPPED:
        if rules_id != "furor-barbarus":
            continue
        ids = list(find_ruleset(rules_id).setup(scenario, ())["units"])
        short = short_ids(ids)
        assert len(set(short.values())) == len(ids), scenario
        assert all(len(s) <= 9 for s in short.values()), {u: s for u, s in short.items() if len(s) > 10}
    assert short_ids(["visigoth-cavalry-2", "visigoth-cavalry-3", "clovis", "hunnic-burgundians"]) == {
        "visigoth-cavalry-2": "vis-cav-2",
        "visigoth-cavalry-3": "vis-cav-3",
        "clovis": "clovis",
        "hunnic-burgundians": "hun-bur",
    }
    # two ids that would cut the same keep their full ids
    assert short_ids(["salian-archers-1", "salian-arcani-1"]) == {
        "salian-archers-1": "salian-archers-1",
        "salian-arcani-1": "salian-arcani-1",
    }
    assert short_ids(["burgundians", "theodoric"]) == {"burgundians": "burgund", "theodoric": "theodor"}


@pytest.mark.parametrize("rules_id,scenario", SHIPPED)
def test_every_map_has_a_legend_and_an_area_of_action_inside_the_board(rules_id, scenario):
    d = late(rules_id, scenario)
    svg = find_ruleset(rules_id).map_svg(d.position, d.events, None)
    box = focus_of(svg)
    assert box is not None
    vb = [float(v) for v in re.search(r'viewBox="([^"]+)"', svg).group(1).split()]
    assert 0 <= box[0] and box[0] + box[2] <= vb[2] + 0.5 and 0 <= box[1] and box[1] + box[3] <= vb[3] + 0.5
    assert box[2] < vb[2] * 0.75, "the area of action is a close-up, not the whole map"
    cropped = crop(svg, box, 800)
    assert f'viewBox="{box[0]} {box[1]} {box[2]} {box[3]}"' in cropped and 'width="800"' in cropped
    if rules_id == "furor-barbarus":
        assert "Legend" in svg and "missile infantry" in svg and "retreat" in svg
        # counters are at least 46 x 36 at 100%, hex numbers never under a counter
        occupied = {u["hex"] for u in d.position["units"].values() if u.get("hex")}
        hex_ids = set(re.findall(r'class="hex-id"[^>]*>(\d{4})<', svg))
        assert hex_ids and not (hex_ids & occupied)
        assert 'width="46.0" height="36.0"' in svg
    else:
        assert "Colour groups" in svg and "Stacks" in svg


# --- whole games through the real path: the demo's sites ------------------------------------

SHOTS = Path(__file__).resolve().parents[1] / "test-artifacts" / "screenshots"


@pytest.fixture(scope="module")
def demo_games(tmp_path_factory: pytest.TempPathFactory):
    """Every shipped game played bot against bot through signed files, the database
    and the processor, each written as its site (``pbem demo``)."""
    from pbem import demo

    out = tmp_path_factory.mktemp("demo")
    return out, demo.run_demo(out)


def test_every_link_of_the_demo_and_its_game_sites_resolves(demo_games):
    from tests.support.site_links import broken_links_in_folder

    out, results = demo_games
    assert broken_links_in_folder(out) == []
    for r in results:
        assert broken_links_in_folder(r.folder) == []
        assert (r.folder / "index.html").is_file() and r.archive.is_file()


def screenshot(tmp_path: Path, page: Path, name: str, widths: tuple[int, ...] = (1280, 390)) -> list[Path]:
    from tests.support.browser import run_chromium

    SHOTS.mkdir(parents=True, exist_ok=True)
    shots = []
    for width in widths:
        height = 2400
        shot = SHOTS / f"{name}-{width}.png"
        shot.unlink(missing_ok=True)
        result = run_chromium(tmp_path, page.as_uri(), (width, height), f"--screenshot={shot}")
        assert result.returncode == 0 and shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", result.stderr[-2000:]
        shots.append(shot)
    return shots


@pytest.mark.browser
@pytest.mark.slow
def test_screenshots_of_late_reports_the_site_index_and_the_audit_page(demo_games, tmp_path):
    """Pictures to look at: a Farrapos report, a Furor Barbarus report of each
    scenario late in the game, the site index and the audit page, at 1280 and 390 px
    (in test-artifacts/screenshots/).  Slow: the default run opens the same pages in
    Chromium and measures them (test_phone, test_browser) without taking pictures."""
    from pbem.reports.render import report_filename

    out, results = demo_games
    taken = []
    for r in results:
        side = r.sides[0]
        # the latest resolution with a battle (its table of rounds and its close-up), late in the game
        fought = [
            k
            for k in range(r.last_k, 0, -1)
            if '<table class="rounds">' in (r.folder / report_filename(k, side)).read_text(encoding="utf-8")
        ]
        assert fought, r.game_id
        taken += screenshot(tmp_path, r.folder / report_filename(fought[0], side), f"report-{r.scenario}-late")
    farrapos = next(r for r in results if r.rules == "farrapos")
    taken += screenshot(tmp_path, farrapos.folder / "index.html", "site-index")
    taken += screenshot(tmp_path, farrapos.folder / "audit.html", "audit")
    assert len(taken) == 2 * (len(results) + 2)


@pytest.mark.browser
def test_the_demo_index_keeps_every_link_on_a_phone_screen(demo_games, tmp_path):
    """Its table became cards on a phone: no sideways scrolling at 390 px."""
    from tests.support.browser import check_in_browser

    out, _results = demo_games
    check_in_browser(tmp_path, "demo-index", (out / "index.html").read_text(encoding="utf-8"))


def test_farrapos_arrows_run_from_circle_edge_to_circle_edge_even_between_close_cities():
    from pbem.rules.farrapos.svg import _arrow, _shipped_drawing

    at = _shipped_drawing().at
    p, q = at["porto-alegre"], at["viamao"]
    line = _arrow(p, q, "#000", False)
    x1, y1, x2, y2 = (float(re.search(rf'{k}="([-\d.]+)"', line).group(1)) for k in ("x1", "y1", "x2", "y2"))
    dist = ((q[0] - p[0]) ** 2 + (q[1] - p[1]) ** 2) ** 0.5
    assert dist < 60  # the two are close: the arrow is short but it shows
    assert abs(((x1 - p[0]) ** 2 + (y1 - p[1]) ** 2) ** 0.5 - min(15, dist / 2 - 2)) < 0.2
    assert abs(((x2 - q[0]) ** 2 + (y2 - q[1]) ** 2) ** 0.5 - min(15, dist / 2 - 2)) < 0.2
    assert (x2 - x1) * (q[0] - p[0]) + (y2 - y1) * (q[1] - p[1]) > 0  # it points from p to q
