"""bench/profile_stage.py --steps: the Python steps of each function, counted exactly."""

from __future__ import annotations

from types import ModuleType

import pytest

from tests.support.scripts import load_script


@pytest.fixture(scope="module")
def profile_stage() -> ModuleType:
    return load_script("bench/profile_stage.py", "bench_profile_stage")


def _each(times: int) -> int:
    total = 0
    for i in range(times):
        total += _step(i)
    return total


def _step(i: int) -> int:
    return i * 2 + 1


def test_steps_count_each_function_s_own_bytecode_exactly(profile_stage: ModuleType) -> None:
    counts = {}
    for times in (1, 10):
        steps = profile_stage.Steps()
        assert steps.runcall(_each, times) == sum(_step(i) for i in range(times))
        counts[times] = {name: n for (_file, _line, name), n in steps.totals().items()}
    # the callee's steps are its own, the same at each call; the caller's loop adds the same steps a turn
    assert counts[10]["_step"] == 10 * counts[1]["_step"] > 0
    assert counts[10]["_each"] > counts[1]["_each"]
    assert set(counts[10]) == {"_each", "_step"}


def test_the_reports_stage_lists_the_steps_of_a_warm_process(
    profile_stage: ModuleType, capsys: pytest.CaptureFixture[str]
) -> None:
    assert profile_stage.main(["reports", "--games", "3", "--at", "1", "--steps", "--top", "40"]) == 0
    out = capsys.readouterr().out
    head, *rows = out.splitlines()
    assert head.startswith("reports: 2 operations, ") and head.endswith(" steps each under the profiler")
    functions = rows[rows.index("the 40 functions taking the most steps:") + 1 :]
    assert len(functions) == 40
    # both sides' pages and the map, by their own files; the one-off work of the first game left out
    named = "\n".join(functions)
    assert "templates/report.html.j2" in named and "rules/farrapos/svg.py" in named
    assert "_place_labels" not in named and "sre_parse" not in out and "_parser.py" not in out


def test_the_audit_stage_audits_every_archive_but_the_first_under_the_profiler(
    profile_stage: ModuleType, capsys: pytest.CaptureFixture[str]
) -> None:
    assert profile_stage.main(["audit", "--games", "2", "--steps", "--top", "5"]) == 0
    head = capsys.readouterr().out.splitlines()[0]
    # two whole games played (at least two, whatever --games asks), the second one's resolutions counted
    assert head.startswith("audit: ") and int(head.split()[1]) > 10
