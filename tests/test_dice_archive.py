"""``pbem dice --archive FILE`` (the speed work): the dice history read from an exported
archive, with no database, is the one the referee's database gives."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pbem.audit import archive
from pbem.cli.application import app
from pbem.referee import lifecycle
from tests.support.desk import new_games, open_desk, play_resolutions


def test_the_archive_gives_the_same_dice_history_as_the_database(tmp_path: Path) -> None:
    desk = open_desk(tmp_path)
    try:
        [game] = new_games(desk, 1)
        play_resolutions(desk, game, 6)
        lifecycle.rollback(desk.engine, game, 4)  # set-aside rolls are marked in both
        archive.export(desk.engine, game, tmp_path / "g.json")
    finally:
        desk.engine.dispose()
    runner = CliRunner()
    from_db = runner.invoke(app, ["--db", str(desk.db), "dice", game, "--json", "--stats"])
    from_archive = runner.invoke(app, ["dice", "--archive", str(tmp_path / "g.json"), "--json", "--stats"])
    assert from_db.exit_code == from_archive.exit_code == 0, (from_db.stderr, from_archive.stderr)
    db_json, archive_json = json.loads(from_db.stdout), json.loads(from_archive.stdout)
    assert archive_json == db_json
    assert any(r["set_aside"] for r in db_json["rolls"]) and any(not r["set_aside"] for r in db_json["rolls"])
    text = runner.invoke(app, ["dice", "--archive", str(tmp_path / "g.json")]).stdout
    assert text.splitlines()[0] == f"dice of {game} (anchor {db_json['anchor']}): {len(db_json['rolls'])} roll(s)"


def test_a_broken_archive_or_both_sources_are_refused_in_one_line(tmp_path: Path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text('{"format": "pbem-archive/1", "game": {}}', encoding="utf-8")
    runner = CliRunner()
    r = runner.invoke(app, ["dice", "--archive", str(broken)])
    assert (
        r.exit_code == 1 and r.stderr.startswith("pbem: archive is malformed: KeyError") and r.stderr.count("\n") == 1
    )
    r = runner.invoke(app, ["dice", "--archive", str(tmp_path / "none.json")])
    assert r.exit_code == 1 and "cannot read archive" in r.stderr
    assert runner.invoke(app, ["dice", "g1", "--archive", str(broken)]).exit_code == 2
    assert runner.invoke(app, ["dice"]).exit_code == 2


def test_dice_stats_read_each_roll_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``pbem dice --stats`` counts the faces once and fits each die size from those
    counts (it counted them again for every die size's chi-square)."""
    from pbem.dice import stats
    from tests.support.calls import counted_calls

    desk = open_desk(tmp_path)
    try:
        [game] = new_games(desk, 1)
        play_resolutions(desk, game, 6)
        archive.export(desk.engine, game, tmp_path / "g.json")
    finally:
        desk.engine.dispose()
    read = counted_calls(monkeypatch, stats, "_sides_and_value")
    r = CliRunner().invoke(app, ["dice", "--archive", str(tmp_path / "g.json"), "--json", "--stats"])
    assert r.exit_code == 0, r.stderr
    out = json.loads(r.stdout)
    assert list(out["stats"]) == ["6"] and len(out["rolls"]) > 0
    assert len(read) == len(out["rolls"])  # before: once for the counts, and again for each die size's fit
