"""Turn reports: header, map, what happened, the dice proof,
problems and the next turn file; Jinja autoescaping; the audit page and its charts."""

from __future__ import annotations

import hashlib
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from dataclasses import replace

import pytest
from markupsafe import escape

from pbem.reports import charts
from pbem.reports.audit_page import render_audit_page
from pbem.reports.images import svg_to_png
from pbem.reports.render import (
    RollLine,
    render_html,
    render_text,
    report_filename,
    verify_command,
)
from pbem.rules.base import ScoreLine
from tests.support.report_data import (
    EVIL,
    SMALL_SVG,
    assert_svg_parses_with_viewbox,
    chain,
    played_report,
    real_ruleset_report,
    report_data,
    svg_elements,
)

ESCAPED = "&lt;script&gt;alert(1)&lt;/script&gt;"


# --- autoescaping ----------------------------------------------------------------------


@pytest.mark.parametrize("field", ["side_name", "unit_name", "email", "game_id"])
def test_autoescape_a_script_in_any_name_appears_escaped_in_the_html_report(field):
    data = report_data(**{field: EVIL})
    for html in (render_html(data), render_html(data, map_cid="map@pbem.invalid")):
        assert "<script" not in html.lower()
        assert ESCAPED in html


def test_autoescape_a_script_in_the_audit_page_is_escaped():
    html = render_audit_page(
        EVIL,
        EVIL,
        "00" * 32,
        [(1, EVIL, "ab" * 32)],
        [(1, RollLine(0, 6, 4, EVIL))],
        [(1, [ScoreLine(EVIL, 3, EVIL)])],
        sides=[EVIL],
    )
    assert "<script" not in html.lower()
    assert ESCAPED in html


def test_the_text_report_keeps_names_as_written_plain_text_has_no_markup():
    text = render_text(report_data(side_name=EVIL))
    assert EVIL in text and ESCAPED not in text


def test_the_ruleset_map_is_embedded_as_markup_without_its_xml_prolog():
    html = render_html(report_data(map_svg='<?xml version="1.0" encoding="UTF-8"?>\n' + SMALL_SVG))
    assert SMALL_SVG in html and "<?xml" not in html
    assert "Porto Alegre &lt;4 VP&gt;" in html  # the ruleset's own escaping is kept, not doubled


# --- contents ------------------------------------------------------------------------------


def test_header_shows_game_rules_turn_whose_move_and_score():
    data = report_data(side="empire", awaiting=("empire",))
    for page in (render_html(data), render_text(data)):
        assert "g1" in page and "Farrapos" in page and "The Ragamuffin War" in page
        assert data.label in page and data.next_label in page
        for line in data.score:
            assert line.side in page and line.detail in page
    assert "Your move" in render_html(data)
    assert "YOUR MOVE" in render_text(data)
    waiting = report_data(side="empire", awaiting=("republic",))
    assert "Your move" not in render_html(waiting)


def test_game_over_shows_the_result():
    data = report_data(over=True, awaiting=())
    html, text = render_html(data), render_text(data)
    assert '<p class="banner over">Game over: Republic wins: 24 VP.</p>' in html
    assert "GAME OVER: Republic wins: 24 VP." in text


def test_what_happened_lists_each_battle_with_its_details_and_dice():
    data = report_data()
    html, text = render_html(data), render_text(data)
    battle = data.events[1]
    for page in (html, text):
        assert battle["text"] in page.replace("\n    ", " ")
        for roll in data.rolls:
            assert roll.purpose in page
    assert 'class="battle"' in html
    assert "losses" in html and "empire: 2" in html
    assert "d6 = <b>3</b>" in html


def test_the_dice_proof_command_really_verifies_the_reveal_against_the_anchor():
    data = report_data(k=3)
    command = verify_command(data.reveal, data.previous_reveal, data.anchor, data.k)
    assert command in render_text(data)
    assert str(escape(command)) in render_html(data)
    code = command.split('-c "', 1)[1].rstrip('"')
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "True"
    assert hashlib.sha256(bytes.fromhex(data.reveal)).hexdigest() == data.previous_reveal
    wrong = verify_command(chain(2)[0], None, data.anchor, 3).split('-c "', 1)[1].rstrip('"')
    assert (
        subprocess.run([sys.executable, "-c", wrong], capture_output=True, text=True, check=True).stdout.strip()
        == "False"
    )


def test_before_any_resolution_there_is_no_reveal_only_the_anchor():
    data = report_data(k=0)
    html = render_html(data)
    assert data.anchor in html and "No reveal yet" in html


def test_problems_and_the_next_turn_file_are_shown():
    data = report_data()
    for page in (render_html(data), render_text(data)):
        assert data.problems[0].reason in page
        assert "turn: 4" in page and "turn-g1-4-republic.txt" in page


def test_history_links_name_each_earlier_report_only_where_it_exists():
    from dataclasses import replace

    data = report_data(k=3)
    in_site = render_html(replace(data, links="site"))
    published = render_html(replace(data, links="url", site_url="https://example.org/games/g1/"))
    alone = render_html(data)
    for k, _label, _hash in data.history:
        assert f'href="{report_filename(k, "republic")}"' in in_site
        assert f'href="https://example.org/games/g1/{report_filename(k, "republic")}"' in published
        assert f"resolution {k}: " in alone
    assert 'href="https://example.org/games/g1/index.html"' in published
    assert "href=" not in alone.split('<section id="history"')[1]
    assert "pbem site g1 -o DIR" in alone


def test_the_html_report_is_made_for_phones_and_print():
    html = render_html(report_data())
    assert '<meta name="viewport" content="width=device-width, initial-scale=1">' in html
    assert "@media print" in html and "@media (max-width" in html
    assert re.search(r"figure\.map svg[^{]*\{[^}]*width: 100%", html)
    assert "<script" not in html and "http://" not in html.replace('xmlns="http://www.w3.org/2000/svg"', "")


def test_every_svg_in_the_report_parses_as_xml_with_a_viewbox():
    svgs = svg_elements(render_html(report_data()))
    assert svgs
    for svg in svgs:
        assert_svg_parses_with_viewbox(svg)


@pytest.mark.parametrize("rules_id", ["farrapos", "furor-barbarus"])
def test_reports_of_the_real_rulesets_embed_their_map(rules_id):
    data = real_ruleset_report(rules_id, side=None)
    html = render_html(data)
    *detail, svg = svg_elements(html)
    for one in (*detail, svg):
        assert_svg_parses_with_viewbox(one)
    assert len(svg) > 1000
    # the enlarged view of the action, when there is one, draws the whole map's board again
    assert all(
        f'<use href="#{board}"/>' in one for one in detail for board in [svg.split('data-board="')[1].split('"')[0]]
    )
    text = render_text(data)
    assert "<svg" not in text


# --- audit page and charts ------------------------------------------------------------------


def audit_inputs():
    rolls = [
        (k, RollLine(i, sides, (i * 7 + k) % sides + 1, f"roll {i} of {k}"))
        for k in (1, 2, 3)
        for i, sides in enumerate((6, 6, 6, 10, 10))
    ]
    score = [
        (k, [ScoreLine("republic", 2 * k, f"{2 * k} VP"), ScoreLine("empire", 9 - k, f"{9 - k} VP")]) for k in (1, 2, 3)
    ]
    resolutions = [(k, f"turn {k}", f"{k:02d}" * 32) for k in (1, 2, 3)]
    return resolutions, rolls, score


def test_the_audit_page_links_every_resolution_and_charts_dice_and_score():
    resolutions, rolls, score = audit_inputs()
    html = render_audit_page("g1", "Farrapos", "ab" * 32, resolutions, rolls, score, sides=["empire", "republic"])
    for k, label, state_hash in resolutions:
        assert f'href="{report_filename(k, "republic")}"' in html and f'href="{report_filename(k, "empire")}"' in html
        assert label in html and state_hash in html
    assert 'id="d6"' in html and 'id="d10"' in html
    svgs = svg_elements(html)
    assert len(svgs) == 3  # score chart, d6, d10
    for svg in svgs:
        assert_svg_parses_with_viewbox(svg)
    for _k, roll in rolls:
        assert roll.purpose in html


def test_the_audit_page_without_sides_links_the_referee_reports():
    resolutions, rolls, score = audit_inputs()
    html = render_audit_page("g1", "Farrapos", "ab" * 32, resolutions, rolls, score)
    assert f'href="{report_filename(2, None)}"' in html


def test_histogram_bars_count_each_face():
    values = [1, 1, 2, 6, 6, 6, 6]
    root = ET.fromstring(charts.histogram_svg(values, 6))
    ns = "{http://www.w3.org/2000/svg}"
    bars = {r.find(f"{ns}title").text for r in root.iter(f"{ns}rect")}
    assert bars == {f"{face}: {values.count(face)}" for face in range(1, 7)}
    heights = {r.find(f"{ns}title").text: float(r.get("height")) for r in root.iter(f"{ns}rect")}
    assert heights["6: 4"] == 2 * heights["1: 2"] and heights["3: 0"] == 0


def test_line_chart_draws_one_line_per_side_in_order():
    series = {"republic": [(3, 5), (1, 1), (2, 4)], "empire": [(1, 9), (2, 8)]}
    root = ET.fromstring(charts.line_chart_svg(series, "score"))
    ns = "{http://www.w3.org/2000/svg}"
    lines = {p.find(f"{ns}title").text: p.get("points").split() for p in root.iter(f"{ns}polyline")}
    assert set(lines) == {"republic", "empire"}
    xs = [float(p.split(",")[0]) for p in lines["republic"]]
    assert xs == sorted(xs) and len(xs) == 3


def test_svg_to_png_renders_at_the_width_asked():
    png = svg_to_png(SMALL_SVG, width=400)
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")
    assert width == 400 and height == 240


def test_svg_to_png_of_a_real_map():
    data = real_ruleset_report("farrapos")
    png = svg_to_png(data.map_svg, width=600)
    assert int.from_bytes(png[16:20], "big") == 600


def test_report_data_from_the_fixture_uses_a_real_chain():
    data = replace(report_data(k=2))
    h = bytes.fromhex(data.reveal)
    for _ in range(2):
        h = hashlib.sha256(h).digest()
    assert h.hex() == data.anchor


@pytest.mark.parametrize("rules_id", ["farrapos", "furor-barbarus"])
def test_a_played_resolution_shows_every_event_and_every_die(rules_id):
    data = played_report(rules_id, resolutions=4)
    html, text = render_html(data), render_text(data)
    flat_text = " ".join(text.split())
    for event in data.events:
        assert str(escape(event["text"])) in html
        if event.get("type") == "battle_round":  # the text report shows the rounds as a table
            row = (
                f"{event['round']} AF {event['attack_strength']} {event['attacker_die']} "
                f"{event['attacker_index']} DF {event['defence_strength']}"
            )
            assert row in flat_text, row
        elif event.get("type") == "combat" and event.get("die") is not None:
            assert f"{event['odds']} {event['column']}" in flat_text and str(event["result"]) in flat_text
        else:
            assert " ".join(event["text"].split()) in flat_text
    for roll in data.rolls:
        assert str(escape(roll.purpose)) in html and roll.purpose in text
    for svg in svg_elements(html):
        assert_svg_parses_with_viewbox(svg)


# --- battles as tables ------------------------------------------------------------


def _round(n: int, city: str = "triunfo", winner: str = "empire") -> dict:
    return {
        "type": "battle_round",
        "text": f"Battle of {city}, round {n}: ...",
        "city": city,
        "origin": "porto-alegre",
        "round": n,
        "attacker": "empire",
        "defender": "republic",
        "attack_strength": 21 - n,
        "defence_strength": 11 - n,
        "extra_defence": 1,
        "siege": False,
        "attacker_die": n,
        "defender_die": 7 - n,
        "attacker_index": 9,
        "defender_index": 6,
        "winner": winner,
        "losses": [{"side": "republic", "counter": f"inf-{n}", "result": "reduced"}],
    }


def test_consecutive_rounds_of_one_battle_are_one_table_with_the_detail_folded_away():
    from dataclasses import replace

    events = (
        _round(1),
        _round(2),
        _round(3, winner="tie"),
        {"type": "battle", "text": "Battle of Triunfo (3 rounds): ..."},
        _round(1, city="bage"),
    )
    data = replace(report_data(), events=events)
    html = render_html(data)
    assert html.count('<table class="rounds">') == 2
    first = html.split('<table class="rounds">')[1].split("</table>")[0]
    assert first.count("<tr>") == 4  # the header and three rounds
    assert "<td>AF 19</td>" in first and "<td>DF 9 +1 VP</td>" in first and "<td>tie</td>" in first
    assert "<td>republic inf-2 reduced</td>" in first
    assert "Every detail and die of these 3 rounds</summary>" in html and "<details" in html
    text = render_text(data)
    assert "Battle of triunfo: empire attacks from porto-alegre, republic defends" in text
    assert all(
        len(line) <= 72 for line in text.split("WHAT HAPPENED")[1].split("PROBLEMS")[0].split("DICE")[0].splitlines()
    )
    assert "losses: republic inf-3 reduced" in text


def test_text_table_keeps_narrow_tables_whole_and_moves_a_wide_last_column_under_its_row():
    from pbem.reports.battle_table import EventLine, Row, text_table

    event = EventLine("battle_round", "", [], [], True, {})
    narrow = text_table(["a", "b"], [Row(["1", "x"], event)])
    assert narrow.splitlines() == ["a  b", "-  -", "1  x"]
    wide = text_table(["a", "notes"], [Row(["1", "y" * 80], event)], width=40)
    assert wide.splitlines() == ["a", "-", "1", "     notes: " + "y" * 80]
