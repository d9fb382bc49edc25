"""Where the time goes: cProfile over one stage of the benchmark's workload, the
internal time summed by package (SQLAlchemy, the rules, pbem modules, ...).

    python bench/profile_stage.py submit|process|reports|audit [--games 300]

docs/performance.md quotes its output.
"""

from __future__ import annotations

import argparse
import collections
import cProfile
import pstats
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

import workload

from pbem import store
from pbem.audit import archive
from pbem.audit import verify as audit
from pbem.reports import assemble as reporting


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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("stage", choices=["submit", "process", "reports", "audit"])
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--top", type=int, default=18)
    args = parser.parse_args(argv)

    tmp = Path(tempfile.mkdtemp(prefix="pbem-profile-"))
    players = workload.make_players(tmp / "keys")
    engine = store.open_engine(tmp / "profile.db")
    profile = cProfile.Profile()
    if args.stage == "audit":
        ids, _ = workload.create_games(engine, max(1, args.games // 100), players)
        for game_id in ids:
            workload.play_whole_game(engine, game_id, players)
        archives = [archive.build_archive(engine, g) for g in ids]
        count = sum(len(a["resolutions"]) for a in archives)
        profile.runcall(lambda: [audit.audit_archive(a) for a in archives])
    else:
        ids, _ = workload.create_games(engine, args.games, players)
        files, _w, _s = workload.write_turns(engine, ids, players)
        count = len(ids)
        if args.stage == "submit":
            profile.runcall(workload.submit_all, engine, files)
        else:
            workload.submit_all(engine, files)
            if args.stage == "process":
                profile.runcall(workload.process_all, engine, None)
            else:
                workload.process_all(engine, None)
                profile.runcall(
                    lambda: [reporting.write_resolution_reports(engine, g, 1, tmp / "reports" / g) for g in ids]
                )
    engine.dispose()

    totals: collections.Counter[str] = collections.Counter()
    for (filename, _line, name), (_cc, _nc, internal, _cum, _callers) in pstats.Stats(profile).stats.items():  # type: ignore[attr-defined]
        totals[group(filename, name)] += internal
    whole = sum(totals.values())
    print(f"{args.stage}: {count} operations, {whole * 1000 / count:.3f} ms each under the profiler")
    for key, seconds in totals.most_common(args.top):
        print(f"  {seconds / whole * 100:5.1f}%  {seconds * 1000 / count:7.3f} ms  {key}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
