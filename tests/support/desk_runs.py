"""Several ``pbem`` processes run at once on a desk, and rounds of them resolving
every game exactly once (the concurrency and PostgreSQL tests)."""

from __future__ import annotations

import re
import subprocess

from tests.support.desk import (
    Desk,
    assert_sound,
    queue_next_turns,
    queued_count,
)

MADE = re.compile(r"^(\d+) resolution\(s\) made", re.MULTILINE)


def run_together(desk: Desk, commands: list[tuple[str, ...]]) -> list[subprocess.CompletedProcess[str]]:
    """Start every command at once; wait for all of them."""
    procs = [(cmd, desk.popen(*cmd)) for cmd in commands]
    done = []
    for cmd, proc in procs:
        out, err = proc.communicate(timeout=600)
        done.append(subprocess.CompletedProcess(list(cmd), proc.returncode, out, err))
    return done


def made(result: subprocess.CompletedProcess[str]) -> int:
    found = MADE.search(result.stdout)
    assert found, f"no summary line in {result.stdout!r}"
    return int(found.group(1))


def resolve_rounds(desk: Desk, games: list[str], processes: int, rounds: int, jobs: int = 1) -> None:
    """``rounds`` times: queue one turn per game, then ``processes`` processes run
    ``process --all`` together (each with ``jobs`` worker processes); the
    resolutions they report add up to exactly one per game, and each game moved
    exactly one resolution on."""
    for n in range(rounds):
        before = assert_sound(desk, f"round {n + 1} queueing")
        queue_next_turns(desk, games, seed=n)
        results = run_together(desk, [("process", "--all", "-q", "--jobs", str(jobs))] * processes)
        for r in results:
            assert r.returncode == 0, r.stderr
            assert "Traceback" not in r.stderr
        assert sum(made(r) for r in results) == len(games), [r.stdout for r in results]
        after = assert_sound(desk, f"round {n + 1}")
        assert {g: after[g] - before[g] for g in games} == {g: 1 for g in games}
        assert queued_count(desk) == 0
