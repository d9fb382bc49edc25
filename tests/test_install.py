"""The wheel: what it installs into a fresh virtual environment, and how it builds.

The repository keeps its top-level ``rules/`` and ``templates/`` folders; the wheel
installs them as ``pbem.rules`` and ``pbem.templates`` (pyproject.toml maps them),
so site-packages gains no generic top-level name.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    out = tmp_path_factory.mktemp("wheel")
    # Built from a copy: setuptools reuses an in-tree build/ folder, whose leftovers
    # from an older layout would end up in the wheel.
    source = tmp_path_factory.mktemp("source") / "pbem"
    shutil.copytree(
        ROOT,
        source,
        ignore=shutil.ignore_patterns(
            ".git",
            ".venv",
            ".lint",
            ".mypy_cache",
            ".ruff_cache",
            "build",
            "dist",
            "*.egg-info",
            "__pycache__",
            "demo",
            "test-artifacts",
        ),
    )
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-v", "--no-deps", "-w", str(out), str(source)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert built.returncode == 0, built.stderr[-3000:]
    return next(out.glob("pbem-*.whl")), built.stdout + built.stderr


def _fresh_venv(where: Path, wheel: Path, deps: bool) -> Path:
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(where)], check=True, timeout=120)
    python = where / "bin" / "python"
    install = [sys.executable, "-m", "pip", "--python", str(python), "install", "-q", str(wheel)]
    subprocess.run(install if deps else [*install, "--no-deps"], check=True, capture_output=True, timeout=600)
    return python


def _site_packages(python: Path) -> Path:
    out = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    )
    return Path(out.stdout.strip())


@pytest.mark.slow
def test_wheel_installs_only_the_pbem_name(wheel: tuple[Path, str], tmp_path: Path) -> None:
    """Installed into a fresh venv (slow: the default run reads the wheel's top-level
    names in ``test_wheel_ships_templates_and_rules_data``)."""
    python = _fresh_venv(tmp_path / "venv", wheel[0], deps=False)
    names = sorted(p.name for p in _site_packages(python).iterdir() if p.name != "__pycache__")
    assert names == ["pbem", "pbem-0.1.0.dist-info"]
    # The rules engines and their data load from the installed package, not the clone.
    probe = (
        "from pbem.rules import find_ruleset; import pbem.templates as t, pathlib; "
        "r = find_ruleset('furor-barbarus'); p = r.setup('vouille', []); "
        "print(r.__module__, sorted(q.name for q in pathlib.Path(t.__file__).parent.glob('*.j2'))[0])"
    )
    ran = subprocess.run([str(python), "-c", probe], capture_output=True, text=True, cwd=tmp_path, timeout=60)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.split() == ["pbem.rules.furor_barbarus.ruleset", "audit.html.j2"]


def test_wheel_ships_templates_and_rules_data(wheel: tuple[Path, str]) -> None:
    import zipfile

    names = set(zipfile.ZipFile(wheel[0]).namelist())
    assert {name.split("/")[0] for name in names} == {"pbem", "pbem-0.1.0.dist-info"}  # no other top-level name
    for required in (
        "pbem/templates/report.html.j2",
        "pbem/templates/report.txt.j2",
        "pbem/templates/report_parts.html.j2",
        "pbem/templates/report_parts.txt.j2",
        "pbem/templates/report.css",
        "pbem/templates/audit.html.j2",
        "pbem/rules/farrapos/data/board.toml",
        "pbem/rules/farrapos/data/counters.toml",
        "pbem/rules/furor_barbarus/data/crt.toml",
        "pbem/rules/furor_barbarus/data/scenarios/vouille.toml",
        "pbem/rules/furor_barbarus/data/maps/campus-mauriacus.toml",
    ):
        assert required in names, f"the wheel lacks {required}"


def test_wheel_builds_without_warnings(wheel: tuple[Path, str]) -> None:
    """No Python warning from the build backend (setuptools deprecations come as
    ``SetuptoolsDeprecationWarning`` / ``BuildBackendWarning`` blocks)."""
    warnings = [line.strip() for line in wheel[1].splitlines() if re.search(r"[A-Za-z]Warning\b", line)]
    assert warnings == []


def test_every_package_folder_is_listed_in_pyproject() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(config["packages"])
    mapping = {"pbem": ROOT / "pbem", **{name: ROOT / path for name, path in config["package-dir"].items()}}
    folders = set()
    for name, base in mapping.items():
        for folder in [base, *(p for p in base.rglob("*") if p.is_dir() and p.name != "__pycache__")]:
            if any(f.suffix in {".py", ".toml", ".j2", ".json", ".css"} for f in folder.iterdir() if f.is_file()):
                folders.add(".".join([name, *folder.relative_to(base).parts]))
    assert folders - listed == set(), "add these packages to [tool.setuptools] packages in pyproject.toml"


def test_nothing_imports_the_bare_folder_names() -> None:
    """``rules`` and ``templates`` import as ``pbem.rules`` and ``pbem.templates``;
    importing both spellings would load every module twice."""
    bare = re.compile(r"^\s*(from|import)\s+(rules|templates)\b", re.MULTILINE)
    offenders = [
        str(p.relative_to(ROOT))
        for folder in ("pbem", "rules", "templates", "tests", "bench", "tools")
        for p in (ROOT / folder).rglob("*.py")
        if bare.search(p.read_text(encoding="utf-8"))
    ]
    assert offenders == []


@pytest.mark.slow
def test_wheel_with_its_dependencies_runs_the_cli(wheel: tuple[Path, str], tmp_path: Path) -> None:
    python = _fresh_venv(tmp_path / "venv", wheel[0], deps=True)
    pbem = python.parent / "pbem"
    subprocess.run([str(pbem), "keygen", "alice"], cwd=tmp_path, check=True, capture_output=True)
    subprocess.run([str(pbem), "keygen", "bob"], cwd=tmp_path, check=True, capture_output=True)
    made = subprocess.run(
        [str(pbem), "new", "g", "--rules", "farrapos", "--player", "republic=alice.pub", "--player", "empire=bob.pub"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert made.returncode == 0, made.stderr
    report = subprocess.run(
        [str(pbem), "report", "g", "--side", "republic", "--format", "html", "-o", "r.html"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert report.returncode == 0, report.stderr
    assert "<svg" in (tmp_path / "r.html").read_text()


def test_docs_link_only_inside_the_repository() -> None:
    """Every relative link or path named in README.md and docs/ resolves to a file
    of the repository (no ``../shared/...``: that folder is not shipped)."""
    outside = []
    for page in [ROOT / "README.md", *(ROOT / "docs").rglob("*.md")]:
        text = page.read_text(encoding="utf-8")
        for target in re.findall(r"\]\(([^)#\s]+)", text):
            if "://" in target or target.startswith("mailto:"):
                continue
            resolved = (page.parent / target).resolve()
            if not resolved.is_relative_to(ROOT) or not resolved.exists():
                outside.append(f"{page.relative_to(ROOT)}: {target}")
        outside += [f"{page.relative_to(ROOT)}: {m}" for m in re.findall(r"\.\./shared/\S+", text)]
    assert outside == []
