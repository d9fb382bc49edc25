"""What a report no longer does (issue 14): each test counts calls or imports,
never time, and failed before the change it guards (see tests/test_costs.py for
the store's side).

- a resolution's reports are written without a template engine, and what every
  side's report shows alike (events, dice and proof, footer, map) is written once;
- writing them resolves no path (each of six files resolved its whole path twice);
- the Farrapos map draws its board, tracks and key once per board, not per map;
- placing its labels samples only the path lines near each label;
- the maps escape their text without ``xml.sax.saxutils`` (it imports
  ``urllib.request`` and ``ssl``), and exactly as it did.
"""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pbem import paths, pipeline, report_html, report_text, reporting, store
from pbem.rules import find_ruleset
from tests.test_crash import new_games, open_desk, queue_next_turns


def _counting(monkeypatch: pytest.MonkeyPatch, owner: Any, name: str, calls: dict[str, int]) -> None:
    real = getattr(owner, name)
    key = f"{owner.__name__.rsplit('.', 1)[-1]}.{name}"
    calls[key] = 0

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls[key] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(owner, name, counted)


def test_a_resolutions_reports_write_what_every_side_sees_alike_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each side's HTML and text report rendered its template whole: the events
    (with their battle tables and wrapped text), the dice and their proof, twice
    over, through Jinja.  Now each is written once per resolution, and no path
    is resolved (each of the six files resolved its whole path twice)."""
    desk = open_desk(tmp_path)
    [game] = new_games(desk, 1)
    for n in range(3):
        queue_next_turns(desk, [game], seed=n)
        assert pipeline.process(desk.engine, [game])[0].resolved == n + 1
    desk.engine.dispose()
    calls: dict[str, int] = {}
    for module in (report_html, report_text):
        _counting(monkeypatch, module, "_events", calls)
        _counting(monkeypatch, module, "_dice", calls)
    _counting(monkeypatch, report_html, "_footer", calls)
    _counting(monkeypatch, Path, "resolve", calls)
    folder = tmp_path / "reports"
    written = reporting.write_resolution_reports(store.open_database(desk.db), game, 3, folder)
    assert {p.suffix for p in written} == {".html", ".txt", ".json"} and len([p for p in written if p.suffix == ".html"]) == 2
    assert calls == {
        "report_html._events": 1, "report_html._dice": 1, "report_html._footer": 1,
        "report_text._events": 1, "report_text._dice": 1,
        "Path.resolve": 0,
    }, calls


def test_writing_a_report_file_refuses_what_inside_refuses(tmp_path: Path) -> None:
    for bad in ("", ".", "..", "../x", "a/b", "a\\b", "a\0b"):
        with pytest.raises(paths.UnsafePath):
            paths.write_inside(tmp_path, bad, "x")
    (tmp_path / "elsewhere.txt").write_text("kept", encoding="utf-8")
    (tmp_path / "report-k1-republic.html").symlink_to(tmp_path / "elsewhere.txt")
    with pytest.raises(paths.UnsafePath, match="symbolic link"):
        paths.write_inside(tmp_path, "report-k1-republic.html", "overwritten")
    assert (tmp_path / "elsewhere.txt").read_text(encoding="utf-8") == "kept"
    assert paths.write_inside(tmp_path, "report-k2-empire.txt", "é\n").read_bytes() == "é\n".encode("utf-8")


def test_the_farrapos_map_draws_only_what_moves(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each map drew every text of the board, the tracks and the key again (about
    190 texts, each escaped); now a map draws its title, the MU badges, the three
    track headings, the VP line and the stacks."""
    from pbem.rules.farrapos import svg

    position = find_ruleset("farrapos").setup(None, [])
    svg.render(position)  # the board's drawing, once per process
    drawn: list[str] = []
    real = svg._text
    monkeypatch.setattr(svg, "_text", lambda x, y, body, *a, **k: drawn.append(body) or real(x, y, body, *a, **k))
    svg.render(position)
    held = [city for city in position["cities"].values() if city["units"] or city["militia"]]
    lines = sum(len(city["units"]) + (1 if city["militia"] else 0) for city in held)
    assert len(drawn) == 1 + len(held) + 3 + 1 + len(held) + lines


def test_placing_the_farrapos_labels_samples_only_the_lines_near_each_label(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every candidate place of every label sampled every path line (7,138
    segment tests for the shipped board): a tenth of a second of each ``pbem
    report``.  A line whose bounding box misses the label's box is passed over."""
    from pbem.rules.farrapos import svg
    from pbem.rules.farrapos.board import load_board

    calls = 0
    real = svg._segment_hits

    def counting(*args: Any) -> bool:
        nonlocal calls
        calls += 1
        return real(*args)

    monkeypatch.setattr(svg, "_segment_hits", counting)
    placed = svg._layout(load_board())
    monkeypatch.undo()
    assert placed == svg._layout(load_board())
    assert calls < 400, calls


def test_map_escaping_is_saxutils_exactly() -> None:
    from xml.sax import saxutils

    from pbem.rules.mapdraw import escape, quoteattr

    rng = random.Random(14)
    for _ in range(5000):
        text = "".join(rng.choice("ab &<>\"'\n\r\té") for _ in range(rng.randint(0, 9)))
        assert escape(text) == saxutils.escape(text)
        assert quoteattr(text) == saxutils.quoteattr(text)


def test_drawing_the_maps_imports_no_saxutils() -> None:
    """``xml.sax.saxutils`` imports ``urllib.request`` and ``ssl``: 18 ms of every
    report command's start-up."""
    probe = (
        "import sys\n"
        "from pbem.rules import find_ruleset\n"
        "for rules, scenario in (('farrapos', None), ('furor-barbarus', 'vouille')):\n"
        "    r = find_ruleset(rules)\n"
        "    r.map_svg(r.setup(scenario, []), [], None)\n"
        "import pbem.charts\n"
        "print(sorted(m for m in sys.modules if m.startswith(('xml.sax', 'urllib.request', 'ssl'))))\n"
    )
    ran = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.strip() == "[]"
