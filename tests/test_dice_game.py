"""The dice seed through a whole game: the seed never leaves the database, an
independent verifier agrees with every stored roll, and tampering with an
exported archive is caught by `pbem audit --archive`."""

from __future__ import annotations

import base64
import copy
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Table
from tests.support.cli_steps import play
from tests.support.scripts import load_script

pytestmark = pytest.mark.usefixtures("maps_drawn_once")


def _verifier() -> Any:
    return load_script("tools/verify_dice.py", "verify_dice")


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> tuple[Table, Path, list[str]]:
    tmp = tmp_path_factory.mktemp("dicegame")
    t = Table(tmp, tmp / "referee.db")
    _, rep = t.key("republic")
    _, emp = t.key("empire")
    assert (
        t.run(
            "new", "dice1", "--rules", "farrapos", "--player", f"republic={rep}", "--player", f"empire={emp}"
        ).exit_code
        == 0
    )
    outputs = play(t, "dice1", 12)
    archive = t.tmp / "dice1.json"
    r = t.run("export", "dice1", "-o", str(archive))
    assert r.exit_code == 0, r.stderr
    return t, archive, outputs


def test_independent_verifier_agrees_with_every_roll(played) -> None:
    t, archive, _ = played
    data = json.loads(archive.read_text())
    assert sum(len(r["rolls"]) for r in data["resolutions"]) > 0, "a game of 12 turns rolls dice"
    summary = _verifier().verify(data, data["dice"]["anchor"])
    assert summary


def test_seed_appears_in_no_file_the_project_writes(played) -> None:
    t, archive, outputs = played
    outputs = list(outputs)
    con = sqlite3.connect(t.db)
    seed_hex = con.execute("SELECT seed FROM game").fetchone()[0]
    con.close()
    seed = bytes.fromhex(seed_hex)
    forms = {
        seed_hex,
        seed_hex.upper(),
        base64.b64encode(seed).decode(),
        base64.urlsafe_b64encode(seed).decode().rstrip("="),
    }
    written = t.tmp / "written"
    written.mkdir(exist_ok=True)
    for fmt, ext in (("html", "html"), ("text", "txt"), ("eml", "eml")):
        for side in ("republic", "empire"):
            assert (
                t.run(
                    "report", "dice1", "--side", side, "--format", fmt, "-o", str(written / f"r-{side}.{ext}")
                ).exit_code
                == 0
            )
    outputs.append(t.run("dice", "dice1", "--json", "--stats").stdout)
    outputs.append(t.run("status", "dice1", "--json").stdout)
    outputs.append(t.run("audit", "dice1").stdout)
    for side in ("republic", "empire"):
        outputs.append(
            t.run("orders", "dice1", "--side", side).stdout + t.run("orders", "dice1", "--side", side).stderr
        )
    files = [p for p in t.tmp.rglob("*") if p.is_file() and not p.name.startswith("referee.db")]
    assert any(p.suffix == ".eml" for p in files) and archive in files
    for path in files:
        content = path.read_bytes().decode("utf-8", "replace")
        for form in forms:
            assert form not in content, f"the seed appears in {path}"
    for out in outputs:
        for form in forms:
            assert form not in out


def _audit(t: Table, data: dict, name: str) -> tuple[int, str]:
    path = t.tmp / f"{name}.json"
    path.write_text(json.dumps(data))
    r = t.run("audit", "--archive", str(path))
    return r.exit_code, r.stderr


def _with_rolls(data: dict) -> tuple[int, int]:
    for i, res in enumerate(data["resolutions"]):
        if res["rolls"]:
            return i, 0
    raise AssertionError("no rolls")


def _with_files(data: dict) -> int:
    return next(i for i, r in enumerate(data["resolutions"]) if r["submissions"])


TAMPERS = {
    "roll value changed": (lambda d: _set_roll(d), "roll 0"),
    "reveal changed": (lambda d: d["resolutions"][1].__setitem__("reveal", "00" * 32), "reveal"),
    "submission removed": (lambda d: d["resolutions"][_with_files(d)]["submissions"].pop(), "resolution"),
    "submission byte edited": (lambda d: _edit_file(d), "signature does not verify"),
    "position hash changed": (
        lambda d: d["resolutions"][2].__setitem__("state_hash", "ab" * 32),
        "chain of positions is broken",
    ),
    "last position hash changed": (
        lambda d: d["resolutions"][-1].__setitem__("state_hash", "ab" * 32),
        "replay gives position",
    ),
    "resolution dropped": (lambda d: d["resolutions"].pop(3), "missing [4]"),
    "anchor changed": (lambda d: d["dice"].__setitem__("anchor", "cd" * 32), "anchor"),
}


def _set_roll(d: dict) -> None:
    i, j = _with_rolls(d)
    roll = d["resolutions"][i]["rolls"][j]
    roll["value"] = roll["value"] % roll["sides"] + 1


def _edit_file(d: dict) -> None:
    sub = d["resolutions"][_with_files(d)]["submissions"][0]
    text = sub["turn_file"]
    sub["turn_file"] = text[:-1] + ("x" if text[-1] != "x" else "y")


@pytest.mark.parametrize("name", list(TAMPERS))
def test_tampered_archive_is_caught(played, name: str) -> None:
    t, archive, _ = played
    data = json.loads(archive.read_text())
    assert _audit(t, data, "honest")[0] == 0
    tampered = copy.deepcopy(data)
    change, expected = TAMPERS[name]
    change(tampered)
    code, err = _audit(t, tampered, name)
    assert code == 1, err
    assert "audit failed" in err and expected in err, err


def test_submissions_reordered_is_caught(new_farrapos) -> None:
    """Two files in one resolution need two due sides: Furor Barbarus' set-up at
    Vouille has both; Farrapos never does, so reorder across resolutions."""
    t = new_farrapos("dice2")
    play(t, "dice2", 3)
    archive = t.tmp / "d2.json"
    t.run("export", "dice2", "-o", str(archive))
    data = json.loads(archive.read_text())
    a, b = data["resolutions"][0], data["resolutions"][1]
    a["submissions"], b["submissions"] = b["submissions"], a["submissions"]
    code, err = _audit(t, data, "reordered")
    assert code == 1 and "header" in err, err


def test_dice_command_lists_every_roll_with_stats(played) -> None:
    t, archive, _ = played
    data = json.loads(archive.read_text())
    stored = [
        (r["k"], roll["index"], roll["sides"], roll["value"], roll["purpose"])
        for r in data["resolutions"]
        for roll in r["rolls"]
    ]
    r = t.run("dice", "dice1", "--json", "--stats")
    assert r.exit_code == 0, r.stderr
    listed = json.loads(r.stdout)
    assert [(x["resolution"], x["index"], x["sides"], x["value"], x["purpose"]) for x in listed["rolls"]] == stored
    d6 = listed["stats"]["6"]
    assert sum(d6["faces"].values()) == sum(1 for s in stored if s[2] == 6)
    statistic, dof, p = d6["chi_square"]
    assert dof == 5 and 0.0 <= p <= 1.0 and statistic >= 0
    text = t.run("dice", "dice1", "--stats").stdout
    assert f"{len(stored)} roll(s)" in text and "chi-square" in text
    assert all(purpose in text for *_, purpose in stored[:5])


@pytest.fixture(scope="module")
def furor_archives(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A whole bot game of every Furor Barbarus scenario, through the real path."""
    from pbem import demo, store

    out = tmp_path_factory.mktemp("furor")
    engine = store.open_engine(out / "fb.db")
    archives = {}
    for rules_id, scenario in demo.DEMO_GAMES:
        if rules_id == "furor-barbarus":
            result = demo.play_game(engine, out, rules_id, scenario)
            archives[scenario] = result.archive
    engine.dispose()
    return archives


def test_independent_verifier_agrees_over_every_furor_barbarus_scenario(furor_archives) -> None:
    verifier = _verifier()
    for scenario, path in furor_archives.items():
        data = json.loads(path.read_text())
        assert data["final"]["over"], scenario
        assert sum(len(r["rolls"]) for r in data["resolutions"]) > 0, scenario
        verifier.verify(data, data["dice"]["anchor"])


def test_reordered_submissions_in_one_resolution_are_caught(furor_archives, tmp_path: Path) -> None:
    """Vouille's set-up resolution holds both sides' files (no set-up order is printed)."""
    data = json.loads(furor_archives["vouille"].read_text())
    setup = data["resolutions"][0]
    assert len(setup["submissions"]) == 2
    setup["submissions"].reverse()
    t = Table(tmp_path, tmp_path / "none.db")
    code, err = _audit(t, data, "reordered")
    assert code == 1 and "out of side order" in err, err
