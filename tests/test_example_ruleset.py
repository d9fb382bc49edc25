"""A ruleset from outside pbem plays through pbem's CLI with no change to pbem:
the example game in examples/hill112 (its own distribution, found through the
``pbem.rulesets`` entry-point group) from ``pbem new`` to ``pbem audit --archive``.

The example is not installed for this test: the ``hill112_installed`` fixture does
what ``pip install -e examples/hill112`` does, in a temporary folder: it puts the
example's folder on ``sys.path`` and writes a ``.dist-info`` holding its entry
point (the lines pip would write into ``entry_points.txt``), so pbem finds it
through ``importlib.metadata`` exactly as it finds an installed one.  Where the
example is installed already, both name the same entry point and count once.
"""

from __future__ import annotations

import json
import os
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest

from pbem.rules import registry
from tests.conftest import Table

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "hill112"


@pytest.fixture
def hill112_installed(tmp_path: Path) -> Iterator[Path]:
    project = tomllib.loads((EXAMPLE / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    site = tmp_path / "site"
    info = site / f"pbem_hill112-{project['version']}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {project['name']}\nVersion: {project['version']}\n", encoding="utf-8"
    )
    lines = [f"{name} = {value}" for name, value in project["entry-points"]["pbem.rulesets"].items()]
    (info / "entry_points.txt").write_text("[pbem.rulesets]\n" + "\n".join(lines) + "\n", encoding="utf-8")
    sys.path[:0] = [str(site), str(EXAMPLE)]
    registry.forget()
    try:
        yield site
    finally:
        sys.path.remove(str(site))
        sys.path.remove(str(EXAMPLE))
        registry.forget()


def test_the_example_is_listed_with_where_it_comes_from(hill112_installed: Path) -> None:
    listed = {info.id: info for info in registry.installed_rulesets()}
    assert {"farrapos", "furor-barbarus", "hill-112"} <= set(listed)
    hill = listed["hill-112"].to_json()
    assert hill["title"] == "Hill 112" and hill["version"] == "1"
    assert hill["scenarios"] == ["july-1944"] and hill["sides"] == {"july-1944": ["british", "germans"]}
    assert hill["from"]["distribution"] == "pbem-hill112"


def test_a_whole_game_through_the_cli(hill112_installed: Path, table: Table) -> None:
    t = table
    _, british = t.key("british")
    _, germans = t.key("germans")
    r = t.run("new", "hill", "--rules", "hill-112", "--player", f"british={british}", "--player", f"germans={germans}")
    assert r.exit_code == 0, r.stderr
    for k in range(1, 40):
        st = json.loads(t.run("status", "hill", "--json").stdout)
        if st["over"]:
            break
        for side in st["awaiting"]:
            path = t.tmp / f"turn-{k}-{side}.txt"
            r = t.run(
                "orders",
                "hill",
                "--side",
                side,
                "--bot",
                ("random", "greedy")[k % 2],
                "--seed",
                str(k),
                "-o",
                str(path),
            )
            assert r.exit_code == 0, r.stderr
            assert t.run("check", str(path)).exit_code == 0
            r = t.run("sign", str(path), "--key", str(t.key(side)[0]))
            assert r.exit_code == 0, r.stderr
            r = t.run("submit", str(path))
            assert r.exit_code == 0, r.stderr
        r = t.run("process", "hill")
        assert r.exit_code == 0, r.stderr
    assert st["over"] and st["result"], st
    for fmt in ("html", "text"):
        r = t.run("report", "hill", "--format", fmt, "-o", str(t.tmp / f"report.{fmt}"))
        assert r.exit_code == 0, r.stderr
    assert "<svg" in (t.tmp / "report.html").read_text(encoding="utf-8")
    r = t.run("site", "hill", "-o", str(t.tmp / "site"))
    assert r.exit_code == 0, r.stderr
    r = t.run("export", "hill", "-o", str(t.tmp / "hill.json"))
    assert r.exit_code == 0, r.stderr
    archive = json.loads((t.tmp / "hill.json").read_text(encoding="utf-8"))
    assert archive["game"]["rules"] == "hill-112" and archive["final"]["over"]
    assert any(roll["purpose"].startswith("attack on") for res in archive["resolutions"] for roll in res["rolls"])
    r = t.run("audit", "--archive", str(t.tmp / "hill.json"))
    assert r.exit_code == 0, r.stderr
    # a separate process finds the example through the same entry point
    env = {"PYTHONPATH": os.pathsep.join([str(hill112_installed), str(EXAMPLE), os.environ.get("PYTHONPATH", "")])}
    done = t.run_subprocess("status", "hill", "--json", env=env)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["rules"] == "hill-112"


def test_a_bad_order_is_refused_by_its_line(hill112_installed: Path, table: Table) -> None:
    t = table
    _, british = t.key("british")
    _, germans = t.key("germans")
    assert (
        t.run(
            "new", "hill", "--rules", "hill-112", "--player", f"british={british}", "--player", f"germans={germans}"
        ).exit_code
        == 0
    )
    path = t.tmp / "turn.txt"
    assert t.run("orders", "hill", "--side", "british", "-o", str(path)).exit_code == 0
    text = path.read_text(encoding="utf-8")
    path.write_text(text + "move inf-1 to maltot\n", encoding="utf-8")
    r = t.run("check", str(path))
    assert r.exit_code == 1
    line = len(text.splitlines()) + 1
    assert f"line {line}" in r.stderr and "no road to maltot" in r.stderr, r.stderr
