"""Where the time goes: cProfile over one stage of the benchmark's workload, the
internal time summed by package (SQLAlchemy, the rules, pbem modules, ...); or,
with ``--steps``, the Python steps each function takes.

    python bench/profile_stage.py submit|process|reports|audit [--games 300] [--at K] [--steps]

``--at K``: the games are first played by the seeded random bot to resolution K
(the middle of a game, where the budgets measure), then the stage is profiled.
The first game's operation is done before the profiler starts, as a referee's
process has done one already: one-off imports, compiled patterns and the tables a
process keeps are left out, as the budgets' difference of runs leaves them out.

``--steps``: instead of time, the Python steps of each function's own code
(``bench/steps.py``: exact, the same under any load, blind to work done in C, which
valgrind's instruction counts in ``bench/instructions.py`` and ``bench/budgets.py``
see), summed by package as above and listed by function.

docs/performance.md quotes its output.
"""

from __future__ import annotations

import argparse
import collections
import cProfile
import pstats
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

import workload
from steps import Steps, Where

from pbem import store
from pbem.audit import archive
from pbem.audit import verify as audit
from pbem.referee import resolve
from pbem.reports import assemble as reporting
from pbem.store.transaction import transaction


def place(filename: str) -> str:
    """A function's file, from the project's folder or the installed packages'."""
    for top in ("/site-packages/", f"{HERE.parent}/"):
        if top in filename:
            return filename.split(top, 1)[1]
    return Path(filename).name


def group(filename: str, name: str) -> str:
    for package in ("sqlalchemy", "sqlmodel", "pydantic", "jinja2", "cryptography"):
        if f"/{package}/" in filename:
            return package
    if "/rules/" in filename:
        return "rules/" + filename.split("/rules/")[1].split("/")[0]
    if "/pbem/" in filename:
        return "pbem/" + filename.split("/pbem/")[1]
    if "/templates/" in filename:
        return "jinja2"
    if filename == "~":
        return "builtin " + name
    return Path(filename).name


class Times:
    """cProfile's internal time per function, of what :meth:`runcall` runs."""

    def __init__(self) -> None:
        self.profile = cProfile.Profile()

    def runcall(self, func: Callable[..., Any], *args: Any) -> Any:
        return self.profile.runcall(func, *args)

    def totals(self) -> dict[Where, float]:
        stats = pstats.Stats(self.profile).stats  # type: ignore[attr-defined]
        return {where: internal for where, (_cc, _nc, internal, _cum, _callers) in stats.items()}


def play(engine: Any, ids: list[str], players: workload.Players, rounds: int) -> None:
    """The games played by the seeded random bot for ``rounds`` resolutions."""
    for round_ in range(rounds):
        files, _w, _s = workload.write_turns(engine, ids, players, seed=round_)
        workload.submit_all(engine, files)
        workload.process_all(engine, None)


def latest(engine: Any, game_id: str) -> int:
    """The game's latest resolution."""
    with transaction(engine, write=False) as tx:
        return store.known_game(tx, game_id).next_k - 1


def run_stage(stage: str, games: int, at: int, meter: Steps | Times, tmp: Path) -> int:
    """The stage done once unmeasured, then for every other game (every other
    archive) under ``meter``; the operations it counted."""
    players = workload.make_players(tmp / "keys")
    engine = store.open_engine(tmp / "profile.db")
    try:
        if stage == "audit":
            ids, _ = workload.create_games(engine, max(2, games // 100), players)
            for game_id in ids:
                workload.play_whole_game(engine, game_id, players)
            first, *archives = [archive.build_archive(engine, g) for g in ids]
            audit.audit_archive(first)
            meter.runcall(lambda: [audit.audit_archive(a) for a in archives])
            return sum(len(a["resolutions"]) for a in archives)
        ids, _ = workload.create_games(engine, max(2, games), players)
        play(engine, ids, players, at)
        files, _w, _s = workload.write_turns(engine, ids, players, seed=at)
        first = [f for f in files if f.game_id == ids[0]]
        rest = [f for f in files if f.game_id != ids[0]]
        workload.submit_all(engine, first)
        if stage == "submit":
            meter.runcall(workload.submit_all, engine, rest)
            return len(rest)
        workload.submit_all(engine, rest)
        resolve.resolve_next(engine, ids[0])
        if stage == "process":
            meter.runcall(workload.process_all, engine, None)
            return len(ids) - 1
        workload.process_all(engine, None)
        (g0, k0), *made = [(g, latest(engine, g)) for g in ids]
        reporting.write_resolution_reports(engine, g0, k0, tmp / "reports" / g0)
        meter.runcall(lambda: [reporting.write_resolution_reports(engine, g, k, tmp / "reports" / g) for g, k in made])
        return len(made)
    finally:
        engine.dispose()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("stage", choices=["submit", "process", "reports", "audit"])
    parser.add_argument(
        "--games",
        type=int,
        default=300,
        help="games (audit: a hundredth of them); at least 2, the first warms the process",
    )
    parser.add_argument("--at", type=int, default=0, help="play each game to this resolution first")
    parser.add_argument("--steps", action="store_true", help="Python steps per function instead of time")
    parser.add_argument("--top", type=int, default=18)
    args = parser.parse_args(argv)

    meter: Steps | Times = Steps() if args.steps else Times()
    with tempfile.TemporaryDirectory(prefix="pbem-profile-") as tmp:
        count = run_stage(args.stage, args.games, args.at, meter, Path(tmp))
    totals = meter.totals()
    by_group: collections.Counter[str] = collections.Counter()
    for (filename, _line, name), amount in totals.items():
        by_group[group(filename, name)] += amount
    whole = sum(by_group.values())
    unit, scale = ("steps", 1.0) if args.steps else ("ms", 1000.0)
    print(f"{args.stage}: {count} operations, {whole * scale / count:.3f} {unit} each under the profiler")
    for key, amount in by_group.most_common(args.top):
        print(f"  {amount / whole * 100:5.1f}%  {amount * scale / count:9.3f} {unit}  {key}")
    if args.steps:
        print(f"the {args.top} functions taking the most steps:")
        for (filename, line, name), amount in collections.Counter(totals).most_common(args.top):
            print(f"  {amount / whole * 100:5.1f}%  {amount / count:9.1f} steps  {place(filename)}:{line} {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
