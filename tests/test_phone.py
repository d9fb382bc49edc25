"""The reports and the game's site on a phone (390 px) and a desktop (1280 px), in
headless Chromium: no page scrolls sideways (tables scroll inside their box, long
words wrap), and each report's close-up (the cropped map shown first) holds every
combat, move and label it touches, none cut at its edge.  Real games through the
CLI: Farrapos and Tolbiac played by the greedy bot (every Furor Barbarus
scenario in the slow run), then ``pbem site`` and the referee's ``pbem report``.
The default run measures Farrapos's pages at its first resolution, its last and
every one with a battle, at a phone's width; the slow run measures every resolution's, at both."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

from pbem.rules import find_ruleset
from tests.conftest import Table
from tests.support.phone_pages import Measured, measure, play

pytestmark = pytest.mark.browser

Shown = Callable[[Table, str, int], Sequence[int]]
"""Which of a played game's resolutions have their pages (each side's report, the
referee's) measured: given the game's table, its name and how many were played."""


def every_resolution(t: Table, game: str, resolutions: int) -> Sequence[int]:
    return range(1, resolutions + 1)


def first_last_and_battles(t: Table, game: str, resolutions: int) -> Sequence[int]:
    """The first resolution, the last, and every one that rolled for a battle (read
    from the game's dice history): the pages between differ only in their words.
    The dice are the game's own, drawn at ``pbem new``, so where the battles fall
    moves from run to run."""
    r = t.run("dice", game, "--json")
    assert r.exit_code == 0, r.stderr
    battles = {roll["resolution"] for roll in json.loads(r.stdout)["rolls"] if roll["purpose"].startswith("battle ")}
    return sorted({1, resolutions, *battles})


Game = tuple[str, str | None, int, Shown]
"""A ruleset, its scenario, how many resolutions the greedy bot plays, and which of
them have their pages measured."""

FARRAPOS: Game = ("farrapos", None, 16, every_resolution)
"""Farrapos's first battles come late."""

FARRAPOS_FIRST_LAST_AND_BATTLES: Game = ("farrapos", None, 16, first_last_and_battles)
"""The same game, measured where its battles are (and at its first and last resolution)."""

TOLBIAC: Game = ("furor-barbarus", "tolbiac", 6, every_resolution)
"""Tolbiac makes a resolution of four or more combats within six resolutions."""

EVERY_SCENARIO: list[Game] = [
    ("furor-barbarus", s, 6, every_resolution) for s in ("campus-mauriacus", "soissons", "vouille")
] + [TOLBIAC]
"""The other three scenarios share Tolbiac's templates and maps; the slow run measures them too."""


@pytest.fixture(
    scope="module",
    params=[
        pytest.param([FARRAPOS_FIRST_LAST_AND_BATTLES, TOLBIAC], id="farrapos-tolbiac"),
        pytest.param([FARRAPOS, *EVERY_SCENARIO], id="every-game", marks=pytest.mark.slow),
    ],
)
def games(request: pytest.FixtureRequest) -> list[Game]:
    return request.param


@dataclass(frozen=True)
class Played:
    """The pages measured, and which resolutions they show, per game."""

    pages: list[Path]
    shown: dict[str, Sequence[int]]


@pytest.fixture(scope="module")
def played(games: list[Game], tmp_path_factory: pytest.TempPathFactory) -> Played:
    """Every page of each game's site, and the referee's report of each resolution
    (of the resolutions measured)."""
    tmp = tmp_path_factory.mktemp("phone")
    out: list[Path] = []
    measured_at: dict[str, Sequence[int]] = {}
    for rules_id, scenario, resolutions, shown in games:
        game = scenario or rules_id
        t = Table(tmp, tmp / f"{game}.db")
        ruleset = find_ruleset(rules_id)
        players = [f"{s}={t.key(s)[1]}" for s in ruleset.sides(scenario)]
        args = ["new", game, "--rules", rules_id, *(["--scenario", scenario] if scenario else [])]
        r = t.run(*args, *(a for p in players for a in ("--player", p)))
        assert r.exit_code == 0, r.stderr
        play(t, game, resolutions)
        site = tmp / "site" / game
        r = t.run("site", game, "-o", str(site))
        assert r.exit_code == 0, r.stderr
        ks = measured_at[game] = shown(t, game, resolutions)
        out += sorted(p for p in site.glob("*.html") if _resolution(p) in (None, 0, *ks))
        for k in ks:
            page = site / f"referee-k{k}.html"
            r = t.run("report", game, "--turn", str(k), "-o", str(page))
            assert r.exit_code == 0, r.stderr
            out.append(page)
    return Played(out, measured_at)


@pytest.fixture(scope="module")
def pages(played: Played) -> list[Path]:
    return played.pages


@pytest.fixture(scope="module")
def measured(pages: list[Path], tmp_path_factory: pytest.TempPathFactory) -> Callable[[int], list[Measured]]:
    """The pages measured at a width, once per width a test asks for."""
    tmp = tmp_path_factory.mktemp("chromium")
    done: dict[int, list[Measured]] = {}

    def at(width: int) -> list[Measured]:
        if width not in done:
            done[width] = measure(tmp, pages, width)
        return done[width]

    return at


WIDTHS = [390, pytest.param(1280, marks=pytest.mark.slow)]
"""A phone's width, and a desktop's in the slow run: the close-up is drawn in the
map's own space whatever the width, and a phone's width is where a page is most
likely to scroll sideways."""


def _resolution(page: Path) -> int | None:
    """The resolution a site page reports (``report-k3-empire.html``: 3); None for the
    game's own pages (index, audit, dice)."""
    m = re.search(r"-k(\d+)\b", page.name)
    return int(m.group(1)) if m else None


def _name(m: Measured) -> str:
    return "/".join(Path(m.page).parts[-2:])


@pytest.mark.parametrize("width", WIDTHS)
def test_no_page_scrolls_sideways(measured, played, games, width):
    results = measured(width)
    assert len(results) == len(played.pages)
    names = {_name(m) for m in results}
    for rules_id, scenario, _, _ in games:
        game = scenario or rules_id
        ks = played.shown[game]
        expected = {
            f"{game}/{page}.html"
            for k in ks
            for page in (f"referee-k{k}", *(f"report-k{k}-{s}" for s in find_ruleset(rules_id).sides(scenario)))
        }
        assert {f"{game}/index.html", f"{game}/audit.html", f"{game}/dice.html", *expected} <= names
    wide = [(_name(m), m.scroll_width, m.wider) for m in results if m.scroll_width > m.width]
    assert all(m.width == width for m in results)
    assert wide == []


@pytest.mark.parametrize("width", WIDTHS)
def test_every_close_up_holds_its_combats_moves_and_labels(measured, width):
    close_ups = [(m, m.close_up) for m in measured(width) if m.close_up]
    cut = [(_name(m), c["viewBox"], c["cut"][:4]) for m, c in close_ups if c["cut"]]
    assert cut == []
    # the cases the close-up used to cut: a Furor resolution of 4+ combats (Campus
    # Mauriacus or Tolbiac), a Farrapos resolution with battles
    many = [m for m, c in close_ups if re.match(r"(campus-mauriacus|tolbiac)/", _name(m)) and c["combats"] >= 4]
    assert many, [(_name(m), c["combats"]) for m, c in close_ups]
    assert any(_name(m).startswith("farrapos/") and c["combats"] >= 1 for m, c in close_ups)


def test_the_measure_catches_a_page_wider_than_a_phone_and_a_cut_label(pages, tmp_path):
    report = next(p for p in pages if p.name.startswith("referee-") and 'class="map detail"' in p.read_text())
    wide = tmp_path / "wide.html"
    wide.write_text(report.read_text().replace("</main>", "</main><div style='width:2000px'>wide</div>"))
    cut = tmp_path / "cut.html"
    cut.write_text(
        re.sub(r'viewBox="[-\d. ]+" role="img"', 'viewBox="0 0 100 100" role="img"', report.read_text(), count=1)
    )
    (wide_page, cut_page) = measure(tmp_path, [wide, cut], 390)
    assert wide_page.scroll_width > 390
    assert cut_page.close_up and cut_page.close_up["cut"]
