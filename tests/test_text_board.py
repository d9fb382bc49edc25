"""A text-only player loses nothing: the text report lists the whole board (every
place with units, both sides, with their factors), the score and the events; a
report mail with its map stays under 200 KB."""

from __future__ import annotations

import email
import io
import re

import pytest

from pbem.rules.registry import find_ruleset
from tests.conftest import Table
from tests.support.cli_steps import play


def test_farrapos_board_lines_name_every_mu_and_militia_on_the_board() -> None:
    rules = find_ruleset("farrapos")
    position = rules.setup(None, [])
    lines = rules.board_lines(position, "republic")
    text = "\n".join(lines)
    for data in position["cities"].values():
        for unit in data["units"]:
            assert re.search(rf"\b{unit} (full|reduced) MF\d AF\d DF\d", text), unit
    assert any(line.startswith("Porto Alegre (porto-alegre), empire: ") for line in lines)


@pytest.mark.parametrize("scenario", ["campus-mauriacus", "soissons", "tolbiac", "vouille"])
def test_furor_board_lines_name_every_unit_on_the_map_with_its_short_id(scenario: str) -> None:
    from tests.support.map_positions import start

    rules = find_ruleset("furor-barbarus")
    position = start("furor-barbarus", scenario).position
    field = rules.field(position)
    on_map = [u for u in field.units if field.exists(u)]
    assert on_map
    text = "\n".join(rules.board_lines(position, None))
    for uid in on_map:
        assert re.search(rf"\b{re.escape(uid)}\b", text), uid
    sides = {field.side_of(u) for u in on_map}
    assert all(f", {s} " in text for s in sides)


@pytest.fixture(scope="module")
def board_table(tmp_path_factory: pytest.TempPathFactory) -> Table:
    tmp = tmp_path_factory.mktemp("textboard")
    t = Table(tmp, tmp / "referee.db")
    keys = [f"--player={s}={t.key(s)[1]}" for s in ("republic", "empire")]
    assert t.run("new", "tb", "--rules", "farrapos", *keys).exit_code == 0
    play(t, "tb", 3)
    return t


def test_the_text_report_lists_the_board_score_and_events(board_table: Table) -> None:
    t = board_table
    out = t.tmp / "r.txt"
    assert t.run("report", "tb", "--side", "empire", "--format", "text", "-o", str(out)).exit_code == 0
    text = out.read_text()
    assert "Every place with units on it, both sides" in text
    assert re.search(r"Porto Alegre \(porto-alegre\), \w+: ", text)
    assert "SCORE" in text
    rules = find_ruleset("farrapos")
    board = "\n".join(rules.board_lines(rules.setup(None, []), None))
    assert "republic" in board and "empire" in board


def test_a_report_mail_stays_under_200_kb_with_a_palette_map(board_table: Table) -> None:
    from PIL import Image

    t = board_table
    out = t.tmp / "r.eml"
    assert t.run("report", "tb", "--side", "republic", "--format", "eml", "-o", str(out)).exit_code == 0
    raw = out.read_bytes()
    assert len(raw) < 200 * 1024, len(raw)
    pngs = [p for p in email.message_from_bytes(raw).walk() if p.get_content_type() == "image/png"]
    assert pngs
    for part in pngs:
        with Image.open(io.BytesIO(part.get_payload(decode=True))) as image:
            assert image.mode == "P" and image.width >= 900
