"""docs/performance.md's tables are written from bench/results.json by
bench/report.py, never typed: the page must match the file."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.scripts import load_script

ROOT = Path(__file__).resolve().parent.parent


def load_report_module():  # type: ignore[no-untyped-def]
    return load_script("bench/report.py", "bench_report")


def test_the_performance_page_matches_the_benchmark_results() -> None:
    report = load_report_module()
    results = json.loads((ROOT / "bench" / "results.json").read_text(encoding="utf-8"))
    doc = (ROOT / "docs" / "performance.md").read_text(encoding="utf-8")
    budgets = json.loads((ROOT / "bench" / "budgets.json").read_text(encoding="utf-8"))
    assert report.rewrite(doc, report.tables(results), report.budget_tables(budgets)) == doc, (
        "run python bench/report.py after make bench"
    )


def test_every_target_of_the_benchmark_is_on_the_page() -> None:
    report = load_report_module()
    results = json.loads((ROOT / "bench" / "results.json").read_text(encoding="utf-8"))
    assert set(results["targets"]) == set(report.TARGET_NAMES)
    assert set(results["measured"]) == set(results["targets"])


def test_every_instruction_budget_is_on_the_page() -> None:
    report = load_report_module()
    budgets = json.loads((ROOT / "bench" / "budgets.json").read_text(encoding="utf-8"))
    assert set(budgets["budgets"]) == set(report.BUDGET_NAMES) == set(budgets["figures"])
