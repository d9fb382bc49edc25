"""An audit bound to what the player received: the anchor and the keys in his
reports.  A re-forged archive (new keys, new chain, everything consistent) passes
an unbound audit and fails a bound one, naming what differs."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import Table
from tests.support.cli_steps import play

SIDES = ("republic", "empire")


def _game(folder: Path, label: str) -> tuple[Table, Path]:
    folder.mkdir()
    t = Table(folder, folder / "referee.db")
    pubs = [t.key(side)[1] for side in SIDES]
    r = t.run("new", "g1", "--rules", "farrapos", *[f"--player={s}={p}" for s, p in zip(SIDES, pubs)])
    assert r.exit_code == 0, r.stderr
    play(t, "g1", 3)
    archive = folder / "g1.json"
    assert t.run("export", "g1", "-o", str(archive)).exit_code == 0
    return t, archive


@pytest.fixture(scope="module")
def games(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Table, Path]]:
    tmp = tmp_path_factory.mktemp("binding")
    return {"honest": _game(tmp / "honest", "honest"), "forged": _game(tmp / "forged", "forged")}


def _held(t: Table) -> tuple[str, dict[str, str]]:
    """The anchor and fingerprints the player reads in his text report."""
    out = t.tmp / "report.txt"
    assert t.run("report", "g1", "--side", "republic", "--format", "text", "-o", str(out)).exit_code == 0
    text = out.read_text()
    anchor = re.search(r"anchor \(\d+\): ([0-9a-f]{64})", text)
    assert anchor, text
    prints = dict(re.findall(r"key (\w+): (SHA256:\S+)", text))
    return anchor.group(1), prints


def test_reports_print_the_anchor_and_each_key_as_ssh_keygen_does(games) -> None:
    t, _ = games["honest"]
    anchor, prints = _held(t)
    assert set(prints) == set(SIDES)
    if shutil.which("ssh-keygen"):
        for side in SIDES:
            listed = subprocess.run(
                ["ssh-keygen", "-lf", str(t.key(side)[1])], capture_output=True, text=True, check=True
            ).stdout
            assert listed.split()[1] == prints[side]
    html = t.tmp / "report.html"
    assert t.run("report", "g1", "--side", "empire", "--format", "html", "-o", str(html)).exit_code == 0
    page = html.read_text()
    assert anchor in page and all(p in page for p in prints.values())


def test_a_reforged_archive_passes_unbound_and_fails_bound(games) -> None:
    honest, _ = games["honest"]
    forger, forged = games["forged"]
    anchor, _ = _held(honest)
    keys = [f"--key={s}={honest.key(s)[1]}" for s in SIDES]
    assert honest.run("audit", "--archive", str(forged)).exit_code == 0  # consistent in itself
    r = honest.run("audit", "--archive", str(forged), "--anchor", anchor)
    assert r.exit_code == 1
    assert "the dice commitment differs: you hold anchor " + anchor in r.stderr
    r = honest.run("audit", "--archive", str(forged), keys[0])
    assert r.exit_code == 1 and "the key of republic differs" in r.stderr and "empire" not in r.stderr
    r = honest.run("audit", "--archive", str(forged), "--anchor", anchor, *keys)
    assert r.exit_code == 1
    assert r.stderr.count("pbem: ") == 1 and "republic" in r.stderr and "empire" in r.stderr


def test_the_honest_archive_passes_bound(games) -> None:
    honest, archive = games["honest"]
    anchor, prints = _held(honest)
    keys = [f"--key={s}={honest.key(s)[1]}" for s in SIDES]
    r = honest.run("audit", "--archive", str(archive), "--anchor", anchor.upper(), *keys)
    assert r.exit_code == 0, r.stderr
    assert f"anchor {anchor} (as you hold it)" in r.stdout
    assert all(p in r.stdout for p in prints.values())


def test_bad_binding_input_is_one_line(games) -> None:
    honest, archive = games["honest"]
    r = honest.run("audit", "--archive", str(archive), "--anchor", "abc")
    assert r.exit_code == 1 and r.stderr.strip().count("\n") == 0 and "64 hex digits" in r.stderr
    r = honest.run("audit", "--archive", str(archive), "--key", f"nobody={honest.key('republic')[1]}")
    assert r.exit_code == 1 and "'nobody' is not a side" in r.stderr
    r = honest.run("audit", "--archive", str(archive), "--key", f"republic={honest.tmp / 'missing.pub'}")
    assert r.exit_code == 1 and "missing.pub" in r.stderr


def test_the_audit_page_and_the_cli_give_the_same_verdict(games) -> None:
    honest, archive = games["honest"]
    r = honest.run("audit", "--archive", str(archive))
    verdict = r.stdout.strip().splitlines()[-1]
    assert re.fullmatch(
        r"verified: \d+ resolutions?, \d+ dice, \d+ signatures?; NMRs: .+; rollbacks: .+; house tables: .+", verdict
    )
    page = honest.tmp / "audit.html"
    assert honest.run("report", "g1", "--format", "audit", "-o", str(page)).exit_code == 0
    assert f"<strong>{verdict}</strong>" in page.read_text()
    site = honest.tmp / "site"
    assert honest.run("site", "g1", "-o", str(site)).exit_code == 0
    assert f"<strong>{verdict}</strong>" in (site / "audit.html").read_text()
