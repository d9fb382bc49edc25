"""Finding a ruleset without importlib.metadata (rules/registry.py, ``_scanned``):
the same entry points as ``importlib.metadata.entry_points`` on the real path and
on a path made for the test (a distribution found twice, a conflict, comments,
names spelled in other cases, an egg-info), and ``importlib.metadata`` not imported
to find a ruleset."""

from __future__ import annotations

import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

import pytest

from pbem.rules import registry


def _by_metadata() -> dict[str, tuple[str, ...]]:
    found: dict[str, dict[str, None]] = {}
    for ep in entry_points(group=registry.GROUP):
        found.setdefault(ep.name, {}).setdefault(ep.value, None)
    return {name: tuple(values) for name, values in sorted(found.items())}


def _dist(folder: Path, dirname: str, text: str | None) -> None:
    info = folder / dirname
    info.mkdir(parents=True)
    name, _, version = dirname.rpartition(".")[0].partition("-")
    metadata = f"Metadata-Version: 2.1\nName: {name}\nVersion: {version or '1'}\n"
    (info / "METADATA").write_text(metadata, encoding="utf-8")
    if text is not None:
        (info / "entry_points.txt").write_text(text, encoding="utf-8")


def test_the_scan_finds_what_importlib_metadata_finds_here() -> None:
    assert registry._scanned() == _by_metadata()
    assert set(registry._scanned() or {}) >= {"farrapos", "furor-barbarus"}


def test_the_scan_finds_what_importlib_metadata_finds_on_a_made_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    group = f"[{registry.GROUP}]"
    _dist(first, "hill_112-1.0.dist-info", f"# a comment\n\n{group}\nhill-112 = hill112.ruleset:Hill112\n")
    _dist(first, "Other.Pkg-2.0.dist-info", f"[console_scripts]\nx = y:z\n\n  {group}  \n  dup =  a.b:C  \n")
    _dist(second, "hill.112-2.0.dist-info", f"{group}\nhill-113 = never:Seen\n")  # the same distribution: skipped
    _dist(second, "clash-1.0.dist-info", f"{group}\ndup = d.e:F\nhill-112 = other:Hill\n")  # conflicts kept
    _dist(second, "legacy-0.1.egg-info", f"{group}\nold = legacy.mod:Old\n")
    _dist(second, "nothing-1.0.dist-info", None)
    (second / "not-a-dist.txt").write_text("x", encoding="utf-8")
    monkeypatch.setattr(sys, "path", [str(first), str(tmp_path / "missing"), str(second)])
    scanned = registry._scanned()
    assert scanned == _by_metadata()
    assert scanned == {
        "dup": ("a.b:C", "d.e:F"),
        "hill-112": ("hill112.ruleset:Hill112", "other:Hill"),
        "old": ("legacy.mod:Old",),
    }


def test_a_path_the_scan_does_not_cover_goes_to_importlib_metadata(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "some.zip").write_bytes(b"PK")
    monkeypatch.setattr(sys, "path", [*sys.path, str(tmp_path / "some.zip")])
    assert registry._scanned() is None
    monkeypatch.setattr(sys, "path", [*sys.path[:-1], str(tmp_path / "x.egg")])
    assert registry._scanned() is None


def test_a_conflict_is_still_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _dist(tmp_path, "clash-1.0.dist-info", f"[{registry.GROUP}]\nfarrapos = pbem.rules.farrapos.ruleset:Farrapos2\n")
    monkeypatch.setattr(sys, "path", [str(tmp_path), *sys.path])
    registry.forget()
    try:
        with pytest.raises(registry.RulesetLoadError, match="registered more than once"):
            registry.find_ruleset("farrapos")
    finally:
        registry.forget()


def test_finding_a_ruleset_imports_no_importlib_metadata() -> None:
    code = (
        "import sys\n"
        "from pbem.rules import find_ruleset\n"
        "assert find_ruleset('farrapos').id == 'farrapos'\n"
        "assert find_ruleset('furor-barbarus').id == 'furor-barbarus'\n"
        "print('importlib.metadata' in sys.modules)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "False\n"
