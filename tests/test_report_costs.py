"""What a report no longer does (issue 14): each test counts calls or imports,
never time, and failed before the change it guards (see tests/test_costs.py for
the store's side).

- the Farrapos map draws its board, tracks and key once per board, not per map;
- placing its labels samples only the path lines near each label;
- the maps escape their text without ``xml.sax.saxutils`` (it imports
  ``urllib.request`` and ``ssl``), and exactly as it did.
"""

from __future__ import annotations

import random
import subprocess
import sys
from typing import Any

import pytest

from pbem.rules import find_ruleset


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
