"""What a Furor Barbarus resolution's report views no longer work out again, counted,
never timed:

- each report's view looked its scenario up by listing the data folders' scenario
  files (a ``glob`` of each folder, some 170 k instructions); a known scenario is now
  found in a listing made once per process, and an id not in it is looked for in a
  fresh listing (a file added since is found);
- the board in words called a function per unit (its words kept once per counter,
  side and face) and a comprehension per hex; the words are now read from a table kept
  per scenario's counters, in the loop over the units;
- the order template worded each of the side's units again (about ten calls a unit:
  its counter, face, strength, type); each unit's line is now kept per scenario's
  counters, unit and face;
- the HTML events part escaped each value it wrote through autoescape (``escape`` and
  the ``Markup`` it makes: two Python calls and more a value); the values now come
  escaped as autoescape would write them (``battle_table.html_text``, made once with
  each event line), written as they are.  The same bytes: checked here on texts holding
  every character escaping changes, and by ``bench/fingerprint.py``."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from markupsafe import escape

from pbem.reports import render
from pbem.reports.battle_table import battle_blocks
from pbem.reports.event_lines import event_lines
from pbem.rules import find_ruleset
from pbem.rules.furor_barbarus import scenarios
from pbem.rules.furor_barbarus.battlefield import ACTIVE
from pbem.rules.furor_barbarus.ruleset import FurorBarbarus
from pbem.rules.furor_barbarus.scenarios import PACKAGE_DATA
from pbem.rules.furor_barbarus.svg_shapes import short_ids
from tests.support.calls import c_calls, counted_calls, python_calls
from tests.support.furor_turns import bot_turns


def test_a_known_scenario_is_looked_up_without_listing_the_folders_again(monkeypatch: pytest.MonkeyPatch) -> None:
    ruleset = find_ruleset("furor-barbarus")
    first = ruleset.scenario("campus-mauriacus")
    listed = counted_calls(monkeypatch, scenarios, "_tomls")  # a folder's listing (a Path.glob before)
    again = ruleset.scenario("campus-mauriacus")
    assert again == first and again.title
    assert listed == []  # it was one listing a lookup
    with pytest.raises(ValueError, match="unknown scenario 'campus-mauricus'.*campus-mauriacus"):
        ruleset.scenario("campus-mauricus")
    assert listed  # an unknown id is looked for in a fresh listing, and the error lists them all


def test_a_scenario_file_added_since_the_listing_is_found(tmp_path: Path) -> None:
    (tmp_path / "scenarios").mkdir()
    ruleset = FurorBarbarus([tmp_path])
    assert ruleset.library.knows("vouille") and not ruleset.library.knows("vouille-again")
    shutil.copy(PACKAGE_DATA / "scenarios" / "vouille.toml", tmp_path / "scenarios" / "vouille-again.toml")
    assert ruleset.library.knows("vouille-again")
    assert "vouille-again" in ruleset.library.scenario_ids()


def _words_as_before(position: dict[str, Any]) -> list[str]:
    """The board in words as its first version worded it, unit by unit from the counters."""
    counters = find_ruleset("furor-barbarus").load(position["scenario"], [], position).counters
    units = position["units"]
    short = short_ids(sorted(units))
    by_hex: dict[str, list[str]] = {}
    for uid in sorted(units):
        entry = units[uid]
        if entry["status"] == ACTIVE and entry["hex"] is not None:
            c, reduced = counters[uid], bool(entry["reduced"])
            shown = f"{uid} ({short[uid]})" if short[uid] != uid else uid
            factors = f"{c.value(reduced)}-{c.mp}" + (f"-{c.range}" if c.range else "")
            kind = c.type.value.replace("_", " ")
            words = f"{shown} {c.name}, {entry['side']} {kind} {factors}{' reduced' if reduced else ''}"
            by_hex.setdefault(str(entry["hex"]), []).append(words)
    return [f"{h}: " + "; ".join(words) for h, words in sorted(by_hex.items())]


def test_the_board_in_words_takes_no_call_per_unit_or_hex() -> None:
    ruleset = find_ruleset("furor-barbarus")
    turns = bot_turns("campus-mauriacus", 3)
    for position, _side, _orders in turns:
        ruleset.board_lines(position)  # each unit's words, once per process
    position = turns[-1][0]
    lines, called = python_calls(lambda: ruleset.board_lines(position))
    assert lines == _words_as_before(position) and len(lines) > 20
    assert "_unit_words" not in called  # it was one a unit
    assert called.count("<listcomp>") == 1  # the lines in the order of their hexes; it was one more a hex


def test_the_order_template_words_each_unit_once_per_face(monkeypatch: pytest.MonkeyPatch) -> None:
    ruleset = find_ruleset("furor-barbarus")
    position, side, _orders = bot_turns("campus-mauriacus", 2)[-1]
    first = ruleset.order_template(position, side)
    _template, called = python_calls(lambda: ruleset.order_template(position, side))
    assert _template == first
    assert called.count("_unit_line") == 0  # it was one a unit of the side's on the map
    assert called.count("strength") == called.count("is_reduced") == 0
    on_map = ruleset.field(position).on_map(side)
    assert len(on_map) > 10 and all(f"#   {uid} at " in first for uid in on_map)


_AWKWARD = 'Huns\' <b>charge</b> & "flank"'  # each character escaping changes


def _events_part(events: list[dict[str, Any]]) -> str:
    parts: Any = render.environment().get_template("report_parts.html.j2").module
    return str(parts.events(battle_blocks(event_lines(events, [])), 3))


def test_the_html_events_part_writes_its_values_escaped_without_a_call_a_value() -> None:
    events: list[dict[str, Any]] = [
        {"type": "move", "text": f"Alans (alan-3) move {_AWKWARD}", "path": ["1506", "1505"]},
        {"type": "morale_check", "text": _AWKWARD, "unit": _AWKWARD, "result": "passed"},
        *[{"type": "move", "text": f"Visigoths (visigoth-{n}) moves 0902 0903"} for n in range(20)],
        {
            "type": "combat",
            "hex": "1505",
            "text": f"Combat {_AWKWARD}",
            "attackers": ["alan-3", _AWKWARD],
            "defender": "roman-1",
            "attack": 6,
            "defence": 3,
            "odds": "2-1",
            "column": "2-1",
            "die": 4,
            "row": 4,
            "result": _AWKWARD,
        },
    ]
    _events_part(events)
    html, escapes = c_calls(lambda: _events_part(events), "_escape_inner")
    assert escapes == 8  # the eight values holding the awkward text alone (before: one a value written, 107)
    awkward = str(escape(_AWKWARD))
    assert awkward == "Huns&#39; &lt;b&gt;charge&lt;/b&gt; &amp; &#34;flank&#34;"
    assert _AWKWARD not in html and "<b>" not in html
    assert f"Alans (alan-3) move {awkward}\n" in html
    assert f'<span class="event-type">morale check</span><br>{awkward}\n' in html
    assert f"<dt>unit</dt><dd>{awkward}</dd>" in html and "<dt>result</dt><dd>passed</dd>" in html
    assert '<span class="event-type">Combat at 1505</span>' in html
    assert f"<td>alan-3, {awkward} (6)</td>" in html and f"<td>{awkward}</td></tr>" in html
    assert f"<p>Combat {awkward}</p>" in html and f"<dt>attackers</dt><dd>alan-3; {awkward}</dd>" in html
    assert html.startswith('<section id="events">\n<h2>What happened</h2>\n<ol class="events">\n<li class="event">')
    assert html.endswith("</details>\n</li>\n</ol>\n</section>")
