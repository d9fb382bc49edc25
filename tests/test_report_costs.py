"""What a report no longer does (the speed work): each test counts calls or imports,
never time, and failed before the change it guards (see tests/test_costs.py for
the store's side).

- what every side's report of a resolution shows alike (events, dice and proof,
  footer, map) is rendered once (``templates/report_parts.*.j2``), and a
  process loads the report's compiled templates from the user's cache instead
  of compiling them (``pbem.reports.template_cache``), never stale;
- writing them resolves no path (each of six files resolved its whole path twice);
- the Farrapos map draws its board, tracks and key once per board, not per map;
- placing its labels samples only the path lines near each label;
- the maps escape their text without ``xml.sax.saxutils`` (it imports
  ``urllib.request`` and ``ssl``), and exactly as it did.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jinja2
import pytest

from pbem import paths, store
from pbem.reports import assemble as reporting
from pbem.reports import render as report
from pbem.reports import template_cache
from pbem.rules import find_ruleset
from tests.support.desk import new_games, open_desk, play_resolutions
from tests.support.report_data import a_report


def _counting(monkeypatch: pytest.MonkeyPatch, owner: Any, name: str, calls: dict[str, int]) -> None:
    real = getattr(owner, name)
    key = f"{owner.__name__.rsplit('.', 1)[-1]}.{name}"
    calls[key] = 0

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls[key] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(owner, name, counted)


def test_a_resolutions_reports_write_what_every_side_sees_alike_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each side's HTML and text report rendered its template whole: the events
    (with their battle tables and wrapped text), the dice and their proof, twice
    over.  Now each part is rendered once per resolution (a macro of
    ``report_parts.*.j2``), and no path is resolved (each of the six files
    resolved its whole path twice)."""
    desk = open_desk(tmp_path)
    [game] = new_games(desk, 1)
    play_resolutions(desk, game, 3)
    desk.engine.dispose()
    calls: dict[str, int] = {}
    real_macro = jinja2.runtime.Macro.__call__

    def counted_macro(macro: jinja2.runtime.Macro, *args: Any, **kwargs: Any) -> Any:
        if macro.name != "dice_line":  # within the events
            calls[macro.name] = calls.get(macro.name, 0) + 1
        return real_macro(macro, *args, **kwargs)

    monkeypatch.setattr(jinja2.runtime.Macro, "__call__", counted_macro)
    _counting(monkeypatch, Path, "resolve", calls)
    folder = tmp_path / "reports"
    written = reporting.write_resolution_reports(store.open_database(desk.db), game, 3, folder)
    assert {p.suffix for p in written} == {".html", ".txt", ".json"} and len(
        [p for p in written if p.suffix == ".html"]
    ) == 2
    # once for both sides' HTML reports and once for their text reports (the board in words: text only);
    # the list's lines once, to keep
    assert calls == {
        "events": 2,
        "dice": 2,
        "footer": 1,
        "history": 1,
        "history_lines": 1,
        "board": 1,
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
    assert paths.write_inside(tmp_path, "report-k2-empire.txt", "é\n").read_bytes() == "é\n".encode()


def test_the_farrapos_map_draws_only_what_moves(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each map drew every text of the board, the tracks and the key again (about
    190 texts, each escaped); now a map draws its title, and the stacks' headings the
    first time the process meets each city and holder (the MU badges and the stacks'
    lines are put together where they are drawn; the three track headings and the VP
    line once per phase, turn and score: tests/test_costs_farrapos_map_panel.py)."""
    from pbem.rules.farrapos import svg

    position = find_ruleset("farrapos").setup(None, [])
    svg.render(position)  # the board's drawing, once per process
    drawn: list[str] = []
    real = svg._text
    monkeypatch.setattr(svg, "_text", lambda x, y, body, *a, **k: drawn.append(body) or real(x, y, body, *a, **k))
    svg.render(position)
    assert len(drawn) == 1
    svg._HEADINGS.clear()  # a process that has drawn no stack yet
    drawn.clear()
    svg.render(position)
    held = [city for city in position["cities"].values() if city["units"] or city["militia"]]
    assert len(drawn) == 1 + len(held)


def test_placing_the_farrapos_labels_samples_only_the_lines_near_each_label(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every candidate place of every label sampled every path line (7,138
    segment tests for the shipped board): a tenth of a second of each ``pbem
    report``.  A line whose bounding box misses the label's box is passed over."""
    from pbem.rules.farrapos import svg_layout
    from pbem.rules.farrapos.board import load_board

    calls = 0
    real = svg_layout._segment_hits

    def counting(*args: Any) -> bool:
        nonlocal calls
        calls += 1
        return real(*args)

    monkeypatch.setattr(svg_layout, "_segment_hits", counting)
    placed = svg_layout._layout(load_board())
    monkeypatch.undo()
    assert placed == svg_layout._layout(load_board())
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
        "import pbem.reports.charts\n"
        "print(sorted(m for m in sys.modules if m.startswith(('xml.sax', 'urllib.request', 'ssl'))))\n"
    )
    ran = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.strip() == "[]"


@pytest.fixture
def fresh_environment() -> Iterator[None]:
    """The template environment made again after the test (it changed its folders)."""
    yield
    report.environment.cache_clear()


def _compiles(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    calls: dict[str, int] = {}
    _counting(monkeypatch, jinja2.Environment, "compile", calls)
    return calls


def test_an_edited_template_is_never_served_from_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fresh_environment: None
) -> None:
    """A new process's environment over the same templates loads them from the
    cache (no compile); after an edit, the cache's checksum no longer matches and
    the edited template is what renders."""
    folder = tmp_path / "templates"
    folder.mkdir()
    for name in ("report.html.j2", "report_parts.html.j2", "report.css"):
        (folder / name).write_bytes((report.TEMPLATE_DIR / name).read_bytes())
    monkeypatch.setattr(report, "TEMPLATE_DIR", folder)
    monkeypatch.setenv("PBEM_CACHE_DIR", str(tmp_path / "cache"))
    calls = _compiles(monkeypatch)
    data = a_report()

    def render() -> str:
        report.environment.cache_clear()  # as in a new process
        return report.render_html(data)

    first = render()
    assert calls["Environment.compile"] == 3  # the page, its parts, the stylesheet
    assert render() == first and calls["Environment.compile"] == 3  # from the cache
    page = folder / "report.html.j2"
    page.write_text(page.read_text(encoding="utf-8").replace("<h2>Score</h2>", "<h2>Points</h2>"), encoding="utf-8")
    assert render() == first.replace("<h2>Score</h2>", "<h2>Points</h2>")
    assert calls["Environment.compile"] == 4


def test_a_second_process_loads_the_reports_templates_from_the_cache(tmp_path: Path) -> None:
    """The first process compiles the report's templates and stores them in the
    per-user cache folder (made 0700); the next one compiles nothing."""
    cache = tmp_path / "cache" / "templates"
    script = (
        "import jinja2\n"
        "from pbem.reports import render as report\n"
        "from tests.support.report_data import a_report\n"
        "real = jinja2.Environment.compile\n"
        "calls = []\n"
        "jinja2.Environment.compile = lambda self, *a, **k: calls.append(a) or real(self, *a, **k)\n"
        "data = a_report()\n"
        "report.render_html(data); report.render_text(data)\n"
        "print(len(calls))\n"
    )
    root = Path(__file__).resolve().parent.parent

    def run() -> int:
        env = {**os.environ, "PBEM_CACHE_DIR": str(cache)}
        done = subprocess.run(
            [sys.executable, "-c", script], capture_output=True, text=True, env=env, cwd=root, check=True
        )
        return int(done.stdout)

    assert run() == 5  # the HTML page, its parts, the stylesheet, the text page, its parts
    assert cache.stat().st_mode & 0o777 == 0o700 and len(list(cache.iterdir())) == 5
    assert run() == 0


def test_a_cache_folder_that_cannot_be_used_means_no_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fresh_environment: None
) -> None:
    """A cache folder that cannot be made, or that others can write into, is not
    used: the report is rendered all the same."""
    (tmp_path / "file").write_text("not a folder", encoding="utf-8")
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    for folder in (tmp_path / "file" / "cache", shared):
        monkeypatch.setenv("PBEM_CACHE_DIR", str(folder))
        assert template_cache.bytecode_cache() is None
    monkeypatch.setenv("PBEM_CACHE_DIR", str(tmp_path / "file" / "cache"))
    report.environment.cache_clear()
    assert "<h2>Score</h2>" in report.render_html(a_report())


def test_the_cache_folder_follows_the_users_settings(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PBEM_CACHE_DIR", str(tmp_path / "x"))
    assert template_cache.cache_folder() == tmp_path / "x"
    monkeypatch.delenv("PBEM_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert template_cache.cache_folder() == tmp_path / "xdg" / "pbem" / "templates"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert template_cache.cache_folder() == tmp_path / "home" / ".cache" / "pbem" / "templates"
