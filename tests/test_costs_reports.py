"""What a resolution's reports no longer work out (the instruction budget of
``process --all --reports``, ``bench/budgets.py``): each test counts calls, never
time, and fails on the reports before this work.

- the board in words of a game that hides nothing is wrapped once for both sides'
  text reports (a part of ``report_parts.txt.j2``), not once per side;
- each side's key fingerprint is the hash of its stored blob: no key object is made
  (and checked) to name it;
- the scenario (its title, its sides) is looked up once per resolution, not three
  times (Furor Barbarus lists its scenario files and reads one at each lookup);
- a map's look is found again by the map's identity, not by hashing its SVG; the
  files' ``data:`` URIs are not escaped; the stylesheet is included without a context;
- the text report's wrap finds the hyphenated words of a line from its hyphens, with
  no pattern searched from every position of the line.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pbem.reports import assemble as reporting
from pbem.reports import render as report
from pbem.reports import wrap
from pbem.rules import find_ruleset
from pbem.store.transaction import transaction
from pbem.turnfiles import keys


def test_the_board_in_words_is_wrapped_once_for_both_sides(
    farrapos_game: tuple[Any, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each side's text report wrapped and indented every line of the board in
    words, the same lines for both sides; now they are a part rendered once."""
    db, game = farrapos_game
    with transaction(db, write=False) as tx:
        board = reporting.report_data(tx, game, 3).board
    assert board
    wrapped: list[str] = []

    class Seen(dict):  # the wrap filter's memo: each line longer than the width is looked up in it first
        def get(self, key: Any, default: Any = None) -> Any:
            wrapped.append(key[0])
            return super().get(key, default)

    monkeypatch.setattr(wrap, "_wrapped_indented", Seen())
    reporting.write_resolution_reports(db, game, 3, tmp_path)
    assert sorted(line for line in wrapped if line in board) == sorted(board)


def test_naming_the_keys_makes_no_key_object(
    farrapos_game: tuple[Any, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each report named both sides' key fingerprints by parsing each stored key
    into a ``cryptography`` key object (checking the curve point); the fingerprint
    is the hash of the blob alone."""
    db, game = farrapos_game
    made = [0]
    real = keys.PublicKey.to_crypto

    def counted(key: keys.PublicKey) -> Any:
        made[0] += 1
        return real(key)

    monkeypatch.setattr(keys.PublicKey, "to_crypto", counted)
    reporting.write_resolution_reports(db, game, 3, tmp_path)
    assert made[0] == 0
    text = (tmp_path / report.report_filename(3, "republic", "txt")).read_text(encoding="utf-8")
    with transaction(db, write=False) as tx:
        players = reporting.report_reads.players(tx, game)
    for p in players:
        assert f"key {p.side}: {keys.PublicKey.from_openssh(p.public_key).fingerprint()}" in text


def test_a_resolutions_reports_look_their_scenario_up_once(
    farrapos_game: tuple[Any, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The scenario's title, the sides whose reports are written and the check of
    those sides each looked the scenario up (a glob of the scenario files and a
    TOML file found for Furor Barbarus); now one lookup gives all three."""
    db, game = farrapos_game
    ruleset = type(find_ruleset("farrapos"))
    looked_up = [0]
    real = ruleset.scenario

    def counted(self: Any, scenario_id: str | None) -> Any:
        looked_up[0] += 1
        return real(self, scenario_id)

    monkeypatch.setattr(ruleset, "scenario", counted)
    written = reporting.write_resolution_reports(db, game, 3, tmp_path)
    assert looked_up[0] == 1 and len([p for p in written if p.suffix == ".html"]) == 2


def test_a_map_is_found_again_by_identity_not_by_hash(farrapos_game: tuple[Any, str]) -> None:
    """Each side's report looked its map's look up in a dict keyed by the map: the
    whole SVG (tens of kB) hashed once per resolution.  The same map object is found
    by identity."""
    db, game = farrapos_game
    hashed = [0]

    class Svg(str):
        def __hash__(self) -> int:
            hashed[0] += 1
            return super().__hash__()

    with transaction(db, write=False) as tx:
        data = reporting.report_data(tx, game, 3)
    svg = Svg(data.map_svg)
    shared = report.Shared(data)
    first = shared.map_look(svg)
    assert shared.map_look(svg) is first and first.embedded and hashed[0] == 0


def test_a_reports_files_are_linked_without_escaping_their_base64(
    farrapos_game: tuple[Any, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each page escaped the ``data:`` URIs of its files (the position file and the
    turn file, kilobytes of base64 with nothing to escape) character by character;
    they are markup made once, and the page shows the same links."""
    import markupsafe

    db, game = farrapos_game
    scanned: list[str] = []
    real = markupsafe._escape_inner

    def counted(text: str) -> str:
        scanned.append(text)
        return real(text)

    monkeypatch.setattr(markupsafe, "_escape_inner", counted)
    reporting.write_resolution_reports(db, game, 3, tmp_path)
    assert scanned and not [text for text in scanned if text.startswith("data:")]
    page = (tmp_path / report.report_filename(3, "republic", "html")).read_text(encoding="utf-8")
    assert 'href="data:application/json;charset=utf-8;base64,' in page


def test_a_page_includes_its_stylesheet_without_a_context(
    farrapos_game: tuple[Any, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The stylesheet included in each page was rendered as a template of its own,
    with a copy of the page's context; it is rendered once and its text reused."""
    import jinja2

    db, game = farrapos_game
    with transaction(db, write=False) as tx:
        data = reporting.report_data(tx, game, 3, "republic")
    page = report.render_html(data)
    contexts = [0]
    real = jinja2.Template.new_context

    def counted(template: jinja2.Template, *args: Any, **kwargs: Any) -> Any:
        contexts[0] += 1
        return real(template, *args, **kwargs)

    monkeypatch.setattr(jinja2.Template, "new_context", counted)
    assert report.render_html(data) == page and contexts[0] == 1
    assert report.environment().get_template("report.css").render() in page


def test_wrapping_finds_hyphenated_words_without_a_pattern(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each wrapped line was searched with a pattern (a look-behind, tried at every
    position of the line: most of a Vouille text report's wrapping); the words with a
    hyphen are found from the hyphens, the same breaks as the pattern gave."""
    import random
    import re

    rng = random.Random(5)
    words = ["inf-3", "a", "frank-cav-12", "-x", "y-", "--", "rome", "well-known-word", "b-c-d", "visigoth"]
    lines = [" ".join(rng.choice(words) for _ in range(rng.randint(1, 14))) for _ in range(400)]
    pattern = re.compile(r"(?<![^ ])[^ -]*-[^ ]*")
    for line in lines:
        for m in pattern.finditer(line):
            expected = [m.start() + cut for cut in wrap._word_cuts(m.group())]
            assert wrap._cuts_in_word(line, m.start()) == expected == wrap._cuts_in_word(line, m.end() - 1), line
    searched = [0]

    class Counted:  # where the pattern was kept, searched through
        def finditer(self, text: str) -> Any:
            searched[0] += 1
            return pattern.finditer(text)

    monkeypatch.setattr(wrap, "_HYPHENATED", Counted(), raising=False)
    for line in lines:
        assert wrap.fill(line, 20)
    assert searched[0] == 0
